// From a browser profile's cookie DB to Playwright cookies: pick rows by domain, decrypt by prefix, map fields.
import type { BrowserContext } from 'playwright';
import { BrowseError, plural } from '../errors';
import { currentEnv, findBrowser, findProfile, type Env, type Profile } from './browsers';
import { readCookieDb, readCookieHosts } from './db';
import { decryptValue, UndecryptableError } from './decrypt';
import { forgetKeys, keySource } from './keys';

/** What Playwright's addCookies takes (partitioned cookies carry the top-level site). */
export interface ImportedCookie {
  name: string;
  value: string;
  domain: string;
  path: string;
  expires: number;
  httpOnly: boolean;
  secure: boolean;
  sameSite?: 'Strict' | 'Lax' | 'None';
  partitionKey?: string;
  _crHasCrossSiteAncestor?: boolean;
}

export interface BrowserCookies {
  /** "Chromium (Default)", "Chrome (Work)". */
  source: string;
  cookies: ImportedCookie[];
  /** Rows that could not be decrypted, by reason. */
  failed: Map<string, number>;
  expired: number;
}

/** Microseconds between 1601-01-01 (Chromium's epoch) and 1970-01-01. */
const EPOCH_DELTA_US = 11_644_473_600_000_000n;
/** Playwright refuses expiry past 9999-12-31. */
const MAX_EXPIRES_S = 253_402_300_799;
const SAME_SITE: Record<number, ImportedCookie['sameSite']> = { 0: 'None', 1: 'Lax', 2: 'Strict' }; // −1: unspecified

/** "https://GitHub.com/x" → "github.com"; anything that is not a host name is refused. */
export function normalizeDomain(input: string): string {
  let d = input.trim().toLowerCase();
  if (/^[a-z][a-z0-9+.-]*:\/\//.test(d)) {
    try {
      d = new URL(d).hostname;
    } catch {}
  }
  d = d.replace(/^\.+/, '').replace(/\.$/, '');
  if (!d || d.length > 253 || !/^[a-z0-9_-]+(\.[a-z0-9_-]+)*$/.test(d)) {
    throw new BrowseError(`'${input.slice(0, 60)}' is not a domain.`, 'Give a host name such as github.com (its subdomains are included).');
  }
  return d;
}

/** A domain covers itself, its subdomains and their dot-prefixed (domain cookie) host keys. */
export function hostMatches(hostKey: string, domains: readonly string[]): boolean {
  const host = hostKey.toLowerCase().replace(/^\./, '');
  return domains.some((d) => host === d || host.endsWith(`.${d}`));
}

export function expiresFromChromium(expiresUtc: bigint, hasExpires: boolean): number {
  if (!hasExpires || expiresUtc <= 0n) return -1;
  const seconds = Number(expiresUtc - EPOCH_DELTA_US) / 1e6;
  return Math.min(seconds, MAX_EXPIRES_S);
}

/** Cookie domains of a profile with their counts, dot-prefixed and plain host keys merged. No value is read. */
export function listCookieDomains(browserName: string, profileName: string | undefined, env: Env = currentEnv()): { source: string; profile: Profile; domains: { domain: string; count: number }[] } {
  const { profile, source } = locate(browserName, profileName, env);
  const merged = new Map<string, number>();
  for (const [host, n] of readCookieHosts(profile.cookiesPath, source)) {
    const d = host.replace(/^\./, '').toLowerCase();
    merged.set(d, (merged.get(d) ?? 0) + n);
  }
  const domains = [...merged].map(([domain, count]) => ({ domain, count })).sort((a, b) => b.count - a.count || a.domain.localeCompare(b.domain));
  return { source, profile, domains };
}

/** The browser and profile asked for, and how replies name them: "Chromium (Default)", "Chrome (Profile 1: Work)". */
function locate(browserName: string, profileName: string | undefined, env: Env) {
  const installed = findBrowser(browserName, env);
  const profile = findProfile(installed, profileName);
  const source = `${installed.browser.name} (${profile.displayName === profile.dir ? profile.dir : `${profile.dir}: ${profile.displayName}`})`;
  return { installed, profile, source };
}

/** Reads and decrypts the cookies of `domains` (or all) from one profile. Values stay in memory. */
export async function readBrowserCookies(req: { browser: string; profile?: string; domains?: string[]; env?: Env }): Promise<BrowserCookies> {
  const env = req.env ?? currentEnv();
  const { installed, profile, source } = locate(req.browser, req.profile, env);
  const domains = req.domains?.map(normalizeDomain);
  const db = readCookieDb(profile.cookiesPath, source, (h) => !domains || hostMatches(h, domains));
  const problems: { v11?: string } = {};
  const keys = keySource(installed.browser, installed.dataDir, env.platform, problems);
  const failed = new Map<string, number>();
  const cookies: ImportedCookie[] = [];
  let expired = 0;
  const now = Date.now() / 1000;
  for (const row of db.rows) {
    let value = row.value;
    if (row.encrypted.length > 0) {
      try {
        value = await decryptValue(env.platform, row.encrypted, row.hostKey, db.metaVersion, keys);
      } catch (e) {
        if (!(e instanceof UndecryptableError)) throw e;
        const prefix = row.encrypted.subarray(0, 3).toString('latin1');
        const reason = prefix === 'v11' && problems.v11 ? problems.v11 : e.message;
        failed.set(reason, (failed.get(reason) ?? 0) + 1);
        continue;
      }
    }
    const expires = expiresFromChromium(row.expiresUtc, row.hasExpires);
    if (expires !== -1 && expires < now) {
      expired++;
      continue;
    }
    const cookie: ImportedCookie = { name: row.name, value, domain: row.hostKey, path: row.path, expires, httpOnly: row.isHttpOnly, secure: row.isSecure };
    const sameSite = SAME_SITE[row.sameSite];
    if (sameSite) cookie.sameSite = sameSite;
    if (row.topFrameSiteKey) {
      cookie.partitionKey = row.topFrameSiteKey;
      cookie._crHasCrossSiteAncestor = row.hasCrossSiteAncestor;
    }
    cookies.push(cookie);
  }
  if (failed.size) forgetKeys(); // a stale cached key must not outlive the failure it caused
  return { source, cookies, failed, expired };
}

/** Adds the cookies; a batch the browser refuses is retried one by one so the report names what was left out. */
export async function addToContext(context: BrowserContext, cookies: ImportedCookie[]): Promise<{ added: ImportedCookie[]; refused: Map<string, number> }> {
  const refused = new Map<string, number>();
  if (!cookies.length) return { added: [], refused };
  try {
    await context.addCookies(cookies);
    return { added: cookies, refused };
  } catch {
    const added: ImportedCookie[] = [];
    for (const c of cookies) {
      try {
        await context.addCookies([c]);
        added.push(c);
      } catch (e) {
        const why = (e as Error).message.split('\n')[0].replace(/^.*?: /, '').replace(c.value, '…').slice(0, 120);
        refused.set(why, (refused.get(why) ?? 0) + 1);
      }
    }
    return { added, refused };
  }
}

export function describeFailures(failed: Map<string, number>): string {
  return [...failed].map(([why, n]) => `${why} (${n})`).join('; ');
}

export function domainsOf(cookies: ImportedCookie[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const c of cookies) {
    const d = c.domain.replace(/^\./, '');
    counts.set(d, (counts.get(d) ?? 0) + 1);
  }
  return counts;
}

export interface SessionImport {
  source: string;
  added: number;
  domains: Map<string, number>;
  /** One line for the agent: what was imported, and what was not and why. Never a value. */
  text: string;
}

/** Reads, decrypts and adds one profile's cookies to the daemon's context; records the domains for the picker. */
export async function importIntoSession(
  target: { browserContext: BrowserContext; importedDomains: Map<string, number> },
  req: { browser: string; profile?: string; domains?: string[]; env?: Env },
): Promise<SessionImport> {
  const read = await readBrowserCookies(req);
  const { added, refused } = await addToContext(target.browserContext, read.cookies);
  const domains = domainsOf(added);
  for (const [d, n] of domains) target.importedDomains.set(d, (target.importedDomains.get(d) ?? 0) + n);
  const asked = req.domains?.map(normalizeDomain);
  const what = asked ? asked.join(', ') : plural(domains.size, 'domain');
  const notes: string[] = [];
  const undecryptable = [...read.failed.values()].reduce((a, b) => a + b, 0);
  if (undecryptable) notes.push(`${undecryptable} could not be decrypted: ${describeFailures(read.failed)}`);
  const refusedCount = [...refused.values()].reduce((a, b) => a + b, 0);
  if (refusedCount) notes.push(`${refusedCount} refused by the browser: ${describeFailures(refused)}`);
  if (read.expired) notes.push(`${read.expired} expired skipped`);
  if (!added.length && !undecryptable && !refusedCount) {
    throw new BrowseError(
      `${read.source} has no ${read.expired ? 'unexpired ' : ''}cookies for ${what}.`,
      'Log in to the site in that browser first, or run `cookie-import-browser --list` to see the domains it has cookies for.',
    );
  }
  if (!added.length) {
    throw new BrowseError(`Imported no cookies for ${what} from ${read.source}; ${notes.join('; ')}.`, hintFor(read.failed));
  }
  const text = `Imported ${plural(added.length, 'cookie')} for ${what} from ${read.source}${notes.length ? `; ${notes.join('; ')}` : ''}.`;
  return { source: read.source, added: added.length, domains, text };
}

function hintFor(failed: Map<string, number>): string {
  const reasons = [...failed.keys()].join(' ');
  if (/v20|app-bound/.test(reasons)) {
    return 'Chrome on Windows binds these cookies to itself (app-bound, v20); no other program can decrypt them, even with Chrome closed. Log in inside browse instead (`handoff`), or export the cookies with a browser extension and run `cookie-import <file>`.';
  }
  if (/keyring|secret-tool/.test(reasons)) return 'Unlock the desktop keyring (log in to the desktop session), then run the command again.';
  return 'If the browser was reinstalled or its keyring reset, its old cookies cannot be decrypted: log in again in that browser, then import.';
}

/** Removes an imported domain's cookies (and its subdomains') from the daemon's context. */
export async function removeImportedDomain(target: { browserContext: BrowserContext; importedDomains: Map<string, number> }, domain: string): Promise<number> {
  const d = normalizeDomain(domain);
  const before = (await target.browserContext.cookies()).filter((c) => hostMatches(c.domain, [d])).length;
  const escaped = d.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  await target.browserContext.clearCookies({ domain: new RegExp(`^\\.?(.+\\.)?${escaped}$`, 'i') });
  for (const key of [...target.importedDomains.keys()]) if (hostMatches(key, [d])) target.importedDomains.delete(key);
  return before;
}
