// A daemon that cannot wedge (issue 7): every command has a deadline the daemon enforces, a stuck page is
// replaced without losing cookies or other tabs, the control path answers while a command hangs, a killed
// CLI leaves a healthy daemon, and dialogs never block. Through the compiled CLI, against real Chromium.
import { afterAll, describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import { BIN, makeHome, startFixtureServer, waitFor } from './helpers';

const ROOT = join(import.meta.dir, '..', '..');

const fixtures = startFixtureServer();
const home = makeHome('wedge');
const { ok, run } = home;
afterAll(async () => {
  await home.cleanup();
  fixtures.stop();
});

/** Starts a CLI command without waiting for it; `done` resolves with its result. */
function start(args: string[]) {
  const proc = Bun.spawn([BIN, ...args], { cwd: home.dir, env: home.env(), stdout: 'pipe', stderr: 'pipe' });
  let finished = false;
  const done = (async () => {
    const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    finished = true;
    return { stdout, stderr, code };
  })();
  return { proc, done, finished: () => finished };
}

describe('a stuck page never wedges the daemon', () => {
  test('js in an endless loop: the control path answers meanwhile, the caller gets a timeout, the tab is replaced and the next goto works', async () => {
    await ok('goto', fixtures.url('/set-cookie'));
    await ok('newtab', fixtures.url('/basic.html'));
    const other = (await ok('tabs')).match(/\* \[(\d+)\]/)![1];
    await ok('tab', '1');
    await ok('goto', fixtures.url('/form.html'));

    const stuck = start(['js', 'while (true) {}']); // the default script deadline: 10 s
    await Bun.sleep(500);
    for (const control of [['status'], ['tabs'], ['console'], ['network'], ['text', '--timeout', '3000']]) {
      const args = control[0] === 'text' ? ['tab', other] : control;
      const r = await run(args);
      expect(r.code).toBe(0);
      expect(stuck.finished()).toBe(false); // answered while the js command was still running
    }
    expect(await ok('tabs')).toContain('[1] Form fixture (busy)'); // the title seen at load, marked busy
    await ok('tab', '1');

    const r = await stuck.done;
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('js did not finish within 10s.');
    expect(r.stderr).toContain("Tab 1's page stopped answering");
    expect(r.stderr).toContain(`Run \`goto ${fixtures.url('/form.html')}\` to load it again.`);

    expect(await ok('goto', fixtures.url('/form.html'))).toContain('(200)');
    expect(await ok('js', 'document.title')).toBe('Form fixture');
    expect(await ok('cookies')).toContain('"name": "session_id"'); // the context, and its cookies, were kept
    expect(await ok('tabs')).toContain(`[${other}] Basic fixture`);
    await ok('closetab', other);
  }, 30_000);

  test('--timeout sets the deadline; a page that still answers is left as it is', async () => {
    await ok('goto', fixtures.url('/basic.html'));
    const started = Date.now();
    const r = await run(['wait', '#never-there', '5000', '--timeout', '800']);
    expect(Date.now() - started).toBeLessThan(4000);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('wait did not finish within 0.8s (--timeout).');
    expect(r.stderr).not.toContain('replaced');
    expect(await ok('url')).toBe(fixtures.url('/basic.html'));

    expect((await run(['url', '--timeout', '-5'])).stderr).toContain('--timeout takes milliseconds, 0 or more (0: no deadline).');
    expect(await ok('js', 'new Promise((r) => setTimeout(() => r(7), 300))', '--timeout', '0')).toBe('7');
    const slow = await run(['goto', fixtures.url('/slow?ms=3000'), '--timeout', '1000']);
    expect(slow.code).toBe(1);
    expect(slow.stderr).not.toContain('replaced');
    expect(await ok('goto', fixtures.url('/basic.html'))).toContain('(200)');
  });

  test('a CLI killed mid-command leaves the daemon healthy, and the command is finished or given up', async () => {
    await ok('goto', fixtures.url('/form.html'));
    const stuck = start(['js', 'while (true) {}', '--timeout', '1500']);
    await Bun.sleep(400);
    stuck.proc.kill('SIGKILL');
    await stuck.done;
    expect((await run(['status'])).code).toBe(0);
    // The daemon's own deadline still fires and replaces the page: the tab becomes usable again.
    expect(await waitFor(async () => (await run(['js', '1 + 1', '--timeout', '1000'])).stdout.includes('2'), 15_000, 300)).toBe(true);
    expect(await ok('goto', fixtures.url('/basic.html'))).toContain('(200)');
  });

  test('a dialog never blocks: it is answered by the policy and the next reply says so', async () => {
    await ok('goto', fixtures.url('/dialog.html'));
    const reply = await ok('click', '#confirm');
    expect(reply).toContain('(a confirm() dialog was accepted: `dialog` shows it; dialog-accept / dialog-dismiss choose for the next ones)');
    expect(reply).not.toContain('Are you sure'); // page text stays inside the envelope, never in a notice
    expect(await ok('text', '#out')).toBe('confirm=true');
    expect(await ok('url')).not.toContain('dialog was'); // one notice per dialog
  });
});

describe('bounded output', () => {
  const big = () => fixtures.url('/flood.html?n=3000'); // 3,000 console lines, ~200 KB

  test('a long output is cut at 20,000 characters by default, with a last line that says how to get the rest', async () => {
    await ok('goto', big());
    const r = await run(['console']);
    expect(r.code).toBe(0);
    const [body, note] = r.stdout.split('--- END UNTRUSTED PAGE CONTENT ---\n');
    expect(body.length).toBeLessThan(20_200);
    expect(note).toMatch(/^\(cut: printed characters 0–[\d,]+ of [\d,]+\. the rest: --offset \d+; narrow it: console --errors; everything: --out <file> or --max-output 0\)\n?$/);
    const next = Number(note.match(/--offset (\d+)/)![1]);
    const rest = await run(['console', '--offset', String(next), '--max-output', '0']);
    expect(rest.stdout).toContain('flood message 2999 ');
    const whole = await run(['console', '--max-output', '0']);
    expect(whole.stdout.length).toBeGreaterThan(150_000);
    expect(body.slice(body.indexOf('\n') + 1) + rest.stdout.slice(rest.stdout.indexOf('\n') + 1)).toStartWith(whole.stdout.slice(whole.stdout.indexOf('\n') + 1, 1000));
  });

  test('--max-output, --offset past the end, and --out write the whole output to a file', async () => {
    const small = await run(['console', '--max-output', '500']);
    expect(small.stdout.split('--- END UNTRUSTED PAGE CONTENT ---\n')[0].length).toBeLessThan(700);
    expect(small.stdout).toContain('(cut: printed characters 0–');
    expect((await run(['text', '--offset', '999999'])).stdout).toContain('(--offset 999,999 is past the end');
    const out = `${home.dir}/console.txt`;
    const written = await ok('console', '--out', out);
    expect(written).toMatch(/^Wrote [\d,]+ characters to .*console\.txt$/);
    expect(await Bun.file(out).text()).toContain('flood message 2999 ');
    expect((await run(['console', '--out', '/etc/browse-console.txt'])).stderr).toContain('outside the allowed directories');
  });

  test('commands the CLI runs itself (help) honour --max-output and --out too', async () => {
    expect(await ok('help', '--max-output', '300')).toContain('(cut: printed characters 0–');
    const written = await ok('help', '--out', 'help.txt');
    expect(written).toMatch(/^Wrote [\d,]+ characters to .*help\.txt$/);
    expect(await Bun.file(join(home.dir, 'help.txt')).text()).toContain('Global flags, before the command:');
  });

  test('snapshot -D after one change on the benchmark page prints at most 300 characters', async () => {
    const bench = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: (req) => new Response(Bun.file(join(ROOT, 'bench', new URL(req.url).pathname.slice(1) || 'index.html'))) });
    await ok('goto', `http://127.0.0.1:${bench.port}/index.html`);
    bench.stop(true);
    await ok('snapshot', '-i');
    await ok('js', 'document.querySelector("button").textContent = "Increment (1)"');
    const r = await run(['snapshot', '-i', '-D']);
    expect(r.stdout).toContain('+ @e');
    expect(r.stdout.length).toBeLessThanOrEqual(300);
  });
});
