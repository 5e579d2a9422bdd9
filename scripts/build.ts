// Compiles the CLI + daemon into one self-contained binary and records the git revision beside it.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const root = join(import.meta.dir, '..');
const dist = join(root, 'browse', 'dist');
mkdirSync(dist, { recursive: true });

const build = Bun.spawnSync(
  [process.execPath, 'build', '--compile', '--bytecode', '--minify-syntax', '--minify-whitespace', 'browse/src/cli.ts', '--outfile', 'browse/dist/browse'],
  { cwd: root, stdout: 'inherit', stderr: 'inherit' },
);
if (build.exitCode !== 0) {
  console.error('build failed: fix the errors above (run `bun run typecheck` for details)');
  process.exit(1);
}

const rev = Bun.spawnSync(['git', 'rev-parse', 'HEAD'], { cwd: root, stdout: 'pipe', stderr: 'ignore' });
const version = rev.exitCode === 0 ? rev.stdout.toString().trim() : 'unknown';
writeFileSync(join(dist, '.version'), `${version}\n`);
console.log(`built browse/dist/browse (version ${version.slice(0, 12)})`);
