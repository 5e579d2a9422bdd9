import { spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { busyError, fetchHealth, postCommand } from './client';
import { readBinaryVersion, selfArgv, type Paths } from './config';
import { BrowseError } from './errors';
import { ensureStateDir, isOurDaemon, isPidAlive, readState, removeStateIfOwned, type DaemonState } from './state';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const startBudgetMs = () => (process.env.CI ? 30_000 : 15_000);

async function waitForExit(pid: number, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (!isOurDaemon(pid)) return true;
    await sleep(20);
  }
  return !isOurDaemon(pid);
}

/** Stops a daemon politely; refuses to kill one that is alive but unresponsive unless forced. */
export async function stopDaemon(paths: Paths, s: DaemonState, force: boolean): Promise<void> {
  if (isOurDaemon(s.pid)) {
    try {
      await postCommand(s, { command: 'stop', args: [] }, 3000);
    } catch {}
    if (!(await waitForExit(s.pid, 6000))) {
      if (!force) throw busyError(s);
      try {
        process.kill(s.pid, 'SIGKILL');
      } catch {}
      await waitForExit(s.pid, 3000);
    }
  }
  removeStateIfOwned(paths, s.pid);
}

/** A usable daemon: the current one if healthy and of our version, else a fresh one. */
export async function ensureDaemon(paths: Paths, opts: { forceRestart?: boolean; anyVersion?: boolean } = {}): Promise<DaemonState> {
  let state = readState(paths);
  if (state && opts.forceRestart) {
    await stopDaemon(paths, state, true);
    state = null;
  }
  if (state && !isOurDaemon(state.pid)) {
    removeStateIfOwned(paths, state.pid);
    state = null;
  }
  const version = readBinaryVersion();
  if (state && state.binaryVersion !== version && !opts.anyVersion) {
    // The binary was rebuilt: replace the daemon once, so new code serves the next command.
    await stopDaemon(paths, state, false);
    state = null;
  }
  return state ?? startDaemon(paths);
}

/** Called when a request could not connect: decide between "start a new one" and "busy". */
export async function recoverUnreachable(paths: Paths, s: DaemonState): Promise<DaemonState> {
  if (isOurDaemon(s.pid) && !(await waitForExit(s.pid, 1500))) {
    if (await fetchHealth(s, 1500)) return s;
    throw busyError(s);
  }
  removeStateIfOwned(paths, s.pid);
  return startDaemon(paths);
}

function tryLock(lockFile: string): boolean {
  try {
    const fd = openSync(lockFile, 'wx', 0o600);
    writeSync(fd, String(process.pid));
    closeSync(fd);
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    return false;
  }
}

function clearStaleLock(lockFile: string): void {
  try {
    const owner = Number(readFileSync(lockFile, 'utf8'));
    const age = Date.now() - statSync(lockFile).mtimeMs;
    // An empty lock is one being written right now: judge it by age only.
    if ((owner > 0 && !isPidAlive(owner)) || age > startBudgetMs() + 5000) unlinkSync(lockFile);
  } catch {}
}

async function liveState(paths: Paths): Promise<DaemonState | null> {
  const s = readState(paths);
  if (s && isOurDaemon(s.pid) && (await fetchHealth(s, 1000))) return s;
  return null;
}

/** Starts exactly one daemon even when many CLIs race: the lock holder spawns, the others wait for it. */
export async function startDaemon(paths: Paths): Promise<DaemonState> {
  ensureStateDir(paths);
  const deadline = Date.now() + startBudgetMs();
  while (!tryLock(paths.lockFile)) {
    const s = await liveState(paths);
    if (s) return s;
    clearStaleLock(paths.lockFile);
    if (Date.now() > deadline) throw new BrowseError('Timed out waiting for another browse process to start the daemon.', `Check ${paths.daemonLog}, then retry.`, 503);
    await sleep(25);
  }
  try {
    const existing = await liveState(paths);
    if (existing) return existing;
    return await spawnDaemon(paths, deadline);
  } finally {
    try {
      unlinkSync(paths.lockFile);
    } catch {}
  }
}

async function spawnDaemon(paths: Paths, deadline: number): Promise<DaemonState> {
  const logFd = openSync(paths.daemonLog, 'a', 0o600);
  const argv = selfArgv('__daemon');
  const child = spawn(argv[0], argv.slice(1), {
    cwd: paths.root,
    detached: true, // own session: survives the calling shell and its signals
    stdio: ['ignore', logFd, logFd],
    env: { ...process.env, BROWSE_STATE_FILE: paths.stateFile },
  });
  closeSync(logFd);
  let exited: number | null = null;
  child.on('exit', (code) => (exited = code ?? 1));
  try {
    while (Date.now() < deadline) {
      const s = readState(paths);
      if (s && s.pid === child.pid) return s; // the daemon writes its state only once it serves
      if (exited !== null) {
        throw new BrowseError(`The daemon failed to start (exit ${exited}): ${lastLogLine(paths.daemonLog)}`, `See ${paths.daemonLog}; run ./setup to check Chromium.`, 500);
      }
      await sleep(10);
    }
    try {
      process.kill(child.pid!, 'SIGKILL');
    } catch {}
    throw new BrowseError(`The daemon did not start within ${startBudgetMs() / 1000}s.`, `See ${paths.daemonLog}; run ./setup to check Chromium.`, 500);
  } finally {
    child.unref();
  }
}

function lastLogLine(file: string): string {
  try {
    const lines = readFileSync(file, 'utf8').trim().split('\n');
    return lines[lines.length - 1]?.replace(/^\[[^\]]+\] /, '') ?? '';
  } catch {
    return '(no log)';
  }
}
