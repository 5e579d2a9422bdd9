// `browse doctor`: one line per check through the compiled binary, a fix on every failing line, never a daemon started.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { daemonProcesses, makeHome, pidAlive, waitFor } from './helpers';

/** The line of one check (`ok    port: …`), or undefined. */
const line = (out: string, name: string) => out.split('\n').find((l) => l.slice(6).startsWith(`${name}:`));
const levels = (out: string) => out.split('\n').filter((l) => /^(ok|warn|FAIL) /.test(l)).map((l) => l.split(' ')[0]);

describe('doctor without a daemon', () => {
  test('every check is ok or warn, it says no daemon runs, and it starts none', async () => {
    const home = makeHome('doctor-none');
    try {
      const r = await home.run(['doctor']);
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      expect(levels(r.stdout).length).toBeGreaterThanOrEqual(5);
      expect(levels(r.stdout).every((l) => l === 'ok' || l === 'warn')).toBe(true);
      expect(line(r.stdout, 'daemon')).toStartWith('ok    daemon: none running');
      expect(line(r.stdout, 'chromium')).toMatch(/^ok {4}chromium: .+, version [\d.]+, headless launch in \d+ ms$/);
      expect(existsSync(home.stateFile)).toBe(false);
      expect(existsSync(dirname(home.stateFile))).toBe(false); // not even the state dir
      expect(daemonProcesses(home.stateFile)).toEqual([]);
    } finally {
      await home.cleanup();
    }
  });

  test('stale state (a dead pid) is named, with what to do; nothing is changed', async () => {
    const home = makeHome('doctor-stale');
    try {
      const dead = Bun.spawn(['true']);
      await dead.exited;
      mkdirSync(dirname(home.stateFile), { mode: 0o700 });
      writeFileSync(join(dirname(home.stateFile), '.gitignore'), '*\n');
      writeFileSync(home.stateFile, JSON.stringify({ pid: dead.pid, port: 12345, token: 't', startedAt: new Date().toISOString(), binaryVersion: 'old', mode: 'headless' }), { mode: 0o600 });
      const r = await home.run(['doctor']);
      // Stale state heals itself on the next command, so it warns rather than fails.
      expect(r.code).toBe(0);
      expect(line(r.stdout, 'daemon')).toBe(
        `warn  daemon: stale state: ${home.stateFile} names pid ${dead.pid}, which is not running; the daemon crashed or was killed. Fix: Nothing needed: the next command replaces it (or \`rm ${home.stateFile}\`).`,
      );
      expect(line(r.stdout, 'port')).toBeUndefined(); // no daemon to ask
      expect(levels(r.stdout)).not.toContain('FAIL');
      expect(existsSync(home.stateFile)).toBe(true);
    } finally {
      await home.cleanup();
    }
  });
});

describe('doctor with a running daemon', () => {
  const home = makeHome('doctor-daemon');
  let pid = 0;
  let port = 0;
  beforeAll(async () => {
    await home.ok('status');
    ({ pid, port } = home.state()!);
  });
  afterAll(() => home.cleanup());

  test('the version matches and /health answers with the token accepted', async () => {
    const r = await home.run(['doctor']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(line(r.stdout, 'daemon')).toStartWith(`ok    daemon: pid ${pid}, port ${port}, mode headless`);
    expect(line(r.stdout, 'version')).toStartWith("ok    version: the daemon runs this binary's version");
    expect(line(r.stdout, 'port')).toMatch(new RegExp(`^ok {4}port: 127\\.0\\.0\\.1:${port} answers /health in \\d+ ms \\(1 tab, up \\d+s\\), token accepted$`));
    expect(line(r.stdout, 'state file')).toBe(`ok    state file: ${home.stateFile} (0600, yours)`);
    expect(levels(r.stdout)).not.toContain('FAIL');
    expect(home.state()!.pid).toBe(pid);
  });

  test('a state file 0644 and a state dir 0755 fail with the chmod that fixes them', async () => {
    const dir = dirname(home.stateFile);
    chmodSync(home.stateFile, 0o644);
    chmodSync(dir, 0o755);
    try {
      const r = await home.run(['doctor']);
      expect(r.code).toBe(1);
      expect(line(r.stdout, 'state dir')).toBe(`FAIL  state dir: ${dir} is 0755; it holds the daemon's token and logs and must be 0700. Fix: \`chmod 700 ${dir}\``);
      expect(line(r.stdout, 'state file')).toBe(`FAIL  state file: ${home.stateFile} is 0644; it holds the daemon's token and must be 0600. Fix: \`chmod 600 ${home.stateFile}\``);
      expect(levels(r.stdout).filter((l) => l === 'FAIL')).toHaveLength(2);
      expect(r.stdout.split('\n').pop()).toStartWith('doctor: 2 failed, ');
    } finally {
      chmodSync(home.stateFile, 0o600);
      chmodSync(dir, 0o700);
    }
  });

  test('a bad BROWSE_CHROMIUM_PATH in the caller fails the Chromium check, even with a healthy daemon', async () => {
    // The daemon was started without it: doctor must check the caller's environment, not ride the warm path.
    const missing = await home.run(['doctor'], { env: { BROWSE_CHROMIUM_PATH: '/nonexistent/chrome' } });
    expect(missing.code).toBe(1);
    expect(line(missing.stdout, 'chromium')).toBe(
      'FAIL  chromium: BROWSE_CHROMIUM_PATH=/nonexistent/chrome does not exist (when it is set there is no fallback). Fix: Point it at a Chrome/Chromium executable (`which chromium`), or unset it.',
    );
    const fake = join(home.dir, 'not-a-browser.sh');
    writeFileSync(fake, '#!/bin/sh\necho "this is no browser" >&2\nexit 3\n', { mode: 0o755 });
    const broken = await home.run(['doctor'], { env: { BROWSE_CHROMIUM_PATH: fake } });
    expect(broken.code).toBe(1);
    expect(line(broken.stdout, 'chromium')).toStartWith(`FAIL  chromium: ${fake} (BROWSE_CHROMIUM_PATH) does not launch headless: `);
    expect(line(broken.stdout, 'chromium')).toEndWith('Fix: Point BROWSE_CHROMIUM_PATH at a working Chrome/Chromium (`which chromium`), or unset it.');
    expect(line(broken.stdout, 'port')).toStartWith('ok '); // the daemon itself is untouched
    expect((await home.run(['status'])).code).toBe(0);
  });

  test('a daemon that is alive but not answering is reported with the fix', async () => {
    process.kill(pid, 'SIGSTOP');
    let r;
    try {
      r = await home.run(['doctor']);
    } finally {
      process.kill(pid, 'SIGCONT');
    }
    expect(r.code).toBe(1);
    expect(line(r.stdout, 'port')).toBe(
      `FAIL  port: pid ${pid} is alive but not answering GET /health on 127.0.0.1:${port} within 1.5s (the process is stopped by a signal). Fix: \`kill -CONT ${pid}\`, or \`browse --force-restart status\` replaces it.`,
    );
    expect(pidAlive(pid)).toBe(true); // doctor never kills or replaces anything
    expect(await waitFor(async () => (await home.run(['doctor'])).code === 0, 10_000, 200)).toBe(true);
  });

  test('doctor is refused as a chain step (it would check the daemon, not the caller)', async () => {
    const r = await home.run(['chain', 'doctor | url']);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('FAILED: doctor runs in the browse CLI, not inside the daemon.');
    expect(r.stdout).toContain('about:blank');
  });
});
