// Pictures of the page: screenshots, PDFs and responsive shots. Images are kept to ≤ 2000 px a side by
// rendering them smaller in Chromium (no image library), unless --full-res is asked for.
import { existsSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BrowseError } from '../errors';
import { validateOutputPath } from '../policy';
import type { CommandContext } from './context';
import { defineCommand, type FlagSpec } from './define';

type Page = CommandContext['page'];

/** Image-consuming APIs (LLM vision inputs among them) reject images with a longer side. */
const MAX_SIDE = 2000;
/** Image APIs take about 5 MB per image; past that, base64 on stdout is the wrong transport anyway. */
const MAX_BASE64_CHARS = 5 * 1024 * 1024;

interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

interface Size {
  width: number;
  height: number;
}

interface Shot {
  png: Buffer;
  /** Pixel size of the PNG. */
  size: Size;
  /** Pixel size at full resolution (CSS size × device pixel ratio). */
  natural: Size;
}

interface Geometry {
  /** The whole document, in CSS pixels. */
  doc: Size;
  /** The visible part, in document coordinates. */
  view: Rect;
  dpr: number;
}

const fullResFlag: FlagSpec = { name: '--full-res', kind: 'boolean', description: `Keep every pixel (default: downscale so the longest side is ≤ ${MAX_SIDE} px)` };

const pngSize = (png: Buffer): Size => ({ width: png.readUInt32BE(16), height: png.readUInt32BE(20) });

const naturalSize = (r: Size, dpr: number): Size => ({ width: Math.ceil(r.width * dpr), height: Math.ceil(r.height * dpr) });

const fits = (s: Size) => Math.max(s.width, s.height) <= MAX_SIDE;

const within = (r: Rect, v: Rect) => r.x >= v.x && r.y >= v.y && r.x + r.width <= v.x + v.width && r.y + r.height <= v.y + v.height;

async function geometry(page: Page): Promise<Geometry> {
  const g = await page.evaluate(() => {
    const d = document.documentElement;
    const b = document.body;
    return {
      width: Math.max(d?.scrollWidth ?? 0, d?.clientWidth ?? 0, b?.scrollWidth ?? 0, b?.clientWidth ?? 0),
      height: Math.max(d?.scrollHeight ?? 0, d?.clientHeight ?? 0, b?.scrollHeight ?? 0, b?.clientHeight ?? 0),
      x: window.scrollX,
      y: window.scrollY,
      vw: window.innerWidth,
      vh: window.innerHeight,
      dpr: window.devicePixelRatio,
    };
  });
  const vp = page.viewportSize() ?? { width: g.vw, height: g.vh };
  return {
    doc: { width: Math.max(1, g.width), height: Math.max(1, g.height) },
    view: { x: g.x, y: g.y, width: vp.width, height: vp.height },
    dpr: g.dpr > 0 && g.dpr <= 8 ? g.dpr : 1,
  };
}

const emulationState = (page: Page) => page.evaluate(() => `${window.innerWidth}x${window.innerHeight}@${window.devicePixelRatio}`);

/**
 * Renders a document rectangle straight to ≤ MAX_SIDE pixels with the DevTools protocol's clip scale,
 * so nothing full-size is ever rasterised or shipped.
 */
async function captureScaled(page: Page, rect: Rect, beyondViewport: boolean): Promise<Buffer> {
  const before = await emulationState(page);
  const session = await page.context().newCDPSession(page);
  try {
    // A second DevTools session renders at 1 device pixel per CSS pixel; a build that does not lands above the cap, and is shrunk below.
    let scale = MAX_SIDE / Math.max(rect.width, rect.height);
    for (let attempt = 0; ; attempt++) {
      const { data } = await session.send('Page.captureScreenshot', { format: 'png', captureBeyondViewport: beyondViewport, clip: { ...rect, scale } });
      const png = Buffer.from(data, 'base64');
      const longest = Math.max(pngSize(png).width, pngSize(png).height);
      if (longest <= MAX_SIDE || attempt === 2) return png;
      scale *= (MAX_SIDE - 1) / longest;
    }
  } finally {
    await session.detach().catch(() => {});
    // A capture from that session can drop Playwright's emulated viewport and DPR; a Playwright capture re-applies them.
    if ((await emulationState(page).catch(() => before)) !== before) await page.screenshot({ clip: { x: 0, y: 0, width: 1, height: 1 } }).catch(() => {});
  }
}

interface CaptureSpec {
  /** What to capture, in document CSS pixels. */
  rect: Rect;
  geometry: Geometry;
  fullRes: boolean;
  /** Playwright's own capture, used whenever no shrinking is needed. */
  atFullRes: () => Promise<Buffer>;
  /** The rectangle for a shrunk capture, when finding it moves the page (an element scrolled into view). */
  scaledRect?: () => Promise<Rect>;
}

/** Full resolution through Playwright when it fits the cap (or --full-res), else rendered smaller. */
async function capture(page: Page, spec: CaptureSpec): Promise<Shot> {
  const natural = naturalSize(spec.rect, spec.geometry.dpr);
  if (spec.fullRes || fits(natural)) {
    const png = await spec.atFullRes();
    return { png, size: pngSize(png), natural: pngSize(png) };
  }
  const rect = spec.scaledRect ? await spec.scaledRect() : spec.rect;
  const png = await captureScaled(page, rect, !within(rect, (await geometry(page)).view));
  return { png, size: pngSize(png), natural };
}

async function captureFullPage(page: Page, fullRes: boolean): Promise<Shot> {
  const g = await geometry(page);
  return capture(page, { rect: { x: 0, y: 0, ...g.doc }, geometry: g, fullRes, atFullRes: () => page.screenshot({ fullPage: true }) });
}

type Element = Awaited<ReturnType<CommandContext['resolve']>>;

/** The element's box in document coordinates; null when it has none (hidden). */
async function elementRect(page: Page, el: Element, timeout: number): Promise<Rect | null> {
  const box = await el.boundingBox({ timeout });
  if (!box) return null;
  const { view } = await geometry(page);
  return { x: box.x + view.x, y: box.y + view.y, width: box.width, height: box.height };
}

/** " (427x2000 px, downscaled ×0.333 from 1280x6000; --full-res keeps every pixel)", or just the size. */
function sizeNote(shot: Shot): string {
  const { size, natural } = shot;
  const px = `${size.width}x${size.height} px`;
  if (size.width >= natural.width && size.height >= natural.height) return ` (${px})`;
  const scale = Math.max(size.width, size.height) / Math.max(natural.width, natural.height);
  return ` (${px}, downscaled ×${Number(scale.toFixed(3))} from ${natural.width}x${natural.height}; --full-res keeps every pixel)`;
}

const isDownscaled = (shot: Shot) => shot.size.width < shot.natural.width || shot.size.height < shot.natural.height;

function parseClip(raw: string): Rect {
  const parts = raw.split(',').map((p) => (p.trim() === '' ? NaN : Number(p)));
  if (parts.length !== 4 || parts.some((n) => !Number.isFinite(n) || n < 0) || parts[2] === 0 || parts[3] === 0) {
    throw new BrowseError(`Invalid --clip '${raw}'.`, 'Use --clip x,y,width,height with non-negative numbers in page CSS pixels, e.g. --clip 0,0,800,600.');
  }
  const [x, y, width, height] = parts;
  return { x, y, width, height };
}

export const screenshot = defineCommand({
  name: 'screenshot',
  unbudgeted: true, // a path, or base64 of a PNG already capped at 2000 px and 5 MB
  category: 'read',
  group: 'Visual',
  description: `Save a PNG of the full page (default), the viewport, one element or a clip rectangle; longest side ≤ ${MAX_SIDE} px unless --full-res`,
  args: [{ name: 'path', kind: 'path' }],
  flags: [
    { name: '--viewport', kind: 'boolean', description: 'Only the visible viewport' },
    { name: '--selector', kind: 'string', value: '<sel>', description: 'Only this element (CSS or @ref)' },
    { name: '--clip', kind: 'string', value: '<x,y,w,h>', description: 'Only this rectangle of the page, in CSS pixels from the top-left of the document' },
    { name: '--base64', kind: 'boolean', description: `Print the PNG as base64 on stdout instead of saving a file (up to ${MAX_BASE64_CHARS / 1024 / 1024} MB)` },
    fullResFlag,
  ],
  async run(ctx, input) {
    if ([input.viewport, input.selector, input.clip].filter(Boolean).length > 1) {
      throw new BrowseError('Use only one of --viewport, --selector, --clip.', 'Run `help screenshot`.');
    }
    if (input.base64 && input.path) {
      throw new BrowseError('--base64 prints the image instead of saving it, so it takes no path.', 'Drop the path (`screenshot --base64`), or drop --base64 to save a file.');
    }
    const out = input.base64 ? '' : validateOutputPath(input.path ? ctx.callerPath(String(input.path)) : join(tmpdir(), 'browse-screenshot.png'));
    if (out && !out.endsWith('.png')) throw new BrowseError('Screenshots are PNG files: the path must end in .png.', `Try \`screenshot ${out.replace(/\.[^./]*$/, '')}.png\`.`);
    const clip = input.clip ? parseClip(String(input.clip)) : undefined;
    const fullRes = Boolean(input.fullRes);
    const page = ctx.page;

    let shot: Shot;
    let what: string;
    let fullPage = false;
    if (input.selector) {
      const sel = String(input.selector);
      const el = await ctx.resolve(sel);
      const g = await geometry(page);
      // No box (hidden): Playwright's element screenshot waits for it and fails with the usual element message.
      const rect = (await elementRect(page, el, ctx.actionTimeout)) ?? { x: 0, y: 0, width: 1, height: 1 };
      const scaledRect = async () => {
        await el.scrollIntoViewIfNeeded({ timeout: ctx.actionTimeout });
        const now = await elementRect(page, el, ctx.actionTimeout);
        if (!now) throw new BrowseError(`Element '${sel}' is not visible.`, 'Check it with `is visible <sel>`, or run `snapshot -i` for fresh refs.');
        return now;
      };
      shot = await capture(page, { rect, geometry: g, fullRes, atFullRes: () => el.screenshot({ timeout: ctx.actionTimeout }), scaledRect });
      what = `Screenshot of ${sel}`;
    } else if (clip) {
      const g = await geometry(page);
      if (clip.x >= g.doc.width || clip.y >= g.doc.height) {
        throw new BrowseError(`--clip ${input.clip} starts outside the page, which is ${g.doc.width}x${g.doc.height} CSS pixels.`, 'Pick x,y inside the page; `screenshot` without --clip shows all of it.');
      }
      const rect = { ...clip, width: Math.min(clip.width, g.doc.width - clip.x), height: Math.min(clip.height, g.doc.height - clip.y) };
      // A rectangle on screen is taken as is; only one below the fold needs the page laid out at full height.
      const atFullRes = () =>
        within(rect, g.view) ? page.screenshot({ clip: { ...rect, x: rect.x - g.view.x, y: rect.y - g.view.y } }) : page.screenshot({ fullPage: true, clip: rect });
      shot = await capture(page, { rect, geometry: g, fullRes, atFullRes });
      what = `Screenshot of ${rect.width}x${rect.height} at ${rect.x},${rect.y}`;
    } else if (input.viewport) {
      const g = await geometry(page);
      shot = await capture(page, { rect: g.view, geometry: g, fullRes, atFullRes: () => page.screenshot() });
      what = 'Screenshot of the viewport';
    } else {
      shot = await captureFullPage(page, fullRes);
      what = 'Screenshot';
      fullPage = true;
    }

    if (input.base64) {
      const b64 = shot.png.toString('base64');
      if (b64.length > MAX_BASE64_CHARS) {
        const mb = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MB`;
        throw new BrowseError(
          `The screenshot is ${mb(b64.length)} as base64 (${shot.size.width}x${shot.size.height} px), over the ${mb(MAX_BASE64_CHARS)} limit of --base64.`,
          `Save it to a file instead (\`screenshot ${join(tmpdir(), 'shot.png')}\`), or capture less: --viewport, --selector <sel>${fullRes ? ', or drop --full-res' : ''}.`,
        );
      }
      return b64;
    }
    writeFileSync(out, shot.png);
    // The full page always says its size (agents map image pixels back to the page); other modes only when shrunk.
    const note = fullPage || isDownscaled(shot) ? sizeNote(shot) : '';
    return `${what} saved: ${out}${note}`;
  },
});

const PDF_FORMATS = ['Letter', 'Legal', 'Tabloid', 'Ledger', 'A0', 'A1', 'A2', 'A3', 'A4', 'A5', 'A6'] as const;
const CSS_LENGTH = /^(0|\d+(\.\d+)?|\.\d+)(px|in|cm|mm)?$/;

/** One to four CSS lengths (comma or space separated), expanded as the CSS margin shorthand does. */
function parseMargin(raw: string): { top: string; right: string; bottom: string; left: string } {
  const parts = raw.trim().split(/[\s,]+/).filter(Boolean);
  if (parts.length < 1 || parts.length > 4 || parts.some((p) => !CSS_LENGTH.test(p))) {
    throw new BrowseError(`Invalid --margin '${raw}'.`, 'Use a CSS length in px, in, cm or mm (e.g. --margin 1cm), or 2–4 of them like CSS: --margin 1cm,2cm.');
  }
  const [top, right = top, bottom = top, left = right] = parts;
  return { top, right, bottom, left };
}

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

// Chromium fills elements of these classes in header and footer templates.
const TEMPLATE_FIELDS: Record<string, string> = { page: 'pageNumber', pages: 'totalPages', title: 'title', url: 'url', date: 'date' };

function headerFooterTemplate(text: string | undefined): string {
  if (text === undefined) return '<span></span>'; // an empty template, not Chromium's default one
  const html = escapeHtml(text).replace(/\{(page|pages|title|url|date)\}/g, (_, k: string) => `<span class="${TEMPLATE_FIELDS[k]}"></span>`);
  return `<div style="width:100%;box-sizing:border-box;padding:0 1cm;font-size:9px;font-family:sans-serif;color:#444;text-align:center">${html}</div>`;
}

/** Page objects in the file; 0 when the layout is not one we recognise. */
const countPdfPages = (pdf: Buffer) => (pdf.toString('latin1').match(/\/Type\s*\/Page(?![a-zA-Z])/g) ?? []).length;

export const pdf = defineCommand({
  name: 'pdf',
  deadlineMs: 45_000, // long documents
  category: 'read',
  group: 'Visual',
  description: 'Save the page as a PDF, laid out with print CSS (default: browse-page.pdf in the temp dir; headless Chromium only)',
  args: [{ name: 'path', kind: 'path' }],
  flags: [
    { name: '--format', kind: 'string', value: '<A4|Letter|…>', description: `Paper size: ${PDF_FORMATS.join(', ')} (default Letter)` },
    { name: '--landscape', kind: 'boolean', description: 'Landscape orientation' },
    { name: '--margin', kind: 'string', value: '<css length>', description: 'Page margins in px, in, cm or mm; 2–4 values as in CSS (default 1cm)' },
    { name: '--background', kind: 'boolean', description: 'Print background colours and images' },
    { name: '--header', kind: 'string', value: '<text>', description: 'Text at the top of every page; {page}, {pages}, {title}, {url} and {date} are filled in' },
    { name: '--footer', kind: 'string', value: '<text>', description: 'Text at the bottom of every page, with the same fields' },
  ],
  async run(ctx, input) {
    const out = validateOutputPath(input.path ? ctx.callerPath(String(input.path)) : join(tmpdir(), 'browse-page.pdf'));
    if (!out.endsWith('.pdf')) throw new BrowseError('The path must end in .pdf.', `Try \`pdf ${out.replace(/\.[^./]*$/, '')}.pdf\`.`);
    let format: string = 'Letter';
    if (input.format !== undefined) {
      const found = PDF_FORMATS.find((f) => f.toLowerCase() === String(input.format).toLowerCase());
      if (!found) throw new BrowseError(`Unknown paper format '${input.format}'.`, `Use one of ${PDF_FORMATS.join(', ')}, e.g. --format A4.`);
      format = found;
    }
    const margin = parseMargin(input.margin === undefined ? '1cm' : String(input.margin));
    const header = input.header === undefined ? undefined : String(input.header);
    const footer = input.footer === undefined ? undefined : String(input.footer);
    const pdfBytes = await ctx.page.pdf({
      format,
      landscape: Boolean(input.landscape),
      margin,
      printBackground: Boolean(input.background),
      displayHeaderFooter: header !== undefined || footer !== undefined,
      headerTemplate: headerFooterTemplate(header),
      footerTemplate: headerFooterTemplate(footer),
    });
    writeFileSync(out, pdfBytes);
    const pages = countPdfPages(pdfBytes);
    const kb = Math.max(1, Math.round(pdfBytes.length / 1024));
    return `PDF saved: ${out} (${pages ? `${pages} page${pages === 1 ? '' : 's'}, ` : ''}${format}${input.landscape ? ' landscape' : ''}, ${kb} KB)`;
  },
});

const BREAKPOINTS = [
  { width: 375, height: 812, label: 'mobile' },
  { width: 768, height: 1024, label: 'tablet' },
  { width: 1280, height: 720, label: 'desktop' },
] as const;

/** Lets resize handlers and layout catch up before a shot (bounded: a background page may not paint). */
const nextFrames = (page: Page) =>
  page.evaluate(() => Promise.race([new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))), new Promise((r) => setTimeout(r, 300))]));

export const responsive = defineCommand({
  name: 'responsive',
  deadlineMs: 45_000, // three resizes and full-page shots
  category: 'read',
  group: 'Visual',
  description: `Full-page screenshots at ${BREAKPOINTS.map((b) => `${b.width}x${b.height}`).join(', ')} as <prefix>-375x812.png … (default prefix: browse-responsive in the temp dir); the viewport is restored`,
  args: [{ name: 'prefix', kind: 'path' }],
  flags: [fullResFlag],
  async run(ctx, input) {
    let prefix = input.prefix ? ctx.callerPath(String(input.prefix)) : join(tmpdir(), 'browse-responsive');
    if (/[\\/]$/.test(prefix) || (existsSync(prefix) && statSync(prefix).isDirectory())) prefix = join(prefix, 'browse-responsive');
    prefix = prefix.replace(/\.png$/i, '');
    // Every path is checked before the viewport moves: a refusal leaves no half-done set.
    const outs = BREAKPOINTS.map((b) => validateOutputPath(`${prefix}-${b.width}x${b.height}.png`));
    const page = ctx.page;
    const original = page.viewportSize();
    const lines: string[] = [];
    let restoreFailed: unknown;
    try {
      for (const [i, b] of BREAKPOINTS.entries()) {
        await page.setViewportSize({ width: b.width, height: b.height });
        await nextFrames(page);
        const shot = await captureFullPage(page, Boolean(input.fullRes));
        writeFileSync(outs[i], shot.png);
        lines.push(`  ${b.label} ${b.width}x${b.height} → ${outs[i]}${sizeNote(shot)}`);
      }
    } finally {
      // A failure here must not hide the one that got us here; it is thrown below when there was none.
      if (original) await page.setViewportSize(original).catch((e: unknown) => (restoreFailed = e ?? 'failed'));
    }
    if (restoreFailed) throw restoreFailed;
    await nextFrames(page); // the page handles the restoring resize before we answer, as after each breakpoint
    const restored = original ? `Viewport restored to ${original.width}x${original.height}.` : 'The browser had no fixed viewport; it is now 1280x720.';
    return ['Responsive screenshots saved:', ...lines, restored].join('\n');
  },
});
