// Latency and memory report for the compiled CLI against in-process and fresh-launch Playwright baselines.
// Usage: bun run bench (after `bun run build`). Only 127.0.0.1 traffic; every daemon it starts is stopped.
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { arch, cpus, platform, tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { chromium, type Browser, type LaunchOptions, type Page } from 'playwright';
import { CHROMIUM_ARGS, findChromium, sandboxAllowed } from '../browse/src/chromium';
import { DEFAULTS } from '../browse/src/config';

const ROOT = join(import.meta.dir, '..');
const BUILT_BINARY = join(ROOT, 'browse', 'dist', 'browse');
const WARM_RUNS = 30;
const WARMUPS = 3;
const COLD_RUNS = 3;
const VERSION_RUNS = 30;
const FRESH_RUNS = 5;
const CLI_TIMEOUT_MS = 30_000;
const BARS = { url: 20, click: 30, fill: 20, coldMs: 1200, rssMb: 80 };

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
  stderr: string;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// Nearest-rank percentile: always a value that was actually measured.
function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
}

const statsOf = (values: number[]): Stats => ({ p50: percentile(values, 50), p95: percentile(values, 95) });

function benchServer(): ReturnType<typeof Bun.serve> {
  const dir = join(ROOT, 'bench');
  return Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    fetch(req) {
      // basename: only files directly inside bench/, never a path that climbs out of it.
      const file = join(dir, basename(new URL(req.url).pathname) || 'index.html');
      return existsSync(file) ? new Response(Bun.file(file)) : new Response('Not found', { status: 404 });
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
  const [code, , stderr] = await Promise.all([
    proc.exited.then((c) => ({ c, ms: performance.now() - started })),
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
  ]);
  return { ms: code.ms, code: code.c, stderr: stderr.trim() };
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

async function floorStats(url: string, ops: Op[]): Promise<Map<string, Stats>> {
  const browser = await chromium.launch(launchOptions());
  try {
    const page = await benchPage(browser, url);
    const stats = new Map<string, Stats>();
    for (const op of ops) stats.set(op.name, statsOf(await opSamples(page, op)));
    return stats;
  } finally {
    await closeAndReap(browser);
  }
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
const server = benchServer();
const url = `http://127.0.0.1:${server.port}/index.html`;

async function cleanup(): Promise<void> {
  for (const stateFile of stateFiles) await stopDaemon(stateFile);
  server.stop(true);
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
  await stopDaemon(warmState); // baselines run with our daemon gone, so they don't share the CPUs with it
  console.error('bench: Playwright in-process floor…');
  const floor = await floorStats(url, ops);
  console.error('bench: fresh Playwright launch per command…');
  const fresh = await freshP50s(url, ops);
  console.log(`\n${header(url)}\n\nLatency (ms)\n\n${latencyTable(ops, warm.stats, floor, fresh)}\n\nBars\n\n${barsTable(warm.stats, cold, warm.rss, versionMs)}\n`);
} catch (e) {
  console.error(`bench failed: ${e instanceof Error ? e.message : String(e)}`);
  process.exitCode = 1;
} finally {
  await cleanup();
}
