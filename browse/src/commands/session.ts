// The session around the pages: files in and out, cookies, headers, identity, saved states, handoff.
import { chmodSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, extname, join } from 'node:path';
import type { RecreateReport, SavedTab, SessionSnapshot, StoredCookie, StoredOrigin } from '../browser-manager';
import { DEFAULTS, resolvePaths } from '../config';
import { BrowseError, plural } from '../errors';
import { assertSafeDestination, normalizeUrl, safeUrl, validateInputPath, validateOutputPath } from '../policy';
import { looksSecret } from '../redact';
import { describeTarget } from '../refs';
import type { CommandContext } from './context';
import { defineCommand } from './define';

const MAX_UPLOAD_FILES = 20;
const MAX_JSON_BYTES = 20_000_000;
const DOWNLOAD_TIMEOUT_MS = 30_000;
const CHOOSER_GRACE_MS = 2000;
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/; // RFC 7230 token: header and cookie names
const CONTROL = /[\x00-\x1f\x7f]/;


function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/** After a recreation: how many tabs came back, and any that did not come back as they were. */
export function describeRecreate(ctx: CommandContext, r: RecreateReport, carried = `${plural(r.cookies, 'cookie')}, storage and extra headers kept`): string {
  const active = ctx.browser.tab();
  const lines = [`${plural(r.tabs, 'tab')} reopened (active tab ${active.id}: ${safeUrl(active.page.url())}); ${carried}.`];
  for (const p of r.problems) lines.push(`  ! ${p}`);
  return lines.join('\n');
}

// Files -----------------------------------------------------------------------------------------

// `rest` would join the words with spaces and lose paths that contain one: one arg per file instead.
export const upload = defineCommand({
  name: 'upload',
  deadlineMs: DEFAULTS.actionDeadlineMs * 2, // a file chooser opens first
  category: 'write',
  group: 'Interact',
  description: 'Set files on a file input, or on the file chooser that clicking the element opens',
  args: [
    { name: 'selector', kind: 'selector', required: true, display: 'sel|@ref' },
    { name: 'files', kind: 'paths', required: true, display: 'file' },
  ],
  async run(ctx, input) {
    const selector = String(input.selector);
    const files = input.files as string[];
    if (files.length > MAX_UPLOAD_FILES) throw new BrowseError(`upload takes at most ${MAX_UPLOAD_FILES} files; got ${files.length}.`, 'Upload them in smaller groups, or zip them first.');
    const paths = files.map((f) => {
      const real = validateInputPath(ctx.callerPath(f));
      if (statSync(real).isDirectory()) throw new BrowseError(`${f} is a directory.`, 'Give the files inside it, e.g. `upload <sel> dir/a.png dir/b.png`.');
      return real;
    });
    const loc = await ctx.resolve(selector);
    const kind = await loc.evaluate((el) => (el instanceof HTMLInputElement && el.type === 'file' ? (el.multiple ? 'multiple' : 'single') : 'other'), undefined, { timeout: ctx.actionTimeout });
    const tooMany = () => new BrowseError(`${describeTarget(ctx.tab.refs, selector)} takes one file, got ${paths.length}.`, 'Upload one file, or target an input with the `multiple` attribute.');
    if (kind === 'other') {
      // Custom widgets hide the input behind a button: take the chooser the click opens.
      const chooser = ctx.page.waitForEvent('filechooser', { timeout: ctx.actionTimeout * 2 }).catch(() => null);
      await loc.click({ timeout: ctx.actionTimeout });
      // The chooser opens during the click's own handler: two seconds is plenty once the click is done.
      const opened = await Promise.race([chooser, new Promise<null>((r) => setTimeout(() => r(null), CHOOSER_GRACE_MS))]);
      if (!opened) {
        throw new BrowseError(`${describeTarget(ctx.tab.refs, selector)} is not a file input, and clicking it opened no file chooser.`, 'Target the <input type=file> (it may be hidden: `html form`), or the button that opens the chooser.');
      }
      if (!opened.isMultiple() && paths.length > 1) throw tooMany();
      await opened.setFiles(paths, { timeout: ctx.actionTimeout });
    } else {
      if (kind === 'single' && paths.length > 1) throw tooMany();
      await loc.setInputFiles(paths, { timeout: ctx.actionTimeout });
    }
    await ctx.settle();
    const list = paths.map((p) => `${basename(p)} (${formatSize(statSync(p).size)})`).join(', ');
    return `Uploaded ${plural(paths.length, 'file')} to ${describeTarget(ctx.tab.refs, selector)}: ${list}`;
  },
});

/** A file name a server or page suggested, made safe to create: no directories, no control characters. */
function safeFileName(suggested: string | undefined): string {
  const base = (suggested ?? '').split(/[\\/]/).pop() ?? '';
  let name = base.replace(/[\x00-\x1f\x7f<>:"|?*]/g, '_').replace(/^[.\s]+|[.\s]+$/g, '');
  if (name.length > 120) {
    const ext = extname(name).slice(0, 16);
    name = name.slice(0, 120 - ext.length) + ext;
  }
  return name || 'download';
}

function nameFromDisposition(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const star = header.match(/filename\*\s*=\s*[^']*'[^']*'([^;]+)/i);
  if (star) {
    try {
      return decodeURIComponent(star[1].trim());
    } catch {}
  }
  return header.match(/filename\s*=\s*"([^"]*)"/i)?.[1] ?? header.match(/filename\s*=\s*([^;]+)/i)?.[1]?.trim();
}

function nameFromUrl(url: string): string | undefined {
  try {
    return decodeURIComponent(new URL(url).pathname.split('/').pop() ?? '') || undefined;
  } catch {
    return undefined;
  }
}

/** Never overwrites in the default location: report.csv, report-1.csv, … */
function freePath(dir: string, name: string): string {
  const ext = extname(name);
  const stem = name.slice(0, name.length - ext.length);
  for (let i = 0; i < 1000; i++) {
    const p = join(dir, i ? `${stem}-${i}${ext}` : name);
    if (!existsSync(p)) return p;
  }
  throw new BrowseError(`Too many files named ${name} in ${dir}.`, 'Pass a path: `download <url> <path>`.');
}

/** Where a download goes: the given file, a file in the given directory, or the temp dir. Checked by policy. */
function downloadTarget(ctx: CommandContext, given: string | undefined): (name: string) => string {
  if (given === undefined) return (name) => validateOutputPath(freePath(tmpdir(), safeFileName(name)));
  const p = ctx.callerPath(given);
  const isDir = given.endsWith('/') || (existsSync(p) && statSync(p).isDirectory());
  const checked = validateOutputPath(isDir ? join(p, 'x') : p); // refuse before any bytes move
  return (name) => (isDir ? validateOutputPath(join(p, safeFileName(name))) : checked);
}

// A slash outside brackets or quotes never occurs in a CSS selector, so such a word is a URL.
const looksLikeUrl = (s: string) => /^(https?|file):/i.test(s) || /^[^\s[\]()'"]*\//.test(s);

async function fetchToFile(ctx: CommandContext, raw: string, target: (name: string) => string): Promise<string> {
  let url = raw.startsWith('/') || raw.startsWith('.') ? new URL(raw, ctx.page.url()).href : normalizeUrl(raw);
  const request = ctx.browser.browserContext.request; // shares the session's cookies and extra headers
  for (let hop = 0; ; hop++) {
    if (!/^https?:/i.test(url)) throw new BrowseError(`download fetches http(s) URLs, not ${safeUrl(url)}.`, 'Give an http:// or https:// URL, or a link to click (`download @e3`).');
    await assertSafeDestination(url); // every hop: a redirect must not lead to a metadata address
    const res = await request.get(url, { maxRedirects: 0, timeout: DOWNLOAD_TIMEOUT_MS, failOnStatusCode: false });
    const location = res.headers()['location'];
    if (res.status() >= 300 && res.status() < 400 && location) {
      await res.dispose();
      if (hop >= 10) throw new BrowseError(`Too many redirects from ${safeUrl(raw)}.`, 'Open it with `goto` to see where it leads.');
      url = normalizeUrl(new URL(location, url).href);
      continue;
    }
    if (res.status() >= 400) {
      await res.dispose();
      throw new BrowseError(`Download failed: ${safeUrl(url)} answered HTTP ${res.status()}.`, 'Check the URL with `goto`; a login may be needed first (`cookie-import`, `state load`).');
    }
    const body = await res.body();
    const type = res.headers()['content-type']?.split(';')[0];
    const dest = target(nameFromDisposition(res.headers()['content-disposition']) ?? nameFromUrl(url) ?? 'download');
    await res.dispose();
    writeFileSync(dest, body);
    return `Downloaded ${basename(dest)} (${formatSize(body.length)}${type ? `, ${type}` : ''}) from ${safeUrl(url)} → ${dest}`;
  }
}

export const download = defineCommand({
  name: 'download',
  deadlineMs: 90_000, // large files
  untrusted: true,
  category: 'write',
  group: 'Interact',
  description: 'Download a file by URL (sent with the session’s cookies and headers) or by clicking a link; saves to the temp dir unless a path is given',
  usage: 'download <url|sel|@ref> [path]',
  args: [
    { name: 'source', kind: 'string', required: true, display: 'url|sel|@ref' },
    { name: 'path', kind: 'path' },
  ],
  async run(ctx, { source, path }) {
    const raw = String(source);
    const target = downloadTarget(ctx, path === undefined ? undefined : String(path));
    if (!raw.startsWith('@') && looksLikeUrl(raw)) return fetchToFile(ctx, raw, target);
    const loc = await ctx.resolve(raw);
    const started = ctx.page.waitForEvent('download', { timeout: DOWNLOAD_TIMEOUT_MS / 2 });
    started.catch(() => {});
    await loc.click({ timeout: ctx.actionTimeout });
    const dl = await started.catch(() => null);
    if (!dl) {
      throw new BrowseError(`Clicking ${describeTarget(ctx.tab.refs, raw)} did not start a download within ${DOWNLOAD_TIMEOUT_MS / 2000}s.`, 'Check that it is a download link (`attrs <sel>`), or pass its URL: `download <url> [path]`.');
    }
    const dest = target(dl.suggestedFilename());
    await dl.saveAs(dest);
    const failure = await dl.failure();
    if (failure) {
      rmSync(dest, { force: true });
      throw new BrowseError(`The download from ${safeUrl(dl.url())} failed: ${failure}.`, 'Retry, or fetch it by URL: `download <url> [path]`.');
    }
    return `Downloaded ${basename(dest)} (${formatSize(statSync(dest).size)}) from ${safeUrl(dl.url())} → ${dest}`;
  },
});

// Cookies ---------------------------------------------------------------------------------------

export const cookie = defineCommand({
  name: 'cookie',
  category: 'write',
  group: 'Interact',
  description: 'Set a cookie for the current page’s host (the reply shows the value’s length, never the value)',
  args: [{ name: 'pair', kind: 'rest', required: true, display: 'name=value' }],
  async run(ctx, { pair }) {
    const text = String(pair);
    const eq = text.indexOf('=');
    // Never echo the input: it is usually a secret.
    if (eq <= 0) throw new BrowseError('cookie needs <name>=<value>.', 'Example: `cookie theme=dark`.');
    const [name, value] = [text.slice(0, eq).trim(), text.slice(eq + 1)];
    if (!TOKEN.test(name)) throw new BrowseError(`Cookie name '${name.slice(0, 60)}' has characters a cookie name cannot hold.`, 'Use letters, digits and !#$%&\'*+.^_`|~- only.');
    if (CONTROL.test(value) || value.includes(';')) throw new BrowseError(`The value of cookie ${name} contains ';' or control characters.`, 'Encode it first (e.g. URL-encode it).');
    const url = ctx.page.url();
    if (!/^https?:/i.test(url)) throw new BrowseError(`A cookie belongs to a site, but this tab shows ${safeUrl(url)}.`, 'Run `goto <url>` on the site first.');
    const { origin, hostname } = new URL(url);
    await ctx.browser.browserContext.addCookies([{ name, value, url: `${origin}/` }]);
    return `Set cookie ${name} (${value.length} chars) for ${hostname}, path /`;
  },
});

type Import = { cookie: StoredCookie } | { skip: string };
const SAME_SITE: Record<string, StoredCookie['sameSite']> = { strict: 'Strict', lax: 'Lax', none: 'None', no_restriction: 'None' };

/** One cookie of a Playwright, storageState or browser-extension (EditThisCookie, Cookie-Editor) export. */
function importedCookie(raw: unknown, nowSec: number): Import {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return { skip: 'not an object' };
  const c = raw as Record<string, unknown>;
  if (typeof c.name !== 'string' || !c.name) return { skip: 'no name' };
  if (!TOKEN.test(c.name)) return { skip: 'invalid name' };
  if (typeof c.value !== 'string' && typeof c.value !== 'number') return { skip: 'no value' };
  const value = String(c.value);
  if (CONTROL.test(value) || value.includes(';')) return { skip: "value contains ';' or control characters" };
  let domain = typeof c.domain === 'string' ? c.domain.trim() : '';
  if (!domain && typeof c.url === 'string') {
    try {
      domain = new URL(c.url).hostname;
    } catch {}
  }
  if (!domain || /[\s/:]/.test(domain.replace(/^\[.*\]$/, ''))) return { skip: 'no valid domain' };
  if (c.hostOnly === true) domain = domain.replace(/^\./, '');
  const rawExpiry = c.session === true ? -1 : [c.expires, c.expirationDate, c.expiry].find((v) => typeof v === 'number');
  const expires = typeof rawExpiry === 'number' && rawExpiry > 0 ? Math.floor(rawExpiry) : -1;
  if (expires !== -1 && expires < nowSec) return { skip: 'expired' };
  const sameSite = typeof c.sameSite === 'string' ? SAME_SITE[c.sameSite.toLowerCase()] : undefined;
  const secure = c.secure === true;
  if (sameSite === 'None' && !secure) return { skip: 'SameSite=None without Secure' };
  const path = typeof c.path === 'string' && c.path.startsWith('/') ? c.path : '/';
  return { cookie: { name: c.name, value, domain, path, expires, httpOnly: c.httpOnly === true, secure, sameSite: sameSite ?? 'Lax' } };
}

function readJsonFile(ctx: CommandContext, given: string, what: string): unknown {
  const real = validateInputPath(ctx.callerPath(given));
  const size = statSync(real).size;
  if (!statSync(real).isFile()) throw new BrowseError(`${given} is not a file.`, `Give the path of a ${what}.`);
  if (size > MAX_JSON_BYTES) throw new BrowseError(`${given} is ${formatSize(size)}; the limit is ${formatSize(MAX_JSON_BYTES)}.`, `Give a smaller ${what}.`);
  try {
    return JSON.parse(readFileSync(real, 'utf8'));
  } catch {
    // The parser's message quotes the text around the error, which may be a cookie value.
    throw new BrowseError(`${given} is not valid JSON.`, `Give a ${what}.`);
  }
}

export const cookieImport = defineCommand({
  name: 'cookie-import',
  category: 'write',
  group: 'Interact',
  description: 'Import cookies from a JSON file: an array of Playwright-style or browser-export cookies, or a storageState file',
  args: [{ name: 'file', kind: 'path', required: true, display: 'json-file' }],
  async run(ctx, { file }) {
    const what = 'JSON cookie export (an array of {name, value, domain, path, …})';
    const data = readJsonFile(ctx, String(file), what);
    const list = Array.isArray(data) ? data : (data as { cookies?: unknown })?.cookies;
    if (!Array.isArray(list)) throw new BrowseError(`${file} holds no list of cookies.`, `Give a ${what}, or a Playwright storageState file.`);
    const nowSec = Date.now() / 1000;
    const skipped: string[] = [];
    const good: StoredCookie[] = [];
    const label = (i: number) => {
      const n = (list[i] as { name?: unknown })?.name;
      return `#${i + 1}${typeof n === 'string' && n ? ` ${JSON.stringify(n.slice(0, 40))}` : ''}`;
    };
    list.forEach((raw, i) => {
      const r = importedCookie(raw, nowSec);
      if ('skip' in r) skipped.push(`${label(i)}: ${r.skip}`);
      else good.push(r.cookie);
    });
    const context = ctx.browser.browserContext;
    let imported = good;
    try {
      if (good.length) await context.addCookies(good);
    } catch {
      // One bad cookie fails the whole batch: add them one by one to name it.
      imported = [];
      for (const c of good) {
        try {
          await context.addCookies([c]);
          imported.push(c);
        } catch {
          skipped.push(`${label(list.findIndex((x) => (x as { name?: unknown })?.name === c.name))}: rejected by Chromium (domain, path or prefix rules)`);
        }
      }
    }
    const domains = new Map<string, number>();
    for (const c of imported) domains.set(c.domain, (domains.get(c.domain) ?? 0) + 1);
    const top = [...domains].sort((a, b) => b[1] - a[1]);
    const lines = [
      `Imported ${plural(imported.length, 'cookie')} for ${plural(domains.size, 'domain')}${top.length ? `: ${top.slice(0, 10).map(([d, n]) => `${d} (${n})`).join(', ')}${top.length > 10 ? ', …' : ''}` : ''}.`,
    ];
    if (skipped.length) {
      lines.push(`Skipped ${skipped.length}:`, ...skipped.slice(0, 20).map((s) => `  ${s}`));
      if (skipped.length > 20) lines.push(`  … and ${skipped.length - 20} more`);
    }
    return lines.join('\n');
  },
});

// Headers and identity ------------------------------------------------------------------------------

const SECRET_HEADERS = new Set(['authorization', 'proxy-authorization', 'cookie', 'set-cookie']);
// Chromium computes these itself; overriding them breaks requests or is silently ignored.
const MANAGED_HEADERS = new Set(['host', 'content-length', 'connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'te', 'trailer', 'expect', 'proxy-connection']);

/** A header value fit for output: credentials masked (the auth scheme stays visible), the rest as is. */
export function maskHeaderValue(name: string, value: string): string {
  const lower = name.toLowerCase();
  const secret = SECRET_HEADERS.has(lower) || looksSecret(name, value) || value.split(/[\s,;=]+/).some((part) => part !== '' && looksSecret('', part));
  if (!secret) return value;
  const scheme = lower.endsWith('authorization') ? value.match(/^([A-Za-z][\w-]*)\s+(\S.*)$/) : null;
  return scheme ? `${scheme[1]} [REDACTED — ${scheme[2].length} chars]` : `[REDACTED — ${value.length} chars]`;
}

function listHeaders(headers: Readonly<Record<string, string>>): string {
  const entries = Object.entries(headers);
  if (!entries.length) return '(no extra headers)';
  return [`Extra headers (${entries.length}):`, ...entries.map(([n, v]) => `  ${n}: ${maskHeaderValue(n, v)}`)].join('\n');
}

export const header = defineCommand({
  name: 'header',
  category: 'write',
  group: 'Interact',
  description: 'Send an extra HTTP header with every request (`Name:` alone removes it); no argument lists them, secrets masked',
  usage: 'header [<Name>:<value>] [--clear]',
  args: [{ name: 'header', kind: 'rest', display: 'Name:value' }],
  flags: [{ name: '--clear', kind: 'boolean', description: 'Remove every extra header' }],
  async run(ctx, { header: raw, clear }) {
    const current = ctx.browser.extraHeaders;
    if (clear) {
      if (raw !== undefined) throw new BrowseError('header --clear takes no header.', 'Run `header --clear` alone, or `header Name:` to remove one.');
      await ctx.browser.setExtraHeaders({});
      return `Cleared ${plural(Object.keys(current).length, 'extra header')}.`;
    }
    if (raw === undefined) return listHeaders(current);
    const text = String(raw);
    const colon = text.indexOf(':');
    if (colon <= 0) throw new BrowseError('header needs <Name>:<value>.', 'Example: `header X-Debug: 1` or `header "Authorization: Bearer …"`.');
    const name = text.slice(0, colon).trim();
    const value = text.slice(colon + 1).trim();
    if (!TOKEN.test(name)) throw new BrowseError(`'${name.slice(0, 60)}' is not a valid header name.`, 'Use letters, digits and - (e.g. X-Api-Key).');
    if (MANAGED_HEADERS.has(name.toLowerCase())) throw new BrowseError(`Chromium sets ${name} itself; it cannot be overridden.`, 'Set another header.');
    if (name.toLowerCase() === 'user-agent') throw new BrowseError('User-Agent is not set as an extra header.', 'Run `useragent <ua>`, so that navigator.userAgent agrees with the header.');
    if (CONTROL.test(value)) throw new BrowseError(`The value of ${name} contains control characters.`, 'Give it on one line.');
    const next = Object.fromEntries(Object.entries(current).filter(([n]) => n.toLowerCase() !== name.toLowerCase()));
    const existed = Object.keys(next).length !== Object.keys(current).length;
    if (value === '') {
      if (!existed) throw new BrowseError(`No extra header ${name} to remove.`, 'Run `header` to list them.');
      await ctx.browser.setExtraHeaders(next);
      return `Removed header ${name}; ${plural(Object.keys(next).length, 'extra header')} left.`;
    }
    next[name] = value;
    await ctx.browser.setExtraHeaders(next);
    return `${existed ? 'Replaced' : 'Added'} header ${name}: ${maskHeaderValue(name, value)} (sent with every request; ${plural(Object.keys(next).length, 'extra header')} in all).`;
  },
});

export const useragent = defineCommand({
  name: 'useragent',
  deadlineMs: 120_000, // reopens every tab
  category: 'write',
  group: 'Interact',
  description: 'Change the User-Agent; recreates the context, keeping cookies, storage, headers and open tabs',
  args: [{ name: 'ua', kind: 'rest', required: true }],
  async run(ctx, { ua }) {
    const agent = String(ua).trim();
    if (!agent || CONTROL.test(agent) || agent.length > 1024) throw new BrowseError('The user agent must be one line of at most 1024 characters.', 'Example: `useragent Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X)`.');
    const report = await ctx.browser.recreateContext({ userAgent: agent });
    return `User agent set to ${JSON.stringify(agent)}.\n${describeRecreate(ctx, report)}`;
  },
});

// Saved states --------------------------------------------------------------------------------------

const STATE_NAME = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,63}$/;

function statesDir(): string {
  return join(resolvePaths().stateDir, 'browse-states');
}

function savedNames(): string[] {
  try {
    return readdirSync(statesDir()).filter((f) => f.endsWith('.json')).map((f) => f.slice(0, -5)).sort();
  } catch {
    return [];
  }
}

function statePath(name: string): string {
  if (!STATE_NAME.test(name) || name.includes('..')) {
    throw new BrowseError(`Invalid state name '${name.slice(0, 60)}'.`, 'Use up to 64 letters, digits, ".", "_" or "-", not starting with "." (e.g. `state save logged-in`).');
  }
  return join(statesDir(), `${name}.json`);
}

function writeSavedState(name: string, snapshot: SessionSnapshot): string {
  const dir = statesDir();
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (lstatSync(dir).isSymbolicLink()) throw new BrowseError(`${dir} is a symlink; refusing to write states through it.`, 'Remove the link and retry.');
  chmodSync(dir, 0o700);
  const file = validateOutputPath(statePath(name));
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    writeFileSync(tmp, JSON.stringify({ version: 1, savedAt: new Date().toISOString(), ...snapshot }, null, 2) + '\n', { mode: 0o600 });
    chmodSync(tmp, 0o600);
    renameSync(tmp, file);
  } catch (e) {
    rmSync(tmp, { force: true });
    throw e;
  }
  return file;
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isNameValue = (v: unknown) => isObj(v) && typeof v.name === 'string' && typeof v.value === 'string';

/** A state file is user-editable: keep only well-formed parts, and refuse URLs policy would refuse. */
async function readSavedState(ctx: CommandContext, name: string): Promise<{ snapshot: SessionSnapshot; savedAt: string; problems: string[] }> {
  const file = statePath(name);
  if (!existsSync(file)) {
    const names = savedNames();
    throw new BrowseError(`No saved state '${name}'.`, names.length ? `Saved states: ${names.join(', ')}.` : 'Run `state save <name>` first.');
  }
  const data = readJsonFile(ctx, file, 'state written by `state save`');
  if (!isObj(data) || !Array.isArray(data.cookies) || !Array.isArray(data.tabs)) throw new BrowseError(`${file} is not a saved state.`, 'Run `state save <name>` to write one.');
  const problems: string[] = [];
  const cookies = data.cookies.filter((c): c is StoredCookie => isObj(c) && ['name', 'value', 'domain', 'path'].every((k) => typeof c[k] === 'string') && typeof c.expires === 'number');
  if (cookies.length < data.cookies.length) problems.push(`${plural(data.cookies.length - cookies.length, 'malformed cookie')} skipped`);
  const origins = (Array.isArray(data.origins) ? data.origins : []).filter(
    (o): o is StoredOrigin => isObj(o) && typeof o.origin === 'string' && Array.isArray(o.localStorage) && o.localStorage.every(isNameValue),
  );
  const tabs: SavedTab[] = [];
  const ids = new Set<number>();
  for (const t of data.tabs) {
    if (!isObj(t) || typeof t.url !== 'string') continue;
    let id = typeof t.id === 'number' && Number.isInteger(t.id) && t.id > 0 && !ids.has(t.id) ? t.id : 0;
    if (!id) id = Math.max(0, ...ids) + 1;
    ids.add(id);
    const tab: SavedTab = { id, url: 'about:blank' };
    if (t.url !== 'about:blank') {
      try {
        tab.url = normalizeUrl(t.url);
        await assertSafeDestination(tab.url);
      } catch (e) {
        tab.url = 'about:blank';
        problems.push(`tab ${id}: ${safeUrl(t.url)} refused (${e instanceof Error ? e.message : String(e)})`);
      }
    } else if (typeof t.html === 'string') tab.html = t.html;
    if (isObj(t.viewport) && typeof t.viewport.width === 'number' && typeof t.viewport.height === 'number') tab.viewport = { width: t.viewport.width, height: t.viewport.height };
    const ss = t.sessionStorage;
    if (isObj(ss) && typeof ss.origin === 'string' && Array.isArray(ss.items) && ss.items.every(isNameValue)) {
      tab.sessionStorage = { origin: ss.origin, items: ss.items as { name: string; value: string }[] };
    }
    tabs.push(tab);
  }
  const activeId = typeof data.activeId === 'number' && ids.has(data.activeId) ? data.activeId : (tabs[0]?.id ?? 1);
  return { snapshot: { cookies, origins, tabs, activeId }, savedAt: typeof data.savedAt === 'string' ? data.savedAt : 'unknown', problems };
}

export const state = defineCommand({
  name: 'state',
  deadlineMs: 120_000, // reopens every tab
  category: 'write',
  group: 'Session',
  description: 'Save cookies, localStorage and open tabs under a name (.gstack/browse-states/), or load them back',
  args: [
    { name: 'action', kind: 'string', required: true, choices: ['save', 'load'] },
    { name: 'name', kind: 'string', required: true },
  ],
  async run(ctx, { action, name }) {
    const stateName = String(name);
    if (action === 'save') {
      statePath(stateName); // refuse a bad name before reading the session
      const snapshot = await ctx.browser.captureSession();
      const file = writeSavedState(stateName, snapshot);
      const stored = snapshot.origins.filter((o) => o.localStorage.length).length;
      return `Saved state '${stateName}': ${plural(snapshot.cookies.length, 'cookie')}, localStorage of ${plural(stored, 'origin')}, ${plural(snapshot.tabs.length, 'tab')} → ${file}`;
    }
    const { snapshot, savedAt, problems } = await readSavedState(ctx, stateName);
    const report = await ctx.browser.recreateContext({ session: snapshot });
    report.problems.unshift(...problems);
    const carried = `${plural(report.cookies, 'cookie')} and localStorage from the state; extra headers kept`;
    return `Loaded state '${stateName}' (saved ${savedAt}).\n${describeRecreate(ctx, report, carried)}`;
  },
});

// Handoff -------------------------------------------------------------------------------------------

export const handoff = defineCommand({
  name: 'handoff',
  deadlineMs: 120_000, // relaunches the browser and reopens every tab
  category: 'meta',
  group: 'Session',
  description: 'Reopen the session in a visible browser so a person can solve a CAPTCHA or MFA; `resume` returns to headless',
  usage: 'handoff [message]',
  args: [{ name: 'message', kind: 'rest' }],
  async run(ctx, { message }) {
    if (ctx.browser.mode === 'headed') throw new BrowseError('The session is already handed off to a visible browser.', 'When the person is done, run `resume`.');
    const report = await ctx.browser.recreateContext({ headed: true });
    ctx.daemon.setMode('headed');
    return [
      `Handed off: a visible browser is open on ${ctx.browser.display}.`,
      ...(message ? [`For the person: ${message}`] : []),
      describeRecreate(ctx, report),
      'Commands keep working meanwhile. When the person is done, run `resume` to continue headless with what they did.',
    ].join('\n');
  },
});

export const resume = defineCommand({
  name: 'resume',
  deadlineMs: 120_000, // relaunches the browser and reopens every tab
  category: 'meta',
  group: 'Session',
  description: 'Return from `handoff` to headless, keeping the cookies, storage and tabs the person left',
  async run(ctx) {
    if (ctx.browser.mode !== 'headed') throw new BrowseError('The session is not handed off.', 'Run `handoff [message]` to open a visible browser first.');
    const report = await ctx.browser.recreateContext({ headed: false });
    ctx.daemon.setMode('headless');
    return `Resumed headless.\n${describeRecreate(ctx, report)}`;
  },
});
