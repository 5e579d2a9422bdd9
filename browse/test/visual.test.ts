// screenshot (downscale guard, --base64, --full-res), pdf, responsive and diff, through the compiled CLI.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { inflateSync } from 'node:zlib';
import { makeHome, startFixtureServer, unwrap } from './helpers';

const fixtures = startFixtureServer();
const home = makeHome('visual');
const run = home.run;
const ok = home.ok;
const fails = home.fails;
const out = (name: string) => join(home.dir, name);

beforeAll(async () => {
  await ok('goto', fixtures.url('/visual-tall.html'));
});
afterAll(async () => {
  await home.cleanup();
  fixtures.stop();
});

// --- PNG reading: header size, and one pixel (8-bit RGB or RGBA, non-interlaced, as Chromium writes them).
function pngSize(png: Buffer) {
  expect(png.subarray(0, 8).toString('latin1')).toBe('\x89PNG\r\n\x1a\n');
  return { width: png.readUInt32BE(16), height: png.readUInt32BE(20) };
}

function pngPixel(png: Buffer, x: number, y: number): [number, number, number] {
  const { width } = pngSize(png);
  const colorType = png[25];
  expect(png[24]).toBe(8);
  const bpp = colorType === 6 ? 4 : colorType === 2 ? 3 : 0;
  expect(bpp).toBeGreaterThan(0);
  const idat: Buffer[] = [];
  for (let off = 8; off < png.length; ) {
    const len = png.readUInt32BE(off);
    if (png.toString('latin1', off + 4, off + 8) === 'IDAT') idat.push(png.subarray(off + 8, off + 8 + len));
    off += 12 + len;
  }
  const raw = inflateSync(Buffer.concat(idat));
  const stride = width * bpp;
  let prev = Buffer.alloc(stride);
  let row = prev;
  for (let r = 0; r <= y; r++) {
    const filter = raw[r * (stride + 1)];
    const line = raw.subarray(r * (stride + 1) + 1, (r + 1) * (stride + 1));
    row = Buffer.alloc(stride);
    for (let i = 0; i < stride; i++) {
      const a = i >= bpp ? row[i - bpp] : 0;
      const b = prev[i];
      const c = i >= bpp ? prev[i - bpp] : 0;
      const p = a + b - c;
      const paeth = Math.abs(p - a) <= Math.abs(p - b) && Math.abs(p - a) <= Math.abs(p - c) ? a : Math.abs(p - b) <= Math.abs(p - c) ? b : c;
      const pred = [0, a, b, (a + b) >> 1, paeth][filter];
      row[i] = (line[i] + pred) & 0xff;
    }
    prev = row;
  }
  return [row[x * bpp], row[x * bpp + 1], row[x * bpp + 2]];
}

// --- PDF reading: the text Chromium drew, decoded through the fonts' ToUnicode maps (fixtures use one typeface).
function pdfText(pdf: Buffer): string {
  const src = pdf.toString('latin1');
  const streams: string[] = [];
  const re = /(?<!end)stream\r?\n/g;
  for (let m = re.exec(src); m; m = re.exec(src)) {
    const start = m.index + m[0].length;
    const end = src.indexOf('endstream', start);
    if (end < 0) break;
    try {
      streams.push(inflateSync(pdf.subarray(start, end)).toString('latin1'));
    } catch {}
    re.lastIndex = end + 9;
  }
  const glyphs = new Map<string, string>();
  const hexChar = (h: string) => String.fromCharCode(parseInt(h, 16));
  for (const s of streams.filter((t) => t.includes('begincmap'))) {
    for (const [, block] of s.matchAll(/beginbfchar([\s\S]*?)endbfchar/g)) {
      for (const [, g, u] of block.matchAll(/<([0-9A-Fa-f]{4})>\s*<([0-9A-Fa-f]{4})>/g)) glyphs.set(g.toUpperCase(), hexChar(u));
    }
    for (const [, block] of s.matchAll(/beginbfrange([\s\S]*?)endbfrange/g)) {
      for (const [, lo, hi, u] of block.matchAll(/<([0-9A-Fa-f]{4})>\s*<([0-9A-Fa-f]{4})>\s*<([0-9A-Fa-f]{4})>/g)) {
        for (let g = parseInt(lo, 16); g <= parseInt(hi, 16); g++) glyphs.set(g.toString(16).toUpperCase().padStart(4, '0'), hexChar((parseInt(u, 16) + g - parseInt(lo, 16)).toString(16)));
      }
    }
  }
  const words: string[] = [];
  for (const s of streams.filter((t) => t.includes(' Tj') || t.includes(' TJ'))) {
    for (const [, hex] of s.matchAll(/<([0-9A-Fa-f]+)>\s*T[jJ]/g)) {
      words.push((hex.match(/.{4}/g) ?? []).map((g) => glyphs.get(g.toUpperCase()) ?? '?').join(''));
    }
  }
  return words.join(' ');
}

describe('screenshot: the 2000 px guard', () => {
  test('a 6000 px page is shrunk to 2000 px high, top to bottom, and the reply says so', async () => {
    await ok('goto', fixtures.url('/visual-tall.html'));
    const file = out('tall.png');
    const reply = await ok('screenshot', file);
    expect(reply).toBe(`Screenshot saved: ${file} (427x2000 px, downscaled ×0.333 from 1280x6000; --full-res keeps every pixel)`);
    const png = readFileSync(file);
    expect(pngSize(png)).toEqual({ width: 427, height: 2000 });
    expect(pngPixel(png, 200, 50)).toEqual([0, 0, 255]); // the blue band on top
    expect(pngPixel(png, 200, 1990)).toEqual([255, 0, 0]); // the red band at the bottom: nothing cut off
  });

  test('--full-res keeps every pixel', async () => {
    const file = out('tall-full.png');
    expect(await ok('screenshot', '--full-res', file)).toBe(`Screenshot saved: ${file} (1280x6000 px)`);
    expect(pngSize(readFileSync(file))).toEqual({ width: 1280, height: 6000 });
  });

  test('a page that fits is not scaled, and the reply gives its size', async () => {
    await ok('goto', fixtures.url('/visual-small.html'));
    const file = out('small.png');
    expect(await ok('screenshot', file)).toBe(`Screenshot saved: ${file} (1280x720 px)`);
    expect(pngSize(readFileSync(file))).toEqual({ width: 1280, height: 720 });
    await ok('goto', fixtures.url('/visual-tall.html'));
  });

  test('a tall element is shrunk too; a small one is taken as is', async () => {
    const tower = out('tower.png');
    expect(await ok('screenshot', '--selector', '#tower', tower)).toBe(
      `Screenshot of #tower saved: ${tower} (267x2000 px, downscaled ×0.667 from 400x3000; --full-res keeps every pixel)`,
    );
    const png = readFileSync(tower);
    expect(pngSize(png)).toEqual({ width: 267, height: 2000 });
    expect(pngPixel(png, 130, 1000)).toEqual([0, 160, 0]);
    const card = out('card.png');
    expect(await ok('screenshot', '--selector', '#card', card)).toBe(`Screenshot of #card saved: ${card}`);
    expect(pngSize(readFileSync(card))).toEqual({ width: 300, height: 200 });
    expect(pngPixel(readFileSync(card), 150, 100)).toEqual([255, 200, 0]);
  });

  test('--clip takes page coordinates, below the fold too, and is trimmed to the page', async () => {
    await ok('js', 'window.scrollTo(0, 0)');
    const low = out('clip-low.png');
    expect(await ok('screenshot', '--clip', '10,5500,200,100', low)).toBe(`Screenshot of 200x100 at 10,5500 saved: ${low}`);
    expect(pngSize(readFileSync(low))).toEqual({ width: 200, height: 100 });
    expect(pngPixel(readFileSync(low), 100, 50)).toEqual([255, 0, 0]);
    const edge = out('clip-edge.png');
    expect(await ok('screenshot', '--clip', '1180,5900,500,500', edge)).toBe(`Screenshot of 100x100 at 1180,5900 saved: ${edge}`);
    expect(pngSize(readFileSync(edge))).toEqual({ width: 100, height: 100 });
    const huge = out('clip-huge.png');
    expect(await ok('screenshot', '--clip', '0,0,1280,6000', huge)).toContain('(427x2000 px, downscaled ×0.333 from 1280x6000;');
  });

  test('the viewport and page are as they were after a shrunk shot', async () => {
    await ok('viewport', '375x812');
    await ok('js', 'window.scrollTo(0, 1234)');
    const file = out('narrow.png');
    expect(await ok('screenshot', file)).toContain('downscaled');
    expect(pngSize(readFileSync(file)).height).toBe(2000);
    expect(await ok('js', '`${innerWidth}x${innerHeight}@${devicePixelRatio} y=${scrollY}`')).toBe('375x812@1 y=1234');
    await ok('viewport', '1280x720');
  });
});

describe('screenshot --base64', () => {
  test('prints the PNG as base64 and writes no file', async () => {
    await ok('goto', fixtures.url('/visual-small.html'));
    const r = await run(['screenshot', '--viewport', '--base64']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^[A-Za-z0-9+/]+=*$/);
    const png = Buffer.from(r.stdout, 'base64');
    expect(pngSize(png)).toEqual({ width: 1280, height: 720 });
    expect(pngPixel(png, 5, 700)).toEqual([0, 128, 255]);
  });

  test('a full page in base64 obeys the 2000 px guard too', async () => {
    await ok('goto', fixtures.url('/visual-tall.html'));
    const png = Buffer.from(await ok('screenshot', '--base64'), 'base64');
    expect(pngSize(png)).toEqual({ width: 427, height: 2000 });
  });

  test('an image over the size limit is refused with a way out', async () => {
    await ok('goto', fixtures.url('/visual-noise.html'));
    const err = await fails('screenshot', '--base64');
    expect(err).toMatch(/The screenshot is [\d.]+ MB as base64 \(1280x2000 px\), over the 5\.0 MB limit of --base64\./);
    expect(err).toContain('Save it to a file instead');
    await ok('goto', fixtures.url('/visual-tall.html'));
  });

  test('--base64 with a path is refused before anything is written', async () => {
    const file = out('both.png');
    expect(await fails('screenshot', '--base64', file)).toContain('--base64 prints the image instead of saving it, so it takes no path.');
    expect(existsSync(file)).toBe(false);
  });
});

describe('screenshot refusals', () => {
  test('bad --clip values are refused with the expected shape', async () => {
    for (const clip of ['1,2,3', 'a,b,c,d', '0,0,0,10', '-5,0,10,10', '0,,10,10']) {
      expect(await fails('screenshot', '--clip', clip, out('bad-clip.png'))).toContain(`Invalid --clip '${clip}'. Use --clip x,y,width,height`);
    }
    expect(await fails('screenshot', '--clip', '0,7000,10,10', out('bad-clip.png'))).toContain('starts outside the page, which is 1280x6000 CSS pixels');
    expect(existsSync(out('bad-clip.png'))).toBe(false);
  });

  test('paths outside the temp dir and the project are refused', async () => {
    expect(await fails('screenshot', '/etc/x.png')).toContain('Path /etc/x.png is outside the allowed directories.');
    expect(existsSync('/etc/x.png')).toBe(false);
    expect(await fails('screenshot', out('x.jpg'))).toContain('must end in .png');
    expect(await fails('screenshot', '--viewport', '--clip', '0,0,10,10')).toContain('Use only one of --viewport, --selector, --clip.');
  });
});

describe('pdf', () => {
  test('saves a PDF with its page count, header and footer', async () => {
    await ok('goto', fixtures.url('/visual-print.html'));
    const file = out('print.pdf');
    expect(await ok('pdf', file, '--format', 'a4', '--header', 'VisualHeaderMark', '--footer', 'Page {page} of {pages}')).toMatch(
      new RegExp(`^PDF saved: ${file} \\(3 pages, A4, \\d+ KB\\)$`),
    );
    const pdf = readFileSync(file);
    expect(pdf.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    expect(pdf.toString('latin1')).toMatch(/\/MediaBox \[0 0 595\.9\d* 842\.8\d*\]/); // A4 portrait, in points
    const text = pdfText(pdf).replace(/\s+/g, ''); // kerning splits words into pieces
    expect(text).toContain('Chapterone'); // the decoder reads the body, so the checks below can fail for real
    expect(text).toContain('VisualHeaderMark');
    expect(text).toContain('Page2of3');
    expect(text).not.toContain('{page}');
  });

  test('defaults: Letter, no header or footer; --landscape turns the page', async () => {
    const plain = out('plain.pdf');
    expect(await ok('pdf', plain)).toMatch(/\(3 pages, Letter, \d+ KB\)$/);
    const pdf = readFileSync(plain);
    expect(pdf.toString('latin1')).toMatch(/\/MediaBox \[0 0 612 792\]/);
    expect(pdfText(pdf).replace(/\s+/g, '')).not.toContain('Page1');
    const wide = out('wide.pdf');
    expect(await ok('pdf', wide, '--landscape', '--margin', '0.5in,1cm', '--background')).toMatch(/, Letter landscape, \d+ KB\)$/);
    expect(readFileSync(wide).toString('latin1')).toMatch(/\/MediaBox \[0 0 792 612\]/);
  });

  test('bad format, margin and paths are refused', async () => {
    expect(await fails('pdf', out('f.pdf'), '--format', 'B7')).toContain("Unknown paper format 'B7'. Use one of Letter, Legal, Tabloid, Ledger, A0");
    expect(await fails('pdf', out('f.pdf'), '--margin', '2furlongs')).toContain("Invalid --margin '2furlongs'.");
    expect(await fails('pdf', '/etc/x.pdf')).toContain('outside the allowed directories');
    expect(await fails('pdf', out('f.png'))).toContain('must end in .pdf');
    expect(existsSync(out('f.pdf'))).toBe(false);
  });
});

describe('responsive', () => {
  test('three full-page shots at phone, tablet and desktop sizes, then the viewport comes back', async () => {
    await ok('viewport', '1000x700');
    await ok('goto', fixtures.url('/visual-responsive.html'));
    const prefix = out('resp');
    const reply = await ok('responsive', prefix);
    expect(reply.split('\n')).toEqual([
      'Responsive screenshots saved:',
      `  mobile 375x812 → ${prefix}-375x812.png (375x812 px)`,
      `  tablet 768x1024 → ${prefix}-768x1024.png (768x1024 px)`,
      `  desktop 1280x720 → ${prefix}-1280x720.png (1280x720 px)`,
      'Viewport restored to 1000x700.',
    ]);
    for (const [w, h] of [[375, 812], [768, 1024], [1280, 720]]) expect(pngSize(readFileSync(`${prefix}-${w}x${h}.png`))).toEqual({ width: w, height: h });
    // The page itself was laid out at each size, its media queries included.
    expect(await ok('js', 'seen.join(" ")')).toBe('375x812:mobile 768x1024:tablet 1280x720:desktop 1000x700:tablet');
    expect(await ok('js', '`${innerWidth}x${innerHeight}`')).toBe('1000x700');
    await ok('viewport', '1280x720');
  });

  test('a directory as prefix holds the files; long pages are shrunk as screenshots are', async () => {
    await ok('goto', fixtures.url('/visual-tall.html'));
    const dir = out('shots');
    mkdirSync(dir);
    const reply = await ok('responsive', `${dir}/`);
    expect(reply).toContain(`  mobile 375x812 → ${dir}/browse-responsive-375x812.png (`);
    expect(reply).toContain('downscaled');
    for (const size of ['375x812', '768x1024', '1280x720']) expect(pngSize(readFileSync(join(dir, `browse-responsive-${size}.png`))).height).toBe(2000);
  });

  test('a prefix outside the allowed directories is refused and nothing moves', async () => {
    expect(await fails('responsive', '/etc/shot')).toContain('Path /etc/shot-375x812.png is outside the allowed directories.');
    expect(await ok('js', '`${innerWidth}x${innerHeight}`')).toBe('1280x720');
  });
});

describe('diff', () => {
  test('prints a unified diff of the visible text with a summary', async () => {
    const [a, b] = [fixtures.url('/visual-diff-a.html'), fixtures.url('/visual-diff-b.html')];
    const raw = await run(['diff', a, b]);
    expect(raw.code).toBe(0);
    expect(raw.stdout.split('--- BEGIN UNTRUSTED PAGE CONTENT').length).toBe(2); // enveloped exactly once
    expect(unwrap(raw.stdout).split('\n')).toEqual([
      `--- ${a} (200)`,
      `+++ ${b} (200)`,
      '2 lines added, 1 removed (6 → 7 lines)',
      '@@',
      '  Release notes',
      '- Version 1.0',
      '+ Version 1.1',
      '  Login page',
      '@@',
      '  Dark mode',
      '+ Export to CSV',
      '  Contact support',
    ]);
  });

  test('identical pages say so; the user\'s tabs are left as they were', async () => {
    await ok('goto', fixtures.url('/visual-small.html'));
    const tabsBefore = await ok('tabs');
    const a = fixtures.url('/visual-diff-a.html');
    expect(await ok('diff', a, a)).toBe(`--- ${a} (200)\n+++ ${a} (200)\nNo differences in visible text (6 lines).`);
    expect(await ok('tabs')).toBe(tabsBefore);
    expect(await ok('url')).toBe(fixtures.url('/visual-small.html'));
  });

  test('bad URLs are refused before anything loads', async () => {
    const good = fixtures.url('/visual-diff-a.html');
    expect(await fails('diff', 'ftp://example.com/x', good)).toContain("URL scheme 'ftp:' is not allowed.");
    expect(await fails('diff', good, 'http://169.254.169.254/latest/meta-data')).toContain('Refusing to open cloud metadata address 169.254.169.254.');
    expect(await fails('diff', good)).toContain('Missing <url2>.');
    expect(await ok('url')).toBe(fixtures.url('/visual-small.html'));
  });
});

// `viewport --scale` recreates the context with a device pixel ratio; skipped in a build without it.
const hasScale = (await run(['help', 'viewport'])).stdout.includes('--scale');

describe('device pixel ratio', () => {
  test.skipIf(!hasScale)('at scale 2 the cap counts device pixels, and the ratio survives a shrunk shot', async () => {
    await ok('goto', fixtures.url('/visual-small.html'));
    await ok('viewport', '1280x720', '--scale', '2');
    try {
      const file = out('retina.png');
      expect(await ok('screenshot', '--viewport', file)).toBe(
        `Screenshot of the viewport saved: ${file} (2000x1125 px, downscaled ×0.781 from 2560x1440; --full-res keeps every pixel)`,
      );
      expect(pngSize(readFileSync(file))).toEqual({ width: 2000, height: 1125 });
      expect(await ok('js', '`${innerWidth}x${innerHeight}@${devicePixelRatio}`')).toBe('1280x720@2');
      const full = out('retina-full.png');
      await ok('screenshot', '--viewport', '--full-res', full);
      expect(pngSize(readFileSync(full))).toEqual({ width: 2560, height: 1440 });
    } finally {
      await ok('viewport', '1280x720', '--scale', '1');
    }
  });
});
