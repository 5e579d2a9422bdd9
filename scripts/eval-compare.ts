// `bun run eval:compare [a.json [b.json]]`: what changed between two eval runs of the same kind.
// compareRuns is pure (runs in, text out); the main below only finds and reads the files.
import { existsSync, readFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { compareRunAge, evalsDir, isEvalRun, loadRuns, type EvalTestRecord, type StoredRun } from '../test/helpers/eval-store.ts';

export function formatUsd(n: number): string {
  return `$${n.toFixed(2)}`;
}

export function formatDuration(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  return s % 60 === 0 ? `${m}m` : `${m}m ${s % 60}s`;
}

const signed = (n: number, fmt: (n: number) => string) => (n === 0 ? '±0' : n > 0 ? `+${fmt(n)}` : `-${fmt(-n)}`);

/** `a → b (+d)`, or just `a` when nothing changed. */
function delta(a: number | undefined, b: number | undefined, fmt: (n: number) => string): string {
  if (a === undefined || b === undefined) return a === undefined ? (b === undefined ? '—' : fmt(b)) : fmt(a);
  if (fmt(a) === fmt(b)) return fmt(a);
  return `${fmt(a)} → ${fmt(b)} (${signed(b - a, fmt)})`;
}

/** Rows padded into aligned columns, two spaces apart. */
export function table(rows: string[][], indent = '  '): string {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  return rows.map((r) => indent + r.map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i]))).join('  ').trimEnd()).join('\n');
}

const passWord = (t: EvalTestRecord | undefined) => (t === undefined ? '—' : t.passed ? 'PASS' : 'FAIL');

function runLine(label: string, s: StoredRun): string[] {
  const { run } = s;
  return [label, s.file, `${run.git.branch} @ ${run.git.commit}`, `${run.totals.passed}/${run.totals.tests} passed`, formatUsd(run.totals.costUsd), formatDuration(run.totals.durationMs)];
}

/** Score keys whose value changed, as `key a → b`. */
function scoreChanges(a: EvalTestRecord | undefined, b: EvalTestRecord | undefined): string {
  const keys = [...new Set([...Object.keys(a?.scores ?? {}), ...Object.keys(b?.scores ?? {})])];
  return keys
    .filter((k) => a?.scores?.[k] !== b?.scores?.[k])
    .map((k) => `${k} ${a?.scores?.[k] ?? '—'} → ${b?.scores?.[k] ?? '—'}`)
    .join(', ');
}

function changeOf(a: EvalTestRecord | undefined, b: EvalTestRecord | undefined): 'fixed' | 'regressed' | 'new' | 'removed' | '' {
  if (a === undefined) return 'new';
  if (b === undefined) return 'removed';
  if (!a.passed && b.passed) return 'fixed';
  if (a.passed && !b.passed) return 'regressed';
  return '';
}

/** Per-test pass/fail changes and cost, turns and duration deltas between two runs, then totals. */
export function compareRuns(before: StoredRun, after: StoredRun): string {
  const byName = (s: StoredRun) => new Map(s.run.tests.map((t) => [t.name, t]));
  const a = byName(before);
  const b = byName(after);
  const names = [...new Set([...a.keys(), ...b.keys()])];
  const counts = { fixed: 0, regressed: 0, new: 0, removed: 0 };
  const rows = [['test', 'result', 'cost', 'turns', 'duration', 'change']];
  const scoreLines: string[] = [];
  for (const name of names) {
    const x = a.get(name);
    const y = b.get(name);
    const change = changeOf(x, y);
    if (change) counts[change]++;
    rows.push([name, `${passWord(x)} → ${passWord(y)}`, delta(x?.costUsd, y?.costUsd, formatUsd), delta(x?.turns, y?.turns, String), delta(x?.durationMs, y?.durationMs, formatDuration), change.toUpperCase()]);
    const scores = scoreChanges(x, y);
    if (scores) scoreLines.push(`  ${name}: ${scores}`);
  }
  const ta = before.run.totals;
  const tb = after.run.totals;
  const kindNote = before.run.kind === after.run.kind ? before.run.kind : `${before.run.kind} vs ${after.run.kind}`;
  return [
    `eval:compare (${kindNote})`,
    table([runLine('before', before), runLine('after', after)]),
    '',
    table(rows),
    ...(scoreLines.length > 0 ? ['', 'Score changes:', ...scoreLines] : []),
    '',
    `Changes: ${counts.fixed} fixed, ${counts.regressed} regressed, ${counts.new} new, ${counts.removed} removed`,
    `Totals: passed ${ta.passed}/${ta.tests} → ${tb.passed}/${tb.tests}, cost ${delta(ta.costUsd, tb.costUsd, formatUsd)}, duration ${delta(ta.durationMs, tb.durationMs, formatDuration)}`,
  ].join('\n');
}

/** The newest run and the newest earlier run of the same kind (an e2e run is never compared with a judge run). */
export function defaultPair(runs: StoredRun[]): [StoredRun, StoredRun] | null {
  const after = runs.at(-1);
  if (after === undefined) return null;
  const before = previousRun(runs.slice(0, -1), after);
  return before === undefined ? null : [before, after];
}

/** The newest run of the same kind that is older than `after` (compareRunAge), among runs in any order. */
export function previousRun(runs: StoredRun[], after: StoredRun): StoredRun | undefined {
  return runs.filter((s) => s.run.kind === after.run.kind && compareRunAge(s, after) < 0).sort(compareRunAge).at(-1);
}

export function notEnoughRunsMessage(runs: StoredRun[], dir: string): string {
  const newest = runs.at(-1);
  const which = newest === undefined ? 'no eval runs' : `only one ${newest.run.kind} run (${newest.file})`;
  return `eval:compare needs two runs of the same kind; found ${which} in ${dir}.\nRun \`bun run test:evals\` (EVALS=1, costs money) to record one, or pass two files: bun run eval:compare a.json b.json`;
}

/** A run file given on the command line: a path, or a file name inside the evals dir. */
function readRunArg(arg: string, dir: string): StoredRun {
  const path = existsSync(arg) ? resolve(arg) : join(dir, arg);
  const run: unknown = JSON.parse(readFileSync(path, 'utf8'));
  if (!isEvalRun(run)) throw new Error(`${path} is not an eval run file`);
  return { file: basename(path), run };
}

function main(args: string[]): number {
  const dir = evalsDir();
  let pair: [StoredRun, StoredRun] | null;
  if (args.length >= 2) {
    pair = [readRunArg(args[0], dir), readRunArg(args[1], dir)];
  } else if (args.length === 1) {
    const after = readRunArg(args[0], dir);
    const before = previousRun(loadRuns(dir), after);
    pair = before ? [before, after] : null;
  } else {
    pair = defaultPair(loadRuns(dir));
  }
  if (pair === null) {
    console.error(notEnoughRunsMessage(loadRuns(dir), dir));
    return 1;
  }
  console.log(compareRuns(...pair));
  return 0;
}

if (import.meta.main) process.exit(main(process.argv.slice(2)));
