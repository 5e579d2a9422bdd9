// ./setup links the skills into an agent's skills dir under HOME and takes back exactly what it made; the
// skills' own setup block finds the binary through those links.
import { afterEach, describe, expect, test } from 'bun:test';
import { chmodSync, copyFileSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';

const ROOT = realpathSync(join(import.meta.dir, '..'));
const SKILLS = ['qa', 'qa-only', 'setup-browser-cookies'];
const RECORD = join(ROOT, '.gstack', 'setup-installed');
const homes: string[] = [];
afterEach(() => {
  for (const h of homes.splice(0)) {
    setup(h, '--uninstall'); // keeps the checkout's record free of temp HOMEs
    rmSync(h, { recursive: true, force: true });
  }
});
const recorded = (home: string) => (existsSync(RECORD) ? readFileSync(RECORD, 'utf8').split('\n').filter((l) => l.includes(home)) : []);

function tempDir(prefix: string): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  homes.push(dir);
  return dir;
}

function setup(home: string, ...args: string[]) {
  const r = Bun.spawnSync([join(ROOT, 'setup'), ...args], { cwd: ROOT, env: { ...process.env, HOME: home }, stdout: 'pipe', stderr: 'pipe' });
  return { code: r.exitCode, out: r.stdout.toString(), err: r.stderr.toString() };
}

/** Every path under a dir, links shown with their targets: the whole visible state of a HOME. */
function tree(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name);
      const st = lstatSync(p);
      if (st.isSymbolicLink()) out.push(`${relative(dir, p)} -> ${readlinkSync(p)}`);
      else if (st.isDirectory()) {
        out.push(`${relative(dir, p)}/`);
        walk(p);
      } else out.push(relative(dir, p));
    }
  };
  walk(dir);
  return out;
}

const linked = (skillsDir: string) => [`gstack -> ${ROOT}`, ...SKILLS.map((s) => `${s} -> ${join(ROOT, s)}`)].map((l) => `${skillsDir}/${l}`).sort();

describe('./setup links the skills into agents', () => {
  test('default host is Claude Code: ~/.claude/skills/gstack is the checkout and each skill sits beside it', () => {
    const home = tempDir('setup-home-');
    const r = setup(home, '--link-only');
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(tree(home)).toEqual(['.claude/', '.claude/skills/', ...linked('.claude/skills')]);
    for (const skill of ['gstack', ...SKILLS]) expect(readFileSync(join(home, '.claude/skills', skill, 'SKILL.md'), 'utf8')).toStartWith('---\nname: ');
    expect(readFileSync(join(home, '.claude/skills/gstack/SKILL.md'), 'utf8')).toContain('name: browse\n');
  });

  test('running it again changes nothing and says so', () => {
    const home = tempDir('setup-home-');
    setup(home, '--link-only');
    const before = tree(home);
    const again = setup(home, '--link-only');
    expect(again.code).toBe(0);
    expect(again.out.match(/already this checkout/g)?.length).toBe(1 + SKILLS.length);
    expect(tree(home)).toEqual(before);
  });

  test('a broken link and a link to another checkout are both left alone, and say so', () => {
    const home = tempDir('setup-home-');
    const other = tempDir('setup-other-checkout-');
    mkdirSync(join(home, '.claude', 'skills'), { recursive: true });
    symlinkSync(join(other, 'gone'), join(home, '.claude', 'skills', 'gstack'));
    symlinkSync(other, join(home, '.claude', 'skills', 'qa'));
    const r = setup(home, '--link-only');
    expect(r.out).toContain(`skills/gstack is a broken link (to ${join(other, 'gone')}): left alone`);
    expect(r.out).toContain('skills/qa exists and is not this checkout');
    expect(readlinkSync(join(home, '.claude', 'skills', 'gstack'))).toBe(join(other, 'gone'));
    expect(readlinkSync(join(home, '.claude', 'skills', 'qa'))).toBe(other);
  });

  test('--host codex links into ~/.agents/skills; --host auto picks every agent whose config dir exists', () => {
    const codex = tempDir('setup-home-');
    expect(setup(codex, '--link-only', '--host', 'codex').code).toBe(0);
    expect(tree(codex)).toEqual(['.agents/', '.agents/skills/', ...linked('.agents/skills')]);

    const both = tempDir('setup-home-');
    mkdirSync(join(both, '.claude'));
    mkdirSync(join(both, '.codex'));
    expect(setup(both, '--link-only', '--host=auto').code).toBe(0);
    expect(tree(both)).toEqual(['.agents/', '.agents/skills/', ...linked('.agents/skills'), '.claude/', '.claude/skills/', ...linked('.claude/skills'), '.codex/']);

    const none = tempDir('setup-home-');
    const r = setup(none, '--link-only', '--host', 'auto');
    expect(r.code).toBe(0);
    expect(r.out).toContain('no agent config dir found');
    expect(tree(none)).toEqual([]);
  });

  test('--uninstall removes only what setup made: foreign skills and dirs that existed before stay', () => {
    const home = tempDir('setup-home-');
    mkdirSync(join(home, '.claude', 'skills', 'qa'), { recursive: true }); // the user's own qa skill
    writeFileSync(join(home, '.claude', 'skills', 'qa', 'SKILL.md'), 'mine\n');
    const before = tree(home);
    const r = setup(home, '--link-only');
    expect(r.out).toContain('skills/qa exists and is not this checkout');
    expect(readFileSync(join(home, '.claude/skills/qa/SKILL.md'), 'utf8')).toBe('mine\n');
    expect(setup(home, '--link-only', '--host', 'codex').code).toBe(0);

    expect(recorded(home).length).toBeGreaterThan(0);
    const u = setup(home, '--uninstall');
    expect(u.code).toBe(0);
    expect(tree(home)).toEqual(before);
    expect(recorded(home)).toEqual([]);
    expect(setup(home, '--uninstall').code).toBe(0); // nothing left to do is not an error
  });

  test('--uninstall keeps a link into this checkout that the user made before setup ran', () => {
    const home = tempDir('setup-home-');
    mkdirSync(join(home, '.claude', 'skills'), { recursive: true });
    symlinkSync(ROOT, join(home, '.claude', 'skills', 'gstack'));
    expect(setup(home, '--link-only').out).toContain('skills/gstack: already this checkout');
    setup(home, '--uninstall');
    expect(tree(home)).toEqual(['.claude/', '.claude/skills/', `.claude/skills/gstack -> ${ROOT}`]);
  });

  test('a bad option or host is refused with the usage, before anything is touched', () => {
    const home = tempDir('setup-home-');
    for (const args of [['--host', 'vim'], ['--frobnicate'], ['--host']]) {
      const r = setup(home, ...args);
      expect(r.code).toBe(1);
      expect(r.err).toMatch(/FAILED: (unknown host 'vim'|unknown option '--frobnicate'|--host needs a value)/);
    }
    expect(tree(home)).toEqual([]);
  });
});

describe("the skills' setup block", () => {
  const rootSkill = readFileSync(join(ROOT, 'SKILL.md'), 'utf8');
  const blocks = [...rootSkill.matchAll(/```bash\n([\s\S]*?)```/g)].map((m) => m[1]);
  const setupBlock = blocks.find((b) => b.includes('NEEDS_SETUP'))!;
  const updateBlock = blocks.find((b) => b.includes('--update-check'))!;
  const run = (script: string, home: string, cwd: string) => {
    const r = Bun.spawnSync(['bash', '-c', script], { cwd, env: { ...process.env, HOME: home }, stdout: 'pipe', stderr: 'pipe' });
    return r.stdout.toString().trim();
  };

  test('prints READY with the binary when the skills are installed, NEEDS_SETUP with the fix when not', () => {
    const home = tempDir('setup-home-');
    const elsewhere = tempDir('setup-cwd-'); // not a git checkout, not gstack
    expect(run(setupBlock, home, elsewhere)).toStartWith('NEEDS_SETUP: gstack browse is not installed');
    setup(home, '--link-only');
    expect(run(setupBlock, home, elsewhere)).toBe(`READY: ${join(ROOT, 'browse', 'dist', 'browse')}`);
    expect(run(updateBlock, home, elsewhere)).toMatch(/^(UP_TO_DATE: gstack \d+\.\d+\.\d+|UPDATE_AVAILABLE: .* run: .*\/setup)/);
  });

  test('the finder says NEEDS_SETUP for an unbuilt install, and UPDATE_AVAILABLE for a newer install or a stale build', () => {
    const base = tempDir('setup-finder-');
    const install = (name: string, version: string) => {
      const dir = join(base, name);
      mkdirSync(join(dir, 'bin'), { recursive: true });
      copyFileSync(join(ROOT, 'bin', 'browse-find'), join(dir, 'bin', 'browse-find'));
      chmodSync(join(dir, 'bin', 'browse-find'), 0o755);
      writeFileSync(join(dir, 'package.json'), `{\n  "name": "gstack-browse",\n  "version": "${version}"\n}\n`);
      return dir;
    };
    const finder = (dir: string, ...args: string[]) => Bun.spawnSync([join(dir, 'bin', 'browse-find'), ...args], { stdout: 'pipe' });
    const old = install('old', '0.9.2');
    const newer = install('newer', '0.10.0');
    const r = finder(old);
    expect(r.exitCode).toBe(1);
    expect(r.stdout.toString()).toBe(`NEEDS_SETUP: ${old}/browse/dist/browse is not built yet; run: ${old}/setup\n`);
    expect(finder(old, '--update-check', old, newer).stdout.toString()).toStartWith(`UPDATE_AVAILABLE: gstack 0.10.0 is installed at ${newer}, but this session uses 0.9.2`);
    expect(finder(newer, '--update-check', old, newer).stdout.toString()).toBe(`UP_TO_DATE: gstack 0.10.0 (${newer})\n`);

    const git = (...args: string[]) => Bun.spawnSync(['git', '-c', 'user.name=t', '-c', 'user.email=t@t', '-C', old, ...args], { stdout: 'pipe' });
    git('init', '-q');
    git('commit', '-q', '--allow-empty', '-m', 'one');
    mkdirSync(join(old, 'browse', 'dist'), { recursive: true });
    writeFileSync(join(old, 'browse', 'dist', '.version'), '0123456789abcdef\n');
    expect(finder(old, '--update-check').stdout.toString()).toBe(`UPDATE_AVAILABLE: ${old} is checked out at ${git('rev-parse', 'HEAD').stdout.toString().slice(0, 12)} but its binary was built from 0123456789ab; run: ${old}/setup\n`);
  });
});
