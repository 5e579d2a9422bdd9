// Shared by the bench scripts: where the compiled binary is, and one whole CLI process timed from spawn to exit.
import { existsSync } from 'node:fs';
import { join } from 'node:path';

export const ROOT = join(import.meta.dir, '..');
export const BINARY = join(ROOT, 'browse', 'dist', 'browse');

/** Stops the bench with the fix when the binary was not built. */
export function requireBinary(): void {
  if (existsSync(BINARY)) return;
  console.error(`No binary at ${BINARY}: run \`bun run build\` first.`);
  process.exit(1);
}

export interface TimedRun {
  ms: number;
  stdout: string;
  stderr: string;
  code: number;
}

export async function timedCli(args: string[], opts: { env: Record<string, string | undefined>; cwd?: string }): Promise<TimedRun> {
  const started = performance.now();
  const proc = Bun.spawn([BINARY, ...args], { cwd: opts.cwd, env: opts.env, stdout: 'pipe', stderr: 'pipe' });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { ms: performance.now() - started, stdout, stderr, code };
}
