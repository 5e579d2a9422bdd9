// Tier 2 (EVALS=1, costs money): a real agent CLI reads a skill and drives the compiled browse binary
// against local pages (browse, qa-only, and qa fixing a git copy of the app). Also, free and always run: the
// qa-app server, and the fixture really showing its planted bugs.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { createEvalCollector, evalsEnabled, type EvalCollector } from './helpers/eval-store.ts';
import { copyQaApp, loadPlantedBugs, QA_APP_DIR, scorePlantedBugs, startQaAppServer } from './helpers/qa-app.ts';
import { agentCommandLine, runAgentSession, toolCallsOf, type SessionOptions, type SessionResult, type StreamEvent } from './helpers/session-runner.ts';

const ROOT = join(import.meta.dir, '..');
const BIN = join(ROOT, 'browse', 'dist', 'browse');
const MINUTE = 60_000;

/** Why the agent cases cannot run here, or null when they can. */
function agentSkipReason(): string | null {
  if (!evalsEnabled()) return 'set EVALS=1 to run (costs money)';
  const agent = agentCommandLine({})[0];
  if (!Bun.which(agent)) return `the agent CLI \`${agent}\` is not on PATH (install Claude Code, or set EVALS_AGENT_CMD)`;
  if (!existsSync(BIN)) return `${relative(ROOT, BIN)} is missing: run bun run build`;
  return null;
}

const AGENT_SKIP = agentSkipReason();
if (AGENT_SKIP) console.log(`skill-e2e: skipped — ${AGENT_SKIP}`);
if (!existsSync(BIN)) console.log(`skill-e2e: qa-app fixture checks skipped — ${relative(ROOT, BIN)} is missing: run bun run build`);

/** Runs the compiled CLI against its own daemon (state file in dir); async, so this process's server keeps answering. */
async function browse(stateFile: string, ...args: string[]): Promise<string> {
  const proc = Bun.spawn([BIN, ...args], { env: { ...process.env, BROWSE_STATE_FILE: stateFile, BROWSE_NO_OPEN: '1' }, stdout: 'pipe', stderr: 'pipe' });
  const [out, err] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return `${out}${err}`;
}

type QaApp = ReturnType<typeof startQaAppServer>;

/** Places a valid order on the checkout page through the CLI; returns the status banner's text. */
async function placeOrder(stateFile: string, url: string): Promise<string> {
  await browse(stateFile, 'goto', `${url}/checkout.html`);
  for (const [field, value] of [['name', 'Ada Lovelace'], ['email', 'ada@example.com'], ['address', '12 Mill Lane'], ['postcode', 'HX7 8AB'], ['card', '4242 4242 4242 4242']]) {
    await browse(stateFile, 'fill', `input[name=${field}]`, value);
  }
  await browse(stateFile, 'click', 'button[type=submit]');
  return browse(stateFile, 'text', '#checkout-status');
}

/** Whether a checkout run now reaches POST /api/order (waits briefly for the request to land). */
async function checkoutReachesServer(stateFile: string, app: QaApp): Promise<{ reached: boolean; banner: string }> {
  const before = app.orders();
  const banner = await placeOrder(stateFile, app.url);
  for (const deadline = performance.now() + 3000; app.orders() === before && performance.now() < deadline; ) await Bun.sleep(50);
  const text = banner.split('\n').filter((line) => !/^--- .* ---$/.test(line)); // without the untrusted-content markers
  return { reached: app.orders() > before, banner: text.join(' ').trim() };
}

describe('qa-app server (free, no browser)', () => {
  let copy: string;
  let app: QaApp;

  beforeAll(() => {
    copy = mkdtempSync(join(tmpdir(), 'gstack-qa-app-copy-'));
    copyQaApp(copy);
    app = startQaAppServer(copy);
  });

  afterAll(() => {
    app.stop();
    rmSync(copy, { recursive: true, force: true });
  });

  test('a copy of the app leaves the answer key behind', () => {
    expect(existsSync(join(copy, 'index.html'))).toBe(true);
    expect(existsSync(join(copy, 'js', 'checkout.js'))).toBe(true);
    expect(existsSync(join(copy, 'planted-bugs.json'))).toBe(false);
  });

  test('the copy is served as it is on disk, uncached, so an edit shows on the next load', async () => {
    const first = await fetch(`${app.url}/about.html`);
    expect(first.status).toBe(200);
    expect(first.headers.get('cache-control')).toBe('no-store');
    expect(await first.text()).toContain('About us');
    writeFileSync(join(copy, 'about.html'), '<!doctype html><title>Edited</title>');
    expect(await (await fetch(`${app.url}/about.html`)).text()).toContain('Edited');
  });

  test('hidden paths (.git, .claude) and the answer key are 404s; POST /api/order is counted', async () => {
    mkdirSync(join(copy, '.git'), { recursive: true });
    writeFileSync(join(copy, '.git', 'config'), '[core]');
    writeFileSync(join(copy, 'planted-bugs.json'), '{}');
    expect((await fetch(`${app.url}/.git/config`)).status).toBe(404);
    expect((await fetch(`${app.url}/planted-bugs.json`)).status).toBe(404);
    expect(app.orders()).toBe(0);
    expect((await fetch(`${app.url}/api/order`, { method: 'POST', body: '{}' })).status).toBe(201);
    expect((await fetch(`${app.url}/api/orders`, { method: 'POST', body: '{}' })).status).toBe(404);
    expect(app.orders()).toBe(1);
  });
});

describe.skipIf(!existsSync(BIN))('qa-app fixture: the planted bugs are real (free, no agent)', () => {
  let app: QaApp;
  let home: string;
  let stateFile: string;

  beforeAll(() => {
    app = startQaAppServer();
    home = mkdtempSync(join(tmpdir(), 'gstack-qa-app-'));
    stateFile = join(home, 'browse.json');
  });

  afterAll(async () => {
    await browse(stateFile, 'stop');
    app.stop();
    rmSync(home, { recursive: true, force: true });
  });

  test('the home page logs an uncaught TypeError on a first visit', async () => {
    expect(await browse(stateFile, 'goto', `${app.url}/`)).toContain('(200)');
    expect(await browse(stateFile, 'console', '--errors')).toContain("Cannot read properties of null (reading 'map')");
  });

  test("the footer's Shipping & returns link leads to a 404", async () => {
    await browse(stateFile, 'goto', `${app.url}/about.html`);
    expect(await browse(stateFile, 'links')).toContain('Shipping & returns → ' + `${app.url}/shipping.html`);
    expect(await browse(stateFile, 'goto', `${app.url}/shipping.html`)).toContain('(404)');
  });

  test('a valid checkout ends in the error banner and no order reaches the server', async () => {
    expect(await placeOrder(stateFile, app.url)).toContain('something went wrong');
    expect(await browse(stateFile, 'network')).toContain('/api/orders → 404');
    expect(app.orders()).toBe(0);
  });

  test('with the checkout fixed in a copy, the same run reaches the server (what the qa case records)', async () => {
    const copy = mkdtempSync(join(tmpdir(), 'gstack-qa-app-fixed-'));
    copyQaApp(copy);
    const script = join(copy, 'js', 'checkout.js');
    writeFileSync(script, readFileSync(script, 'utf8').replace("fetch('/api/orders'", "fetch('/api/order'"));
    const fixed = startQaAppServer(copy);
    try {
      const r = await checkoutReachesServer(stateFile, fixed);
      expect(r.banner).toContain('Thank you! Your order FH-1001 is confirmed.');
      expect(r.reached).toBe(true);
    } finally {
      fixed.stop();
      rmSync(copy, { recursive: true, force: true });
    }
  });

  test('the facts the browse case asks for are on the pages, rendered by script', async () => {
    await browse(stateFile, 'goto', `${app.url}/about.html`);
    expect(await browse(stateFile, 'js', 'document.title')).toContain('About us · Fernhill Goods');
    expect(await browse(stateFile, 'text', '#visits')).toContain('Thursday and Friday');
    await browse(stateFile, 'goto', `${app.url}/products.html`);
    expect(await browse(stateFile, 'js', 'document.querySelectorAll("#product-list li").length')).toContain('6');
  });

  test('the answer key is not served', async () => {
    expect(await browse(stateFile, 'goto', `${app.url}/planted-bugs.json`)).toContain('(404)');
  });
});

/** Lines every prompt shares: where the skill and binary are, and that nobody will answer questions. */
function setupLines(): string[] {
  return [
    `The browse binary is ${BIN}; the skill's setup block finds it too (gstack is installed in this project's .claude/skills/gstack).`,
    `Every Bash call is a fresh shell: start each one with B=${BIN} and run the browser as $B <command>.`,
    'Nobody will answer questions during this task: make reasonable choices yourself and keep going.',
  ];
}

function browsePrompt(url: string): string {
  return [
    `Read the skill file ${join(ROOT, 'SKILL.md')} and follow it for this task.`,
    ...setupLines(),
    'Look at pages only through $B commands: no curl, wget or other HTTP clients, and do not read the site\'s source files.',
    '',
    `Open ${url}/about.html and ${url}/products.html, then find out:`,
    '1. the exact title of the about page;',
    '2. the days on which the workshop is open for visits, as the about page shows them;',
    '3. how many products the products page lists.',
    '',
    'End your final message with exactly these three lines:',
    'TITLE: <the title>',
    'VISITS: <the days>',
    'PRODUCTS: <the number>',
  ].join('\n');
}

function qaPrompt(url: string, workdir: string): string {
  return [
    `Read the skill file ${join(ROOT, 'qa-only', 'SKILL.md')} and follow it: a full-mode QA report on the web app at ${url}/. Change no code.`,
    ...setupLines(),
    `Your working directory, ${workdir}, is the project root for this task: write the report where the skill says (.gstack/qa-reports/ there).`,
    'Test the app only through $B at that URL, as a user would; its source files are not part of this task.',
    'In your final message, list every issue you found, one line each.',
  ].join('\n');
}

function qaFixPrompt(url: string, workdir: string): string {
  return [
    `Read the skill file ${join(ROOT, 'qa', 'SKILL.md')} and follow it in full mode on the web app at ${url}/.`,
    ...setupLines(),
    `The app's source is your working directory, ${workdir}: a git repository and the project root for this task (write the report where the skill says, .gstack/qa-reports/ there).`,
    'The server serves those files as they are on disk: a saved change shows on the next page load, with no restart or build. The app has no test suite.',
    'Find issues through $B at that URL, as a user would, before you read the source. Change files only inside your working directory.',
    'To keep this run short: once the issues are documented, fix at most the 2 most severe ones (each with its browser check and its own commit), defer the rest, and finish the report.',
    'In your final message, list every issue you found, one line each, with its status.',
  ].join('\n');
}

interface Assessment {
  problems: string[];
  scores?: Record<string, number>;
  notes?: string[];
}

/** The three answer lines of the browse case, checked against the fixture. */
function browseAnswerProblems(output: string): string[] {
  const line = (key: string) => new RegExp(`^[*_\\s]*${key}[*_]*:[*_]*\\s*(.+)$`, 'im').exec(output)?.[1] ?? '';
  const problems: string[] = [];
  const title = line('TITLE');
  if (!title.includes('About us') || !title.includes('Fernhill Goods')) problems.push(`TITLE line ${JSON.stringify(title)} is not the about page's title`);
  const visits = line('VISITS');
  if (!/thursday/i.test(visits) || !/friday/i.test(visits)) problems.push(`VISITS line ${JSON.stringify(visits)} does not name Thursday and Friday`);
  if (!/\b(6|six)\b/i.test(line('PRODUCTS'))) problems.push(`PRODUCTS line ${JSON.stringify(line('PRODUCTS'))} is not 6`);
  return problems;
}

const ranBrowse = (r: SessionResult) => r.toolCalls.some((c) => c.tool === 'Bash' && /\$B\b|\$\{B\}|browse\/dist\/browse/.test(String(c.input.command ?? '')));

/** Every Markdown file the agent wrote in its working dir (not the linked skill install), then its final message. */
function reportText(workdir: string, output: string): string {
  const files = [...new Bun.Glob('**/*.md').scanSync({ cwd: workdir, dot: true, followSymlinks: false })].filter((f) => !f.startsWith('.claude/')).sort();
  return [...files.map((f) => `<!-- ${f} -->\n${readFileSync(join(workdir, f), 'utf8')}`), output].join('\n\n');
}

/** A fingerprint of the fixture's files, to prove an agent left them alone. */
function appDigest(): string {
  const files = readdirSync(QA_APP_DIR, { recursive: true, withFileTypes: true }).filter((d) => d.isFile()).map((d) => join(d.parentPath, d.name)).sort();
  return String(Bun.hash(files.map((f) => `${f}\n${readFileSync(f, 'utf8')}`).join('\n')));
}

/** Runs git in dir, ignoring GIT_* variables of the caller (a hook's GIT_DIR would point elsewhere). */
function git(dir: string, ...args: string[]): string {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('GIT_')));
  const r = Bun.spawnSync(['git', ...args], { cwd: dir, env, stdout: 'pipe', stderr: 'pipe' });
  if (r.exitCode !== 0) throw new Error(`git ${args.join(' ')} in ${dir}: ${r.stderr.toString().trim()}`);
  return r.stdout.toString().trim();
}

/** Makes dir a git repo with everything in it as one commit (the skill commits each fix); returns that commit. */
function initGitRepo(dir: string): string {
  git(dir, 'init', '-q');
  for (const [key, value] of [['user.name', 'gstack eval'], ['user.email', 'eval@gstack.invalid'], ['commit.gpgsign', 'false']]) git(dir, 'config', key, value);
  appendFileSync(join(dir, '.git', 'info', 'exclude'), '.claude/\n.gstack/\n'); // the skill link and the reports are not the app
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'Fernhill Goods shop');
  return git(dir, 'rev-parse', 'HEAD');
}

/** Prints each tool call as it happens: a paid run takes minutes, and silence looks like a hang. */
function printProgress(label: string) {
  return (event: StreamEvent) => {
    for (const c of toolCallsOf(event)) {
      const what = String(c.input.command ?? c.input.file_path ?? c.input.pattern ?? '').replace(/\s+/g, ' ');
      console.log(`  [${label}] ${c.tool} ${what.slice(0, 140)}`);
    }
  };
}

describe.skipIf(AGENT_SKIP !== null)('skills driven by a real agent (tier 2, EVALS=1)', () => {
  let app: QaApp;
  let evals: EvalCollector;
  let tmp: string;

  beforeAll(() => {
    app = startQaAppServer();
    tmp = mkdtempSync(join(tmpdir(), 'gstack-e2e-'));
    evals = createEvalCollector({ kind: 'e2e', tier: 2 });
  });

  afterAll(async () => {
    for (const name of readdirSync(tmp)) {
      const stateFile = join(tmp, name, 'browse.json');
      if (existsSync(stateFile)) await browse(stateFile, 'stop');
    }
    app.stop();
    const path = evals.finalize();
    if (path) console.log(`skill-e2e: results → ${path}`);
    rmSync(tmp, { recursive: true, force: true });
  });

  /** Runs one case with a daemon of its own and records it (a harness crash too); returns its assessment. */
  async function runCase(name: string, session: SessionOptions, assess: (r: SessionResult) => Assessment | Promise<Assessment>): Promise<Assessment> {
    const stateFile = join(tmp, `${name}-daemon`, 'browse.json'); // outside the working dir, so its files are not the agent's
    let r: SessionResult;
    try {
      r = await runAgentSession({ ...session, env: { BROWSE_STATE_FILE: stateFile, B: BIN, ...session.env }, onEvent: printProgress(name) });
    } catch (err) {
      evals.record({ name, tier: 2, passed: false, costUsd: 0, durationMs: 0, notes: `harness error: ${err}` });
      throw err;
    }
    let a: Assessment;
    try {
      a = await assess(r);
    } catch (err) {
      a = { problems: [`assessment failed: ${err}`] };
    }
    const transcript = evals.saveArtifact(`${name}.ndjson`, `${r.rawLines.join('\n')}\n`);
    const notes = [...a.problems, ...(a.notes ?? []), `transcript: ${transcript}`];
    if (r.stderrTail) notes.push(`stderr: ${r.stderrTail.slice(-300)}`);
    evals.record({
      name,
      tier: 2,
      passed: a.problems.length === 0,
      exitReason: r.exitReason,
      turns: r.turns,
      toolCalls: r.toolCalls.length,
      costUsd: r.costUsd,
      durationMs: r.durationMs,
      scores: a.scores,
      notes: notes.join('; '),
    });
    return a;
  }

  /** A fresh working dir with gstack linked in as a project-local skill install, as ./setup would leave it. */
  function caseDir(name: string): string {
    const dir = join(tmp, name);
    mkdirSync(join(dir, '.claude', 'skills'), { recursive: true });
    symlinkSync(ROOT, join(dir, '.claude', 'skills', 'gstack'));
    return dir;
  }

  test('browse skill: the agent reads SKILL.md and reports facts from pages through $B', async () => {
    const a = await runCase('browse-skill-reads-pages', { prompt: browsePrompt(app.url), cwd: caseDir('browse'), maxTurns: 20, timeoutMs: 5 * MINUTE }, (r) => ({
      problems: [
        ...(r.exitReason === 'success' ? [] : [`exit reason ${r.exitReason}${r.apiError ? ` (${r.apiError})` : ''}`]),
        ...(ranBrowse(r) ? [] : ['no Bash call ran $B']),
        ...browseAnswerProblems(r.output),
      ],
    }));
    expect(a.problems).toEqual([]);
  }, 6 * MINUTE);

  test('qa-only skill: the report names at least 2 of the 3 planted bugs and the app is left unchanged', async () => {
    const bugs = loadPlantedBugs();
    const workdir = caseDir('qa-only');
    const before = appDigest();
    const a = await runCase('qa-only-finds-planted-bugs', { prompt: qaPrompt(app.url, workdir), cwd: workdir, maxTurns: 80, timeoutMs: 12 * MINUTE }, (r) => {
      const report = reportText(workdir, r.output);
      const score = scorePlantedBugs(report, bugs);
      const reportPath = evals.saveArtifact('qa-only-report.md', report);
      return {
        problems: [
          ...(score.found.length >= 2 ? [] : [`named ${score.found.length}/${score.total} planted bugs`]),
          ...(appDigest() === before ? [] : ["the app's files changed (qa-only must not edit code)"]),
        ],
        scores: { plantedBugsFound: score.found.length, plantedBugsTotal: score.total },
        notes: [`exit reason ${r.exitReason}`, `found: ${score.found.join(', ') || 'none'}`, `missed: ${score.missed.join(', ') || 'none'}`, `report: ${reportPath}`],
      };
    });
    expect(a.problems).toEqual([]);
  }, 13 * MINUTE);

  test('qa skill (full mode, on a git copy of the app): the report names at least 2 of the 3 planted bugs; whether the checkout got fixed is recorded', async () => {
    const bugs = loadPlantedBugs();
    const workdir = caseDir('qa');
    copyQaApp(workdir);
    const base = initGitRepo(workdir);
    const site = startQaAppServer(workdir); // serves the copy, so the agent's fixes are live
    const before = appDigest();
    try {
      const a = await runCase('qa-finds-and-fixes-planted-bugs', { prompt: qaFixPrompt(site.url, workdir), cwd: workdir, maxTurns: 100, timeoutMs: 16 * MINUTE }, async (r) => {
        const report = reportText(workdir, r.output);
        const score = scorePlantedBugs(report, bugs);
        const reportPath = evals.saveArtifact('qa-report.md', report);
        const commits = Number(git(workdir, 'rev-list', '--count', `${base}..HEAD`));
        const diffPath = evals.saveArtifact('qa-fixes.diff', git(workdir, 'diff', base));
        // A fresh daemon, so nothing the agent's browser cached or stored takes part.
        const recheckState = join(tmp, 'qa-recheck-daemon', 'browse.json');
        let checkout: { reached: boolean; banner: string };
        try {
          checkout = await checkoutReachesServer(recheckState, site);
        } finally {
          await browse(recheckState, 'stop');
        }
        return {
          problems: [
            ...(score.found.length >= 2 ? [] : [`named ${score.found.length}/${score.total} planted bugs`]),
            ...(appDigest() === before ? [] : ['the shipped fixture changed (the agent edited files outside its working dir)']),
          ],
          // Recorded, not required: the fixes are the agent's judgement within a 2-fix budget.
          scores: { plantedBugsFound: score.found.length, plantedBugsTotal: score.total, checkoutFixed: checkout.reached ? 1 : 0, commits },
          notes: [
            `exit reason ${r.exitReason}`,
            `found: ${score.found.join(', ') || 'none'}`,
            `missed: ${score.missed.join(', ') || 'none'}`,
            `checkout re-run: ${checkout.reached ? 'POST /api/order reached the server' : 'no order reached the server'} (banner: ${JSON.stringify(checkout.banner.slice(0, 120))})`,
            `${commits} commit(s) since ${base.slice(0, 7)}, diff: ${diffPath}`,
            `report: ${reportPath}`,
          ],
        };
      });
      expect(a.problems).toEqual([]);
    } finally {
      site.stop();
    }
  }, 18 * MINUTE);
});
