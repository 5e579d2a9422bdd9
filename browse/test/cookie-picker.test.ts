// The /cookie-picker page and its API, driven in a real Chromium against a daemon whose HOME holds a real Chromium profile.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Cookie, type Page } from 'playwright';
import { CHROMIUM_ARGS, sandboxAllowed } from '../src/chromium';
import { chromiumPath, makeChromiumProfile, savedCookies, type FixtureCookie } from './cookie-fixtures';
import { makeHome } from './helpers';

const VALUES = Array.from({ length: 5 }, () => `val-${randomBytes(8).toString('hex')}`);
const FIXTURE: FixtureCookie[] = [
  { host: 'www.shop.test', header: `cart=${VALUES[0]}; Path=/; Max-Age=86400` },
  { host: 'www.shop.test', header: `sid=${VALUES[1]}; Path=/; Max-Age=86400; HttpOnly` },
  { host: 'app.shop.test', header: `parent=${VALUES[2]}; Domain=shop.test; Path=/; Max-Age=7200; Secure` },
  { host: 'news.test', header: `reader=${VALUES[3]}; Path=/; Max-Age=3600` },
  { host: 'other.test', header: `other=${VALUES[4]}; Path=/; Max-Age=3600` },
];

let home: string;
let daemon: ReturnType<typeof makeHome>;
let viewer: Browser;
let origin: string;
const env = () => ({ HOME: home, XDG_CONFIG_HOME: '' });
const run = (...args: string[]) => daemon.run(args, { env: env() });

/** A fresh one-time link, from the command an agent runs. */
async function pickerUrl(): Promise<string> {
  const r = await run('cookie-import-browser');
  expect(r.code).toBe(0);
  const url = r.stdout.match(/^Cookie picker: (\S+)$/m)?.[1];
  if (!url) throw new Error(`no picker URL in: ${r.stdout}`);
  return url;
}

/** The daemon session's cookies (with values), read back through `state save`. */
const sessionCookies = () => savedCookies(run, daemon.dir);
const namesUnder = (cookies: Cookie[], d: string) => cookies.filter((c) => c.domain.replace(/^\./, '') === d).map((c) => `${c.name}=${c.value}`).sort();

const token = () => daemon.state()!.token;
const api = (path: string, init: RequestInit = {}) => fetch(`${origin}/cookie-picker/api/${path}`, init);
const bearer = (extra: Record<string, string> = {}) => ({ authorization: `Bearer ${token()}`, ...extra });
const post = (path: string, body: string, headers: Record<string, string>) => api(path, { method: 'POST', body, headers: { 'content-type': 'application/json', ...headers } });

/** Exchanges a code without a browser: the 303 and its session cookie. */
async function sessionCookieHeader(): Promise<string> {
  const r = await fetch(await pickerUrl(), { redirect: 'manual' });
  expect(r.status).toBe(303);
  return (r.headers.get('set-cookie') ?? '').split(';')[0];
}

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), 'browse-picker-home-'));
  await makeChromiumProfile({ home, browserDir: 'chromium', profile: 'Default', cookies: FIXTURE });
  await makeChromiumProfile({ home, browserDir: 'chromium', profile: 'Profile 1', cookies: [{ host: 'work.test', header: 'badge=1; Path=/; Max-Age=3600' }] });
  daemon = makeHome('picker');
  expect((await run('status')).code).toBe(0);
  origin = `http://127.0.0.1:${daemon.state()!.port}`;
  viewer = await chromium.launch({
    executablePath: chromiumPath(),
    headless: true,
    args: [...CHROMIUM_ARGS, ...(sandboxAllowed() ? [] : ['--no-sandbox']), '--host-resolver-rules=MAP *.test 127.0.0.1'],
  });
}, 90_000);

afterAll(async () => {
  await viewer?.close();
  await daemon?.cleanup();
  if (home) rmSync(home, { recursive: true, force: true });
}, 30_000);

/** Every request the page made and every text body it received. */
function record(page: Page) {
  const urls: string[] = [];
  const bodies: Promise<string>[] = [];
  page.on('request', (r) => urls.push(r.url()));
  page.on('response', (r) => bodies.push(r.text().catch(() => '')));
  return { urls, bodies: () => Promise.all(bodies) };
}

const rows = (page: Page, list: string) => page.locator(`#${list} li[data-domain]`);
/** The page redraws lists after each fetch: read until the expected state shows (or 5 s pass), then assert. */
async function eventually<T>(read: () => Promise<T>, check: (v: T) => boolean): Promise<T> {
  const deadline = Date.now() + 5000;
  let v = await read();
  while (!check(v) && Date.now() < deadline) {
    await Bun.sleep(25);
    v = await read();
  }
  return v;
}
async function expectList(page: Page, list: string, want: string[]): Promise<void> {
  expect(await eventually(() => domainsIn(page, list), (v) => Bun.deepEquals(v, want))).toEqual(want);
}
async function expectText(page: Page, selector: string, want: RegExp | string): Promise<void> {
  const matches = (t: string) => (typeof want === 'string' ? t === want : want.test(t));
  const text = await eventually(async () => (await page.locator(selector).first().textContent()) ?? '', matches);
  if (typeof want === 'string') expect(text).toBe(want);
  else expect(text).toMatch(want);
}
const domainsIn = async (page: Page, list: string) => rows(page, list).evaluateAll((els) => els.map((e) => `${e.getAttribute('data-domain')} ${e.querySelector('.count')?.textContent}`));

describe('cookie picker page', () => {
  test('choose, filter, import and remove domains in a real browser; no cookie value ever reaches the page', async () => {
    const context = await viewer.newContext();
    const page = await context.newPage();
    const seen = record(page);
    try {
      const first = await page.goto(await pickerUrl());
      expect(page.url()).toBe(`${origin}/cookie-picker`);
      const headers = first!.headers();
      expect(headers['content-security-policy']).toContain("script-src 'self'");
      expect(headers['content-security-policy']).toContain("default-src 'none'");
      expect(headers['x-frame-options']).toBe('DENY');
      expect(headers['cache-control']).toBe('no-store');
      expect(headers['referrer-policy']).toBe('no-referrer');

      // Browser and profile come from the fixture home; the domains of the profile are listed with counts.
      await page.locator('#domains li[data-domain="other.test"]').waitFor();
      expect(await page.locator('#browser option').allTextContents()).toEqual(['Chromium']);
      await page.selectOption('#browser', 'chromium');
      await page.selectOption('#profile', 'Default');
      await page.locator('#domains li[data-domain="other.test"]').waitFor();
      await expectList(page, 'domains', ['www.shop.test 2', 'news.test 1', 'other.test 1', 'shop.test 1']);
      await expectText(page, '#source-info', /^Chromium \(Default(: .+)?\): 4 domains$/);
      await expectList(page, 'imported-list', []);

      await page.fill('#search', 'shop');
      await expectList(page, 'domains', ['www.shop.test 2', 'shop.test 1']);

      // One domain through its own button.
      await page.click('#domains li[data-domain="www.shop.test"] button');
      await page.locator('#imported-list li[data-domain="www.shop.test"]').waitFor();
      await expectList(page, 'imported-list', ['www.shop.test 2']);
      await expectText(page, '#status', /^Imported 2 cookies for www\.shop\.test from Chromium \(Default(: .+)?\)\.$/);
      expect(namesUnder(await sessionCookies(), 'www.shop.test')).toEqual([`cart=${VALUES[0]}`, `sid=${VALUES[1]}`]);

      // Two more through the checkboxes.
      await page.fill('#search', '');
      await page.check('#domains li[data-domain="news.test"] input[type=checkbox]');
      await page.check('#domains li[data-domain="other.test"] input[type=checkbox]');
      expect(await page.locator('#import-selected').textContent()).toBe('Import selected (2)');
      await page.click('#import-selected');
      await page.locator('#imported-list li[data-domain="other.test"]').waitFor();
      await expectList(page, 'imported-list', ['news.test 1', 'other.test 1', 'www.shop.test 2']);
      await expectText(page, '#status', /^Imported 2 cookies for news\.test, other\.test from Chromium \(Default(: .+)?\)\.$/);

      // Remove takes the domain off the right side and its cookies out of the session.
      await page.click('#imported-list li[data-domain="www.shop.test"] button');
      await page.locator('#imported-list li[data-domain="www.shop.test"]').waitFor({ state: 'detached' });
      await expectList(page, 'imported-list', ['news.test 1', 'other.test 1']);
      await expectText(page, '#status', 'Removed 2 cookies for www.shop.test from the browse session.');
      const after = await sessionCookies();
      expect(namesUnder(after, 'www.shop.test')).toEqual([]);
      expect(namesUnder(after, 'news.test')).toEqual([`reader=${VALUES[3]}`]);

      // A reload keeps the session and shows what is imported.
      await page.reload();
      await page.locator('#imported-list li[data-domain="other.test"]').waitFor();

      // An import the daemon refuses shows its message and hint.
      await page.evaluate(() => {
        const sel = document.querySelector('#profile') as HTMLSelectElement;
        sel.add(new Option('Gone', 'No Such Profile'));
      });
      await page.selectOption('#profile', 'No Such Profile');
      await page.locator('#status.error').waitFor();
      await expectText(page, '#status', /^Chromium has no profile 'No Such Profile'\.Profiles: Default/);
      await expectText(page, '#domains li', 'Could not read this profile (see the message above).');

      const bodies = await seen.bodies();
      expect(bodies.join('\n')).toContain('www.shop.test');
      for (const v of VALUES) for (const b of bodies) expect(b).not.toContain(v);
      expect(seen.urls.filter((u) => !u.startsWith(`${origin}/`))).toEqual([]);
    } finally {
      await context.close();
    }
  }, 60_000);

  test('the command opens the picker on the browser and profile it was given', async () => {
    const context = await viewer.newContext();
    try {
      const r = await run('cookie-import-browser', 'chromium', '--profile', 'Profile 1');
      const page = await context.newPage();
      await page.goto(r.stdout.match(/^Cookie picker: (\S+)$/m)![1]);
      await page.locator('#domains li[data-domain="work.test"]').waitFor();
      expect(await page.locator('#browser').inputValue()).toBe('chromium');
      expect(await page.locator('#profile').inputValue()).toBe('Profile 1');
      await expectList(page, 'domains', ['work.test 1']);
    } finally {
      await context.close();
    }
  }, 60_000);

  test('a link from another site opens the picker signed in (the Strict cookie survives the cross-site hop)', async () => {
    const url = await pickerUrl();
    const site = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: () => new Response(`<a id="go" href="${url}">picker</a>`, { headers: { 'content-type': 'text/html' } }) });
    const context = await viewer.newContext();
    try {
      const page = await context.newPage();
      await page.goto(`http://links.test:${site.port}/`);
      await page.click('#go');
      await page.waitForURL(`${origin}/cookie-picker`);
      expect(await page.locator('h1').textContent()).toBe('Import cookies into browse');
      await page.locator('#domains li[data-domain="news.test"]').waitFor();
    } finally {
      await context.close();
      site.stop(true);
    }
  }, 30_000);

  test('a link works once: a second visit gets the expired page, and the picker without a session is refused', async () => {
    const url = await pickerUrl();
    const first = await fetch(url, { redirect: 'manual' });
    expect(first.status).toBe(303);
    expect(first.headers.get('location')).toBe('/cookie-picker');
    expect(first.headers.get('set-cookie')).toMatch(/^browse_picker_\d+=[0-9a-f]{64}; HttpOnly; SameSite=Strict; Path=\/cookie-picker$/);
    expect(url).toMatch(/\?code=[0-9a-f]{32}$/);

    const again = await fetch(url, { redirect: 'manual' });
    expect(again.status).toBe(403);
    expect(again.headers.get('set-cookie')).toBeNull();
    expect(await again.text()).toContain('<code>cookie-import-browser</code>');

    const context = await viewer.newContext();
    try {
      const page = await context.newPage();
      const reply = await page.goto(url);
      expect(reply!.status()).toBe(403);
      expect(await page.locator('h1').textContent()).toBe('This cookie picker link has expired');
      expect(await page.locator('main').evaluate((e) => getComputedStyle(e).maxWidth)).toBe('560px'); // its stylesheet loads without a session
      expect((await page.goto(`${origin}/cookie-picker`))!.status()).toBe(401);
      expect(await page.locator('h1').textContent()).toBe('Not signed in to the cookie picker');
      expect((await page.goto(`${origin}/cookie-picker?code=${'0'.repeat(32)}`))!.status()).toBe(403);
    } finally {
      await context.close();
    }
  }, 30_000);
});

describe('cookie picker API', () => {
  test('refuses requests with neither a session cookie nor the token; accepts either', async () => {
    for (const path of ['browsers', 'imported', 'domains?browser=chromium']) {
      const r = await api(path);
      expect(r.status).toBe(401);
      const body = await r.json();
      expect(body.error).toBe('Not signed in to the cookie picker.');
      expect(body.hint).toContain('cookie-import-browser');
    }
    expect((await fetch(`${origin}/cookie-picker/app.js`)).status).toBe(401);
    expect((await api('browsers', { headers: { authorization: 'Bearer wrong' } })).status).toBe(401);
    expect((await api('browsers', { headers: { cookie: `browse_picker_${daemon.state()!.port}=${'a'.repeat(64)}` } })).status).toBe(401);

    const withToken = await api('browsers', { headers: bearer() });
    expect(withToken.status).toBe(200);
    const text = await withToken.text();
    expect(JSON.parse(text)).toEqual({ browsers: [{ id: 'chromium', name: 'Chromium', profiles: [{ dir: 'Default', displayName: expect.any(String) }, { dir: 'Profile 1', displayName: expect.any(String) }] }] });
    expect(text).not.toContain(home); // no data dir or cookie DB path

    const cookie = await sessionCookieHeader();
    const domains = await api('domains?browser=chromium&profile=Default', { headers: { cookie } });
    expect(domains.status).toBe(200);
    const list = await domains.text();
    expect(JSON.parse(list).domains).toContainEqual({ domain: 'www.shop.test', count: 2 });
    for (const v of VALUES) expect(list).not.toContain(v);
  }, 30_000);

  test('refuses a foreign Origin or Host (CSRF, DNS rebinding), even with a valid session or token', async () => {
    const cookie = await sessionCookieHeader();
    const importBody = JSON.stringify({ browser: 'chromium', domains: ['shop.test'] });
    for (const auth of [bearer(), { cookie }]) {
      const r = await post('import', importBody, { ...auth, origin: 'http://evil.test' });
      expect(r.status).toBe(403);
      expect((await r.json()).error).toBe("Refused a cookie picker request from origin 'http://evil.test'.");
    }
    const rebound = await api('imported', { headers: { ...bearer(), host: `evil.test:${daemon.state()!.port}` } });
    expect(rebound.status).toBe(403);
    expect((await rebound.json()).error).toBe(`Refused a cookie picker request from host 'evil.test:${daemon.state()!.port}'.`);
    // Nothing was imported by the refused requests; the page's own origin is accepted.
    const imported = await api('imported', { headers: { ...bearer(), origin } });
    expect(imported.status).toBe(200);
    expect((await imported.json()).imported.map((d: { domain: string }) => d.domain)).not.toContain('shop.test');
  }, 30_000);

  test('bad input gets 400/405/415 with {error, hint}, never a 500', async () => {
    const cases: [Response, number, RegExp][] = [
      [await api('import', { method: 'POST', body: '{"browser":"chromium"}', headers: bearer({ 'content-type': 'text/plain' }) }), 415, /must be JSON/],
      [await api('import', { method: 'POST', body: '{}', headers: bearer() }), 415, /must be JSON/],
      [await post('import', '{not json', bearer()), 400, /not valid JSON/],
      [await post('import', '[1,2]', bearer()), 400, /JSON object/],
      [await post('import', JSON.stringify({ browser: 'netscape', domains: ['a.test'] }), bearer()), 400, /^Unknown browser 'netscape'/],
      [await post('import', JSON.stringify({ browser: 'chromium', domains: [] }), bearer()), 400, /'domains' must be a list/],
      [await post('import', JSON.stringify({ browser: 'chromium', domains: [42] }), bearer()), 400, /'domains' must be a list/],
      [await post('import', JSON.stringify({ browser: 'chromium', domains: ['../etc'] }), bearer()), 400, /is not a domain/],
      [await post('import', JSON.stringify({ browser: 'chromium', profile: '../../x', domains: ['a.test'] }), bearer()), 400, /cannot contain/],
      [await post('import', JSON.stringify({ browser: 'chromium', domains: ['nowhere.test'] }), bearer()), 400, /has no cookies for nowhere\.test/],
      [await post('import', 'x'.repeat(70_000), bearer()), 400, /over 64 KB/],
      [await post('remove', JSON.stringify({ domain: 5 }), bearer()), 400, /'domain' must be/],
      [await api('domains', { headers: bearer() }), 400, /Missing \?browser=/],
      [await api('domains?browser=chromium&profile=Nope', { headers: bearer() }), 400, /no profile 'Nope'/],
      [await api('import', { headers: bearer() }), 405, /Use POST/],
      [await post('browsers', '{}', bearer()), 405, /Use GET/],
      [await api('nothing', { headers: bearer() }), 404, /No picker API route/],
    ];
    for (const [r, status, error] of cases) {
      const body = await r.json();
      expect({ status: r.status, error: body.error }).toEqual({ status, error: expect.stringMatching(error) });
      expect(typeof body.hint).toBe('string');
    }
    expect((await run('status')).code).toBe(0);
  }, 30_000);
});
