// The daemon contract (SPEC §1), exercised through the compiled binary as a user would.
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'bun:test';
import { copyFileSync, mkdtempSync, readFileSync, statSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIN, childPids, daemonProcesses, makeHome, pidAlive, startFixtureServer, unwrap, waitFor } from './helpers';

const fixtures = startFixtureServer();
afterAll(() => fixtures.stop());

let home: ReturnType<typeof makeHome>;
beforeAll(() => {});
afterEach(async () => {
  await home?.cleanup();
});

describe('daemon lifecycle', () => {
  test('first call starts a daemon, later calls reuse it', async () => {
    home = makeHome('first');
    const first = await home.run(['goto', fixtures.url('/basic.html')]);
    expect(first.stderr).toBe('');
    expect(first.stdout).toBe(`Navigated to ${fixtures.url('/basic.html')} (200)`);
    expect(first.code).toBe(0);
    const s = home.state()!;
    expect(s.port).toBeGreaterThanOrEqual(10000);
    expect(s.port).toBeLessThanOrEqual(60000);
    expect(pidAlive(s.pid)).toBe(true);
    const again = await home.run(['url']);
    expect(again.stdout).toBe(fixtures.url('/basic.html'));
    expect(home.state()!.pid).toBe(s.pid);
    expect(readFileSync(join(home.dir, '.gstack', 'browse-daemon.log'), 'utf8')).toContain('daemon ready');
  });

  test('state file is 0600 in a 0700 directory with a .gitignore, and holds every field', async () => {
    home = makeHome('mode');
    await home.run(['url']);
    expect(statSync(home.stateFile).mode & 0o777).toBe(0o600);
    expect(statSync(join(home.dir, '.gstack')).mode & 0o777).toBe(0o700);
    expect(readFileSync(join(home.dir, '.gstack', '.gitignore'), 'utf8')).toContain('*');
    const s = home.state()!;
    expect(Object.keys(s).sort()).toEqual(['binaryVersion', 'mode', 'pid', 'port', 'startedAt', 'token'].sort());
    expect(s.token).toMatch(/^[0-9a-f-]{36}$/);
  });

  test('/health answers without auth and never reveals the token; /command needs the bearer token', async () => {
    home = makeHome('auth');
    await home.run(['url']);
    const s = home.state()!;
    const base = `http://127.0.0.1:${s.port}`;
    const health = await fetch(`${base}/health`);
    const body = await health.text();
    expect(health.status).toBe(200);
    expect(JSON.parse(body)).toMatchObject({ status: 'healthy', mode: 'headless', tabs: 1 });
    expect(body).not.toContain(s.token);
    const cmd = (headers: Record<string, string>) =>
      fetch(`${base}/command`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ command: 'url' }) });
    expect((await cmd({})).status).toBe(401);
    expect((await cmd({ authorization: 'Bearer wrong-token' })).status).toBe(401);
    expect((await cmd({ authorization: s.token })).status).toBe(401);
    const ok = await cmd({ authorization: `Bearer ${s.token}` });
    expect(ok.status).toBe(200);
    expect(await ok.text()).toBe('about:blank');
    const batch = await fetch(`${base}/batch`, { method: 'POST', headers: { authorization: `Bearer ${s.token}` }, body: JSON.stringify({ commands: [{ command: 'url' }, { command: 'nope' }] }) });
    const results = (await batch.json()).results;
    expect(results[0]).toEqual({ ok: true, output: 'about:blank' });
    expect(results[1].ok).toBe(false);
    expect(results[1].error).toContain("Unknown command 'nope'");
    const unauthBatch = await fetch(`${base}/batch`, { method: 'POST', body: '{}' });
    expect(unauthBatch.status).toBe(401);
  });

  test('a stale state file (dead pid) is replaced by a fresh daemon', async () => {
    home = makeHome('stale');
    await home.run(['url']);
    const s = home.state()!;
    await home.run(['stop']);
    await waitFor(() => !pidAlive(s.pid), 8000);
    writeFileSync(home.stateFile, JSON.stringify({ ...s, pid: 999999 }), { mode: 0o600 });
    const r = await home.run(['url']);
    expect(r.code).toBe(0);
    expect(home.state()!.pid).not.toBe(999999);
    expect(pidAlive(home.state()!.pid)).toBe(true);
  });

  test('a killed daemon is replaced on the next call', async () => {
    home = makeHome('killed');
    await home.run(['url']);
    const s = home.state()!;
    const chromium = childPids(s.pid);
    process.kill(s.pid, 'SIGKILL');
    await waitFor(() => !pidAlive(s.pid), 5000);
    const r = await home.run(['goto', fixtures.url('/basic.html')]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(home.state()!.pid).not.toBe(s.pid);
    // The orphaned Chromium notices its pipe closed and exits on its own.
    expect(await waitFor(() => chromium.every((p) => !pidAlive(p)), 10000)).toBe(true);
  });

  test('killed Chromium: the daemon exits cleanly and the next call recovers', async () => {
    home = makeHome('chromium');
    await home.run(['url']);
    const s = home.state()!;
    const kids = childPids(s.pid);
    expect(kids.length).toBeGreaterThan(0);
    for (const k of kids) process.kill(k, 'SIGKILL');
    expect(await waitFor(() => !pidAlive(s.pid), 10000)).toBe(true);
    expect(home.state()).toBeNull();
    const r = await home.run(['goto', fixtures.url('/basic.html')]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('(200)');
  });

  test('20 concurrent first calls start exactly one daemon', async () => {
    home = makeHome('race');
    const results = await Promise.all(Array.from({ length: 20 }, () => home.run(['url'])));
    for (const r of results) {
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
    }
    expect(daemonProcesses(home.stateFile)).toEqual([home.state()!.pid]);
  });

  test('a rebuilt binary (new .version) restarts the daemon exactly once', async () => {
    home = makeHome('version');
    const binDir = mkdtempSync(join(tmpdir(), 'browse-bin-'));
    const bin = join(binDir, 'browse');
    copyFileSync(BIN, bin);
    writeFileSync(join(binDir, '.version'), 'version-one\n');
    try {
      await home.run(['url'], { bin });
      const first = home.state()!;
      expect(first.binaryVersion).toBe('version-one');
      writeFileSync(join(binDir, '.version'), 'version-two\n');
      const r = await home.run(['url'], { bin });
      expect(r.code).toBe(0);
      const second = home.state()!;
      expect(second.binaryVersion).toBe('version-two');
      expect(second.pid).not.toBe(first.pid);
      expect(pidAlive(first.pid)).toBe(false);
      await home.run(['url'], { bin });
      expect(home.state()!.pid).toBe(second.pid);
      // `stop` from yet another build stops the running daemon without starting one of its own.
      writeFileSync(join(binDir, '.version'), 'version-three\n');
      expect((await home.run(['stop'], { bin })).stdout).toBe('Stopped.');
      expect(await waitFor(() => !pidAlive(second.pid), 8000)).toBe(true);
      expect(home.state()).toBeNull();
      expect(daemonProcesses(home.stateFile)).toEqual([]);
    } finally {
      rmSync(binDir, { recursive: true, force: true });
    }
  });

  test('the binary runs from anywhere: no Bun, no source tree needed', async () => {
    home = makeHome('portable');
    const binDir = mkdtempSync(join(tmpdir(), 'browse-portable-'));
    const bin = join(binDir, 'browse');
    copyFileSync(BIN, bin);
    try {
      const r = await home.run(['goto', fixtures.url('/basic.html')], { bin, env: { PATH: '/usr/bin:/bin' } });
      expect(r.stderr).toBe('');
      expect(r.stdout).toContain('(200)');
      expect(unwrap((await home.run(['text', 'h1'], { bin })).stdout)).toBe('Welcome');
    } finally {
      rmSync(binDir, { recursive: true, force: true });
    }
  });

  test('idle timeout shuts the daemon down and removes the state file', async () => {
    home = makeHome('idle');
    await home.run(['url'], { env: { BROWSE_IDLE_TIMEOUT: '1500' } });
    const s = home.state()!;
    expect(await waitFor(() => !pidAlive(s.pid), 10000)).toBe(true);
    expect(home.state()).toBeNull();
    expect(readFileSync(join(home.dir, '.gstack', 'browse-daemon.log'), 'utf8')).toContain('idle for');
  });

  test('a long command is not cut by the idle timeout', async () => {
    home = makeHome('idle-busy');
    await home.run(['goto', fixtures.url('/tabs.html')], { env: { BROWSE_IDLE_TIMEOUT: '1000' } });
    const r = await home.run(['wait', '#never-there', '2500']);
    expect(r.stderr).toContain('did not appear within 2500ms');
  });

  test('SIGTERM is ignored in headless mode; SIGINT shuts down cleanly', async () => {
    home = makeHome('signals');
    await home.run(['goto', fixtures.url('/basic.html')]);
    const s = home.state()!;
    process.kill(s.pid, 'SIGTERM');
    await Bun.sleep(300);
    expect(pidAlive(s.pid)).toBe(true);
    expect((await home.run(['url'])).stdout).toBe(fixtures.url('/basic.html'));
    expect(home.state()!.pid).toBe(s.pid);
    process.kill(s.pid, 'SIGINT');
    expect(await waitFor(() => !pidAlive(s.pid), 8000)).toBe(true);
    expect(home.state()).toBeNull();
    await home.run(['url']);
    const again = home.state()!;
    process.kill(again.pid, 'SIGHUP');
    expect(await waitFor(() => !pidAlive(again.pid), 8000)).toBe(true);
    expect(home.state()).toBeNull();
    expect(readFileSync(join(home.dir, '.gstack', 'browse-daemon.log'), 'utf8')).toContain('shutting down: SIGHUP');
  });

  test('stop, restart and --force-restart', async () => {
    home = makeHome('restart');
    await home.run(['url']);
    const a = home.state()!;
    const r = await home.run(['restart']);
    expect(r.stdout).toMatch(/^Restarted: daemon pid \d+/);
    const b = home.state()!;
    expect(b.pid).not.toBe(a.pid);
    expect(pidAlive(a.pid)).toBe(false);
    const forced = await home.run(['--force-restart', 'url']);
    expect(forced.stdout).toBe('about:blank');
    expect(home.state()!.pid).not.toBe(b.pid);
    const stopped = await home.run(['stop']);
    expect(stopped.stdout).toBe('Stopped.');
    expect(home.state()).toBeNull();
  });

  test('a live daemon that does not answer is reported busy, never killed without --force-restart', async () => {
    home = makeHome('busy');
    await home.run(['url']);
    const s = home.state()!;
    process.kill(s.pid, 'SIGSTOP'); // alive, but answers nothing
    try {
      const r = await home.run(['url']);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(`daemon (pid ${s.pid}) is alive but not answering`);
      expect(r.stderr).toContain('--force-restart');
      expect(pidAlive(s.pid)).toBe(true);
      process.kill(s.pid, 'SIGCONT');
      expect((await home.run(['url'])).stdout).toBe('about:blank');
      expect(home.state()!.pid).toBe(s.pid);
      process.kill(s.pid, 'SIGSTOP');
      const forced = await home.run(['--force-restart', 'url']);
      expect(forced.stdout).toBe('about:blank');
      expect(home.state()!.pid).not.toBe(s.pid);
      expect(await waitFor(() => !pidAlive(s.pid), 5000)).toBe(true);
    } finally {
      if (pidAlive(s.pid)) process.kill(s.pid, 'SIGCONT');
    }
  });
});
