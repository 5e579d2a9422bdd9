import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { Paths } from './config';

export interface DaemonState {
  pid: number;
  port: number;
  token: string;
  startedAt: string;
  binaryVersion: string;
  mode: 'headless' | 'headed' | 'remote';
}

/** Creates the state dir 0700 with a .gitignore; an existing dir not named .gstack (a BROWSE_STATE_FILE elsewhere) is left as it is. */
export function ensureStateDir(paths: Paths): void {
  const created = mkdirSync(paths.stateDir, { recursive: true, mode: 0o700 }) !== undefined;
  if (!created && basename(paths.stateDir) !== '.gstack') return;
  chmodSync(paths.stateDir, 0o700);
  const ignore = join(paths.stateDir, '.gitignore');
  if (!existsSync(ignore)) writeFileSync(ignore, '*\n', { mode: 0o600 });
}

export function readState(paths: Paths): DaemonState | null {
  try {
    const s = JSON.parse(readFileSync(paths.stateFile, 'utf8')) as DaemonState;
    if (typeof s.pid !== 'number' || typeof s.port !== 'number' || typeof s.token !== 'string') return null;
    return s;
  } catch {
    return null;
  }
}

// Atomic: readers see the old file or the new one, never half of one.
export function writeState(paths: Paths, state: DaemonState): void {
  ensureStateDir(paths);
  const tmp = `${paths.stateFile}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(state, null, 2) + '\n', { mode: 0o600 });
  chmodSync(tmp, 0o600);
  renameSync(tmp, paths.stateFile);
}

/** Deletes the state file only if it still describes this process (a newer daemon may own it). */
export function removeStateIfOwned(paths: Paths, pid = process.pid): void {
  const s = readState(paths);
  if (s && s.pid !== pid) return;
  try {
    unlinkSync(paths.stateFile);
  } catch {}
}

/** True for a running process; an exited one nobody has reaped yet (a zombie) counts as dead. */
export function isPidAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
  if (process.platform !== 'linux') return true;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

/** A pid can be recycled: on Linux, make sure it still is one of our daemons before trusting it. */
export function isOurDaemon(pid: number): boolean {
  if (!isPidAlive(pid)) return false;
  if (process.platform !== 'linux') return true;
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('__daemon');
  } catch {
    return true;
  }
}
