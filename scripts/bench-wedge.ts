// Never-wedge and output-budget benchmark (issue 7), whole CLI processes against one daemon:
// - control-path latency (status, tabs, console, a read on another tab) while a `js` command is stuck in an
//   endless loop, against the same commands with nothing stuck (the baseline, same run);
// - characters of `snapshot -i -D` after one in-page change on the benchmark page;
// - characters of a flooded `console` with the default budget and with --max-output 0;
// - the ref check: `click @eN` against `click #css` on the same button, alternating;
// - named sessions: 5 sessions x 100 `url` calls from 5 concurrent callers, against the same 500 calls made
//   one after another in the default session.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BINARY, requireBinary, ROOT, timedCli } from './bench-cli';

const RUNS = 20;
const CONTROL_BAR_MS = 200;
const DIFF_BAR_CHARS = 300;
const PEER_DIFF_CHARS = 200;

requireBinary();

const work = mkdtempSync(join(tmpdir(), 'browse-bench-wedge-'));
const env = { ...process.env, BROWSE_STATE_FILE: join(work, 'state', 'browse.json'), BROWSE_IDLE_TIMEOUT: '120000' };
const percentile = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil((p / 100) * xs.length) - 1)];

async function cli(args: string[]): Promise<{ ms: number; out: string; code: number }> {
  const r = await timedCli(args, { env, cwd: work });
  return { ms: r.ms, out: (r.stdout || r.stderr).trimEnd(), code: r.code };
}

async function must(args: string[]): Promise<string> {
  const r = await cli(args);
  if (r.code !== 0) throw new Error(`browse ${args.join(' ')}: ${r.out}`);
  return r.out;
}

async function samples(args: string[]): Promise<number[]> {
  const ms: number[] = [];
  for (let i = 0; i < RUNS; i++) ms.push((await cli(args)).ms);
  return ms;
}

const server = Bun.serve({
  hostname: '127.0.0.1',
  port: 0,
  fetch(req) {
    const path = new URL(req.url).pathname;
    if (path === '/flood') return new Response(`<script>for (let i = 0; i < 5000; i++) console.log('flood message ' + i + ' ' + 'x'.repeat(40));</script>`, { headers: { 'content-type': 'text/html' } });
    const file = Bun.file(join(ROOT, 'bench', (path.slice(1) || 'index.html').replace(/[\/]/g, '')));
    return file.size ? new Response(file) : new Response('not found', { status: 404 });
  },
});
const base = `http://127.0.0.1:${server.port}`;

try {
  await must(['goto', `${base}/index.html`]);
  await must(['newtab', `${base}/index.html`]);
  await must(['tab', '1']);
  const control: [string, string[]][] = [
    ['status', ['status']],
    ['tabs', ['tabs']],
    ['console', ['console', '--errors']],
    ['url of tab 2 (tab 2, url)', ['chain', 'tab 2 | url']],
  ];
  const idle = new Map<string, number[]>();
  for (const [label, args] of control) idle.set(label, await samples(args));
  await must(['tab', '1']);

  const stuck = Bun.spawn([BINARY, 'js', 'while (true) {}', '--timeout', '120000'], { cwd: work, env, stdout: 'ignore', stderr: 'ignore' });
  await Bun.sleep(500);
  const busy = new Map<string, number[]>();
  for (const [label, args] of control) {
    busy.set(label, await samples(args));
    await must(['tab', '1']);
  }
  stuck.kill('SIGKILL');

  console.log(`## Control path while \`js 'while(true){}'\` is stuck (whole CLI process, ${RUNS} runs each; bar p50 ≤ ${CONTROL_BAR_MS} ms)\n`);
  console.log('| command | p50 idle (ms) | p50 stuck (ms) | p95 stuck (ms) | ratio stuck/idle | bar |');
  console.log('|---|---:|---:|---:|---:|---|');
  for (const [label] of control) {
    const a = percentile(idle.get(label)!, 50);
    const b = percentile(busy.get(label)!, 50);
    console.log(`| ${label} | ${a.toFixed(1)} | ${b.toFixed(1)} | ${percentile(busy.get(label)!, 95).toFixed(1)} | ${(b / a).toFixed(2)} | ${b <= CONTROL_BAR_MS ? 'PASS' : 'MISS'} |`);
  }

  await must(['--force-restart', 'goto', `${base}/index.html`]); // the stuck tab is being replaced: start clean
  await must(['snapshot', '-i']);
  await must(['js', 'document.querySelector("button").textContent = "Increment (1)"']);
  const diff = await must(['snapshot', '-i', '-D']);
  const full = await must(['snapshot', '-i']);
  const chars = [...diff].length;
  console.log(`\n## \`snapshot -i -D\` after one in-page change on bench/index.html (bar ≤ ${DIFF_BAR_CHARS}; best peer ~${PEER_DIFF_CHARS})\n`);
  console.log('| output | characters | bar |');
  console.log('|---|---:|---|');
  console.log(`| \`snapshot -i -D\` (envelope included) | ${chars} | ${chars <= DIFF_BAR_CHARS ? 'PASS' : 'MISS'} |`);
  console.log(`| baseline: \`snapshot -i\` of the same page | ${[...full].length} | |`);

  await must(['goto', `${base}/flood`]);
  await must(['wait', '--load']);
  const cut = await must(['console']);
  const all = await must(['console', '--max-output', '0']);
  console.log('\n## Output budget: `console` after 5,000 messages\n');
  console.log('| command | characters |');
  console.log('|---|---:|');
  console.log(`| \`console\` (default budget 20,000) | ${cut.length} |`);
  console.log(`| \`console --max-output 0\` | ${all.length} |`);
  console.log(`\nLast line of the cut output: ${cut.split('\n').at(-1)}`);

  await must(['goto', `${base}/index.html`]);
  const ref = (await must(['snapshot', '-i'])).match(/(@e\d+) \[button\] "Increment"/)![1];
  const byRef: number[] = [];
  const byCss: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    byRef.push((await cli(['click', ref])).ms);
    byCss.push((await cli(['click', '#inc'])).ms);
  }
  const [refMs, cssMs] = [percentile(byRef, 50), percentile(byCss, 50)];
  console.log(`\n## Ref check: \`click ${ref}\` against \`click #inc\` on the same button (${RUNS} runs each, alternating)\n`);
  console.log('| target | p50 (ms) | p95 (ms) | ratio |');
  console.log('|---|---:|---:|---:|');
  console.log(`| baseline: CSS \`#inc\` | ${cssMs.toFixed(1)} | ${percentile(byCss, 95).toFixed(1)} | 1.00 |`);
  console.log(`| ref \`${ref}\` (identity check) | ${refMs.toFixed(1)} | ${percentile(byRef, 95).toFixed(1)} | ${(refMs / cssMs).toFixed(2)} |`);

  const SESSIONS = 5;
  const PER_SESSION = 100;
  const names = Array.from({ length: SESSIONS }, (_, i) => `bench-${i + 1}`);
  for (const name of names) await must(['--session', name, 'goto', `${base}/index.html`]);
  let started = performance.now();
  for (let i = 0; i < SESSIONS * PER_SESSION; i++) await must(['url']);
  const serialMs = performance.now() - started;
  started = performance.now();
  await Promise.all(names.map(async (name) => {
    for (let i = 0; i < PER_SESSION; i++) await must(['--session', name, 'url']);
  }));
  const parallelMs = performance.now() - started;
  console.log(`\n## Named sessions: ${SESSIONS} sessions x ${PER_SESSION} \`url\` calls (whole CLI processes)\n`);
  console.log('| run | wall (s) | commands/s | ratio |');
  console.log('|---|---:|---:|---:|');
  console.log(`| baseline: ${SESSIONS * PER_SESSION} calls one after another, default session | ${(serialMs / 1000).toFixed(2)} | ${((SESSIONS * PER_SESSION) / (serialMs / 1000)).toFixed(0)} | 1.00 |`);
  console.log(`| ${SESSIONS} callers at once, one session each | ${(parallelMs / 1000).toFixed(2)} | ${((SESSIONS * PER_SESSION) / (parallelMs / 1000)).toFixed(0)} | ${(parallelMs / serialMs).toFixed(2)} |`);
} finally {
  await cli(['stop']);
  server.stop(true);
  rmSync(work, { recursive: true, force: true });
}
