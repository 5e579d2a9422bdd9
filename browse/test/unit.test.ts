// Pure logic: fast tests with no browser.
import { describe, expect, test } from 'bun:test';
import { mkdtempSync, symlinkSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseInput } from '../src/commands/define';
import { CLI_ONLY_COMMANDS } from '../src/config';
import { commands, findCommand, unknownCommand } from '../src/commands/index';
import { parseChainText } from '../src/commands/meta';
import { BrowseError, translateError } from '../src/errors';
import { isMetadataAddress, normalizeUrl, validateOutputPath } from '../src/policy';
import { bound } from '../src/output';
import { redactValue } from '../src/redact';
import { RingBuffer } from '../src/ring-buffer';

describe('RingBuffer', () => {
  test('keeps the newest entries up to capacity, oldest first', () => {
    const rb = new RingBuffer<number>(3);
    for (let i = 0; i < 5; i++) rb.push(i);
    expect(rb.toArray()).toEqual([2, 3, 4]);
    expect(rb.length).toBe(3);
    expect(rb.nextSeq).toBe(5);
  });

  test('since(seq) returns only what is new and still held', () => {
    const rb = new RingBuffer<string>(4);
    rb.push('a');
    rb.push('b');
    const mark = rb.nextSeq;
    rb.push('c');
    expect(rb.since(mark)).toEqual(['c']);
    for (const x of ['d', 'e', 'f', 'g']) rb.push(x);
    expect(rb.since(mark)).toEqual(['d', 'e', 'f', 'g']); // 'c' was overwritten
    rb.clear();
    expect(rb.toArray()).toEqual([]);
    rb.push('h');
    expect(rb.since(mark)).toEqual(['h']);
  });

  test('push is O(1): 200,000 pushes into a 50,000 ring stay fast and bounded', () => {
    const rb = new RingBuffer<number>(50_000);
    const t = performance.now();
    for (let i = 0; i < 200_000; i++) rb.push(i);
    expect(performance.now() - t).toBeLessThan(500);
    expect(rb.length).toBe(50_000);
    expect(rb.toArray()[0]).toBe(150_000);
  });
});

describe('argument parsing from the registry', () => {
  const cmd = (name: string) => findCommand(name)!;

  test('positional, rest and flags', () => {
    expect(parseInput(cmd('fill'), ['#a', 'hello', 'world'])).toEqual({ selector: '#a', text: 'hello world' });
    expect(parseInput(cmd('screenshot'), ['--clip', '0,0,1,1', 'x.png'])).toEqual({ clip: '0,0,1,1', path: 'x.png' });
    expect(parseInput(cmd('screenshot'), ['--selector=#a'])).toEqual({ selector: '#a' });
    expect(parseInput(cmd('console'), ['--errors'])).toEqual({ errors: true });
    expect(parseInput(cmd('tab'), ['3'])).toEqual({ id: 3 });
    expect(parseInput(cmd('chain'), ['--stop-on-error', '[]'])).toEqual({ stopOnError: true, steps: '[]' });
  });

  test('a paths argument keeps each word apart, spaces included', () => {
    expect(parseInput(cmd('upload'), ['#f', 'my photo.png', 'b.png'])).toEqual({ selector: '#f', files: ['my photo.png', 'b.png'] });
    expect(cmd('upload').usage).toBe('upload <sel|@ref> <file…>');
    expect(() => parseInput(cmd('upload'), ['#f'])).toThrow('Missing <file>');
  });

  test('text after -- is never a flag', () => {
    expect(parseInput(cmd('screenshot'), ['--', '--viewport'])).toEqual({ path: '--viewport' });
  });

  test('commands without flags take words that look like flags as text', () => {
    expect(parseInput(cmd('type'), ['--not-a-flag'])).toEqual({ text: '--not-a-flag' });
  });

  test('rejections carry the usage', () => {
    expect(() => parseInput(cmd('goto'), [])).toThrow('Missing <url>. Usage: goto <url>');
    expect(() => parseInput(cmd('url'), ['x'])).toThrow("Unexpected argument 'x'");
    expect(() => parseInput(cmd('tab'), ['1.5'])).toThrow('id must be a whole number');
    expect(() => parseInput(cmd('console'), ['--errors=yes'])).toThrow('takes no value');
    expect(() => parseInput(cmd('screenshot'), ['--clip'])).toThrow('needs a value');
    expect(() => parseInput(cmd('is'), ['big', '#a'])).toThrow("'big' is not one of");
  });

  test('every registry entry is complete and names are unique', () => {
    const names = new Set<string>();
    for (const c of commands) {
      expect(c.description.length).toBeGreaterThan(10);
      expect(c.usage.startsWith(c.name)).toBe(true);
      expect(['read', 'write', 'meta']).toContain(c.category);
      expect(names.has(c.name)).toBe(false);
      names.add(c.name);
    }
    // SPEC §2's table (cookie-import-browser comes with issue 5) plus download.
    const specified =
      'goto back forward reload url load-html text html links forms accessibility media data js eval css attrs is console network dialog cookies storage perf ' +
      'click fill select hover type press scroll wait viewport upload dialog-accept dialog-dismiss cookie cookie-import header useragent ' +
      'screenshot pdf responsive snapshot diff tabs tab newtab closetab frame state handoff resume chain status stop restart help ux-audit download';
    for (const name of specified.split(' ')) expect(names.has(name)).toBe(true);
  });
});

describe('unknown commands', () => {
  test('suggest the nearest command', () => {
    expect(unknownCommand('clik').message).toBe("Unknown command 'clik'. Did you mean 'click'?");
    expect(unknownCommand('screenshto').message).toContain("'screenshot'");
    expect(unknownCommand('newt').message).toContain("'newtab'");
    expect(unknownCommand('zzzzzzzz').message).toBe("Unknown command 'zzzzzzzz'.");
  });
});

describe('chain text', () => {
  test('splits on | and newlines, honouring quotes', () => {
    expect(parseChainText('goto http://x | click "#a b" | js \'1 | 2\'\ntext')).toEqual([
      ['goto', 'http://x'],
      ['click', '#a b'],
      ['js', '1 | 2'],
      ['text'],
    ]);
    expect(parseChainText('fill #a ""')).toEqual([['fill', '#a', '']]);
    expect(() => parseChainText('click "open')).toThrow('Unclosed quote');
  });
});

describe('URL policy', () => {
  test('adds schemes to bare hosts and keeps good URLs', () => {
    expect(normalizeUrl('localhost:3000/x')).toBe('http://localhost:3000/x');
    expect(normalizeUrl('127.0.0.1:8080')).toBe('http://127.0.0.1:8080/');
    expect(normalizeUrl('example.com')).toBe('https://example.com/');
    expect(normalizeUrl('about:blank')).toBe('about:blank');
    expect(normalizeUrl('https://a.test/p?q=1')).toBe('https://a.test/p?q=1');
  });

  test('metadata endpoints are recognised in every spelling', () => {
    for (const u of ['http://169.254.169.254/', 'http://2852039166/', 'http://0xa9fea9fe/', 'http://0251.0376.0251.0376/', 'http://169.254.43518/',
      'http://[::ffff:169.254.169.254]/', 'http://[::ffff:a9fe:a9fe]/', 'http://[64:ff9b::a9fe:a9fe]/', 'http://[fd00:ec2::254]/',
      'http://169.254.170.2/v2/credentials', 'http://100.100.100.200/', 'http://METADATA.google.internal./']) {
      expect(() => normalizeUrl(u)).toThrow('metadata');
    }
    for (const ok of ['127.0.0.1', '::1', '::ffff:7f00:1', 'fe80::1', '10.0.0.1', 'example.com']) expect(isMetadataAddress(ok)).toBe(false);
  });

  test('refuses other schemes and metadata hosts', () => {
    expect(() => normalizeUrl('javascript:alert(1)')).toThrow('not allowed');
    expect(() => normalizeUrl('data:text/html,hi')).toThrow('not allowed');
    expect(() => normalizeUrl('http://169.254.169.254/')).toThrow('metadata');
    expect(() => normalizeUrl('http://metadata.google.internal/')).toThrow('metadata');
  });
});

describe('path policy', () => {
  test('allows the temp dir, refuses elsewhere, including through symlinks and look-alike prefixes', () => {
    const dir = mkdtempSync(join(tmpdir(), 'browse-policy-'));
    try {
      expect(validateOutputPath(join(dir, 'a.png'))).toBe(join(dir, 'a.png'));
      expect(() => validateOutputPath('/etc/a.png')).toThrow('outside the allowed directories');
      expect(() => validateOutputPath('/tmpevil/a.png')).toThrow();
      symlinkSync('/etc', join(dir, 'etc-link'));
      expect(() => validateOutputPath(join(dir, 'etc-link', 'a.png'))).toThrow('outside the allowed directories');
      symlinkSync('/etc/hostname', join(dir, 'file-link.png'));
      expect(() => validateOutputPath(join(dir, 'file-link.png'))).toThrow('outside the allowed directories');
      expect(() => validateOutputPath(join(dir, 'missing-dir', 'a.png'))).toThrow('does not exist');
      writeFileSync(join(dir, 'ok.png'), '');
      expect(validateOutputPath(join(dir, 'sub', '..', 'ok.png'))).toBe(join(dir, 'ok.png'));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('redaction', () => {
  test('secret-looking names and values are hidden, with their length', () => {
    expect(redactValue('theme', 'dark')).toBe('dark');
    expect(redactValue('session_id', 'abc')).toBe('[REDACTED — 3 chars]');
    expect(redactValue('x', 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig')).toMatch(/^\[REDACTED/);
    expect(redactValue('note', 'sk-abcdefghijklmnop')).toMatch(/^\[REDACTED/);
    expect(redactValue('note', 'AKIAABCDEFGHIJKLMNOP')).toMatch(/^\[REDACTED/);
  });
});

describe('error translation', () => {
  test('Playwright messages become agent instructions', () => {
    const t = (m: string, target?: string) => translateError(new Error(m), target);
    expect(t('locator.click: Timeout 5000ms exceeded.\nCall log:\n  - waiting for locator(\'#x\')', '#x').message).toBe("Element '#x' not found or not interactable within 5s.");
    expect(t("locator.click: Error: strict mode violation: locator('p') resolved to 4 elements:", 'p').message).toBe("Selector 'p' matched 4 elements.");
    expect(t('page.goto: net::ERR_NAME_NOT_RESOLVED at http://nope.invalid/').message).toBe('Could not load http://nope.invalid/: the host name does not resolve.');
    expect(t('Target page, context or browser has been closed').hint).toContain('tabs');
    const mine = new BrowseError('mine', 'hint');
    expect(translateError(mine)).toBe(mine);
  });
});

describe('output budgets', () => {
  const cmd = (name: string) => findCommand(name)!;
  const lines = Array.from({ length: 100 }, (_, i) => `line ${String(i).padStart(3, '0')} ${'x'.repeat(40)}`).join('\n'); // 49 chars a line

  test('under the budget, the text is untouched and no note is added', () => {
    expect(bound('short', cmd('text'))).toEqual({ body: 'short', note: '' });
  });

  test('over the budget, the cut falls on a line end and the note says where to go on', () => {
    const { body, note } = bound(lines, cmd('console'), 0, 1000);
    expect(body.endsWith(`${'x'.repeat(40)}`)).toBe(true);
    expect(body.length).toBe(999); // 20 whole lines of 49 + 19 newlines
    expect(note).toBe('\n(cut: printed characters 0–999 of 4,999. the rest: --offset 1000; narrow it: console --errors; everything: --out <file> or --max-output 0)');
    expect(lines.slice(1000).startsWith('line 020')).toBe(true); // --offset 1000 starts the next line
  });

  test('the narrowing hint fits the command: -s for snapshot, a selector for text, none for js', () => {
    expect(bound(lines, cmd('snapshot'), 0, 100).note).toContain('narrow it: snapshot -s <selector> (or -i, -d <N>)');
    expect(bound(lines, cmd('text'), 0, 100).note).toContain('narrow it: text <selector>');
    expect(bound(lines, cmd('js'), 0, 100).note).not.toContain('narrow it');
  });

  test('offsets, no limit, and commands that bound themselves', () => {
    expect(bound(lines, cmd('text'), 4900, 1000)).toEqual({ body: lines.slice(4900), note: '\n(characters 4,900–4,999 of 4,999)' });
    expect(bound(lines, cmd('text'), 5000).note).toBe('\n(--offset 5,000 is past the end: the output has 4,999 characters)');
    expect(bound(lines, cmd('text'), 0, 0).body).toBe(lines);
    expect(bound('y'.repeat(30_000), cmd('screenshot')).body).toHaveLength(30_000);
    expect(bound('y'.repeat(30_000), cmd('text')).body).toHaveLength(20_000);
    expect(() => bound(lines, cmd('text'), -1)).toThrow('--offset and --max-output take 0 or more.');
  });

  test('every command takes --timeout, --max-output, --offset and --out; their values are checked', () => {
    expect(parseInput(cmd('url'), ['--timeout', '500', '--max-output', '0', '--offset', '10', '--out', 'x.txt'])).toEqual({ timeout: 500, maxOutput: 0, offset: 10, out: 'x.txt' });
    expect(() => parseInput(cmd('url'), ['--timeout', 'soon'])).toThrow('--timeout must be a whole number');
  });
});

describe('module graph', () => {
  test("the CLI's warm path skips exactly the registry's cliOnly commands", () => {
    expect([...CLI_ONLY_COMMANDS].sort()).toEqual(commands.filter((c) => c.cliOnly).map((c) => c.name).sort());
  });

  test('the CLI side (registry and full path) never loads Playwright: it would cost ~90 ms a call', () => {
    const probe = Bun.spawnSync(
      [process.execPath, '-e', "await import('./browse/src/commands/index.ts'); await import('./browse/src/cli-full.ts'); console.log(Object.keys(require.cache).filter((k) => k.includes('playwright')).join(' '))"],
      { cwd: `${import.meta.dir}/../..`, stdout: 'pipe', stderr: 'pipe' },
    );
    expect(probe.exitCode).toBe(0);
    expect(probe.stdout.toString().trim()).toBe('');
  });
});
