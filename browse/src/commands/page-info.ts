// Whole-page reports (accessibility tree, media, structured data, timing, UX structure) and local files
// (load-html, eval).
import { readFileSync, statSync } from 'node:fs';
import { basename } from 'node:path';
import { pathToFileURL } from 'node:url';
import { DEFAULTS } from '../config';
import { BrowseError, translateError } from '../errors';
import { validateInputPath } from '../policy';
import { defineCommand, type FlagSpec, type Input } from './define';
import { showValue } from './inspect';
import type { CommandContext } from './context';

const EVAL_MAX_BYTES = 1024 * 1024;

/** A user-given file to read: resolved against the caller's cwd, inside the allowed roots, a regular file. */
function inputFile(ctx: CommandContext, given: string, maxBytes = Infinity): string {
  const real = validateInputPath(ctx.callerPath(given));
  const st = statSync(real);
  if (!st.isFile()) throw new BrowseError(`${given} is not a file.`, 'Give the path of a file, not a directory.');
  if (st.size > maxBytes) {
    throw new BrowseError(`${given} is ${fmtBytes(st.size)}; the limit is ${fmtBytes(maxBytes)}.`, 'Split the script, or load it from the page with `js`.');
  }
  return real;
}

function fmtBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}

const limitFlag = (what: string, def: number): FlagSpec => ({ name: '--limit', kind: 'int', value: '<n>', description: `At most n ${what} (default ${def}; 0 = all)` });

function limitOf(input: Input, def: number): number {
  const n = input.limit === undefined ? def : Number(input.limit);
  if (n < 0) throw new BrowseError('--limit needs 0 (no limit) or more.', 'Example: --limit 100');
  return n === 0 ? Infinity : n;
}

/** JSON with one list item per line: valid, and far shorter than fully indented output. */
function compactJson(obj: Record<string, unknown>): string {
  const lines = Object.entries(obj)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => {
      if (Array.isArray(v) && v.length) return `  ${JSON.stringify(k)}: [\n${v.map((x) => `    ${JSON.stringify(x)}`).join(',\n')}\n  ]`;
      return `  ${JSON.stringify(k)}: ${JSON.stringify(v)}`;
    });
  return `{\n${lines.join(',\n')}\n}`;
}

export const loadHtml = defineCommand({
  name: 'load-html',
  deadlineMs: DEFAULTS.navigationDeadlineMs,
  category: 'write',
  group: 'Navigate',
  mainFrameOnly: true,
  description: 'Open a local HTML file as a file:// URL (its relative CSS, images and scripts load)',
  args: [{ name: 'file', kind: 'path', required: true }],
  async run(ctx, { file }) {
    const real = inputFile(ctx, String(file));
    const url = pathToFileURL(real).href;
    await ctx.page.goto(url, { waitUntil: 'domcontentloaded', timeout: ctx.navigationTimeout });
    return `Loaded ${url}`;
  },
});

export const accessibility = defineCommand({
  name: 'accessibility',
  untrusted: true,
  category: 'read',
  group: 'Read',
  description: "Playwright's raw aria snapshot of the page, without refs (`snapshot` adds them)",
  flags: [{ name: '--selector', kind: 'string', value: '<sel>', description: 'Only this element (CSS or @ref)' }, limitFlag('lines', 500)],
  async run(ctx, input) {
    const limit = limitOf(input, 500);
    const selector = input.selector === undefined ? undefined : String(input.selector);
    const root = selector ? await ctx.resolve(selector) : ctx.frame.locator('body');
    // The server names only positional selectors in its error messages; this one is a flag.
    const tree = await root.ariaSnapshot({ timeout: ctx.actionTimeout }).catch((e: unknown) => {
      throw translateError(e, selector);
    });
    const lines = tree.split('\n').filter((l) => l.trim());
    if (!lines.length) return '(empty accessibility tree)';
    if (lines.length <= limit) return lines.join('\n');
    return `${lines.slice(0, limit).join('\n')}\n… ${lines.length - limit} more lines (scope with --selector, or --limit 0 for all)`;
  },
});

interface ImageInfo {
  src: string;
  alt: string | null;
  named: boolean;
  decorative: boolean;
  w: number;
  h: number;
  complete: boolean;
  lazy: boolean;
  shown: string | null;
}
interface PlayerInfo {
  kind: 'video' | 'audio';
  src: string;
  duration: number | null;
  paused: boolean;
  ended: boolean;
  error: number | null;
}

function imageLine(i: ImageInfo): string {
  const size = i.complete ? (i.w ? `${i.w}x${i.h}` : 'broken') : `not loaded${i.lazy ? ' (lazy)' : ''}`;
  const shown = i.shown === null ? ' hidden' : i.complete && i.w && i.shown !== `${i.w}x${i.h}` ? ` shown ${i.shown}` : '';
  const alt = i.alt !== null ? `alt=${JSON.stringify(i.alt.length > 80 ? `${i.alt.slice(0, 79)}…` : i.alt)}` : i.named ? 'aria-label' : i.decorative ? 'decorative' : 'MISSING ALT';
  return `  ${i.src} ${size}${shown} ${alt}`;
}

function playerLine(m: PlayerInfo): string {
  const d = m.duration;
  const duration = d === null ? 'duration unknown' : d === -1 ? 'live' : `${Math.round(d * 10) / 10}s`;
  const errors: Record<number, string> = { 1: 'aborted', 2: 'network error', 3: 'decode error', 4: 'no playable source' };
  const state = m.error !== null ? `error: ${errors[m.error] ?? m.error}` : m.ended ? 'ended' : m.paused ? 'paused' : 'playing';
  return `  ${m.src} ${duration} ${state}`;
}

function section<T>(title: string, items: T[], line: (x: T) => string, limit: number, extra = ''): string[] {
  if (!items.length) return [];
  const out = [`${title}: ${items.length}${extra}`, ...items.slice(0, limit).map(line)];
  if (items.length > limit) out.push(`  … ${items.length - limit} more (--limit ${items.length} shows all)`);
  return out;
}

export const media = defineCommand({
  name: 'media',
  untrusted: true,
  category: 'read',
  group: 'Read',
  description: 'Images (src, natural size, alt; missing alt flagged) and video/audio (src, duration, state)',
  flags: [limitFlag('items per kind', 50)],
  async run(ctx, input) {
    const limit = limitOf(input, 50);
    const found = await ctx.frame.evaluate(() => {
      const short = (u: string): string => {
        if (!u) return '(no src)';
        if (u.startsWith('data:')) return `${u.slice(0, 24)}… (${u.length} chars)`;
        try {
          const x = new URL(u, location.href);
          if (x.protocol === location.protocol && (x.protocol === 'file:' || x.origin === location.origin)) u = x.pathname + x.search;
        } catch {}
        return u.length > 120 ? `${u.slice(0, 119)}…` : u;
      };
      const images = Array.from(document.images, (img) => {
        const r = img.getBoundingClientRect();
        const role = img.getAttribute('role') ?? '';
        return {
          src: short(img.currentSrc || img.getAttribute('src') || ''),
          alt: img.getAttribute('alt'),
          named: Boolean(img.getAttribute('aria-label') || img.getAttribute('aria-labelledby')),
          decorative: role === 'presentation' || role === 'none' || img.getAttribute('aria-hidden') === 'true',
          w: img.naturalWidth,
          h: img.naturalHeight,
          complete: img.complete,
          lazy: img.loading === 'lazy',
          shown: img.checkVisibility() ? `${Math.round(r.width)}x${Math.round(r.height)}` : null,
        };
      });
      const players = Array.from(document.querySelectorAll<HTMLMediaElement>('video, audio'), (m) => ({
        kind: m.tagName === 'VIDEO' ? ('video' as const) : ('audio' as const),
        src: short(m.currentSrc || m.getAttribute('src') || m.querySelector('source[src]')?.getAttribute('src') || ''),
        duration: Number.isNaN(m.duration) ? null : m.duration === Infinity ? -1 : m.duration,
        paused: m.paused,
        ended: m.ended,
        error: m.error ? m.error.code : null,
      }));
      return { images, players };
    });
    const { images, players } = found;
    if (!images.length && !players.length) return '(no images, video or audio)';
    const missing = images.filter((i) => i.alt === null && !i.named && !i.decorative).length;
    const broken = images.filter((i) => i.complete && !i.w).length;
    const notes = [missing && `${missing} missing alt`, broken && `${broken} broken`].filter(Boolean).join(', ');
    return [
      ...section('Images', images, imageLine, limit, notes ? ` (${notes})` : ''),
      ...section('Video', players.filter((m) => m.kind === 'video'), playerLine, limit),
      ...section('Audio', players.filter((m) => m.kind === 'audio'), playerLine, limit),
    ].join('\n');
  },
});

export const data = defineCommand({
  name: 'data',
  untrusted: true,
  category: 'read',
  group: 'Read',
  description: 'Structured data as JSON: meta tags, canonical, lang, JSON-LD, Open Graph, Twitter card',
  async run(ctx) {
    const raw = await ctx.frame.evaluate(() => {
      const content = (name: string) => document.querySelector(`meta[name="${name}" i]`)?.getAttribute('content') ?? null;
      const tagged = Array.from(document.querySelectorAll('meta[content]'), (m) => [(m.getAttribute('property') || m.getAttribute('name') || '').trim(), m.getAttribute('content') ?? ''] as [string, string]);
      return {
        meta: {
          title: document.title || null,
          description: content('description'),
          canonical: document.querySelector<HTMLLinkElement>('link[rel~="canonical" i][href]')?.href ?? null,
          robots: content('robots'),
          viewport: content('viewport'),
          lang: document.documentElement.lang || null,
        },
        tagged,
        jsonLd: Array.from(document.querySelectorAll('script[type="application/ld+json" i]'), (s) => s.textContent ?? ''),
      };
    });
    const group = (prefix: string) => {
      const out: Record<string, string | string[]> = {};
      for (const [key, value] of raw.tagged) {
        if (!key.toLowerCase().startsWith(prefix)) continue;
        const prev = out[key];
        out[key] = prev === undefined ? value : [...(Array.isArray(prev) ? prev : [prev]), value]; // og:image may repeat
      }
      return out;
    };
    const jsonLd = raw.jsonLd.map((text) => {
      try {
        return JSON.parse(text) as unknown;
      } catch (e) {
        const snippet = text.trim().replace(/\s+/g, ' ');
        return { error: `Invalid JSON: ${(e as Error).message}`, text: snippet.length > 120 ? `${snippet.slice(0, 119)}…` : snippet };
      }
    });
    return JSON.stringify({ meta: raw.meta, jsonLd, openGraph: group('og:'), twitter: group('twitter:') }, null, 2);
  },
});

export const evalFile = defineCommand({
  name: 'eval',
  deadlineMs: DEFAULTS.scriptDeadlineMs,
  untrusted: true,
  category: 'read',
  group: 'Inspect',
  description: 'Run a JavaScript file (≤ 1 MB) in the page; prints its last value (promises awaited)',
  args: [{ name: 'file', kind: 'path', required: true }],
  async run(ctx, { file }) {
    const shown = String(file);
    const real = inputFile(ctx, shown, EVAL_MAX_BYTES);
    const sourceName = basename(real).replace(/[^\w.-]/g, '_');
    // Indirect eval runs the file as a script (declarations first, completion value back); the sourceURL
    // puts the file name and line into stack traces.
    const source = `${readFileSync(real, 'utf8')}\n//# sourceURL=${sourceName}`;
    try {
      return showValue(await ctx.frame.evaluate((src) => (0, eval)(src), source));
    } catch (e) {
      const raw = e instanceof Error ? e.message : String(e);
      const msg = raw.split('\n')[0].replace(/^\w+\.evaluate: /, '');
      if (/Target|closed|Execution context was destroyed/.test(msg)) throw e;
      const at = raw.match(new RegExp(`${sourceName.replace(/[.]/g, '\\.')}:(\\d+):\\d+`));
      const hint = /await is only valid/.test(msg)
        ? 'Top-level await is not supported: wrap the code in `(async () => { …; return result; })()`.'
        : 'Fix the script; it runs as a classic script in the page and the value of its last statement is printed.';
      throw new BrowseError(`JavaScript error in ${shown}${at ? ` (line ${at[1]})` : ''}: ${msg}`, hint);
    }
  },
});

export const perf = defineCommand({
  name: 'perf',
  untrusted: true,
  category: 'read',
  group: 'Inspect',
  description: 'Navigation timing (DNS, connect, TTFB, DOMContentLoaded, load), sizes, 5 slowest resources',
  async run(ctx) {
    const t = await ctx.frame.evaluate(() => {
      const nav = performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming | undefined;
      const res = performance.getEntriesByType('resource') as PerformanceResourceTiming[];
      const short = (u: string) => {
        try {
          const x = new URL(u);
          if (x.origin === location.origin && x.origin !== 'null') u = x.pathname + x.search;
        } catch {}
        return u.length > 100 ? `${u.slice(0, 99)}…` : u;
      };
      if (!nav || !nav.responseStart || location.protocol === 'about:') return null;
      return {
        url: location.href,
        dns: nav.domainLookupEnd - nav.domainLookupStart,
        connect: nav.connectEnd - nav.connectStart,
        tls: nav.secureConnectionStart ? nav.connectEnd - nav.secureConnectionStart : 0,
        ttfb: nav.responseStart,
        dcl: nav.domContentLoadedEventEnd,
        load: nav.loadEventEnd,
        transfer: nav.transferSize,
        count: res.length,
        resTransfer: res.reduce((sum, r) => sum + r.transferSize, 0),
        slowest: [...res]
          .sort((a, b) => b.duration - a.duration)
          .slice(0, 5)
          .map((r) => ({ name: short(r.name), type: r.initiatorType, ms: r.duration, size: r.transferSize })),
      };
    });
    if (!t) throw new BrowseError('This page has no navigation timing (about:blank or written by script).', 'Run `goto <url>` (or `load-html <file>`), then `perf`.');
    const ms = (n: number) => `${Math.round(n)}ms`;
    const pending = 'not finished (run `wait --load`, then `perf`)';
    const lines = [
      `URL: ${t.url}`,
      `DNS: ${ms(t.dns)}`,
      `Connect: ${ms(t.connect)}${t.tls ? ` (TLS ${ms(t.tls)})` : ''}`,
      `TTFB: ${ms(t.ttfb)}`,
      `DOMContentLoaded: ${t.dcl ? ms(t.dcl) : pending}`,
      `Load: ${t.load ? ms(t.load) : pending}`,
      `Document transfer: ${fmtBytes(t.transfer)}`,
      `Resources: ${t.count}${t.count >= 250 ? '+ (timing buffer full)' : ''}, ${fmtBytes(t.resTransfer)} transferred`,
    ];
    if (t.slowest.length) {
      lines.push(`Slowest ${t.slowest.length}:`, ...t.slowest.map((r) => `  ${ms(r.ms)} ${r.type} ${r.name}${r.size ? ` (${fmtBytes(r.size)})` : ''}`));
    }
    lines.push('(ms from navigation start; sizes are 0 for cached and cross-origin responses)');
    return lines.join('\n');
  },
});

export const uxAudit = defineCommand({
  name: 'ux-audit',
  untrusted: true,
  category: 'read',
  group: 'Meta',
  description: 'Page structure and UX problems as JSON: headings, navs, controls, text, missing alt and labels',
  flags: [limitFlag('items per list', 50)],
  async run(ctx, input) {
    const limit = limitOf(input, 50);
    const audit = await ctx.frame.evaluate(() => {
      const clean = (s: string | null | undefined, n = 80) => {
        const t = (s ?? '').replace(/\s+/g, ' ').trim();
        return t.length > n ? `${t.slice(0, n - 1)}…` : t;
      };
      const visible = (el: Element) => el.checkVisibility({ visibilityProperty: true });
      const byIds = (ids: string) => ids.split(/\s+/).map((id) => document.getElementById(id)?.textContent ?? '').join(' ');
      const isField = (el: Element) => el instanceof HTMLInputElement || el instanceof HTMLSelectElement || el instanceof HTMLTextAreaElement;
      const labelled = (el: Element) =>
        Boolean((isField(el) && (el as HTMLInputElement).labels?.length) || el.getAttribute('aria-label')?.trim() || el.getAttribute('aria-labelledby') || el.getAttribute('title')?.trim());
      const nameOf = (el: Element): string => {
        const by = el.getAttribute('aria-labelledby');
        const aria = (by && byIds(by).trim()) || el.getAttribute('aria-label')?.trim();
        if (aria) return aria;
        if (el instanceof HTMLInputElement && ['button', 'submit', 'reset'].includes(el.type)) return el.value || (el.type === 'button' ? '' : el.type === 'submit' ? 'Submit' : 'Reset');
        if (el instanceof HTMLInputElement && el.type === 'image') return el.alt;
        if (isField(el)) {
          const labels = (el as HTMLInputElement).labels;
          if (labels?.length) return Array.from(labels, (l) => l.innerText).join(' ');
          return el.getAttribute('title') || el.getAttribute('placeholder') || '';
        }
        const text = (el as HTMLElement).innerText?.trim() || Array.from(el.querySelectorAll('img[alt]'), (i) => i.getAttribute('alt')).join(' ');
        return text || el.getAttribute('title') || '';
      };
      const roleOf = (el: Element): string => {
        const explicit = el.getAttribute('role')?.trim().split(/\s+/)[0];
        if (explicit) return explicit;
        const tag = el.tagName.toLowerCase();
        if (tag === 'a' || tag === 'area') return 'link';
        if (tag === 'button' || tag === 'summary') return 'button';
        if (tag === 'textarea') return 'textbox';
        if (el instanceof HTMLSelectElement) return el.multiple || el.size > 1 ? 'listbox' : 'combobox';
        if (el instanceof HTMLInputElement) {
          const map: Record<string, string> = { range: 'slider', number: 'spinbutton', search: 'searchbox', button: 'button', submit: 'button', reset: 'button', image: 'button', email: 'textbox', tel: 'textbox', url: 'textbox', password: 'textbox', text: 'textbox' };
          return map[el.type] ?? el.type;
        }
        if ((el as HTMLElement).isContentEditable) return 'textbox';
        return 'generic';
      };
      const short = (u: string) => {
        if (u.startsWith('data:')) return `${u.slice(0, 24)}…`;
        try {
          const x = new URL(u, location.href);
          if (x.protocol === location.protocol && (x.protocol === 'file:' || x.origin === location.origin)) u = x.pathname + x.search;
        } catch {}
        return u.length > 100 ? `${u.slice(0, 99)}…` : u;
      };
      // WCAG contrast of text against the first opaque background behind it; null when it cannot tell.
      const rgba = (s: string) => {
        const m = s.match(/^rgba?\(([^)]+)\)$/);
        const p = m ? m[1].split(/[\s,/]+/).filter(Boolean).map(Number) : [];
        return p.length >= 3 && p.every((n) => !Number.isNaN(n)) ? [p[0], p[1], p[2], p[3] ?? 1] : null;
      };
      const luminance = ([r, g, b]: number[]) => {
        const f = (c: number) => ((c /= 255) <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4);
        return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
      };
      const contrastOf = (el: Element): number | null => {
        const fg = rgba(getComputedStyle(el).color);
        if (!fg) return null;
        let bg = [255, 255, 255, 1];
        for (let n: Element | null = el; n; n = n.parentElement) {
          const cs = getComputedStyle(n);
          if (cs.backgroundImage !== 'none') return null;
          const c = rgba(cs.backgroundColor);
          if (!c) return null;
          if (c[3] === 0) continue;
          if (c[3] < 1) return null;
          bg = c;
          break;
        }
        const mixed = fg.map((v, i) => (i < 3 ? v * fg[3] + bg[i] * (1 - fg[3]) : 1));
        const [a, b] = [luminance(mixed), luminance(bg)];
        return (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
      };

      const headings = Array.from(document.querySelectorAll('h1, h2, h3, h4, h5, h6, [role=heading]'), (h) => {
        const level = /^H\d$/.test(h.tagName) ? Number(h.tagName[1]) : Number(h.getAttribute('aria-level') ?? 2);
        return { level, text: clean((h as HTMLElement).innerText || h.textContent), ...(visible(h) ? {} : { hidden: true }) };
      });
      const navs = Array.from(document.querySelectorAll('nav, [role=navigation]'), (n) => {
        const by = n.getAttribute('aria-labelledby');
        return { name: clean((by && byIds(by)) || n.getAttribute('aria-label')), links: n.querySelectorAll('a[href]').length, ...(visible(n) ? {} : { hidden: true }) };
      });

      const interactiveSel =
        'a[href], area[href], button, input:not([type=hidden]), select, textarea, summary, [contenteditable=""], [contenteditable=true], [tabindex]:not([tabindex^="-"]), [onclick], ' +
        ['button', 'link', 'checkbox', 'radio', 'switch', 'tab', 'menuitem', 'option', 'slider', 'textbox', 'combobox'].map((r) => `[role=${r}]`).join(', ');
      let hiddenInteractive = 0;
      const targets: { el: Element; r: DOMRect }[] = [];
      for (const el of Array.from(document.querySelectorAll(interactiveSel))) {
        if (visible(el)) targets.push({ el, r: el.getBoundingClientRect() });
        else hiddenInteractive++;
      }
      // WCAG 2.5.8: a target under 24px passes when a 24px circle on its centre touches no other target
      // (nor another small target's circle). Inline links in running text and labelled toggles are exempt.
      const small = (r: DOMRect) => r.width < 24 || r.height < 24;
      const centre = (r: DOMRect) => [r.left + r.width / 2, r.top + r.height / 2];
      const crowded = (t: { el: Element; r: DOMRect }) => {
        const [x, y] = centre(t.r);
        return targets.some((o) => {
          if (o === t || o.el.contains(t.el) || t.el.contains(o.el)) return false;
          if (small(o.r)) {
            const [ox, oy] = centre(o.r);
            if (Math.hypot(ox - x, oy - y) < 24) return true;
          }
          const dx = Math.max(o.r.left - x, 0, x - o.r.right);
          const dy = Math.max(o.r.top - y, 0, y - o.r.bottom);
          return Math.hypot(dx, dy) < 12;
        });
      };
      const interactive: Record<string, unknown>[] = [];
      for (const t of targets) {
        const { el, r } = t;
        const role = roleOf(el);
        const name = clean(nameOf(el), 60);
        const disabled = (el as HTMLButtonElement).disabled === true || el.getAttribute('aria-disabled') === 'true';
        const problems: string[] = [];
        const ownText = Array.from(el.parentElement?.childNodes ?? [], (n) => (n.nodeType === Node.TEXT_NODE ? n.textContent : '')).join('');
        const inlineLink = el.tagName === 'A' && getComputedStyle(el).display === 'inline' && ownText.trim().length > 0;
        const labelledToggle = el instanceof HTMLInputElement && ['checkbox', 'radio'].includes(el.type) && Boolean(el.labels?.length);
        if (!disabled && small(r) && !inlineLink && !labelledToggle && targets.length <= 2000 && crowded(t)) {
          problems.push(`target ${Math.round(r.width)}x${Math.round(r.height)} < 24px, crowded`);
        }
        if (!name) problems.push('no name');
        if (role === 'generic') problems.push('no role'); // a div with onclick or tabindex: invisible to assistive tech
        interactive.push({ role, name, ...(disabled ? { disabled: true } : {}), ...(problems.length ? { problems } : {}) });
      }

      const blockSel = 'p, li, blockquote, dd, figcaption, pre, td';
      const text: Record<string, unknown>[] = [];
      for (const el of Array.from(document.querySelectorAll(blockSel))) {
        if (el.closest('nav, [role=navigation]') || el.querySelector(blockSel) || !visible(el)) continue;
        const content = (el as HTMLElement).innerText.replace(/\s+/g, ' ').trim();
        if (!content) continue;
        const problems: string[] = [];
        const cs = getComputedStyle(el);
        const px = parseFloat(cs.fontSize);
        if (px < 12) problems.push(`font ${px}px`);
        const ratio = contrastOf(el);
        const large = px >= 24 || (px >= 18.66 && Number(cs.fontWeight) >= 700);
        if (ratio !== null && ratio < (large ? 3 : 4.5)) problems.push(`contrast ${ratio.toFixed(1)}:1`);
        text.push({ tag: el.tagName.toLowerCase(), chars: content.length, text: clean(content, 100), ...(problems.length ? { problems } : {}) });
      }

      const imagesWithoutAlt = Array.from(document.images)
        .filter((img) => !img.hasAttribute('alt') && !img.getAttribute('aria-label') && !img.getAttribute('aria-labelledby') && !['presentation', 'none'].includes(img.getAttribute('role') ?? '') && img.getAttribute('aria-hidden') !== 'true')
        .map((img) => short(img.currentSrc || img.getAttribute('src') || '(no src)'));
      const unlabeledFields = Array.from(document.querySelectorAll('input:not([type=hidden], [type=submit], [type=button], [type=reset], [type=image]), select, textarea'))
        .filter((el) => !labelled(el))
        .map((el) => {
          const f = el as HTMLInputElement;
          const type = el instanceof HTMLInputElement ? `input[type=${f.type}]` : el.tagName.toLowerCase();
          return { field: type, ...(f.name ? { name: f.name } : {}), ...(el.id ? { id: el.id } : {}), ...(f.placeholder ? { placeholder: clean(f.placeholder, 60) } : {}) };
        });

      const issues: string[] = [];
      const h1s = headings.filter((h) => h.level === 1).length;
      if (h1s !== 1) issues.push(h1s ? `${h1s} h1 headings` : 'no h1');
      const skips = headings.filter((h, i) => i > 0 && h.level > headings[i - 1].level + 1);
      if (skips.length) issues.push(`${skips.length} heading level skip${skips.length > 1 ? 's' : ''} (first: h${skips[0].level} "${skips[0].text}")`);
      if (!document.querySelector('main, [role=main]')) issues.push('no main landmark');
      const count = (list: Record<string, unknown>[], re: RegExp) => list.filter((x) => (x.problems as string[] | undefined)?.some((p) => re.test(p))).length;
      const tally: [number, string, string][] = [
        [count(interactive, /^target/), 'crowded tap target', 'under 24px'],
        [count(interactive, /^no name/), 'control', 'without a name'],
        [count(interactive, /^no role/), 'interactive element', 'without a role'],
        [count(text, /^contrast/), 'text block', 'with low contrast'],
        [count(text, /^font/), 'text block', 'under 12px'],
        [imagesWithoutAlt.length, 'image', 'without alt'],
        [unlabeledFields.length, 'form field', 'without a label'],
      ];
      for (const [n, what, why] of tally) if (n) issues.push(`${n} ${what}${n > 1 ? 's' : ''} ${why}`);
      const overflow = document.documentElement.scrollWidth - window.innerWidth;
      if (overflow > 0) issues.push(`horizontal overflow: page is ${overflow}px wider than the ${window.innerWidth}px viewport`);

      return {
        url: location.href,
        title: document.title,
        viewport: `${window.innerWidth}x${window.innerHeight}`,
        issues,
        headings,
        navs,
        main: document.querySelectorAll('main, [role=main]').length,
        interactive,
        hiddenInteractive,
        text,
        imagesWithoutAlt,
        unlabeledFields,
      };
    });
    const truncated: Record<string, number | string> = {};
    const cap = <T>(key: string, list: T[]): T[] => {
      if (list.length > limit) truncated[key] = list.length - limit;
      return list.slice(0, limit);
    };
    const out: Record<string, unknown> = {
      ...audit,
      headings: cap('headings', audit.headings),
      navs: cap('navs', audit.navs),
      interactive: cap('interactive', audit.interactive),
      text: cap('text', audit.text),
      imagesWithoutAlt: cap('imagesWithoutAlt', audit.imagesWithoutAlt),
      unlabeledFields: cap('unlabeledFields', audit.unlabeledFields),
    };
    if (Object.keys(truncated).length) out.truncated = { ...truncated, hint: '--limit 0 shows every item' };
    return compactJson(out);
  },
});
