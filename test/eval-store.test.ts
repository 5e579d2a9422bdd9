// Eval bookkeeping that runs in every `bun test` (no agent, no network): the result files, eval:compare and
// eval:summary on runs written here, the planted-bug score of a QA report, and the judge's reply parser.
import type Anthropic from '@anthropic-ai/sdk';
import { afterEach, beforeEach, describe, expect, test } from 'bun:test';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { compareRuns, defaultPair, notEnoughRunsMessage, previousRun } from '../scripts/eval-compare.ts';
import { flakyTests, statsByTest, summarizeRuns } from '../scripts/eval-summary.ts';
import { createEvalCollector, evalsDir, evalsEnabled, fileTimestamp, isEvalRun, loadRuns, writeJsonAtomic, type EvalRun, type EvalTestRecord, type StoredRun } from './helpers/eval-store.ts';
import { DEFAULT_JUDGE_MODEL, JUDGE_PRICES_USD_PER_MTOK, judgeCostUsd, judgeModel, judgePassed, judgeSection, markdownSection, parseJudgeJSON, stripFrontmatter } from './helpers/llm-judge.ts';
import { loadPlantedBugs, scorePlantedBugs, type PlantedBug } from './helpers/qa-app.ts';

const ROOT = join(import.meta.dir, '..');
const GIT = { branch: 'main', commit: 'abc1234' };

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'gstack-evals-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const rec = (name: string, passed: boolean, extra: Partial<EvalTestRecord> = {}): EvalTestRecord => ({ name, tier: 2, passed, exitReason: passed ? 'success' : 'error_max_turns', turns: 10, toolCalls: 12, costUsd: 0.5, durationMs: 60_000, ...extra });
const readJson = (path: string) => JSON.parse(readFileSync(path, 'utf8'));

/** A stored run built in memory, as loadRuns would return it. */
function stored(file: string, tests: EvalTestRecord[], kind = 'e2e', finishedAt = '2026-11-22T10:10:00.000Z'): StoredRun {
  const passed = tests.filter((t) => t.passed).length;
  const run: EvalRun = {
    schemaVersion: 1,
    kind,
    tier: kind === 'e2e' ? 2 : 3,
    startedAt: '2026-11-22T10:00:00.000Z',
    finishedAt,
    git: GIT,
    totals: { tests: tests.length, passed, failed: tests.length - passed, costUsd: tests.reduce((s, t) => s + t.costUsd, 0), durationMs: tests.reduce((s, t) => s + t.durationMs, 0) },
    tests,
  };
  return { file, run };
}

describe('eval store', () => {
  test('the partial file is rewritten after every recorded test, through a rename (no temp files left)', () => {
    const evals = createEvalCollector({ kind: 'e2e', tier: 2, dir, git: GIT });
    expect(existsSync(evals.partialPath)).toBe(false);
    evals.record(rec('browse', true));
    expect(evals.partialPath).toBe(join(dir, '_partial-e2e.json'));
    expect(readJson(evals.partialPath).tests.map((t: EvalTestRecord) => t.name)).toEqual(['browse']);
    evals.record(rec('qa', false, { costUsd: 1.25, scores: { plantedBugsFound: 1, plantedBugsTotal: 3 } }));
    const partial = readJson(evals.partialPath);
    expect(partial.finishedAt).toBeNull();
    expect(partial.totals).toEqual({ tests: 2, passed: 1, failed: 1, costUsd: 1.75, durationMs: 120_000 });
    expect(partial.tests[1].scores).toEqual({ plantedBugsFound: 1, plantedBugsTotal: 3 });
    expect(readdirSync(dir)).toEqual(['_partial-e2e.json']);
  });

  test('writeJsonAtomic replaces the file whole and leaves only it', () => {
    const path = join(dir, 'x.json');
    writeFileSync(path, '{"old":true}');
    writeJsonAtomic(path, { new: [1, 2] });
    expect(readJson(path)).toEqual({ new: [1, 2] });
    expect(readdirSync(dir)).toEqual(['x.json']);
  });

  test('finalize writes <UTC timestamp>-<kind>.json with tier, git and totals, and removes the partial', () => {
    const times = [new Date('2026-11-22T10:00:00.000Z'), new Date('2026-11-22T10:31:05.789Z')];
    const evals = createEvalCollector({ kind: 'e2e', tier: 2, dir, git: GIT, now: () => times.shift()! });
    evals.record(rec('browse', true, { turns: 7 }));
    evals.record(rec('qa', true, { costUsd: 1 }));
    const path = evals.finalize();
    expect(path).toBe(join(dir, '2026-11-22T10-31-05Z-e2e.json'));
    expect(readdirSync(dir)).toEqual(['2026-11-22T10-31-05Z-e2e.json']);
    const run = readJson(path!);
    expect(run).toMatchObject({ schemaVersion: 1, kind: 'e2e', tier: 2, startedAt: '2026-11-22T10:00:00.000Z', finishedAt: '2026-11-22T10:31:05.789Z', git: GIT });
    expect(run.totals).toEqual({ tests: 2, passed: 2, failed: 0, costUsd: 1.5, durationMs: 120_000 });
    expect(run.tests[0]).toEqual(rec('browse', true, { turns: 7 }));
  });

  test('two runs finishing in the same second get distinct files, loaded in the order they were written; a run with no tests writes none', () => {
    // The second file, `…-2.json`, sorts before the first as text; the newest run must still be the second.
    for (const [i, finished] of ['2026-11-22T10:31:05.000Z', '2026-11-22T10:31:05.000Z', '2026-11-22T10:31:05.400Z'].entries()) {
      const times = [new Date('2026-11-22T10:00:00Z'), new Date(finished)];
      const evals = createEvalCollector({ kind: 'llm-judge', tier: 3, dir, git: GIT, now: () => times.shift()! });
      evals.record(rec(`run-${i + 1}`, true));
      evals.finalize();
    }
    const empty = createEvalCollector({ kind: 'e2e', tier: 2, dir, git: GIT, now: () => new Date('2026-11-22T10:31:05Z') });
    expect(empty.finalize()).toBeNull();
    expect(readdirSync(dir).sort()).toEqual(['2026-11-22T10-31-05Z-llm-judge-2.json', '2026-11-22T10-31-05Z-llm-judge-3.json', '2026-11-22T10-31-05Z-llm-judge.json']);
    const runs = loadRuns(dir);
    expect(runs.map((s) => s.run.tests[0].name)).toEqual(['run-1', 'run-2', 'run-3']);
    expect(defaultPair(runs)?.map((s) => s.run.tests[0].name)).toEqual(['run-2', 'run-3']);
    expect(defaultPair(runs.slice(0, 2))?.map((s) => s.file)).toEqual(['2026-11-22T10-31-05Z-llm-judge.json', '2026-11-22T10-31-05Z-llm-judge-2.json']);
  });

  test('if finalize fails before the final file is written, the partial file is kept', () => {
    const times = [new Date('2026-11-22T10:00:00Z'), new Date(Number.NaN)]; // an unusable clock at finalize
    const evals = createEvalCollector({ kind: 'e2e', tier: 2, dir, git: GIT, now: () => times.shift()! });
    evals.record(rec('browse', true));
    expect(() => evals.finalize()).toThrow();
    expect(readdirSync(dir)).toEqual(['_partial-e2e.json']);
    expect(readJson(evals.partialPath).tests.map((t: EvalTestRecord) => t.name)).toEqual(['browse']);
  });

  test('the evals dir is ~/.gstack-dev/evals unless GSTACK_EVALS_DIR says otherwise; EVALS=1 opts in', () => {
    expect(evalsDir({})).toBe(join(homedir(), '.gstack-dev', 'evals'));
    expect(evalsDir({ GSTACK_EVALS_DIR: dir })).toBe(dir);
    expect([evalsEnabled({}), evalsEnabled({ EVALS: '0' }), evalsEnabled({ EVALS: '1' }), evalsEnabled({ EVALS: 'true' })]).toEqual([false, false, true, true]);
    expect(fileTimestamp(new Date('2026-01-02T03:04:05.006Z'))).toBe('2026-01-02T03-04-05Z');
  });

  test('loadRuns returns final runs oldest first, skipping the partial and unreadable files', () => {
    writeJsonAtomic(join(dir, '2026-11-23T09-00-00Z-e2e.json'), stored('', [rec('a', true)], 'e2e', '2026-11-23T09:00:00.000Z').run);
    writeJsonAtomic(join(dir, '2026-11-21T09-00-00Z-e2e.json'), stored('', [rec('a', false)], 'e2e', '2026-11-21T09:00:00.000Z').run);
    writeJsonAtomic(join(dir, '_partial-e2e.json'), stored('', [rec('a', true)]).run);
    writeFileSync(join(dir, '2026-11-22T09-00-00Z-e2e.json'), '{"truncated": ');
    writeFileSync(join(dir, 'notes.json'), '{"hello": "world"}');
    writeFileSync(join(dir, 'null-totals.json'), '{"kind": "e2e", "tests": [], "totals": null}');
    expect(loadRuns(dir).map((r) => r.file)).toEqual(['2026-11-21T09-00-00Z-e2e.json', '2026-11-23T09-00-00Z-e2e.json']);
    expect(loadRuns(join(dir, 'missing'))).toEqual([]);
  });

  test('the order is the finish time recorded in each run, not the file name; a run without one falls back to its name', () => {
    const at = (file: string, finishedAt: string | null) => writeJsonAtomic(join(dir, file), { ...stored('', [rec(file, true)]).run, finishedAt, startedAt: finishedAt ?? 'unknown' });
    at('b-renamed-e2e.json', '2026-11-22T09:00:00.500Z');
    at('a-renamed-e2e.json', '2026-11-22T09:00:00.900Z');
    at('2026-11-22T08-00-00Z-e2e.json', null);
    expect(loadRuns(dir).map((r) => r.file)).toEqual(['2026-11-22T08-00-00Z-e2e.json', 'b-renamed-e2e.json', 'a-renamed-e2e.json']);
  });

  test('isEvalRun: a kind, a tests array and a totals object', () => {
    const run = stored('', [rec('a', true)]).run;
    expect(isEvalRun(run)).toBe(true);
    expect([null, 'x', { ...run, kind: 1 }, { ...run, tests: {} }, { ...run, totals: null }].map(isEvalRun)).toEqual([false, false, false, false, false]);
  });
});

describe('eval:compare', () => {
  const before = stored('2026-11-21T09-00-00Z-e2e.json', [
    rec('browse', true, { costUsd: 0.21, turns: 12 }),
    rec('qa', false, { costUsd: 1.1, turns: 80, durationMs: 600_000, scores: { plantedBugsFound: 1, plantedBugsTotal: 3 } }),
    rec('old-case', true),
  ]);
  const after = stored('2026-11-22T09-00-00Z-e2e.json', [
    rec('browse', false, { costUsd: 0.19, turns: 10 }),
    rec('qa', true, { costUsd: 1.1, turns: 64, durationMs: 540_000, scores: { plantedBugsFound: 3, plantedBugsTotal: 3 } }),
    rec('new-case', true),
  ]);

  test('names fixed, regressed, new and removed tests with cost, turns and duration deltas', () => {
    const text = compareRuns(before, after);
    const line = (name: string) => text.split('\n').find((l) => l.trimStart().startsWith(`${name} `)) ?? '';
    expect(line('browse')).toContain('PASS → FAIL');
    expect(line('browse')).toContain('$0.21 → $0.19 (-$0.02)');
    expect(line('browse')).toContain('12 → 10 (-2)');
    expect(line('browse')).toContain('REGRESSED');
    expect(line('qa')).toContain('FAIL → PASS');
    expect(line('qa')).toContain('10m → 9m (-1m)');
    expect(line('qa')).toContain('FIXED');
    expect(line('new-case')).toContain('— → PASS');
    expect(line('old-case')).toContain('PASS → —');
    expect(text).toContain('qa: plantedBugsFound 1 → 3');
    expect(text).toContain('Changes: 1 fixed, 1 regressed, 1 new, 1 removed');
    expect(text).toContain('Totals: passed 2/3 → 2/3, cost $1.81 → $1.79 (-$0.02)');
    expect(text).toContain('main @ abc1234');
  });

  test('by default compares the newest run with the previous run of the same kind', () => {
    const judge = stored('2026-11-23T09-00-00Z-llm-judge.json', [rec('doc', true)], 'llm-judge');
    const newest = stored('2026-11-24T09-00-00Z-e2e.json', [rec('browse', true)]);
    expect(defaultPair([before, judge, newest])?.map((s) => s.file)).toEqual([before.file, newest.file]);
    expect(defaultPair([before, judge])).toBeNull();
    expect(defaultPair([])).toBeNull();
  });

  test('given one run, compares it with the newest older run of its kind, whatever order the runs come in', () => {
    const newest = stored('2026-11-24T09-00-00Z-e2e.json', [rec('browse', true)]);
    expect(previousRun([newest, after, before], after)?.file).toBe(before.file);
    expect(previousRun([before, after, newest], newest)?.file).toBe(after.file);
    expect(previousRun([after, newest], before)).toBeUndefined();
  });

  test('says clearly when there is nothing to compare', () => {
    expect(notEnoughRunsMessage([], '/x/evals')).toContain('found no eval runs in /x/evals');
    expect(notEnoughRunsMessage([before], '/x/evals')).toContain(`found only one e2e run (${before.file})`);
  });

  test('the script exits 1 with that message when the evals dir has fewer than two runs, and compares two', async () => {
    const run = async () => {
      const proc = Bun.spawn([process.execPath, join(ROOT, 'scripts', 'eval-compare.ts')], { env: { ...process.env, GSTACK_EVALS_DIR: dir }, stdout: 'pipe', stderr: 'pipe' });
      const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
      return { out, err, code };
    };
    writeJsonAtomic(join(dir, before.file), before.run);
    const one = await run();
    expect(one.code).toBe(1);
    expect(one.err).toContain('needs two runs');
    writeJsonAtomic(join(dir, after.file), after.run);
    const two = await run();
    expect(two.code).toBe(0);
    expect(two.out).toContain('Changes: 1 fixed, 1 regressed, 1 new, 1 removed');
  });
});

describe('eval:summary', () => {
  const runs = [
    stored('2026-11-20T09-00-00Z-e2e.json', [rec('browse', true, { costUsd: 0.2, turns: 10 }), rec('qa', false, { costUsd: 1, turns: 80 })]),
    stored('2026-11-21T09-00-00Z-llm-judge.json', [rec('doc', true, { costUsd: 0, turns: undefined, tier: 3 })], 'llm-judge'),
    stored('2026-11-22T09-00-00Z-e2e.json', [rec('browse', true, { costUsd: 0.4, turns: 12 }), rec('qa', true, { costUsd: 1.2, turns: 60 })]),
  ];

  test('pass rate, flakiness and averages per test', () => {
    const stats = statsByTest(runs);
    expect(stats.map((s) => [s.name, s.kind, s.runs, s.passed])).toEqual([['browse', 'e2e', 2, 2], ['qa', 'e2e', 2, 1], ['doc', 'llm-judge', 1, 1]]);
    expect(stats[0].avgCostUsd).toBeCloseTo(0.3);
    expect(stats[1].avgTurns).toBe(70);
    expect(stats[2].avgTurns).toBeNull();
    expect(flakyTests(stats).map((s) => s.name)).toEqual(['qa']);
  });

  test('the text: runs by kind, total spend, a row per test, the flaky list', () => {
    const text = summarizeRuns(runs, '/x/evals');
    expect(text).toContain('3 runs (2 e2e, 1 llm-judge) in /x/evals');
    expect(text).toContain('total spend $2.80');
    expect(text).toContain('tests passed 80% (4/5)');
    expect(text).toMatch(/qa\s+e2e\s+2\s+50% \(1\/2\)\s+\$1\.10\s+70\.0\s+1m/);
    expect(text).toMatch(/doc\s+llm-judge\s+1\s+100% \(1\/1\)\s+\$0\.00\s+—/);
    expect(text).toContain('Flaky tests (passed in some runs, failed in others):\n  qa: passed 1 of 2');
  });

  test('no runs: says so and how to record one', () => {
    expect(summarizeRuns([], '/x/evals')).toContain('no eval runs in /x/evals yet');
    expect(summarizeRuns(runs.slice(0, 1), '/x')).toContain('Flaky tests: none');
  });
});

describe('planted-bug score of a QA report', () => {
  const bugs = loadPlantedBugs();

  test('the fixture lists three bugs, each with keyword groups', () => {
    expect(bugs.map((b) => b.id)).toEqual(['checkout-order-fails', 'home-console-typeerror', 'footer-shipping-404']);
    for (const b of bugs) expect(b.keywordGroups.length).toBeGreaterThanOrEqual(2);
  });

  test('a report that describes all three names all three', () => {
    const report = [
      '# QA report: Fernhill Goods',
      '',
      '## ISSUE-001: Checkout fails with valid details (critical)',
      'Steps: add a mug, go to /checkout.html, fill every field validly, click Place order.',
      'Actual: "Sorry, something went wrong and your order was not placed." POST /api/orders → 404.',
      '',
      '## ISSUE-002: Uncaught error in the console on the home page (medium)',
      "Console: Uncaught Cannot read properties of null (reading 'map') right after load of /.",
      '',
      '## ISSUE-003: Footer link "Shipping & returns" is broken (low)',
      '/shipping.html returns 404 Not Found.',
    ].join('\n');
    expect(scorePlantedBugs(report, bugs)).toEqual({ found: ['checkout-order-fails', 'home-console-typeerror', 'footer-shipping-404'], missed: [], total: 3 });
  });

  test('matching ignores case; a table row is enough', () => {
    const report = '| Page | Issue |\n|---|---|\n| FOOTER | SHIPPING & RETURNS LINK → 404 |\n| Home | TypeError at page load |';
    expect(scorePlantedBugs(report, bugs).found).toEqual(['home-console-typeerror', 'footer-shipping-404']);
  });

  test('a clean report, and one whose words sit far apart, name nothing', () => {
    const clean = 'Tested the home page, products, cart and checkout. No console errors on the home page. All links work; the order was placed.';
    expect(scorePlantedBugs(clean, bugs).found).toEqual([]);
    const scattered = ['Pages: home, checkout, about.', ...Array(10).fill('Looked fine.'), 'Network: one request failed (status 404).', ...Array(10).fill('-'), 'Shipping info is clear.'].join('\n');
    expect(scorePlantedBugs(scattered, bugs).found).toEqual([]);
  });

  test('the checkout 404 does not also count as the dead shipping link', () => {
    const report = 'Checkout: placing an order fails, POST /api/orders returns 404 (shipping address was filled in).';
    expect(scorePlantedBugs(report, bugs).found).toEqual(['checkout-order-fails']);
  });

  test('keywords match whole words only', () => {
    const bug: PlantedBug = { id: 'x', title: '', page: '', where: '', keywordGroups: [['dead'], ['link']] };
    expect(scorePlantedBugs('the deadline for linking', [bug]).found).toEqual([]);
    expect(scorePlantedBugs('a dead link', [bug]).found).toEqual(['x']);
  });
});

describe("the judge's reply parser", () => {
  const good = { clarity: { score: 4, reason: 'Plain.' }, completeness: { score: 3, reason: 'No errors {covered}.' }, actionability: { score: 5, reason: 'Exact commands.' } };

  test('plain JSON', () => {
    expect(parseJudgeJSON(JSON.stringify(good))).toEqual(good);
  });

  test('JSON in a code fence, or among prose, with braces inside reason strings', () => {
    expect(parseJudgeJSON(`Here are my scores:\n\`\`\`json\n${JSON.stringify(good, null, 2)}\n\`\`\`\nThanks.`)).toEqual(good);
    expect(parseJudgeJSON(`Scores {draft} below. ${JSON.stringify(good)} Hope this helps.`)).toEqual(good);
  });

  test('flat scores with _reason keys, numeric strings, a scores wrapper, keys in any case', () => {
    expect(parseJudgeJSON('{"Clarity": "4", "clarity_reason": "ok", "completeness": 5, "ACTIONABILITY": 4.0}')).toEqual({
      clarity: { score: 4, reason: 'ok' },
      completeness: { score: 5, reason: '' },
      actionability: { score: 4, reason: '' },
    });
    expect(parseJudgeJSON(JSON.stringify({ scores: good }))).toEqual(good);
  });

  test('a missing criterion, a score out of 1–5, or no JSON at all is an error', () => {
    expect(() => parseJudgeJSON(JSON.stringify({ clarity: good.clarity, completeness: good.completeness }))).toThrow('no JSON with clarity, completeness, actionability');
    expect(() => parseJudgeJSON(JSON.stringify({ ...good, clarity: { score: 7, reason: '' } }))).toThrow();
    expect(() => parseJudgeJSON(JSON.stringify({ ...good, clarity: { score: 0, reason: '' } }))).toThrow();
    expect(() => parseJudgeJSON('I would rate this section highly.')).toThrow();
  });

  test('judgeSection sends the rubric and the section to the model from EVALS_JUDGE_MODEL, and parses the reply (stub client)', async () => {
    const requests: { model: string; system: string; messages: { content: string }[] }[] = [];
    const client = {
      messages: {
        create: async (req: (typeof requests)[number]) => {
          requests.push(req);
          return { content: [{ type: 'text', text: `Scores:\n${JSON.stringify(good)}` }], usage: { input_tokens: 120, output_tokens: 40 } };
        },
      },
    };
    const verdict = await judgeSection({ title: 'Command reference', context: 'An agent picks commands.', content: '## Commands\n`$B goto <url>`' }, { client: client as unknown as Anthropic, model: judgeModel({ EVALS_JUDGE_MODEL: 'claude-test-judge' }) });
    expect(requests[0].model).toBe('claude-test-judge');
    expect(requests[0].system).toContain('clarity');
    expect(requests[0].messages[0].content).toContain('`$B goto <url>`');
    expect(verdict).toMatchObject({ scores: good, passed: false, model: 'claude-test-judge', inputTokens: 120, outputTokens: 40, costUsd: 0 });
    expect(verdict.costNote).toContain('no price on file for claude-test-judge');
    expect(judgeModel({})).toBe(DEFAULT_JUDGE_MODEL);
    const priced = await judgeSection({ title: 't', context: 'c', content: 'x' }, { client: client as unknown as Anthropic, model: 'claude-haiku-4-5' });
    expect(priced).toMatchObject({ costUsd: 0.00032, costNote: null }); // 120 × $1 + 40 × $5 per million
  });

  test('judge cost: tokens × the per-million price of the model, for the default model too; unknown models cost 0 with a note', () => {
    expect(JUDGE_PRICES_USD_PER_MTOK[DEFAULT_JUDGE_MODEL]).toBeDefined();
    expect(judgeCostUsd('claude-sonnet-5-5', 1_000_000, 0)).toEqual({ costUsd: 2, note: null });
    expect(judgeCostUsd('claude-sonnet-5-5', 0, 1_000_000)).toEqual({ costUsd: 10, note: null });
    expect(judgeCostUsd('claude-sonnet-5-5', 3_000, 250)).toEqual({ costUsd: 0.0085, note: null }); // 0.006 + 0.0025
    expect(judgeCostUsd('claude-opus-5-5', 12_345, 678).costUsd).toBe(0.06294); // 0.04938 + 0.01356
    expect(judgeCostUsd('claude-haiku-4-5-20251001', 1_000, 1_000).costUsd).toBe(0.006);
    expect(judgeCostUsd('claude-sonnet-5-5', 0, 0).costUsd).toBe(0);
    const unknown = judgeCostUsd('some-other-model', 5_000, 500);
    expect(unknown.costUsd).toBe(0);
    expect(unknown.note).toContain('no price on file for some-other-model');
  });

  test('a section passes only when every criterion reaches the minimum (4)', () => {
    expect(judgePassed(parseJudgeJSON(JSON.stringify(good)))).toBe(false);
    expect(judgePassed(parseJudgeJSON(JSON.stringify({ ...good, completeness: { score: 4, reason: '' } })))).toBe(true);
  });
});

describe('markdown sections for the judge', () => {
  const doc = ['---', 'name: browse', '---', '# browse', 'intro', '## Command reference', '### Navigate', 'goto', '```sh', '# not a heading', '```', '## Snapshot flags', '-i', '## Snapshotting tips'].join('\n');

  test('a section runs to the next heading of the same or a higher level, skipping code fences', () => {
    expect(markdownSection(doc, /command reference/i)).toBe(['## Command reference', '### Navigate', 'goto', '```sh', '# not a heading', '```'].join('\n'));
    expect(markdownSection(doc, /snapshot/i)).toBe('## Snapshot flags\n-i');
    expect(markdownSection(doc, /not a heading/)).toBeNull();
  });

  test('front matter is dropped', () => {
    expect(stripFrontmatter(doc).startsWith('# browse\n')).toBe(true);
  });
});
