import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

// Where the daemon's state lives: <project root>/.gstack/, or beside BROWSE_STATE_FILE.
export interface Paths {
  root: string;
  stateDir: string;
  stateFile: string;
  lockFile: string;
  daemonLog: string;
  logFile(kind: 'console' | 'network' | 'dialog'): string;
}

// Git toplevel without spawning git (a spawn would cost more than the whole warm command).
export function findProjectRoot(start = process.cwd()): string {
  let dir = resolve(start);
  for (;;) {
    if (existsSync(join(dir, '.git'))) return dir;
    const parent = dirname(dir);
    if (parent === dir) return resolve(start);
    dir = parent;
  }
}

export function resolvePaths(env = process.env, cwd = process.cwd()): Paths {
  const root = findProjectRoot(cwd);
  const stateFile = env.BROWSE_STATE_FILE ? resolve(cwd, env.BROWSE_STATE_FILE) : join(root, '.gstack', 'browse.json');
  const stateDir = dirname(stateFile);
  return {
    root,
    stateDir,
    stateFile,
    lockFile: `${stateFile}.lock`,
    daemonLog: join(stateDir, 'browse-daemon.log'),
    logFile: (kind) => join(stateDir, `browse-${kind}.log`),
  };
}

// True inside a `bun build --compile` binary, whose modules live in Bun's embedded file system.
export const isCompiled = Bun.main.includes('$bunfs') || Bun.main.includes('~BUN');

/** argv that runs this same program in a hidden mode (`__daemon`, `__check-chromium`), compiled or from source. */
export function selfArgv(mode: string): string[] {
  return isCompiled ? [process.execPath, mode] : [process.execPath, process.argv[1], mode];
}

// The build writes `git rev-parse HEAD` beside the binary; source runs report "dev".
export function readBinaryVersion(): string {
  if (!isCompiled) return 'dev';
  try {
    return readFileSync(join(dirname(process.execPath), '.version'), 'utf8').trim() || 'unknown';
  } catch {
    return 'unknown';
  }
}

export function intFromEnv(name: string, fallback: number, env = process.env): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  return Number.isFinite(n) && n >= 0 ? n : fallback;
}

/**
 * The registry's `cliOnly` commands, which skip the warm path: they check this process, and must not wait on
 * a daemon that may be the problem. Loading the registry in the warm path would cost its milliseconds, so
 * the names are mirrored here; a unit test keeps this set equal to the registry's.
 */
export const CLI_ONLY_COMMANDS = new Set(['doctor']);

export const DEFAULTS = {
  idleTimeoutMs: 30 * 60 * 1000,
  actionTimeoutMs: 5_000,
  navigationTimeoutMs: 15_000,
  settleTimeoutMs: 2_000,
  /** Per-command answer deadline unless the command declares its own (`--timeout` overrides either). */
  commandDeadlineMs: 20_000,
  navigationDeadlineMs: 15_000,
  /** Playwright's 5 s wait for the element, then its settle: the daemon's backstop comes a second later. */
  actionDeadlineMs: 6_000,
  scriptDeadlineMs: 10_000,
  /** Characters a reply prints unless `--max-output` says otherwise (0: no limit). */
  outputBudget: 20_000,
  logCapacity: 50_000,
  viewport: { width: 1280, height: 720 },
} as const;
