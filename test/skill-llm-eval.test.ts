// Tier 3 (EVALS=1 and ANTHROPIC_API_KEY, costs money): an LLM judge scores sections of the generated skill
// docs on clarity, completeness and actionability; every section must reach JUDGE_PASS_MIN.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createEvalCollector, evalsEnabled, type EvalCollector } from './helpers/eval-store.ts';
import { CRITERIA, JUDGE_PASS_MIN, judgeSection, markdownSection, stripFrontmatter, type DocSection } from './helpers/llm-judge.ts';

const ROOT = join(import.meta.dir, '..');
const MAX_SECTION_CHARS = 60_000;

function skipReason(): string | null {
  if (!evalsEnabled()) return 'set EVALS=1 to run (costs money)';
  if (!process.env.ANTHROPIC_API_KEY) return 'ANTHROPIC_API_KEY is not set (the judge calls the Anthropic API)';
  return null;
}

const SKIP = skipReason();
if (SKIP) console.log(`skill-llm-eval: skipped — ${SKIP}`);

interface Target {
  name: string;
  file: string;
  /** Headings tried in order; [] judges the whole doc. */
  headings: RegExp[];
  /** Judge the whole doc when no heading matches (rather than fail). */
  wholeDocFallback: boolean;
  title: string;
  context: string;
}

const TARGETS: Target[] = [
  {
    name: 'browse-command-reference',
    file: 'SKILL.md',
    headings: [/command reference/i, /^commands$/i],
    wholeDocFallback: false,
    title: 'browse skill (SKILL.md): the command reference',
    context: 'An AI coding agent drives a headless browser by running `$B <command>` in a shell. It uses this reference to choose the right command and arguments for any task (navigate, read, inspect, interact, screenshot, tabs, cookies) without running `help` first.',
  },
  {
    name: 'browse-snapshot-flags',
    file: 'SKILL.md',
    headings: [/snapshot flags/i, /snapshot/i],
    wholeDocFallback: false,
    title: 'browse skill (SKILL.md): the snapshot command and its flags',
    context: 'The agent uses `$B snapshot` to see a page as an accessibility tree with @e refs, then acts on elements by ref. This section must let it pick the right flags (interactive only, compact, depth, scope, diff, annotated screenshot…) and use refs correctly.',
  },
  {
    name: 'qa-methodology',
    file: join('qa', 'SKILL.md'),
    headings: [/^QA method/i, /methodology/i],
    wholeDocFallback: true,
    title: 'qa skill (qa/SKILL.md): the QA methodology',
    context: 'The agent runs a systematic QA pass of a web app through `$B` (full, quick or regression mode), explores each page with a checklist, classifies issues by severity and category, computes a health score and writes a report whose every issue has repro steps and a screenshot path.',
  },
  {
    name: 'setup-browser-cookies',
    file: join('setup-browser-cookies', 'SKILL.md'),
    headings: [],
    wholeDocFallback: true,
    title: 'setup-browser-cookies skill (setup-browser-cookies/SKILL.md)',
    context: "The agent imports the user's cookies from their real browser (Chrome, Arc, Brave, Edge…) into the headless session, so it can test pages behind a login; it must handle the picker, the direct import, keychain prompts and failures, and verify the result.",
  },
];

/** The section of the target's doc to judge, and how it was found; throws when the doc or section is missing. */
function sectionOf(target: Target): { section: DocSection; note: string } {
  const path = join(ROOT, target.file);
  if (!existsSync(path)) throw new Error(`${target.file} does not exist: generate the skill docs first (bun run gen:skill-docs)`);
  const doc = stripFrontmatter(readFileSync(path, 'utf8'));
  for (const heading of target.headings) {
    const content = markdownSection(doc, heading);
    if (content) return { section: { title: target.title, context: target.context, content: content.slice(0, MAX_SECTION_CHARS) }, note: `section ${heading}` };
  }
  if (!target.wholeDocFallback) {
    const headings = doc.split('\n').filter((l) => /^#{1,6}\s/.test(l));
    throw new Error(`${target.file} has no heading matching ${target.headings.join(' or ')}; its headings: ${headings.join(' | ')}`);
  }
  return { section: { title: target.title, context: target.context, content: doc.slice(0, MAX_SECTION_CHARS) }, note: target.headings.length === 0 ? 'whole doc' : 'whole doc (no matching heading)' };
}

describe.skipIf(SKIP !== null)('skill docs judged by an LLM (tier 3, EVALS=1)', () => {
  let evals: EvalCollector;

  beforeAll(() => {
    evals = createEvalCollector({ kind: 'llm-judge', tier: 3 });
  });

  afterAll(() => {
    const path = evals.finalize();
    if (path) console.log(`skill-llm-eval: results → ${path}`);
  });

  for (const target of TARGETS) {
    test(`${target.title} scores at least ${JUDGE_PASS_MIN.clarity}/${JUDGE_PASS_MIN.completeness}/${JUDGE_PASS_MIN.actionability} (clarity/completeness/actionability)`, async () => {
      const started = performance.now();
      let verdict: Awaited<ReturnType<typeof judgeSection>>;
      let note = '';
      try {
        const found = sectionOf(target);
        note = found.note;
        verdict = await judgeSection(found.section);
      } catch (err) {
        evals.record({ name: target.name, tier: 3, passed: false, costUsd: 0, durationMs: Math.round(performance.now() - started), notes: `${err}` });
        throw err;
      }
      const { scores } = verdict;
      const reasons = CRITERIA.map((c) => `${c} ${scores[c].score}: ${scores[c].reason}`);
      evals.record({
        name: target.name,
        tier: 3,
        passed: verdict.passed,
        costUsd: verdict.costUsd, // approximate: token counts × the price table in llm-judge.ts
        durationMs: verdict.durationMs,
        scores: Object.fromEntries(CRITERIA.map((c) => [c, scores[c].score])),
        notes: [note, `model ${verdict.model}`, `tokens ${verdict.inputTokens} in / ${verdict.outputTokens} out`, ...(verdict.costNote ? [verdict.costNote] : []), ...reasons].join('; '),
      });
      console.log(`  [judge] ${target.name}: ${reasons.join(' | ')}`);
      expect(CRITERIA.filter((c) => scores[c].score < JUDGE_PASS_MIN[c]).map((c) => `${c} ${scores[c].score} < ${JUDGE_PASS_MIN[c]}: ${scores[c].reason}`)).toEqual([]);
    }, 120_000);
  }
});
