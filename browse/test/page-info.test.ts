// load-html, accessibility, media, data, eval, perf and ux-audit through the compiled CLI.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { copyFileSync, mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeHome, startFixtureServer, unwrap } from './helpers';

const BEGIN = '--- BEGIN UNTRUSTED PAGE CONTENT';
const fixtures = startFixtureServer();
const home = makeHome('page-info');
const run = home.run;
const ok = home.ok;
/** Runs a command that must be refused; returns its stderr. */
const refused = async (args: string[], cwd?: string) => {
  const r = await run(args, { cwd });
  expect(r.code).toBe(1);
  expect(r.stdout).toBe('');
  return r.stderr;
};

const dir = realpathSync(home.dir);
const scripts = join(dir, 'scripts');

beforeAll(async () => {
  mkdirSync(scripts);
  await ok('goto', fixtures.url('/info-a11y.html'));
});
afterAll(async () => {
  await home.cleanup();
  fixtures.stop();
});

describe('load-html', () => {
  test('opens a file (relative to the caller) as a file:// URL, so its relative stylesheet applies', async () => {
    mkdirSync(join(dir, 'site'));
    copyFileSync(join(import.meta.dir, 'fixtures', 'info-load.html'), join(dir, 'site', 'info-load.html'));
    writeFileSync(join(dir, 'site', 'info-load.css'), 'h1 { color: rgb(1, 2, 3); }');
    const url = `file://${dir}/site/info-load.html`;
    expect(await ok('load-html', 'site/info-load.html')).toBe(`Loaded ${url}`);
    expect(await ok('url')).toBe(url);
    expect(await ok('css', 'h1', 'color')).toBe('rgb(1, 2, 3)');
    expect(await ok('text', '#where')).toBe('scheme file:');
  });

  test('refuses a missing file, a directory and a file outside the allowed directories', async () => {
    expect(await refused(['load-html', 'nope.html'])).toContain(`File ${dir}/nope.html does not exist.`);
    expect(await refused(['load-html', dir])).toContain('is not a file');
    expect(await refused(['load-html', '/etc/hostname'])).toContain('Path /etc/hostname is outside the allowed directories.');
    expect(await refused(['load-html'])).toContain('Missing <file>');
  });
});

describe('accessibility', () => {
  beforeAll(async () => {
    await ok('goto', fixtures.url('/info-a11y.html'));
  });

  test("prints Playwright's raw aria snapshot, without refs", async () => {
    const out = await ok('accessibility');
    expect(out.split('\n')[0]).toBe('- heading "Account settings" [level=1]');
    expect(out).toContain('- navigation "Sections":\n  - link "Profile":');
    expect(out).toContain('  - checkbox "Public profile" [checked]');
    expect(out).toContain('  - listitem: Card ending 4242');
    expect(out).not.toContain('@e');
  });

  test('--selector scopes to one element, by CSS or by @ref', async () => {
    const scoped = await ok('accessibility', '--selector', '#profile');
    expect(scoped.split('\n')[0]).toBe('- region "Profile":');
    expect(scoped).toContain('- button "Save profile"');
    expect(scoped).not.toContain('Billing');
    const ref = (await ok('snapshot')).match(/(@e\d+) \[button\] "Save profile"/)?.[1];
    expect(ref).toBeDefined();
    expect(await ok('accessibility', '--selector', String(ref))).toBe('- button "Save profile"');
  });

  test('--limit cuts the tree and says how to get the rest', async () => {
    const all = (await ok('accessibility')).split('\n');
    const cut = (await ok('accessibility', '--limit', '3')).split('\n');
    expect(cut.slice(0, 3)).toEqual(all.slice(0, 3));
    expect(cut[3]).toBe(`… ${all.length - 3} more lines (scope with --selector, or --limit 0 for all)`);
    expect(cut).toHaveLength(4);
    expect((await ok('accessibility', '--limit', '0')).split('\n')).toEqual(all);
    expect(await refused(['accessibility', '--limit', '-1'])).toContain('--limit needs 0');
  });

  test('a selector that matches nothing fails with the usual element message', async () => {
    expect(await refused(['accessibility', '--selector', '#nope'])).toContain("Element '#nope' not found");
  });
});

describe('inside a frame', () => {
  beforeAll(async () => {
    await ok('goto', fixtures.url('/info-frame.html'));
    await ok('wait', '--load');
    await ok('frame', '#child');
  });
  afterAll(async () => {
    await ok('frame', 'main');
  });

  test('accessibility and eval read the entered frame', async () => {
    const tree = await ok('accessibility');
    expect(tree).toContain('- heading "Account settings" [level=1]');
    expect(tree).not.toContain('Host page');
    writeFileSync(join(scripts, 'title.js'), 'document.title');
    expect(await ok('eval', join(scripts, 'title.js'))).toBe('Accessibility fixture');
  });

  test('load-html is refused: it replaces the whole tab', async () => {
    writeFileSync(join(dir, 'frame-page.html'), '<title>x</title>');
    expect(await refused(['load-html', 'frame-page.html'])).toContain('load-html acts on the whole tab, but a frame is entered. Run `frame main` first.');
    expect(await ok('url')).toBe(fixtures.url('/info-frame.html'));
  });
});

describe('media', () => {
  beforeAll(async () => {
    await ok('goto', fixtures.url('/info-media.html'));
    expect(await ok('js', 'mediaReady')).toBe('ready');
  });

  test('lists images with natural size, alt and problems, then video and audio with duration and state', async () => {
    const lines = (await ok('media')).split('\n');
    expect(lines[0]).toBe('Images: 5 (1 missing alt, 1 broken)');
    expect(lines[1]).toMatch(/^ {2}data:image\/svg\+xml\S*… \(\d+ chars\) 40x20 shown 80x40 alt="Company logo"$/);
    expect(lines[2]).toEndWith(' 10x10 MISSING ALT');
    expect(lines[3]).toEndWith(' 5x5 alt=""');
    expect(lines[4]).toBe('  /info-media-missing.png broken alt="Missing chart"');
    expect(lines[5]).toEndWith(' 7x7 hidden alt="Hidden"');
    expect(lines.slice(6, 8)).toEqual(['Video: 1', '  /info-media-missing.mp4 duration unknown error: no playable source']);
    expect(lines[8]).toBe('Audio: 1');
    expect(lines[9]).toMatch(/^ {2}blob:http:\/\/127\.0\.0\.1:\d+\/[\w-]+ 2s paused$/);
    expect(lines).toHaveLength(10);
  });

  test('--limit caps each kind with a line saying how many were left out', async () => {
    const lines = (await ok('media', '--limit', '2')).split('\n');
    expect(lines[0]).toBe('Images: 5 (1 missing alt, 1 broken)');
    expect(lines[3]).toBe('  … 3 more (--limit 5 shows all)');
    expect(lines[4]).toBe('Video: 1');
  });

  test('says so when the page has no media', async () => {
    await ok('goto', fixtures.url('/info-eval.html'));
    expect(await ok('media')).toBe('(no images, video or audio)');
  });
});

describe('data', () => {
  test('reports meta, parsed JSON-LD (invalid blocks as errors), Open Graph and Twitter tags', async () => {
    await ok('goto', fixtures.url('/info-data.html'));
    const found = JSON.parse(await ok('data'));
    expect(found.meta).toEqual({
      title: 'Data fixture',
      description: 'A page with structured data.',
      canonical: fixtures.url('/info-data.html?canonical=1'),
      robots: 'noindex, follow',
      viewport: 'width=device-width, initial-scale=1',
      lang: 'en-GB',
    });
    expect(found.jsonLd).toHaveLength(2);
    expect(found.jsonLd[0]).toMatchObject({ '@type': 'Product', name: 'Widget', offers: { price: '9.99' } });
    expect(found.jsonLd[1].error).toStartWith('Invalid JSON: ');
    expect(found.jsonLd[1].text).toContain('"name": broken');
    expect(found.openGraph).toEqual({ 'og:title': 'Data fixture OG', 'og:type': 'article', 'og:image': ['https://example.com/one.png', 'https://example.com/two.png'] });
    expect(found.twitter).toEqual({ 'twitter:card': 'summary_large_image', 'twitter:site': '@example' });
  });

  test('a page without structured data gives nulls and empty sections', async () => {
    await ok('goto', fixtures.url('/info-eval.html'));
    expect(JSON.parse(await ok('data'))).toEqual({
      meta: { title: 'Eval fixture', description: null, canonical: null, robots: null, viewport: null, lang: 'en' },
      jsonLd: [],
      openGraph: {},
      twitter: {},
    });
  });
});

describe('eval', () => {
  beforeAll(async () => {
    await ok('goto', fixtures.url('/info-eval.html'));
  });
  const script = (name: string, body: string | Buffer) => {
    writeFileSync(join(scripts, name), body);
    return join(scripts, name);
  };

  test('runs a file as a script: declarations work, the last value prints (strings as-is, others as JSON)', async () => {
    script('items.js', 'function double(n) {\n  return n * 2;\n}\nconst items = [...document.querySelectorAll("li")].map((li) => li.textContent);\n({ doubled: double(answer), items })\n');
    expect(JSON.parse(await ok('eval', join(scripts, 'items.js')))).toEqual({ doubled: 42, items: ['alpha', 'beta', 'gamma'] });
    script('title.js', 'document.title // a trailing comment');
    expect(await ok('eval', join(scripts, 'title.js'))).toBe('Eval fixture');
    script('nothing.js', 'let unused = 1;');
    expect(await ok('eval', join(scripts, 'nothing.js'))).toBe('undefined');
  });

  test('awaits a promise result; a relative path is resolved against the caller', async () => {
    script('later.js', 'new Promise((done) => setTimeout(() => done(answer + 1), 10))');
    const r = await run(['eval', 'later.js'], { cwd: scripts });
    expect(r.code).toBe(0);
    expect(unwrap(r.stdout)).toBe('22');
  });

  test('a syntax error is refused with the file name', async () => {
    script('bad.js', 'const = ;\n');
    expect(await refused(['eval', join(scripts, 'bad.js')])).toBe(
      `Error: JavaScript error in ${join(scripts, 'bad.js')}: SyntaxError: Unexpected token '=' Fix the script; it runs as a classic script in the page and the value of its last statement is printed.`,
    );
  });

  test('a thrown error names the file and line; top-level await gets a hint', async () => {
    script('throws.js', 'const a = 1;\nthrow new Error("boom " + a);\n');
    expect(await refused(['eval', 'throws.js'], scripts)).toStartWith('Error: JavaScript error in throws.js (line 2): Error: boom 1');
    script('await.js', 'await Promise.resolve(1);\n');
    expect(await refused(['eval', 'await.js'], scripts)).toContain('wrap the code in `(async () =>');
  });

  test('refuses a missing file, a directory, a file over 1 MB and a file outside the allowed directories', async () => {
    expect(await refused(['eval', 'missing.js'], scripts)).toContain(`File ${scripts}/missing.js does not exist.`);
    expect(await refused(['eval', scripts])).toContain('is not a file');
    script('huge.js', Buffer.alloc(1024 * 1024 + 1, 0x20));
    expect(await refused(['eval', join(scripts, 'huge.js')])).toContain('is 1.0 MB; the limit is 1.0 MB');
    script('exactly-1mb.js', `${' '.repeat(1024 * 1024 - 1)}1`);
    expect(await ok('eval', join(scripts, 'exactly-1mb.js'))).toBe('1');
    expect(await refused(['eval', '/etc/hostname'])).toContain('Path /etc/hostname is outside the allowed directories.');
  });
});

describe('perf', () => {
  test('reports navigation timing, sizes and the slowest resources in ms', async () => {
    await ok('goto', fixtures.url('/info-perf.html'));
    await ok('wait', '--load');
    const lines = (await ok('perf')).split('\n');
    expect(lines[0]).toBe(`URL: ${fixtures.url('/info-perf.html')}`);
    for (const [i, label] of ['DNS', 'Connect', 'TTFB', 'DOMContentLoaded', 'Load'].entries()) expect(lines[i + 1]).toMatch(new RegExp(`^${label}: \\d+ms$`));
    expect(Number(lines[5].match(/(\d+)ms/)?.[1])).toBeGreaterThanOrEqual(400); // the slow image holds back load
    expect(lines[6]).toMatch(/^Document transfer: \d+ B$/);
    expect(lines[7]).toMatch(/^Resources: 2, [\d.]+ (B|KB) transferred$/);
    expect(lines[8]).toBe('Slowest 2:');
    const slowest = lines[9].match(/^ {2}(\d+)ms img \/slow\?ms=400 \(\d+ B\)$/);
    expect(slowest).not.toBeNull();
    expect(Number(slowest?.[1])).toBeGreaterThanOrEqual(400);
    expect(lines[10]).toMatch(/^ {2}\d+ms img \/info-eval\.html/);
  });

  test('says when load has not finished yet', async () => {
    await ok('goto', fixtures.url('/info-perf.html?slow=20000'));
    expect(await ok('perf')).toContain('Load: not finished (run `wait --load`, then `perf`)');
  });

  test('refuses a page without navigation timing', async () => {
    await ok('goto', 'about:blank');
    expect(await refused(['perf'])).toContain('This page has no navigation timing');
  });
});

describe('ux-audit', () => {
  beforeAll(async () => {
    await ok('goto', fixtures.url('/info-ux.html'));
  });

  test('reports structure and problems as JSON', async () => {
    const audit = JSON.parse(await ok('ux-audit'));
    expect(audit).toMatchObject({ url: fixtures.url('/info-ux.html'), title: 'UX fixture', viewport: '1280x720', main: 1, hiddenInteractive: 1 });
    expect(audit.issues).toEqual([
      '1 heading level skip (first: h4 "Details")',
      '2 crowded tap targets under 24px',
      '1 control without a name',
      '1 interactive element without a role',
      '1 text block with low contrast',
      '1 text block under 12px',
      '1 image without alt',
      '1 form field without a label',
      'horizontal overflow: page is 328px wider than the 1280px viewport',
    ]);
    expect(audit.headings).toEqual([
      { level: 1, text: 'Dashboard' },
      { level: 2, text: 'Overview' },
      { level: 4, text: 'Details' },
    ]);
    expect(audit.navs).toEqual([{ name: 'Primary', links: 3 }]);
    const byName = (name: string) => audit.interactive.find((x: { name: string }) => x.name === name);
    expect(byName('Bold')).toEqual({ role: 'button', name: 'Bold', problems: ['target 16x16 < 24px, crowded'] });
    expect(byName('Close')).toEqual({ role: 'button', name: 'Close' }); // small but spaced: passes WCAG 2.5.8
    expect(byName('guide')).toEqual({ role: 'link', name: 'guide' }); // inline link in a sentence: exempt
    expect(byName('')).toEqual({ role: 'button', name: '', problems: ['no name'] });
    expect(byName('Clickable div')).toEqual({ role: 'generic', name: 'Clickable div', problems: ['no role'] });
    expect(byName('Archive')).toEqual({ role: 'button', name: 'Archive', disabled: true });
    expect(byName('Hidden action')).toBeUndefined();
    expect(audit.text).toContainEqual({ tag: 'p', chars: 37, text: 'Faint grey text that is hard to read.', problems: ['contrast 1.9:1'] });
    expect(audit.text).toContainEqual({ tag: 'p', chars: 11, text: 'Tiny print.', problems: ['font 10px'] });
    expect(audit.imagesWithoutAlt).toEqual(['/info-ux-photo.png']);
    expect(audit.unlabeledFields).toEqual([{ field: 'input[type=search]', name: 'q', placeholder: 'Search' }]);
    expect(audit.truncated).toBeUndefined();
  });

  test('--limit caps every list and counts what was cut', async () => {
    const full = JSON.parse(await ok('ux-audit'));
    const audit = JSON.parse(await ok('ux-audit', '--limit', '1'));
    for (const key of ['headings', 'navs', 'interactive', 'text', 'imagesWithoutAlt', 'unlabeledFields']) {
      expect(audit[key]).toEqual(full[key].slice(0, 1));
    }
    expect(audit.truncated).toEqual({ headings: 2, interactive: full.interactive.length - 1, text: full.text.length - 1, hint: '--limit 0 shows every item' });
    expect(audit.issues).toEqual(full.issues); // counted before the cap
  });
});

test('page-content commands are wrapped in the untrusted envelope once; load-html is not', async () => {
  await ok('goto', fixtures.url('/info-perf.html'));
  await ok('wait', '--load');
  writeFileSync(join(scripts, 'one.js'), '1');
  for (const args of [['accessibility'], ['media'], ['data'], ['eval', join(scripts, 'one.js')], ['perf'], ['ux-audit']]) {
    const r = await run(args);
    expect(r.code).toBe(0);
    expect(r.stdout.split(BEGIN)).toHaveLength(2);
    expect(r.stdout).toStartWith(BEGIN);
  }
  writeFileSync(join(dir, 'plain.html'), '<title>--- BEGIN UNTRUSTED PAGE CONTENT</title>');
  const r = await run(['load-html', 'plain.html']);
  expect(r.stdout).toBe(`Loaded file://${dir}/plain.html`);
});
