// `bun run eval:summary`: every recorded eval run at once: pass rate per test, flaky tests, averages, spend.
// summarizeRuns is pure (runs in, text out); the main below only reads the evals dir.
import { evalsDir, loadRuns, type EvalTestRecord, type StoredRun } from '../test/helpers/eval-store.ts';
import { formatDuration, formatUsd, table } from './eval-compare.ts';

export interface TestStats {
  name: string;
  kind: string;
  runs: number;
  passed: number;
  avgCostUsd: number;
  /** null when no run of the test reported turns (judge tests have none). */
  avgTurns: number | null;
  avgDurationMs: number;
}

const average = (xs: number[]) => (xs.length === 0 ? 0 : xs.reduce((s, x) => s + x, 0) / xs.length);

/** One entry per test name, in the order tests first appeared. */
export function statsByTest(runs: StoredRun[]): TestStats[] {
  const groups = new Map<string, { kind: string; records: EvalTestRecord[] }>();
  for (const { run } of runs) {
    for (const t of run.tests) {
      const g = groups.get(t.name) ?? { kind: run.kind, records: [] };
      g.records.push(t);
      groups.set(t.name, g);
    }
  }
  return [...groups].map(([name, { kind, records }]) => {
    const turns = records.map((r) => r.turns).filter((n): n is number => typeof n === 'number');
    return {
      name,
      kind,
      runs: records.length,
      passed: records.filter((r) => r.passed).length,
      avgCostUsd: average(records.map((r) => r.costUsd || 0)),
      avgTurns: turns.length === 0 ? null : average(turns),
      avgDurationMs: average(records.map((r) => r.durationMs || 0)),
    };
  });
}

/** Tests that both passed and failed across the runs. */
export function flakyTests(stats: TestStats[]): TestStats[] {
  return stats.filter((s) => s.passed > 0 && s.passed < s.runs);
}

function kindCounts(runs: StoredRun[]): string {
  const counts = new Map<string, number>();
  for (const { run } of runs) counts.set(run.kind, (counts.get(run.kind) ?? 0) + 1);
  return [...counts].map(([kind, n]) => `${n} ${kind}`).join(', ');
}

const percent = (passed: number, total: number) => `${Math.round((100 * passed) / total)}% (${passed}/${total})`;

/** Runs, pass rate per test, flaky tests, average cost/turns/duration and total spend over all runs. */
export function summarizeRuns(runs: StoredRun[], dir: string): string {
  if (runs.length === 0) return `eval:summary: no eval runs in ${dir} yet. Run \`bun run test:evals\` (EVALS=1, costs money) to record one.`;
  const stats = statsByTest(runs);
  const flaky = flakyTests(stats);
  const spend = runs.reduce((s, { run }) => s + (run.totals.costUsd || 0), 0);
  const tests = runs.reduce((n, { run }) => n + run.totals.tests, 0);
  const passed = runs.reduce((n, { run }) => n + run.totals.passed, 0);
  const rows = [['test', 'kind', 'runs', 'pass rate', 'avg cost', 'avg turns', 'avg duration']];
  for (const s of stats) {
    rows.push([s.name, s.kind, String(s.runs), percent(s.passed, s.runs), formatUsd(s.avgCostUsd), s.avgTurns === null ? '—' : s.avgTurns.toFixed(1), formatDuration(s.avgDurationMs)]);
  }
  return [
    `eval:summary: ${runs.length} run${runs.length === 1 ? '' : 's'} (${kindCounts(runs)}) in ${dir}`,
    `  from ${runs[0].file} to ${runs.at(-1)!.file}`,
    `  tests passed ${percent(passed, tests)}, total spend ${formatUsd(spend)}`,
    '',
    table(rows),
    '',
    flaky.length === 0 ? 'Flaky tests: none' : `Flaky tests (passed in some runs, failed in others):\n${flaky.map((s) => `  ${s.name}: passed ${s.passed} of ${s.runs}`).join('\n')}`,
  ].join('\n');
}

if (import.meta.main) {
  const dir = evalsDir();
  console.log(summarizeRuns(loadRuns(dir), dir));
}
