// Eval results on disk: a `_partial-<kind>.json` rewritten after every test (so a crash keeps what ran),
// then one timestamped final file per run. eval:compare and eval:summary read the final files.
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

export const SCHEMA_VERSION = 1;

export interface EvalTestRecord {
  name: string;
  tier: number;
  passed: boolean;
  exitReason?: string;
  turns?: number;
  toolCalls?: number;
  costUsd: number;
  durationMs: number;
  /** Named numbers: planted bugs found and total, judge scores… */
  scores?: Record<string, number>;
  notes?: string;
}

export interface GitInfo {
  branch: string;
  commit: string;
}

export interface EvalRun {
  schemaVersion: number;
  /** What ran: 'e2e' (tier 2) or 'llm-judge' (tier 3); also the file-name suffix. */
  kind: string;
  tier: number;
  startedAt: string;
  finishedAt: string | null;
  git: GitInfo;
  totals: { tests: number; passed: number; failed: number; costUsd: number; durationMs: number };
  tests: EvalTestRecord[];
}

/** A final run file as loaded: its file name and contents. */
export interface StoredRun {
  file: string;
  run: EvalRun;
}

/** EVALS=1 (or true/yes) opts in to the paid tiers. */
export function evalsEnabled(env: Record<string, string | undefined> = process.env): boolean {
  return ['1', 'true', 'yes'].includes((env.EVALS ?? '').trim().toLowerCase());
}

/** `~/.gstack-dev/evals/`, or GSTACK_EVALS_DIR. */
export function evalsDir(env: Record<string, string | undefined> = process.env): string {
  return env.GSTACK_EVALS_DIR || join(homedir(), '.gstack-dev', 'evals');
}

/** `2026-11-22T10:31:05.123Z` → `2026-11-22T10-31-05Z`: sortable and safe in file names everywhere. */
export function fileTimestamp(date: Date): string {
  return date.toISOString().replace(/\.\d+Z$/, 'Z').replaceAll(':', '-');
}

export function partialFileName(kind: string): string {
  return `_partial-${kind}.json`;
}

/** Writes to a temp file in the same directory, then renames: readers see the old file or the new one. */
export function writeJsonAtomic(path: string, data: unknown): void {
  const tmp = `${path}.${process.pid}.${Date.now()}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(data, null, 2)}\n`);
  renameSync(tmp, path);
}

/** Branch and short commit of the repo at cwd; 'unknown' outside git. */
export function gitInfo(cwd: string = join(import.meta.dir, '..', '..')): GitInfo {
  const git = (...args: string[]) => {
    const r = Bun.spawnSync(['git', ...args], { cwd, stdout: 'pipe', stderr: 'ignore' });
    return r.exitCode === 0 ? r.stdout.toString().trim() : 'unknown';
  };
  return { branch: git('rev-parse', '--abbrev-ref', 'HEAD'), commit: git('rev-parse', '--short', 'HEAD') };
}

export function totalsOf(tests: EvalTestRecord[]): EvalRun['totals'] {
  const passed = tests.filter((t) => t.passed).length;
  return {
    tests: tests.length,
    passed,
    failed: tests.length - passed,
    costUsd: round(tests.reduce((sum, t) => sum + (t.costUsd || 0), 0), 4),
    durationMs: tests.reduce((sum, t) => sum + (t.durationMs || 0), 0),
  };
}

const round = (n: number, digits: number) => Math.round(n * 10 ** digits) / 10 ** digits;

export interface CollectorOptions {
  kind: string;
  tier: number;
  dir?: string;
  git?: GitInfo;
  now?: () => Date;
}

export interface EvalCollector {
  readonly dir: string;
  readonly partialPath: string;
  readonly tests: readonly EvalTestRecord[];
  /** Adds one test's outcome and rewrites the partial file. */
  record(test: EvalTestRecord): void;
  /** Saves a text artifact (a transcript, a report) for this run; returns its path. */
  saveArtifact(name: string, text: string): string;
  /** Writes the timestamped final file, then removes the partial; null (and no file) when nothing was recorded. */
  finalize(): string | null;
}

export function createEvalCollector(opts: CollectorOptions): EvalCollector {
  const dir = opts.dir ?? evalsDir();
  const now = opts.now ?? (() => new Date());
  const startedAt = now();
  const git = opts.git ?? gitInfo();
  const partialPath = join(dir, partialFileName(opts.kind));
  const tests: EvalTestRecord[] = [];
  const snapshot = (finishedAt: string | null): EvalRun => ({
    schemaVersion: SCHEMA_VERSION,
    kind: opts.kind,
    tier: opts.tier,
    startedAt: startedAt.toISOString(),
    finishedAt,
    git,
    totals: totalsOf(tests),
    tests,
  });

  return {
    dir,
    partialPath,
    tests,
    record(test) {
      tests.push(test);
      mkdirSync(dir, { recursive: true });
      writeJsonAtomic(partialPath, snapshot(null));
    },
    saveArtifact(name, text) {
      const artifactDir = join(dir, 'artifacts', `${fileTimestamp(startedAt)}-${opts.kind}`);
      mkdirSync(artifactDir, { recursive: true });
      const path = join(artifactDir, name.replace(/[^\w.-]+/g, '-'));
      writeFileSync(path, text);
      return path;
    },
    finalize() {
      if (tests.length === 0) {
        rmSync(partialPath, { force: true });
        return null;
      }
      mkdirSync(dir, { recursive: true });
      const finished = now();
      const path = freePath(dir, `${fileTimestamp(finished)}-${opts.kind}`);
      writeJsonAtomic(path, snapshot(finished.toISOString()));
      rmSync(partialPath, { force: true }); // only now: a crash before this line leaves the partial, never nothing
      return path;
    },
  };
}

/** `<stem>.json`, or `<stem>-2.json`… when two runs finish in the same second (loadRuns orders those by number). */
function freePath(dir: string, stem: string): string {
  let path = join(dir, `${stem}.json`);
  for (let n = 2; existsSync(path); n++) path = join(dir, `${stem}-${n}.json`);
  return path;
}

/** The shape every reader relies on: a kind, a tests array and totals. */
export function isEvalRun(v: unknown): v is EvalRun {
  const r = v as EvalRun;
  return typeof r === 'object' && r !== null && typeof r.kind === 'string' && Array.isArray(r.tests) && typeof r.totals === 'object' && r.totals !== null;
}

/** When the run finished (else started), in ms; else the time in its file name; else 0. */
function runTime(s: StoredRun): number {
  const recorded = Date.parse(s.run.finishedAt ?? s.run.startedAt);
  if (!Number.isNaN(recorded)) return recorded;
  const named = /^(\d{4}-\d\d-\d\d)T(\d\d)-(\d\d)-(\d\d)Z/.exec(s.file);
  return named ? Date.parse(`${named[1]}T${named[2]}:${named[3]}:${named[4]}Z`) : 0;
}

/** 1 for `<stamp>-<kind>.json`, n for the `<stamp>-<kind>-n.json` that freePath picks on a clash. */
function clashNumber(s: StoredRun): number {
  const m = /-(\d+)\.json$/.exec(s.file);
  return m && s.file.slice(0, m.index).endsWith(`-${s.run.kind}`) ? Number(m[1]) : 1;
}

/**
 * Oldest first: by the time recorded in the run, then by freePath's clash number (`-2` was written after
 * the plain name, though it sorts before it as text), then by file name.
 */
export function compareRunAge(a: StoredRun, b: StoredRun): number {
  return runTime(a) - runTime(b) || clashNumber(a) - clashNumber(b) || (a.file < b.file ? -1 : a.file > b.file ? 1 : 0);
}

/** Every final run file in dir, oldest first (compareRunAge); the partial and unreadable files are skipped. */
export function loadRuns(dir: string = evalsDir()): StoredRun[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json') && !f.startsWith('_partial'))
    .flatMap((file) => {
      try {
        const run: unknown = JSON.parse(readFileSync(join(dir, file), 'utf8'));
        return isEvalRun(run) ? [{ file, run }] : [];
      } catch {
        return [];
      }
    })
    .sort(compareRunAge);
}
