// BROWSE_CONNECT / BROWSE_CDP_URL: the daemon drives a browser it did not launch (SPEC §1, scale-out).
import { afterAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright';
import { CHROMIUM_ARGS, findChromium, sandboxAllowed } from '../src/chromium';
import { makeHome, pidAlive, startFixtureServer, unwrap, waitFor } from './helpers';

const fixtures = startFixtureServer();
const executablePath = findChromium(() => chromium.executablePath())?.path;
afterAll(() => fixtures.stop());

describe('remote browser', () => {
  test('BROWSE_CONNECT attaches to a Playwright browser server and leaves it running on stop', async () => {
    const server = await chromium.launchServer({ executablePath, headless: true, chromiumSandbox: sandboxAllowed(), args: CHROMIUM_ARGS });
    const home = makeHome('connect');
    try {
      const env = { BROWSE_CONNECT: server.wsEndpoint() };
      const r = await home.run(['goto', fixtures.url('/basic.html')], { env });
      expect(r.stderr).toBe('');
      expect(r.stdout).toContain('(200)');
      expect(unwrap((await home.run(['text', 'h1'])).stdout)).toBe('Welcome');
      expect(home.state()!.mode).toBe('remote');
      const status = (await home.run(['status'])).stdout;
      expect(status).toContain('Mode: remote');
      expect(status).not.toContain(server.wsEndpoint().split('/').pop()!); // the endpoint's secret path is not echoed
      const pid = home.state()!.pid;
      await home.run(['stop']);
      expect(await waitFor(() => !pidAlive(pid), 8000)).toBe(true);
      const again = await chromium.connect(server.wsEndpoint());
      expect(again.isConnected()).toBe(true); // the shared browser outlives our daemon
      await again.close();
    } finally {
      await home.cleanup();
      await server.close();
    }
  });

  test('BROWSE_CDP_URL attaches to a running Chrome over CDP', async () => {
    const profile = mkdtempSync(join(tmpdir(), 'browse-cdp-'));
    const chrome = Bun.spawn(
      [executablePath!, '--headless', '--remote-debugging-port=0', `--user-data-dir=${profile}`, ...CHROMIUM_ARGS, ...(sandboxAllowed() ? [] : ['--no-sandbox']), 'about:blank'],
      { stdout: 'ignore', stderr: 'ignore' },
    );
    const home = makeHome('cdp');
    try {
      const portFile = join(profile, 'DevToolsActivePort');
      expect(await waitFor(() => { try { return readFileSync(portFile, 'utf8').includes('\n'); } catch { return false; } }, 15000)).toBe(true);
      const port = readFileSync(portFile, 'utf8').split('\n')[0];
      const r = await home.run(['goto', fixtures.url('/form.html')], { env: { BROWSE_CDP_URL: `http://127.0.0.1:${port}` } });
      expect(r.stderr).toBe('');
      expect(r.stdout).toContain('(200)');
      await home.run(['fill', '#user', 'remote']);
      expect(unwrap((await home.run(['text', '#last-change'])).stdout)).toBe('user=remote');
      expect((await home.run(['status'])).stdout).toContain(`Chromium: CDP at http://127.0.0.1:${port}`);
    } finally {
      await home.cleanup();
      chrome.kill('SIGKILL');
      await chrome.exited;
      rmSync(profile, { recursive: true, force: true });
    }
  });

  test('a bad endpoint fails the start with a clear message', async () => {
    const home = makeHome('bad-remote');
    try {
      const r = await home.run(['url'], { env: { BROWSE_CONNECT: 'http://not-a-ws-url' } });
      expect(r.code).toBe(1);
      expect(r.stderr).toContain("BROWSE_CONNECT='http://not-a-ws-url' is not a ws:// or wss:// URL");
    } finally {
      await home.cleanup();
    }
  });
});
