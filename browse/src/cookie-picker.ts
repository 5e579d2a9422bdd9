// The cookie picker: a page the daemon serves on its local listener for choosing which browser cookies to import.
// Reached through a one-time code that becomes an HttpOnly session cookie; its JSON API never carries a cookie value.
import { randomBytes } from 'node:crypto';
import type { BrowserContext } from 'playwright';
import { PICKER_CSS, PICKER_JS, pickerHtml, noticeHtml } from './cookie-picker-page';
import { currentEnv, installedBrowsers } from './cookies/browsers';
import { importIntoSession, listCookieDomains, normalizeDomain, removeImportedDomain } from './cookies/import';
import { wellFormed } from './egress';
import { BrowseError, plural, translateError } from './errors';

export interface CookiePicker {
  /** A fresh one-time link (valid 30 s) to the picker; `preselect` chooses the browser and profile it opens on. */
  issueUrl(preselect?: { browser?: string; profile?: string }): string;
  /** Answers /cookie-picker and everything under it; undefined for any other path. */
  handle(req: Request): Promise<Response | undefined>;
}

export interface PickerDeps {
  port: () => number;
  /** True when the request carries the daemon's bearer token. */
  hasToken: (req: Request) => boolean;
  session: { browserContext: BrowserContext; importedDomains: Map<string, number> };
}

const BASE = '/cookie-picker';
const CODE_TTL_MS = 30_000;
const SESSION_IDLE_MS = 30 * 60_000;
const MAX_CODES = 16;
const MAX_SESSIONS = 8;
const MAX_BODY = 64 * 1024;
const MAX_DOMAINS = 1000;
const RERUN = 'Run `cookie-import-browser` again for a new link.';
const ROUTES = 'Routes under /cookie-picker/api/: GET browsers, domains?browser=&profile=, imported; POST import {browser, profile, domains}, remove {domain}.';

const SECURITY_HEADERS: Record<string, string> = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'x-frame-options': 'DENY',
  'cache-control': 'no-store',
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
};

const respond = (body: string, status: number, type: string, extra: Record<string, string> = {}) =>
  new Response(wellFormed(body), { status, headers: { ...SECURITY_HEADERS, 'content-type': `${type}; charset=utf-8`, ...extra } });
const json = (body: unknown, status = 200) => respond(JSON.stringify(body), status, 'application/json');
const refuse = (status: number, error: string, hint: string) => json({ error, hint }, status);
const randomHex = (bytes: number) => randomBytes(bytes).toString('hex');

/** Why a request is refused before any route runs: a foreign host or origin (DNS rebinding, CSRF). */
function foreignRequest(req: Request, origin: string): string | undefined {
  const host = req.headers.get('host');
  if (host !== null && `http://${host.toLowerCase()}` !== origin) return `host '${host.slice(0, 80)}'`;
  const from = req.headers.get('origin');
  if (from !== null && from !== origin) return `origin '${from.slice(0, 80)}'`;
  return undefined;
}

function cookieValue(req: Request, name: string): string | undefined {
  for (const part of (req.headers.get('cookie') ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/** A request body as a JSON object, or a BrowseError saying what to send instead. */
async function readJsonBody(req: Request): Promise<Record<string, unknown>> {
  const text = await req.text();
  if (text.length > MAX_BODY) throw new BrowseError(`Request body is over ${MAX_BODY / 1024} KB.`, 'Import fewer domains at once.');
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new BrowseError('Request body is not valid JSON.', 'Send a JSON object, e.g. {"domain":"github.com"}.');
  }
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw new BrowseError('Request body must be a JSON object.', 'Send e.g. {"domain":"github.com"}.');
  return body as Record<string, unknown>;
}

function stringField(body: Record<string, unknown>, key: string, required: boolean): string | undefined {
  const v = body[key];
  if (v === undefined && !required) return undefined;
  if (typeof v !== 'string' || !v || v.length > 256) throw new BrowseError(`'${key}' must be a non-empty string.`, 'Send {"browser":"chrome","profile":"Default","domains":["github.com"]}.');
  return v;
}

export function createCookiePicker(deps: PickerDeps): CookiePicker {
  const codes = new Map<string, { expires: number; query: string }>();
  /** Session id → last use (ms). */
  const sessions = new Map<string, number>();
  const origin = () => `http://127.0.0.1:${deps.port()}`;
  // Cookies ignore ports: the port in the name keeps two daemons on this machine from overwriting each other's session.
  const cookieName = () => `browse_picker_${deps.port()}`;

  const prune = (now: number) => {
    for (const [c, v] of codes) if (v.expires <= now) codes.delete(c);
    for (const [s, at] of sessions) if (now - at > SESSION_IDLE_MS) sessions.delete(s);
  };

  const hasSession = (req: Request): boolean => {
    const sid = cookieValue(req, cookieName());
    const now = Date.now();
    const at = sid === undefined ? undefined : sessions.get(sid);
    if (sid === undefined || at === undefined) return false;
    if (now - at > SESSION_IDLE_MS) {
      sessions.delete(sid);
      return false;
    }
    sessions.delete(sid); // re-insert: the Map's order is least recently used first
    sessions.set(sid, now);
    return true;
  };

  const newSession = (): string => {
    const sid = randomHex(32);
    sessions.set(sid, Date.now());
    while (sessions.size > MAX_SESSIONS) sessions.delete(sessions.keys().next().value as string);
    return sid;
  };

  /** GET /cookie-picker?code=…: a valid unused code becomes a session cookie; anything else is the "expired" page. */
  const exchangeCode = (req: Request, url: URL): Response => {
    const now = Date.now();
    prune(now);
    const code = url.searchParams.get('code') ?? '';
    const entry = codes.get(code);
    if (entry) codes.delete(code);
    if (!entry && hasSession(req)) return new Response(null, { status: 303, headers: { ...SECURITY_HEADERS, location: BASE } });
    if (!entry) {
      return respond(noticeHtml('This cookie picker link has expired', 'Each link works once, within 30 seconds.', RERUN), 403, 'text/html');
    }
    const cookie = `${cookieName()}=${newSession()}; HttpOnly; SameSite=Strict; Path=${BASE}`;
    const location = `${BASE}${entry.query}`;
    // After a cross-site link the browser withholds a new SameSite=Strict cookie on the redirect it follows;
    // a same-origin refresh from our own page is not cross-site, so the cookie goes along.
    if (req.headers.get('sec-fetch-site') === 'cross-site') {
      return respond(noticeHtml('Opening the cookie picker…', 'If nothing happens, reload this page.', '', location), 200, 'text/html', { 'set-cookie': cookie });
    }
    return new Response(null, { status: 303, headers: { ...SECURITY_HEADERS, location, 'set-cookie': cookie } });
  };

  const imported = () => [...deps.session.importedDomains].map(([domain, count]) => ({ domain, count })).sort((a, b) => a.domain.localeCompare(b.domain));

  const api = async (req: Request, route: string, url: URL): Promise<Response> => {
    const method = req.method;
    const want = (m: string) => {
      if (method !== m) throw new BrowseError(`Use ${m} for ${BASE}/api/${route}.`, ROUTES, 405);
    };
    switch (route) {
      case 'browsers': {
        want('GET');
        const browsers = installedBrowsers(currentEnv()).map((b) => ({
          id: b.browser.id,
          name: b.browser.name,
          profiles: b.profiles.map((p) => ({ dir: p.dir, displayName: p.displayName })),
        }));
        return json({ browsers });
      }
      case 'domains': {
        want('GET');
        const browser = url.searchParams.get('browser');
        if (!browser) throw new BrowseError('Missing ?browser=.', 'Example: /cookie-picker/api/domains?browser=chrome&profile=Default');
        const { source, domains } = listCookieDomains(browser, url.searchParams.get('profile') || undefined);
        return json({ source, domains });
      }
      case 'imported':
        want('GET');
        return json({ imported: imported() });
      case 'import': {
        want('POST');
        const body = await readJsonBody(req);
        const browser = stringField(body, 'browser', true) as string;
        const profile = stringField(body, 'profile', false);
        const domains = body.domains;
        if (!Array.isArray(domains) || !domains.length || domains.length > MAX_DOMAINS || !domains.every((d) => typeof d === 'string' && d.length <= 300)) {
          throw new BrowseError(`'domains' must be a list of 1 to ${MAX_DOMAINS} domain names.`, 'Send {"browser":"chrome","profile":"Default","domains":["github.com"]}.');
        }
        const result = await importIntoSession(deps.session, { browser, profile, domains });
        return json({ text: result.text, imported: imported() });
      }
      case 'remove': {
        want('POST');
        const domain = stringField(await readJsonBody(req), 'domain', true) as string;
        const removed = await removeImportedDomain(deps.session, domain);
        return json({ text: `Removed ${plural(removed, 'cookie')} for ${normalizeDomain(domain)} from the browse session.`, imported: imported() });
      }
      default:
        throw new BrowseError(`No picker API route '${route.slice(0, 40)}'.`, ROUTES, 404);
    }
  };

  const route = async (req: Request, url: URL): Promise<Response> => {
    const path = url.pathname;
    if (path === BASE && req.method === 'GET' && url.searchParams.has('code')) return exchangeCode(req, url);
    // The stylesheet is public so the expired and not-signed-in pages are readable too.
    if (path === `${BASE}/app.css` && req.method === 'GET') return respond(PICKER_CSS, 200, 'text/css');
    if (!hasSession(req) && !deps.hasToken(req)) {
      if (req.headers.get('sec-fetch-mode') === 'navigate') {
        return respond(noticeHtml('Not signed in to the cookie picker', 'Open the picker through the one-time link that `cookie-import-browser` prints.', RERUN), 401, 'text/html');
      }
      return refuse(401, 'Not signed in to the cookie picker.', `Open the one-time link, or send Authorization: Bearer <token>. ${RERUN}`);
    }
    if (req.method === 'POST' && !/^application\/json\s*(;|$)/i.test(req.headers.get('content-type') ?? '')) {
      return refuse(415, 'POST bodies must be JSON.', 'Send Content-Type: application/json.');
    }
    if (path === BASE || path === `${BASE}/`) return req.method === 'GET' ? respond(pickerHtml(), 200, 'text/html') : refuse(405, `Use GET for ${BASE}.`, 'Open the page in a browser.');
    if (path === `${BASE}/app.js` && req.method === 'GET') return respond(PICKER_JS, 200, 'text/javascript');
    if (path.startsWith(`${BASE}/api/`)) return api(req, path.slice(BASE.length + 5), url);
    return refuse(404, `Not found: ${path.slice(0, 80)}.`, `The picker lives at ${BASE}.`);
  };

  return {
    issueUrl(preselect = {}) {
      const now = Date.now();
      prune(now);
      while (codes.size >= MAX_CODES) codes.delete(codes.keys().next().value as string);
      const code = randomHex(16);
      const query = new URLSearchParams(Object.entries(preselect).filter((e): e is [string, string] => typeof e[1] === 'string' && e[1] !== '')).toString();
      codes.set(code, { expires: now + CODE_TTL_MS, query: query ? `?${query}` : '' });
      return `${origin()}${BASE}?code=${code}`;
    },
    async handle(req) {
      const url = new URL(req.url);
      if (url.pathname !== BASE && !url.pathname.startsWith(`${BASE}/`)) return undefined;
      const foreign = foreignRequest(req, origin());
      if (foreign) return refuse(403, `Refused a cookie picker request from ${foreign}.`, `The picker answers only its own page at ${origin()}${BASE}.`);
      try {
        return await route(req, url);
      } catch (e) {
        // Bad input and unexpected failures alike come back as {error, hint}, never a stack.
        const err = e instanceof BrowseError ? e : translateError(e);
        return refuse(err.status, err.message, err.hint ?? RERUN);
      }
    },
  };
}
