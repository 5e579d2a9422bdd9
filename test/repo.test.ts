// Repo-level promises: README's two quick-start commands are the ones CI runs, and the first one works.
import { describe, expect, test } from 'bun:test';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ROOT = join(import.meta.dir, '..');
const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
const quickStart = readme.split('## Quick start')[1].split('\n## ')[0];
const commands = [...quickStart.matchAll(/```sh\n([^`]+?)\n```/g)].map((m) => m[1].trim());

describe('README quick start', () => {
  test('is exactly two commands: set up + run, and set up + test; .ci/run runs the same', () => {
    expect(commands).toHaveLength(2);
    expect(commands[0]).toStartWith('./setup && ');
    expect(commands[1]).toBe('./setup && npm test');
    const ci = readFileSync(join(ROOT, '.ci', 'run'), 'utf8').split('\n').filter((l) => l && !l.startsWith('#') && !l.startsWith('set ') && !l.startsWith('cd '));
    expect(ci).toEqual(['./setup', 'npm test']);
  });

  test('the main command works on the page the repo ships (after setup)', async () => {
    const home = mkdtempSync(join(tmpdir(), 'browse-readme-'));
    const env = { ...process.env, BROWSE_STATE_FILE: join(home, 'browse.json') };
    try {
      const main = commands[0].replace(/^\.\/setup && /, '');
      const r = Bun.spawnSync(['bash', '-c', main], { cwd: ROOT, env, stdout: 'pipe', stderr: 'pipe' });
      expect(r.stderr.toString()).toBe('');
      expect(r.exitCode).toBe(0);
      expect(r.stdout.toString()).toContain('Navigated to file://');
      expect(r.stdout.toString()).toContain('Peer benchmark page');
    } finally {
      Bun.spawnSync([join(ROOT, 'bin', 'browse'), 'stop'], { cwd: ROOT, env });
      rmSync(home, { recursive: true, force: true });
    }
  });

  test('bin/browse runs the compiled binary', () => {
    const r = Bun.spawnSync([join(ROOT, 'bin', 'browse'), '--version'], { stdout: 'pipe' });
    expect(r.exitCode).toBe(0);
    expect(r.stdout.toString().trim()).toBe(readFileSync(join(ROOT, 'browse', 'dist', '.version'), 'utf8').trim());
  });
});
