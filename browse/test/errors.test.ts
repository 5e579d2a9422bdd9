// Bad input: one actionable line on stderr, exit 1, and the session (tabs, cookies) survives.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeHome, startFixtureServer, unwrap } from './helpers';

const fixtures = startFixtureServer();
const home = makeHome('errors');

// A port nothing listens on: bind an ephemeral one, then free it.
const closedPort = (() => {
  const s = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } });
  const port = s.port;
  s.stop(true);
  return port;
})();

beforeAll(async () => {
  await home.run(['goto', fixtures.url('/set-cookie')]);
  await home.run(['newtab', fixtures.url('/basic.html')]);
});
afterAll(async () => {
  await home.cleanup();
  fixtures.stop();
});

const cases: [string, string[], RegExp][] = [
  ['unknown command', ['clik', '#x'], /^Error: Unknown command 'clik'\. Did you mean 'click'\? Run `help`/],
  ['missing argument', ['click'], /^Error: Missing <selector>\. Usage: click <selector> Run `help click`/],
  ['extra argument', ['url', 'extra'], /^Error: Unexpected argument 'extra'\. Usage: url/],
  ['unknown flag', ['console', '--everything'], /^Error: Unknown flag '--everything' for console\./],
  ['non-numeric argument', ['tab', 'two'], /^Error: id must be a whole number, got 'two'\./],
  ['invalid selector', ['click', '#!!'], /^Error: Invalid selector '#!!'\. Use a CSS selector/],
  ['selector matching many', ['text', '.dup'], /^Error: Selector '\.dup' matched 3 elements\. Use a more specific/],
  ['element that never appears', ['click', '#nothing-here'], /^Error: Element '#nothing-here' not found or not interactable within 5s\. Run `snapshot -i`/],
  ['invalid URL', ['goto', 'http://exa mple.com'], /^Error: Invalid URL 'http:\/\/exa mple\.com'\. Give a full URL/],
  ['disallowed scheme', ['goto', 'javascript:alert(1)'], /^Error: URL scheme 'javascript:' is not allowed\./],
  ['cloud metadata address', ['goto', 'http://169.254.169.254/latest/meta-data'], /^Error: Refusing to open cloud metadata address/],
  ['metadata address as a decimal number', ['goto', 'http://2852039166/'], /^Error: Refusing to open cloud metadata address 169\.254\.169\.254\./],
  ['metadata address inside IPv6', ['newtab', 'http://[::ffff:169.254.169.254]/'], /^Error: Refusing to open cloud metadata address \[::ffff:a9fe:a9fe\]\./],
  ['unreachable host', ['goto', `http://127.0.0.1:${closedPort}/`], new RegExp(`^Error: Could not load http://127\\.0\\.0\\.1:${closedPort}/: connection refused`)],
  ['file that does not exist', ['goto', 'file:///tmp/browse-no-such-file.html'], /^Error: File \/tmp\/browse-no-such-file\.html does not exist\./],
  ['file outside the allowed directories', ['goto', 'file:///etc/passwd'], /^Error: Path \/etc\/passwd is outside the allowed directories\./],
  ['unknown ref', ['click', '@e7'], /^Error: Ref @e7 does not exist: this tab has no refs \(they clear on navigation\)\. Run `snapshot`/],
  ['unknown global flag', ['--fast', 'url'], /^Error: Unknown global flag '--fast'\./],
];

describe('bad input', () => {
  for (const [what, args, message] of cases) {
    test(`${what}: one actionable line, exit 1, session intact`, async () => {
      const r = await home.run(args);
      expect(r.code).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(message);
      expect(r.stderr.split('\n')).toHaveLength(1);
      expect(r.stderr).not.toMatch(/\n\s+at |\.ts:\d+/); // no stack trace
    });
  }

  test('after all of that, the same daemon serves with its tabs and cookies', async () => {
    const s = home.state()!;
    const tabs = unwrap((await home.run(['tabs'])).stdout);
    expect(tabs.split('\n')).toHaveLength(2);
    expect(tabs).toContain(`[1] Cookies — ${fixtures.url('/set-cookie')}`);
    expect((await home.run(['cookies'])).stdout).toContain('"theme"');
    expect((await home.run(['goto', fixtures.url('/basic.html')])).code).toBe(0);
    expect(unwrap((await home.run(['text', 'h1'])).stdout)).toBe('Welcome');
    expect(home.state()!.pid).toBe(s.pid);
  });

  test('a goto right after a failed one works (the late error page does not cut it off)', async () => {
    for (let i = 0; i < 3; i++) {
      expect((await home.run(['goto', `http://127.0.0.1:${closedPort}/`])).code).toBe(1);
      const r = await home.run(['goto', fixtures.url('/basic.html')]);
      expect(r.stderr).toBe('');
      expect(r.stdout).toContain('(200)');
    }
  });

  test('bad input never starts a daemon', async () => {
    const fresh = makeHome('no-start');
    try {
      expect((await fresh.run(['clik'])).code).toBe(1);
      expect((await fresh.run(['goto'])).code).toBe(1);
      expect(fresh.state()).toBeNull();
      expect((await fresh.run(['stop'])).stdout).toBe('No daemon is running.');
      expect(fresh.state()).toBeNull();
      expect((await fresh.run(['help'])).code).toBe(0);
      expect(fresh.state()).toBeNull();
    } finally {
      await fresh.cleanup();
    }
  });

  test('malformed HTTP requests get JSON errors, not crashes', async () => {
    const s = home.state()!;
    const post = (path: string, body: string) =>
      fetch(`http://127.0.0.1:${s.port}${path}`, { method: 'POST', headers: { authorization: `Bearer ${s.token}` }, body });
    for (const body of ['not json', '{}', '{"command": 5}', '{"command":"url","args":"x"}', 'null', '[]']) {
      const r = await post('/command', body);
      expect(r.status).toBe(400);
      expect(await r.json()).toHaveProperty('hint');
    }
    expect((await post('/batch', '{"commands": 1}')).status).toBe(400);
    expect((await fetch(`http://127.0.0.1:${s.port}/nope`)).status).toBe(404);
    expect((await home.run(['url'])).code).toBe(0);
  });

  test('a host name that resolves to a metadata address is refused', async () => {
    // The real resolver reads /etc/hosts: add a name for the duration of this test (root only).
    const hosts = '/etc/hosts';
    const line = '169.254.169.254 browse-metadata-test.invalid';
    let original: string;
    try {
      original = readFileSync(hosts, 'utf8');
      writeFileSync(hosts, `${original.trimEnd()}\n${line}\n`);
    } catch {
      console.log('skipped: /etc/hosts is not writable here');
      return;
    }
    try {
      const r = await home.run(['goto', 'http://browse-metadata-test.invalid/latest/meta-data']);
      expect(r.code).toBe(1);
      expect(r.stderr).toBe('Error: Refusing to open cloud metadata address 169.254.169.254 (browse-metadata-test.invalid resolves to it). Navigate to your application instead.');
    } finally {
      writeFileSync(hosts, original);
    }
  });

  test('BROWSE_STATE_FILE in a shared directory leaves that directory as it was', async () => {
    const shared = mkdtempSync(join(tmpdir(), 'browse-shared-'));
    chmodSync(shared, 0o1777);
    const other = makeHome('shared');
    try {
      const stateFile = join(shared, 'browse.json');
      const r = await other.run(['url'], { env: { BROWSE_STATE_FILE: stateFile } });
      expect(r.code).toBe(0);
      expect(statSync(shared).mode & 0o7777).toBe(0o1777);
      expect(statSync(stateFile).mode & 0o777).toBe(0o600);
      await other.run(['stop'], { env: { BROWSE_STATE_FILE: stateFile } });
    } finally {
      await other.cleanup();
      rmSync(shared, { recursive: true, force: true });
    }
  });
});

describe('requests the page makes by itself', () => {
  test('file:// subresources outside the allowed directories and metadata addresses are blocked', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'browse-block-'));
    const page = join(dir, 'local.html');
    writeFileSync(page, '<h1>Local</h1><iframe src="file:///etc/hostname"></iframe><img src="http://169.254.169.254/latest/x.png">');
    try {
      expect((await home.run(['goto', `file://${page}`])).code).toBe(0);
      const errors = await waitForConsole(['browse blocked file:///etc/hostname', 'browse blocked http://169.254.169.254/latest/x.png: cloud metadata address']);
      expect(errors).toContain('file outside the allowed directories');
      const snap = unwrap((await home.run(['snapshot'])).stdout);
      const hostname = readFileSync('/etc/hostname', 'utf8').trim();
      if (hostname) expect(snap).not.toContain(hostname);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a redirect to a metadata address is blocked', async () => {
    const r = await home.run(['goto', fixtures.url('/redirect?to=http://169.254.169.254/latest/meta-data')]);
    expect(r.code).toBe(1);
    await waitForConsole(['browse blocked http://169.254.169.254/latest/meta-data']);
  });
});

async function waitForConsole(needles: string[]): Promise<string> {
  let out = '';
  for (let i = 0; i < 100; i++) {
    out = (await home.run(['console', '--errors'])).stdout;
    if (needles.every((n) => out.includes(n))) return out;
    await Bun.sleep(50);
  }
  throw new Error(`console never showed ${needles.join(', ')}:\n${out}`);
}

describe('deadlines', () => {
  test('a command stuck in the page answers with a deadline error and the daemon keeps serving', async () => {
    expect((await home.run(['goto', fixtures.url('/basic.html')])).code).toBe(0); // a settled page, whatever ran before
    const r = await home.run(['js', 'new Promise(() => {})']); // a promise that never settles
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('js did not finish within 10s.'); // the script deadline
    expect(r.stderr).not.toContain('replaced'); // a page that still answers is left as it is
    expect(r.ms).toBeLessThan(15_000);
    expect((await home.run(['url'])).code).toBe(0);
  }, 30_000);
});
