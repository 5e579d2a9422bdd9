// Latency, memory and snapshot-size report for the compiled CLI against in-process and fresh-launch Playwright baselines.
// Usage: bun run bench (after `bun run build`). Only 127.0.0.1 traffic; every daemon it starts is stopped.
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { arch, cpus, platform, tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { chromium, type Browser, type LaunchOptions, type Page } from 'playwright';
import { CHROMIUM_ARGS, findChromium, sandboxAllowed } from '../browse/src/chromium';
import { DEFAULTS } from '../browse/src/config';

const ROOT = join(import.meta.dir, '..');
const BUILT_BINARY = join(ROOT, 'browse', 'dist', 'browse');
const FIXTURES = join(ROOT, 'browse', 'test', 'fixtures');
const WARM_RUNS = 30;
const WARMUPS = 3;
const COLD_RUNS = 3;
const VERSION_RUNS = 30;
const FRESH_RUNS = 5;
const CLI_TIMEOUT_MS = 30_000;
const BARS = { url: 20, click: 30, fill: 20, coldMs: 1200, rssMb: 80 };
const SNAPSHOT_BARS = { benchChars: 8000, benchMs: 80, generatedMs: 250, staleMs: 20 };
// Peer figures from the spec, printed next to ours for reference only (not measured here).
const PEERS = { bestChars: 10_000, bestMs: 85, mcpChars: 21_000 };
const GENERATED_NODES = 1000;
const STALE_RUNS = 20;
const STALE_WARMUPS = 2;
const ARIA_TIMEOUT_MS = 10_000;

interface Op {
  name: string;
  cli: string[];
  inProcess(page: Page): Promise<unknown>;
}

interface Stats {
  p50: number;
  p95: number;
}

interface CliRun {
  ms: number;
  code: number;
  stdout: string;
  stderr: string;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// Nearest-rank percentile: always a value that was actually measured.
function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
}

const statsOf = (values: number[]): Stats => ({ p50: percentile(values, 50), p95: percentile(values, 95) });

/** About n DOM nodes in sections of headings, text, links, inputs and buttons (the shape of the tests' generatedPage). */
function generatedPage(n: number): string {
  const parts: string[] = ['<!doctype html><html><head><title>Generated</title></head><body>'];
  for (let i = 0; i * 10 < n; i++) {
    parts.push(
      `<section><h2>Section ${i}</h2><p>Paragraph ${i} with <b>bold</b> text.</p><ul><li><a href="#s${i}">Link ${i}</a></li><li>Item ${i}</li></ul>` +
        `<label>Field ${i} <input></label><button>Button ${i}</button></section>`,
    );
  }
  parts.push('</body></html>');
  return parts.join('');
}

/** n buttons with distinct names and ids (#b1 "Remove 1", …), for stale-ref timing: one removed per run. */
function removablePage(n: number): string {
  const buttons = Array.from({ length: n }, (_, i) => `<button id="b${i + 1}" type="button">Remove ${i + 1}</button>`);
  return `<!doctype html><html><head><title>Removable</title></head><body>${buttons.join('')}</body></html>`;
}

// n from the query string, bounded so a typo cannot build a giant page.
const sizeParam = (u: URL, fallback: number) => Math.min(Math.max(Number(u.searchParams.get('n')) || fallback, 1), 10_000);
const html = (body: string) => new Response(body, { headers: { 'content-type': 'text/html; charset=utf-8' } });

/** Serves files directly inside the given dirs (first match wins) plus the two generated pages. */
function staticServer(dirs: string[]): ReturnType<typeof Bun.serve> {
  return Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    fetch(req) {
      const u = new URL(req.url);
      if (u.pathname === '/generated') return html(generatedPage(sizeParam(u, GENERATED_NODES)));
      if (u.pathname === '/removable') return html(removablePage(sizeParam(u, STALE_RUNS + STALE_WARMUPS)));
      // basename: only files directly inside a served dir, never a path that climbs out of it.
      const name = basename(u.pathname) || 'index.html';
      for (const dir of dirs) {
        const file = join(dir, name);
        if (existsSync(file)) return new Response(Bun.file(file));
      }
      return new Response('Not found', { status: 404 });
    },
  });
}

function opsFor(workDir: string): Op[] {
  return [
    { name: 'url', cli: ['url'], inProcess: async (p) => p.url() },
    { name: 'text', cli: ['text'], inProcess: (p) => p.locator('body').innerText() },
    { name: 'click #inc', cli: ['click', '#inc'], inProcess: (p) => p.locator('#inc').click() },
    { name: 'fill #first Ada', cli: ['fill', '#first', 'Ada'], inProcess: (p) => p.locator('#first').fill('Ada') },
    { name: 'js document.title', cli: ['js', 'document.title'], inProcess: (p) => p.evaluate('document.title') },
    {
      name: 'screenshot --viewport',
      cli: ['screenshot', join(workDir, 'bench.png'), '--viewport'],
      inProcess: (p) => p.screenshot({ path: join(workDir, 'floor.png') }),
    },
  ];
}

// One whole CLI process, timed from spawn to exit, as an agent's shell would see it.
async function timeCli(stateFile: string, args: string[]): Promise<CliRun> {
  const started = performance.now();
  const proc = Bun.spawn([binary, ...args], {
    cwd: ROOT,
    // The idle timeout is a safety net: a killed bench cannot leave a daemon running for long.
    env: { ...process.env, BROWSE_STATE_FILE: stateFile, BROWSE_IDLE_TIMEOUT: '120000' },
    stdin: 'ignore',
    stdout: 'pipe',
    stderr: 'pipe',
    timeout: CLI_TIMEOUT_MS,
    killSignal: 'SIGKILL',
  });
  const [code, stdout, stderr] = await Promise.all([
    proc.exited.then((c) => ({ c, ms: performance.now() - started })),
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
  ]);
  return { ms: code.ms, code: code.c, stdout, stderr: stderr.trim() };
}

async function cliMs(stateFile: string, args: string[]): Promise<number> {
  const run = await timeCli(stateFile, args);
  if (run.code !== 0) throw new Error(`browse ${args.join(' ')} exited ${run.code}: ${run.stderr}`);
  return run.ms;
}

async function cliSamples(stateFile: string, args: string[], runs: number, warmups: number): Promise<number[]> {
  for (let i = 0; i < warmups; i++) await cliMs(stateFile, args);
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) samples.push(await cliMs(stateFile, args));
  return samples;
}

function daemonPid(stateFile: string): number | null {
  try {
    const pid = (JSON.parse(readFileSync(stateFile, 'utf8')) as { pid?: unknown }).pid;
    return typeof pid === 'number' ? pid : null;
  } catch {
    return null;
  }
}

// A zombie still answers kill(pid, 0); on Linux read its state so an unreaped daemon counts as gone.
function isRunning(pid: number): boolean {
  if (platform() === 'linux') {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
      return state !== 'Z' && state !== 'X';
    } catch {
      return false;
    }
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

// Chromium's processes, listed before the daemon dies, since orphans lose their parent link.
function descendantPids(root: number): number[] {
  if (platform() !== 'linux') return [];
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
    } catch {}
  }
  const found: number[] = [];
  const queue = [root];
  while (queue.length > 0 && found.length < 1000) {
    for (const child of children.get(queue.shift()!) ?? []) {
      found.push(child);
      queue.push(child);
    }
  }
  return found;
}

async function allExited(pids: number[], ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (pids.some(isRunning) && Date.now() < deadline) await sleep(20);
  return !pids.some(isRunning);
}

function killAll(pids: number[]): void {
  for (const pid of pids.filter(isRunning)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {}
  }
}

/** Stops the daemon behind this state file (if any) and waits until it and its Chromium are gone. */
async function stopDaemon(stateFile: string): Promise<void> {
  const pid = daemonPid(stateFile);
  if (pid === null || !isRunning(pid)) return; // `browse stop` with no daemon would start one first
  const family = [pid, ...descendantPids(pid)];
  await timeCli(stateFile, ['stop']).catch(() => undefined);
  if (await allExited(family, 8000)) return;
  killAll(family);
  await allExited(family, 3000);
}

interface Rss {
  totalMb: number;
  anonMb: number;
  fileMb: number;
}

// The file-backed share is mostly the mapped 100+ MB binary, so it is worth telling apart from the heap.
function rssOf(pid: number | null): Rss | null {
  if (pid === null || platform() !== 'linux') return null;
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const mb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+)\\s+kB`, 'm').exec(status)?.[1] ?? NaN) / 1024;
    return { totalMb: mb('VmRSS'), anonMb: mb('RssAnon'), fileMb: mb('RssFile') };
  } catch {
    return null;
  }
}

async function coldStartMs(workDir: string, url: string, stateFiles: string[]): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 1; i <= COLD_RUNS; i++) {
    const stateFile = join(workDir, `cold-${i}`, 'browse.json');
    mkdirSync(join(workDir, `cold-${i}`), { recursive: true });
    stateFiles.push(stateFile);
    samples.push(await cliMs(stateFile, ['goto', url]));
    await stopDaemon(stateFile);
  }
  return samples;
}

async function warmStats(stateFile: string, url: string, ops: Op[]): Promise<{ stats: Map<string, Stats>; rss: Rss | null }> {
  await cliMs(stateFile, ['goto', url]);
  const stats = new Map<string, Stats>();
  for (const op of ops) stats.set(op.name, statsOf(await cliSamples(stateFile, op.cli, WARM_RUNS, WARMUPS)));
  await sleep(500); // let the tab go idle before reading memory
  return { stats, rss: rssOf(daemonPid(stateFile)) };
}

function launchOptions(): LaunchOptions {
  const choice = findChromium(() => chromium.executablePath());
  if (!choice) throw new Error('No Chromium found; run ./setup or set BROWSE_CHROMIUM_PATH.');
  return { executablePath: choice.path, headless: true, chromiumSandbox: sandboxAllowed(), args: CHROMIUM_ARGS };
}

async function benchPage(browser: Browser, url: string): Promise<Page> {
  const context = await browser.newContext({ viewport: { ...DEFAULTS.viewport } });
  const page = await context.newPage();
  await page.goto(url, { waitUntil: 'domcontentloaded' });
  return page;
}

async function opSamples(page: Page, op: Op): Promise<number[]> {
  for (let i = 0; i < WARMUPS; i++) await op.inProcess(page);
  const samples: number[] = [];
  for (let i = 0; i < WARM_RUNS; i++) {
    const started = performance.now();
    await op.inProcess(page);
    samples.push(performance.now() - started);
  }
  return samples;
}

/** Closes the browser and waits for its processes: close() resolves before Chromium's helpers have exited. */
async function closeAndReap(browser: Browser): Promise<number> {
  const family = descendantPids(process.pid);
  const started = performance.now();
  await browser.close();
  const closeMs = performance.now() - started;
  if (!(await allExited(family, 5000))) killAll(family);
  return closeMs;
}

interface SnapPage {
  label: string;
  url: string;
}

interface AriaSize {
  plain: number | null; // page.locator('body').ariaSnapshot()
  ai: number | null; // the same with { mode: 'ai' }: what Playwright MCP hands an agent, and what `snapshot` parses
}

// Characters as an agent would count them (code points), without the trailing newline.
const charCount = (text: string) => [...text.trimEnd()].length;

/** Each page in a fresh context, after its load event (iframes included), as the CLI side waits for too. */
async function ariaSizes(browser: Browser, pages: SnapPage[]): Promise<Map<string, AriaSize>> {
  const sizes = new Map<string, AriaSize>();
  for (const { url } of pages) {
    const context = await browser.newContext({ viewport: { ...DEFAULTS.viewport } });
    try {
      const page = await context.newPage();
      await page.goto(url, { waitUntil: 'load', timeout: DEFAULTS.navigationTimeoutMs });
      const body = page.locator('body');
      const plain = charCount(await body.ariaSnapshot({ timeout: ARIA_TIMEOUT_MS }));
      const ai = charCount(await body.ariaSnapshot({ mode: 'ai', timeout: ARIA_TIMEOUT_MS }));
      sizes.set(url, { plain, ai });
    } catch (e) {
      console.error(`bench: ariaSnapshot of ${url} failed: ${e instanceof Error ? e.message.split('\n')[0] : String(e)}`);
      sizes.set(url, { plain: null, ai: null });
    } finally {
      await context.close().catch(() => undefined);
    }
  }
  return sizes;
}

async function floorStats(url: string, ops: Op[], ariaPages: SnapPage[]): Promise<{ stats: Map<string, Stats>; aria: Map<string, AriaSize> }> {
  const browser = await chromium.launch(launchOptions());
  try {
    const page = await benchPage(browser, url);
    const stats = new Map<string, Stats>();
    for (const op of ops) stats.set(op.name, statsOf(await opSamples(page, op)));
    await page.context().close();
    return { stats, aria: await ariaSizes(browser, ariaPages) };
  } finally {
    await closeAndReap(browser);
  }
}

interface SnapSize {
  full: number | null;
  interactive: number | null;
  problem?: string;
}

interface StaleResult {
  stats: Stats;
  /** Measured runs that exited 1 with "is stale", out of `runs`. */
  ok: number;
  runs: number;
  problem?: string;
}

interface SnapshotResults {
  sizes: Map<string, SnapSize>;
  bench: Stats;
  generated: Stats;
  generatedElements: string;
  stale: StaleResult;
}

const firstLine = (run: CliRun) => `exit ${run.code}: ${(run.stderr || run.stdout).split('\n')[0].slice(0, 160)}`;

/** stdout of one CLI call that must succeed. */
async function cliOut(stateFile: string, args: string[]): Promise<string> {
  const run = await timeCli(stateFile, args);
  if (run.code !== 0) throw new Error(`browse ${args.join(' ')} ${firstLine(run)}`);
  return run.stdout;
}

async function snapshotSizes(stateFile: string, pages: SnapPage[]): Promise<Map<string, SnapSize>> {
  const sizes = new Map<string, SnapSize>();
  for (const { url } of pages) {
    try {
      await cliOut(stateFile, ['goto', url]);
      await cliOut(stateFile, ['wait', '--load']);
      const full = charCount(await cliOut(stateFile, ['snapshot']));
      const interactive = charCount(await cliOut(stateFile, ['snapshot', '-i']));
      sizes.set(url, { full, interactive });
    } catch (e) {
      sizes.set(url, { full: null, interactive: null, problem: e instanceof Error ? e.message : String(e) });
    }
  }
  return sizes;
}

/**
 * One `snapshot -i` hands out a ref per button; each run removes one button with `js`, then times the
 * whole `click @eN` that has to notice. Every removed button is distinct, so no snapshot is re-taken.
 */
async function staleRefTimes(stateFile: string, base: string): Promise<StaleResult> {
  const total = STALE_WARMUPS + STALE_RUNS;
  await cliOut(stateFile, ['goto', `${base}/removable?n=${total}`]);
  const refOf = new Map<number, string>();
  for (const m of (await cliOut(stateFile, ['snapshot', '-i'])).matchAll(/^@(e\d+) \[button\] "Remove (\d+)"$/gm)) refOf.set(Number(m[2]), `@${m[1]}`);
  const samples: number[] = [];
  let ok = 0;
  let problem: string | undefined;
  for (let i = 1; i <= total; i++) {
    const ref = refOf.get(i);
    if (!ref) {
      problem ??= `snapshot -i listed no ref for button "Remove ${i}"`;
      continue;
    }
    await cliOut(stateFile, ['js', `document.querySelector('#b${i}').remove()`]);
    const run = await timeCli(stateFile, ['click', ref]);
    const stale = run.code === 1 && run.stderr.includes('is stale');
    if (!stale) problem ??= `click ${ref} ${firstLine(run)}`;
    if (i <= STALE_WARMUPS) continue;
    samples.push(run.ms);
    if (stale) ok++;
  }
  return { stats: statsOf(samples), ok, runs: STALE_RUNS, problem };
}

/** Sizes of every page, then `snapshot -i` latency and stale-ref failure time, all on the warm daemon. */
async function snapshotStats(stateFile: string, pages: SnapPage[], benchUrl: string, base: string): Promise<SnapshotResults> {
  const sizes = await snapshotSizes(stateFile, pages);
  await cliOut(stateFile, ['goto', benchUrl]);
  const bench = statsOf(await cliSamples(stateFile, ['snapshot', '-i'], WARM_RUNS, WARMUPS));
  await cliOut(stateFile, ['goto', `${base}/generated?n=${GENERATED_NODES}`]);
  // `js` output is page content, so it arrives inside the untrusted-content envelope: keep the number.
  const generatedElements = (await cliOut(stateFile, ['js', "document.querySelectorAll('*').length"])).match(/^\d+$/m)?.[0] ?? '?';
  const generated = statsOf(await cliSamples(stateFile, ['snapshot', '-i'], WARM_RUNS, WARMUPS));
  const stale = await staleRefTimes(stateFile, base);
  return { sizes, bench, generated, generatedElements, stale };
}

// Launch → op, plus close() itself; listing and reaping Chromium's processes stays outside the clock.
async function freshLaunchMs(url: string, op: Op): Promise<number> {
  const started = performance.now();
  const browser = await chromium.launch(launchOptions());
  let opMs = 0;
  try {
    await op.inProcess(await benchPage(browser, url));
    opMs = performance.now() - started;
  } finally {
    opMs += await closeAndReap(browser);
  }
  return opMs;
}

async function freshP50s(url: string, ops: Op[]): Promise<Map<string, number>> {
  const p50s = new Map<string, number>();
  for (const op of ops) {
    const samples: number[] = [];
    for (let i = 0; i < FRESH_RUNS; i++) samples.push(await freshLaunchMs(url, op));
    p50s.set(op.name, percentile(samples, 50));
  }
  return p50s;
}

function ms(n: number | undefined): string {
  if (n === undefined || Number.isNaN(n)) return 'n/a';
  if (n < 0.01) return '<0.01';
  return n < 10 ? n.toFixed(2) : n.toFixed(1);
}
// Above 1000× the divisor is a sub-microsecond local read (page.url()), and the exact figure is noise.
function ratio(a: number | undefined, b: number | undefined): string {
  if (a === undefined || b === undefined || !(b > 0)) return 'n/a';
  const r = a / b;
  return r > 1000 ? '>1000×' : `${r.toFixed(r < 10 ? 1 : 0)}×`;
}
const verdict = (value: number | null, bar: number) => (value === null ? 'n/a' : value <= bar ? 'PASS' : 'MISS');

function latencyTable(ops: Op[], ours: Map<string, Stats>, floor: Map<string, Stats>, fresh: Map<string, number>): string {
  const rows = ops.map((op) => {
    const o = ours.get(op.name);
    const f = floor.get(op.name);
    const n = fresh.get(op.name);
    return `| ${op.name} | ${ms(o?.p50)} | ${ms(o?.p95)} | ${ms(f?.p50)} | ${ms(f?.p95)} | ${ms(n)} | ${ratio(o?.p50, f?.p50)} | ${ratio(n, o?.p50)} |`;
  });
  return [
    '| command | ours p50 | ours p95 | floor p50 | floor p95 | fresh launch p50 | ours ÷ floor | fresh ÷ ours |',
    '|---|---:|---:|---:|---:|---:|---:|---:|',
    ...rows,
  ].join('\n');
}

function barsTable(ours: Map<string, Stats>, cold: number[], rss: Rss | null, versionMs: number): string {
  const p50 = (name: string) => ours.get(name)?.p50 ?? null;
  const row = (metric: string, value: string, bar: string, result: string) => `| ${metric} | ${value} | ${bar} | ${result} |`;
  const coldP50 = percentile(cold, 50);
  return [
    '| metric | value | bar | result |',
    '|---|---:|---:|---|',
    row('warm `url` p50', `${ms(p50('url') ?? undefined)} ms`, `≤ ${BARS.url} ms`, verdict(p50('url'), BARS.url)),
    row('warm `click` p50', `${ms(p50('click #inc') ?? undefined)} ms`, `≤ ${BARS.click} ms`, verdict(p50('click #inc'), BARS.click)),
    row('warm `fill` p50', `${ms(p50('fill #first Ada') ?? undefined)} ms`, `≤ ${BARS.fill} ms`, verdict(p50('fill #first Ada'), BARS.fill)),
    row(`cold first call (median of ${cold.map((c) => Math.round(c)).join(', ')})`, `${ms(coldP50)} ms`, `≤ ${BARS.coldMs} ms`, verdict(coldP50, BARS.coldMs)),
    row(
      'daemon RSS, one idle tab (excl. Chromium)',
      rss === null ? 'n/a' : `${rss.totalMb.toFixed(1)} MB (anon ${rss.anonMb.toFixed(1)}, file ${rss.fileMb.toFixed(1)})`,
      `≤ ${BARS.rssMb} MB`,
      verdict(rss?.totalMb ?? null, BARS.rssMb),
    ),
    row(`bare CLI start (\`--version\`, median of ${VERSION_RUNS})`, `${ms(versionMs)} ms`, '—', '—'),
  ].join('\n');
}

const chars = (n: number | null | undefined) => (n === null || n === undefined ? 'n/a' : n.toLocaleString('en-US'));

function snapshotSection(pages: SnapPage[], r: SnapshotResults, aria: Map<string, AriaSize>): string {
  const sizeRows = pages.map(({ label, url }) => {
    const ours = r.sizes.get(url);
    const pw = aria.get(url);
    const times = pw?.plain && ours?.interactive ? `${(pw.plain / ours.interactive).toFixed(1)}×` : 'n/a';
    return `| ${label} | ${chars(ours?.full)} | ${chars(ours?.interactive)} | ${chars(pw?.plain)} | ${chars(pw?.ai)} | ${times} |`;
  });
  const problems = pages.flatMap(({ label, url }) => {
    const p = r.sizes.get(url)?.problem;
    return p ? [`- ${label}: ${p}`] : [];
  });
  const benchSize = r.sizes.get(pages[0].url)?.interactive ?? null;
  const stale = r.stale;
  const staleCheck = `${stale.ok}/${stale.runs} exited 1 with "is stale"`;
  const row = (metric: string, value: string, bar: string, peers: string, result: string) => `| ${metric} | ${value} | ${bar} | ${peers} | ${result} |`;
  const staleResult = stale.ok === stale.runs && !stale.problem ? verdict(stale.stats.p50, SNAPSHOT_BARS.staleMs) : 'MISS (check failed)';
  return [
    'Snapshot',
    '',
    `Characters of stdout (code points, trailing newline dropped) after \`goto\` + \`wait --load\`; Playwright columns: in-process \`page.locator('body').ariaSnapshot()\` on the same URL after its load event (fixtures served on a second origin; frames.html's cross-origin iframe is the same server via localhost). Plain ariaSnapshot() does not enter iframes; mode 'ai' (Playwright MCP's format, and what \`snapshot\` parses) does, and adds [ref=…] per node.`,
    '',
    "| page | `snapshot` | `snapshot -i` | ariaSnapshot() | ariaSnapshot({mode:'ai'}) | ariaSnapshot() ÷ `-i` |",
    '|---|---:|---:|---:|---:|---:|',
    ...sizeRows,
    ...(problems.length ? ['', 'Problems:', ...problems] : []),
    '',
    `Latency (ms): whole CLI processes on the warm daemon, ${WARM_RUNS} runs after ${WARMUPS} warm-ups; stale: ${STALE_RUNS} runs after ${STALE_WARMUPS} warm-ups, each removing one more button with \`js\` before the timed \`click @eN\` (${staleCheck})`,
    '',
    '| command | p50 | p95 |',
    '|---|---:|---:|',
    `| snapshot -i, bench page | ${ms(r.bench.p50)} | ${ms(r.bench.p95)} |`,
    `| snapshot -i, generated page (n=${GENERATED_NODES}, ${r.generatedElements} elements) | ${ms(r.generated.p50)} | ${ms(r.generated.p95)} |`,
    `| click @eN, element removed (stale) | ${ms(stale.stats.p50)} | ${ms(stale.stats.p95)} |`,
    ...(stale.problem ? ['', `Stale check problem: ${stale.problem}`] : []),
    '',
    'Snapshot bars (peer figures are the spec\'s, for reference; not measured here)',
    '',
    '| metric | value | bar | peers | result |',
    '|---|---:|---:|---|---|',
    row('`snapshot -i` characters, bench page', chars(benchSize), `≤ ${chars(SNAPSHOT_BARS.benchChars)}`, `best peer ~${chars(PEERS.bestChars)}; Playwright MCP ~${chars(PEERS.mcpChars)}`, verdict(benchSize, SNAPSHOT_BARS.benchChars)),
    row('`snapshot -i` p50, bench page', `${ms(r.bench.p50)} ms`, `≤ ${SNAPSHOT_BARS.benchMs} ms`, `best peer ~${PEERS.bestMs} ms`, verdict(r.bench.p50, SNAPSHOT_BARS.benchMs)),
    row(`\`snapshot -i\` p50, ${chars(GENERATED_NODES)}-node page`, `${ms(r.generated.p50)} ms`, `≤ ${SNAPSHOT_BARS.generatedMs} ms`, '—', verdict(r.generated.p50, SNAPSHOT_BARS.generatedMs)),
    row('stale ref `click @eN` p50', `${ms(stale.stats.p50)} ms`, `≤ ${SNAPSHOT_BARS.staleMs} ms`, '—', staleResult),
  ].join('\n');
}

function binaryVersion(): string {
  try {
    return readFileSync(join(binary, '..', '.version'), 'utf8').trim() || 'unknown';
  } catch {
    return 'unknown';
  }
}

function header(url: string): string {
  const chromiumPath = launchOptions().executablePath ?? 'playwright-managed';
  return [
    `gstack browse benchmark — ${new Date().toISOString()}`,
    `${platform()}/${arch()}, ${cpus().length} CPUs, bun ${Bun.version}, chromium ${chromiumPath}, browse build ${binaryVersion().slice(0, 12)}`,
    `page ${url}; warm: ${WARM_RUNS} runs after ${WARMUPS} warm-ups, whole CLI processes; floor: same ops in-process on one page; fresh launch: ${FRESH_RUNS} runs of launch → page → goto → op → close`,
  ].join('\n');
}

// A rebuild during the run would make the CLI swap daemons mid-measurement, so time a private copy.
function snapshotBinary(dir: string): string {
  mkdirSync(join(dir, 'bin'));
  const copy = join(dir, 'bin', 'browse');
  copyFileSync(BUILT_BINARY, copy);
  const version = join(BUILT_BINARY, '..', '.version');
  if (existsSync(version)) copyFileSync(version, join(dir, 'bin', '.version'));
  return copy;
}

if (!existsSync(BUILT_BINARY)) {
  console.error(`No binary at ${BUILT_BINARY}: run \`bun run build\` first.`);
  process.exit(1);
}

const workDir = mkdtempSync(join(tmpdir(), 'browse-bench-'));
const binary = snapshotBinary(workDir);
const stateFiles: string[] = [];
const server = staticServer([join(ROOT, 'bench')]);
// The fixtures on their own origin; console.html fetches /data.json, which lives in bench/.
const fixtureServer = staticServer([FIXTURES, join(ROOT, 'bench')]);
const base = `http://127.0.0.1:${server.port}`;
const url = `${base}/index.html`;

/** The bench page first (the bars read it), then every fixture page, then the generated page. */
function snapshotPages(): SnapPage[] {
  const fixtureBase = `http://127.0.0.1:${fixtureServer.port}`;
  const fixtures = readdirSync(FIXTURES)
    .filter((f) => f.endsWith('.html') && f !== 'flood.html') // flood.html is a 200,000-message stress page
    .sort()
    .map((f) => ({ label: `fixtures/${f}`, url: `${fixtureBase}/${f}${f === 'frames.html' ? `?cross=${fixtureServer.port}` : ''}` }));
  return [{ label: 'bench/index.html', url }, ...fixtures, { label: `generated (n=${GENERATED_NODES})`, url: `${base}/generated?n=${GENERATED_NODES}` }];
}

async function cleanup(): Promise<void> {
  for (const stateFile of stateFiles) await stopDaemon(stateFile);
  server.stop(true);
  fixtureServer.stop(true);
  rmSync(workDir, { recursive: true, force: true });
}

// Ctrl-C would otherwise skip `finally` and leave the detached daemon behind.
process.on('SIGINT', () => void cleanup().finally(() => process.exit(130)));

try {
  const ops = opsFor(workDir);
  console.error('bench: bare CLI start…');
  const versionMs = percentile(await cliSamples(join(workDir, 'none', 'browse.json'), ['--version'], VERSION_RUNS, WARMUPS), 50);
  console.error('bench: cold first calls…');
  const cold = await coldStartMs(workDir, url, stateFiles);
  console.error('bench: warm daemon…');
  const warmState = join(workDir, 'warm', 'browse.json');
  mkdirSync(join(workDir, 'warm'), { recursive: true });
  stateFiles.push(warmState);
  const warm = await warmStats(warmState, url, ops);
  console.error('bench: snapshot on the warm daemon…');
  const snapPages = snapshotPages();
  const snap = await snapshotStats(warmState, snapPages, url, base);
  await stopDaemon(warmState); // baselines run with our daemon gone, so they don't share the CPUs with it
  console.error('bench: Playwright in-process floor…');
  const floor = await floorStats(url, ops, snapPages);
  console.error('bench: fresh Playwright launch per command…');
  const fresh = await freshP50s(url, ops);
  console.log(
    `\n${header(url)}\n\nLatency (ms)\n\n${latencyTable(ops, warm.stats, floor.stats, fresh)}\n\nBars\n\n${barsTable(warm.stats, cold, warm.rss, versionMs)}\n\n${snapshotSection(snapPages, snap, floor.aria)}\n`,
  );
} catch (e) {
  console.error(`bench failed: ${e instanceof Error ? e.message : String(e)}`);
  process.exitCode = 1;
} finally {
  await cleanup();
}
