// The skill docs cannot drift from the code: generated files are fresh, every `$B …` example parses against
// the registry, and the generator refuses templates it cannot fill.
import { afterAll, describe, expect, test } from 'bun:test';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { commands } from '../browse/src/commands/index';
import { findFiles, renderTemplate, ROOT } from '../scripts/gen-skill-docs';
import { makeHome } from '../browse/test/helpers';
import { checkInvocation, invocationsIn, shellWords, validateMarkdown } from './helpers/skill-validator';

const BUN = process.execPath;
const gen = (...args: string[]) => Bun.spawnSync([BUN, 'run', join(ROOT, 'scripts', 'gen-skill-docs.ts'), ...args], { cwd: ROOT, stdout: 'pipe', stderr: 'pipe' });
const SKILLS = { browse: 'SKILL.md', qa: 'qa/SKILL.md', 'qa-only': 'qa-only/SKILL.md', 'setup-browser-cookies': 'setup-browser-cookies/SKILL.md' };
const read = (rel: string) => readFileSync(join(ROOT, rel), 'utf8');

describe('generated SKILL.md files', () => {
  test('gen:skill-docs --dry-run reports every generated file FRESH', () => {
    const r = gen('--dry-run');
    const out = r.stdout.toString();
    expect(r.stderr.toString()).toBe('');
    expect(r.exitCode).toBe(0);
    for (const rel of Object.values(SKILLS)) expect(out).toContain(`FRESH ${rel}`);
    expect(out).not.toContain('STALE');
  });

  test('--dry-run says STALE and exits 1 when a generated file differs from its template', () => {
    const root = mkdtempSync(join(tmpdir(), 'skill-gen-'));
    try {
      mkdirSync(join(root, 'demo'));
      const tmpl = '---\nname: demo\ndescription: d\n---\n# Demo\n\n{{SNAPSHOT_FLAGS}}\n';
      writeFileSync(join(root, 'demo', 'SKILL.md.tmpl'), tmpl);
      writeFileSync(join(root, 'demo', 'SKILL.md'), 'hand-edited\n');
      const stale = gen('--dry-run', '--root', root);
      expect(stale.exitCode).toBe(1);
      expect(stale.stdout.toString()).toContain('STALE demo/SKILL.md');
      expect(readFileSync(join(root, 'demo', 'SKILL.md'), 'utf8')).toBe('hand-edited\n'); // a dry run writes nothing
      expect(gen('--root', root).exitCode).toBe(0);
      expect(gen('--dry-run', '--root', root).stdout.toString()).toContain('FRESH demo/SKILL.md');
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  test('each skill has frontmatter with its name and a description, then the AUTO-GENERATED notice', () => {
    for (const [name, rel] of Object.entries(SKILLS)) {
      const text = read(rel);
      const [, fm, after] = text.match(/^---\n([\s\S]*?)\n---\n(.*)\n/) ?? [];
      expect(fm).toContain(`name: ${name}\n`);
      expect(fm).toMatch(/description: .{80,}/);
      expect(after).toBe(`<!-- AUTO-GENERATED from ${rel}.tmpl — do not edit; run bun run gen:skill-docs -->`);
    }
  });

  test('every template in the repo is one of the four skills', () => {
    const templates = findFiles(ROOT, ['SKILL.md.tmpl']).map((p) => relative(ROOT, p));
    expect(templates.sort()).toEqual(Object.values(SKILLS).map((r) => `${r}.tmpl`).sort());
  });

  test('the browse skill lists every command of the registry with its usage, and every snapshot flag', () => {
    const text = read('SKILL.md');
    for (const c of commands) expect(text).toContain(`| \`${c.usage.replace(/\|/g, '\\|')}\` |`);
    for (const flag of ['-i, --interactive', '-D, --diff', '-d, --depth <N>', '-s, --selector <sel>']) expect(text).toContain(flag);
  });

  test('the qa skills share one methodology, and every skill starts with the setup and preamble blocks', () => {
    const methodology = readFileSync(join(ROOT, 'scripts', 'skill-parts', 'qa-methodology.md'), 'utf8').trimEnd();
    expect(read('qa/SKILL.md')).toContain(methodology);
    expect(read('qa-only/SKILL.md')).toContain(methodology);
    for (const rel of Object.values(SKILLS)) {
      expect(read(rel)).toContain('"$_G/bin/browse-find" --update-check');
      expect(read(rel)).toContain('then "$_G/bin/browse-find"; else echo "NEEDS_SETUP');
    }
  });

  test('an unknown placeholder and a leftover one are hard errors', () => {
    const fm = '---\nname: x\ndescription: y\n---\n';
    expect(() => renderTemplate(`${fm}{{NOT_A_THING}}\n`, 'x.tmpl')).toThrow('unknown placeholder {{NOT_A_THING}}');
    expect(() => renderTemplate(`${fm}{{ PREAMBLE }}\n`, 'x.tmpl')).toThrow("leftover placeholder '{{ PREAMBLE }}'");
    expect(() => renderTemplate(`${fm}{{preamble}}\n`, 'x.tmpl')).toThrow('leftover placeholder');
    expect(() => renderTemplate('# no frontmatter\n', 'x.tmpl')).toThrow('must start with YAML frontmatter');
    const root = mkdtempSync(join(tmpdir(), 'skill-gen-'));
    try {
      writeFileSync(join(root, 'SKILL.md.tmpl'), `${fm}{{COMMAND_TABLE}}\n`);
      const r = gen('--root', root);
      expect(r.exitCode).toBe(1);
      expect(r.stderr.toString()).toContain('unknown placeholder {{COMMAND_TABLE}}');
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

describe('docs validator: every $B example runs against the registry', () => {
  const files = findFiles(ROOT, ['SKILL.md', 'SKILL.md.tmpl']);

  test('passes on every SKILL.md and SKILL.md.tmpl in the repo', () => {
    expect(files.length).toBe(8);
    let total = 0;
    const problems: string[] = [];
    for (const file of files) {
      const { count, problems: found } = validateMarkdown(readFileSync(file, 'utf8'));
      total += count;
      for (const p of found) problems.push(`${relative(ROOT, file)}:${p.line}: ${p.text}\n    ${p.problem}`);
    }
    expect(problems).toEqual([]);
    expect(total).toBeGreaterThan(100);
  });

  test('fails on a broken skill, naming the line and the problem', () => {
    const broken = readFileSync(join(ROOT, 'test', 'fixtures', 'broken-skill.md'), 'utf8');
    const { problems } = validateMarkdown(broken);
    const byLine = Object.fromEntries(problems.map((p) => [p.line, p.problem]));
    expect(byLine).toEqual({
      9: expect.stringContaining("Unknown command 'clik'. Did you mean 'click'?"),
      10: expect.stringContaining("Unknown flag '-Z' for snapshot."),
      11: expect.stringContaining('Missing <selector>.'),
      12: expect.stringContaining("Unexpected argument 'extra'."),
      13: expect.stringContaining("--depth must be a whole number, got 'deep'"),
      14: expect.stringContaining("chain step 2 (fil #email a@b.c): Unknown command 'fil'"),
      15: expect.stringContaining("'sideways' is not one of"),
      17: expect.stringContaining("Unknown command 'gotoo'"),
      25: expect.stringContaining('a `$B` the validator cannot check'),
    });
  });

  test('reads shell the way bash does: quotes, operators, substitutions, redirections, comments', () => {
    const calls = (line: string) => invocationsIn(line).calls.map((c) => c.words);
    expect(shellWords(`$B fill '#q' "a b" # comment`)).toEqual(['$B', 'fill', '#q', 'a b']);
    expect(calls('$B goto "$URL" && $B text > /tmp/t.txt 2>&1 | head')).toEqual([['goto', '$URL'], ['text']]);
    expect(calls('for u in a b; do $B goto "$u"; done')).toEqual([['goto', '$u']]);
    expect(calls('X=$($B url); echo "now at $($B url)"')).toEqual([['url'], ['url']]);
    expect(calls(`echo "n: $($B js "document.querySelectorAll('a').length")"`)).toEqual([['js', "document.querySelectorAll('a').length"]]);
    expect(calls('X=`$B url`; timeout 5 $B text; time $B tabs')).toEqual([['text'], ['tabs'], ['url']]);
    expect(calls(`echo '$($B not-a-substitution)'`)).toEqual([]);
    expect(calls('if $B is visible .x; then B=1 $B click .x; fi')).toEqual([['is', 'visible', '.x'], ['click', '.x']]);
    expect(invocationsIn('echo $B goto; grep -c "$B" x')).toEqual({ calls: [], misplaced: 2 });
    expect(invocationsIn(`echo '[["url"]]' | $B chain`).calls).toEqual([{ words: ['chain'], stdin: true }]);
    expect(invocationsIn(`$B chain <<'EOF'`).calls).toEqual([{ words: ['chain'], stdin: true }]);
  });

  test('bash, sh and zsh fences count, with ``` or ~~~ and info strings; other fences do not', () => {
    const md = ['~~~bash', '$B gotoo x', '~~~', '```sh title=demo', '$B clik', '```', '```Bash', '$B urll', '```', '```text', '$B nope', '```'].join('\n');
    expect(validateMarkdown(md).problems.map((p) => p.line)).toEqual([2, 5, 8]);
  });

  test('checks global flags and chain steps in both forms', () => {
    expect(checkInvocation(['--force-restart', 'status'])).toBeNull();
    expect(checkInvocation(['--version'])).toBeNull();
    expect(checkInvocation(['--session', 'agent-2', 'url'])).toBeNull();
    expect(checkInvocation(['--session'])).toContain('--session needs a value');
    expect(checkInvocation(['--fast', 'status'])).toContain('unknown global flag --fast');
    expect(checkInvocation(['help', 'gotoo'])).toContain("Unknown command 'gotoo'");
    expect(checkInvocation(['chain'], true)).toBeNull(); // steps come on stdin
    expect(checkInvocation(['chain'])).toContain('Missing <steps>');
    expect(checkInvocation(['chain', '[["goto","http://x"],["click"]]'])).toContain('chain step 2 (click): Missing <selector>.');
    expect(checkInvocation(['chain', 'goto http://x | text'])).toBeNull();
    expect(checkInvocation(['snapshot', '-icd', '2'])).toBeNull();
    expect(checkInvocation(['snapshot', '-di', '2'])).toContain('must come last');
  });
});

describe('the snapshot example in the browse skill', () => {
  const page = readFileSync(join(ROOT, 'test', 'fixtures', 'skill-example-login.html'), 'utf8');
  const server = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: () => new Response(page, { headers: { 'content-type': 'text/html' } }) });
  const home = makeHome('skill-example');
  afterAll(async () => {
    await home.cleanup();
    server.stop(true);
  });

  test('prints exactly what the binary prints for those commands', async () => {
    const block = read('SKILL.md').split('```text\n$ $B snapshot -i\n')[1].split('\n```')[0];
    const steps = `$ $B snapshot -i\n${block}`.split(/^\$ \$B /m).filter(Boolean).map((chunk) => {
      const [command, ...expected] = chunk.split('\n');
      return { words: shellWords(command), expected: expected.join('\n').trim() };
    });
    expect(steps.map((s) => s.words[0])).toEqual(['snapshot', 'fill', 'click', 'snapshot']);
    const origin = `http://127.0.0.1:${server.port}`;
    await home.ok('goto', `${origin}/login`);
    for (const { words, expected } of steps) {
      const r = await home.run(words);
      expect(r.stdout.trim()).toBe(expected.replaceAll('http://localhost:3000', origin));
    }
  });
});
