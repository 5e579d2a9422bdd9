import { existsSync } from 'node:fs';
import type { Subprocess } from 'bun';
import { chromium, type Browser, type BrowserContext, type CDPSession, type Frame, type Page, type Request } from 'playwright';
import { CHROMIUM_ARGS, findChromium, MISSING_CHROMIUM_HINT, sandboxAllowed } from './chromium';
import { DEFAULTS } from './config';
import { BrowseError, translateError } from './errors';
import type { LogStore } from './logs';
import { harTimings, keptHeaders, type NetworkDetail } from './network-detail';
import { BLOCKED_REQUEST_PATTERNS, requestBlockedReason, safeUrl } from './policy';
import type { RefMap } from './refs';

export interface Tab {
  id: number;
  page: Page;
  /** Requests started and not yet finished or failed, with their start time: what `settle` waits on. */
  inflight: Map<Request, number>;
  /** Refs handed out by the snapshots of the current document (one per element); cleared when a new document loads. */
  refs: RefMap;
  /** The frame entered with `frame`, if any. */
  frame?: Frame;
  /** Last snapshot lines per flag set, for `snapshot -D`. */
  snapshots: Map<string, string[]>;
  /** The title at the last load, shown by `tabs` when the page does not answer in time. */
  title?: string;
}

export interface DialogPolicy {
  accept: boolean;
  promptText?: string;
}

type StorageState = Awaited<ReturnType<BrowserContext['storageState']>>;
export type StoredCookie = StorageState['cookies'][number];
export type StoredOrigin = StorageState['origins'][number];
export interface Size {
  width: number;
  height: number;
}

/** One open tab as it can be reopened in another context. */
export interface SavedTab {
  id: number;
  url: string;
  /** Only when it differs from the context's viewport (set by `viewport` for this tab). */
  viewport?: Size;
  /** The tab's sessionStorage for the origin it shows: per tab, so storageState does not carry it. */
  sessionStorage?: { origin: string; items: { name: string; value: string }[] };
  /** The document of an about:blank tab written by script, which has no URL to reload. */
  html?: string;
}

/** What survives a context recreation: cookies, localStorage by origin, and the tabs. */
export interface SessionSnapshot {
  cookies: StoredCookie[];
  origins: StoredOrigin[];
  tabs: SavedTab[];
  activeId: number;
}

/** What a recreation changes; everything not named is kept. */
export interface ContextChange {
  userAgent?: string;
  viewport?: Size;
  deviceScaleFactor?: number;
  /** Open these cookies, storage and tabs instead of the current ones (`state load`). */
  session?: SessionSnapshot;
  /** Relaunch the browser: visible (handoff) or headless again (resume). */
  headed?: boolean;
}

export interface RecreateReport {
  tabs: number;
  activeId: number;
  cookies: number;
  /** Tabs that could not be reopened as they were, one line each. */
  problems: string[];
}

interface ContextOptions {
  viewport: Size;
  deviceScaleFactor?: number;
  userAgent?: string;
}

interface VirtualDisplay {
  proc: Subprocess;
  display: string;
}

const RESTORABLE_URL = /^(https?|file):/i;
/** How long a page may take to evaluate `1` before it counts as stuck. */
const STUCK_PROBE_MS = 1000;
const MAX_SAVED_HTML = 5_000_000;

// A page that does not answer (busy script, stuck load) must not stall a recreation: give up on it.
function within<T>(p: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: Parameters<typeof clearTimeout>[0];
  const timeout = new Promise<undefined>((r) => (timer = setTimeout(r, ms)));
  return Promise.race([p.catch(() => undefined), timeout]).finally(() => clearTimeout(timer));
}


// Owns Chromium, the one context, and the tabs. Everything above it speaks in tab ids.
export class BrowserManager {
  private browser: Browser | undefined;
  private context: BrowserContext | undefined;
  private readonly tabs = new Map<number, Tab>();
  private readonly tabOf = new WeakMap<Page, Tab>();
  private activeId = 0;
  private nextId = 1;
  private closing = false;
  private recreating = false;
  /** One-line notices for the next reply (dialogs the pages opened and how they were answered). */
  private readonly notices: string[] = [];
  /** The tab whose stuck page is being replaced: the next page the context opens becomes its page. */
  private replacing: Tab | undefined;
  private env: NodeJS.ProcessEnv = process.env;
  private options: ContextOptions = { viewport: { ...DEFAULTS.viewport } };
  private headers: Record<string, string> = {};
  /** The Xvfb this daemon started for a handoff, stopped on resume and shutdown. */
  private xvfb: VirtualDisplay | undefined;
  /** Where the visible browser shows while handed off. */
  display: string | undefined;
  dialogPolicy: DialogPolicy = { accept: true };
  /** Domains whose cookies came from the user's browser (cookie-import-browser, the picker), with counts. */
  readonly importedDomains = new Map<string, number>();
  /** What drives the pages: a Chromium path, or the remote endpoint. */
  executable = '';
  mode: 'headless' | 'headed' | 'remote' = 'headless';

  constructor(
    private readonly logs: LogStore,
    private readonly onBrowserGone: (reason: string) => void,
  ) {}

  /** Set by the session list: why the browser may not be relaunched now (other sessions share it). */
  relaunchBlocked: (() => string | undefined) | undefined;
  /** A named session's manager: its own context in the default session's browser. */
  private shared = false;

  /** A named session: a fresh context (own tabs, cookies, storage) in the browser `main` already runs. */
  async launchShared(main: BrowserManager): Promise<void> {
    if (!main.browser) throw new BrowseError('The browser is not running.', 'Run `restart`.', 500);
    Object.assign(this, { browser: main.browser, shared: true, mode: main.mode, executable: main.executable, env: main.env });
    this.context = await main.browser.newContext(this.contextOptions(this.options));
    this.context.on('page', (page) => this.adopt(page));
    await this.newTab();
  }

  async launch(env = process.env): Promise<void> {
    this.env = env;
    this.browser = this.watch(env.BROWSE_CONNECT || env.BROWSE_CDP_URL ? await this.connectRemote(env) : await this.launchLocal(true));
    this.context = await this.browser.newContext(this.contextOptions(this.options));
    this.context.on('page', (page) => this.adopt(page));
    await this.newTab();
  }

  // Only the browser in use counts: one we replaced (handoff, resume) is closed on purpose.
  private watch(browser: Browser): Browser {
    browser.on('disconnected', () => {
      if (!this.closing && browser === this.browser) this.onBrowserGone(`${this.mode === 'remote' ? 'remote browser' : 'Chromium'} disconnected (crashed, killed or closed)`);
    });
    return browser;
  }

  private contextOptions(options: ContextOptions, state?: { cookies: StoredCookie[]; origins: StoredOrigin[] }) {
    return {
      viewport: { ...options.viewport },
      deviceScaleFactor: options.deviceScaleFactor,
      userAgent: options.userAgent,
      extraHTTPHeaders: Object.keys(this.headers).length ? { ...this.headers } : undefined,
      storageState: state ? { cookies: state.cookies, origins: state.origins } : undefined,
    };
  }

  // Scale-out: a Playwright browser server (ws://, e.g. Browserless or launchServer) or a Chrome over CDP.
  private async connectRemote(env: NodeJS.ProcessEnv): Promise<Browser> {
    this.mode = 'remote';
    const ws = env.BROWSE_CONNECT;
    const endpoint = (ws ?? env.BROWSE_CDP_URL)!;
    const allowed = ws ? /^wss?:\/\//i : /^(https?|wss?):\/\//i;
    if (!allowed.test(endpoint)) {
      const name = ws ? 'BROWSE_CONNECT' : 'BROWSE_CDP_URL';
      throw new BrowseError(`${name}='${endpoint}' is not a ${ws ? 'ws:// or wss://' : 'http(s):// or ws(s)://'} URL.`, `Fix or unset ${name}.`, 500);
    }
    const { protocol, host } = new URL(endpoint);
    this.executable = `${ws ? 'playwright server' : 'CDP'} at ${protocol}//${host}`; // paths and queries may carry secrets
    const timeout = DEFAULTS.navigationTimeoutMs;
    return ws ? chromium.connect(endpoint, { timeout }) : chromium.connectOverCDP(endpoint, { timeout });
  }

  private async launchLocal(headless: boolean, env?: NodeJS.ProcessEnv): Promise<Browser> {
    const choice = findChromium(() => chromium.executablePath());
    if (!choice) throw new BrowseError('Chromium was not found.', MISSING_CHROMIUM_HINT, 500);
    this.executable = choice.path ?? 'playwright';
    return chromium.launch({
      executablePath: choice.path,
      headless,
      env,
      chromiumSandbox: sandboxAllowed(),
      args: CHROMIUM_ARGS,
      // The daemon owns signal handling: SIGTERM must not take the browser down in headless mode.
      handleSIGINT: false,
      handleSIGTERM: false,
      handleSIGHUP: false,
    });
  }

  get browserContext(): BrowserContext {
    if (!this.context) throw new BrowseError('The browser is not running.', 'Run `restart`.', 500);
    return this.context;
  }

  private adopt(page: Page): Tab {
    const known = this.tabOf.get(page);
    if (known) return known;
    if (this.replacing) {
      this.attach(this.replacing, page);
      return this.replacing;
    }
    const tab = this.makeTab(page, this.nextId++);
    this.tabs.set(tab.id, tab);
    this.activeId = tab.id; // a popup or new tab takes focus, as it does for a person
    return tab;
  }

  private makeTab(page: Page, id: number): Tab {
    const tab: Tab = { id, page, inflight: new Map(), refs: new Map(), snapshots: new Map() };
    this.attach(tab, page);
    return tab;
  }

  /** Makes `page` the tab's page: its events now feed the tab; a page it replaced no longer does. */
  private attach(tab: Tab, page: Page): void {
    Object.assign(tab, { page, inflight: new Map(), refs: new Map(), snapshots: new Map(), frame: undefined, title: undefined });
    this.tabOf.set(page, tab);
    const current = () => tab.page === page;
    page.on('close', () => {
      if (this.tabs.get(tab.id) !== tab || !current()) return; // a replaced context or page: the id lives on
      this.tabs.delete(tab.id);
      if (this.activeId === tab.id) this.activeId = Math.max(0, ...this.tabs.keys());
    });
    page.on('domcontentloaded', () => {
      if (!current()) return;
      tab.refs = new Map(); // a new document: old refs would point at nothing, or worse, at look-alikes
      tab.frame = undefined;
    });
    // The last title seen, for `tabs` when the page is too busy to answer in time.
    const noteTitle = () => void page.title().then((t) => current() && (tab.title = t), () => {});
    page.on('domcontentloaded', noteTitle);
    page.on('load', noteTitle);
    page.on('framedetached', (f) => {
      if (tab.frame === f) tab.frame = undefined;
    });
    void this.captureConsole(page);
    page.on('pageerror', (err) => this.logs.console.push({ ts: Date.now(), level: 'error', text: `Uncaught ${err.message}` }));
    page.on('request', (req) => tab.inflight.set(req, Date.now()));
    page.on('requestfinished', (req) => void this.recordRequest(tab, req, false));
    page.on('requestfailed', (req) => void this.recordRequest(tab, req, true));
    page.on('dialog', (dialog) => {
      const { accept, promptText } = this.dialogPolicy;
      this.logs.dialog.push({
        ts: Date.now(),
        type: dialog.type(),
        message: dialog.message(),
        action: accept ? (promptText !== undefined && dialog.type() === 'prompt' ? `accepted with ${JSON.stringify(promptText)}` : 'accepted') : 'dismissed',
      });
      (accept ? dialog.accept(dialog.type() === 'prompt' ? promptText : undefined) : dialog.dismiss()).catch(() => {});
      // The page's text stays out of the notice: it is not inside the untrusted envelope.
      this.notices.push(`(a ${dialog.type()}() dialog was ${accept ? 'accepted' : 'dismissed'}: \`dialog\` shows it; dialog-accept / dialog-dismiss choose for the next ones)`);
    });
  }

  /**
   * One CDP session per page for two jobs. Console capture: Playwright's `console` event keeps a handle
   * per argument for the page's lifetime (200,000 messages cost ~600 MB that navigation does not free).
   * Request blocking: links, redirects and subresources to metadata addresses or to files outside the
   * allowed roots fail; only those URL patterns are intercepted, so caching and speed are untouched.
   */
  private async captureConsole(page: Page): Promise<void> {
    let cdp: CDPSession;
    try {
      cdp = await page.context().newCDPSession(page);
    } catch {
      page.on('console', (msg) => this.logs.console.push({ ts: Date.now(), level: msg.type(), text: msg.text() }));
      return;
    }
    cdp.on('Runtime.consoleAPICalled', (e) => this.logs.console.push({ ts: Date.now(), level: e.type, text: e.args.map(describeRemote).join(' ') }));
    cdp.on('Fetch.requestPaused', (e) => {
      const reason = requestBlockedReason(e.request.url);
      if (reason) this.logs.console.push({ ts: Date.now(), level: 'error', text: `browse blocked ${e.request.url}: ${reason}` });
      const reply = reason ? cdp.send('Fetch.failRequest', { requestId: e.requestId, errorReason: 'BlockedByClient' }) : cdp.send('Fetch.continueRequest', { requestId: e.requestId });
      reply.catch(() => {});
    });
    await Promise.all([
      cdp.send('Runtime.enable'),
      cdp.send('Fetch.enable', { patterns: BLOCKED_REQUEST_PATTERNS.map((urlPattern) => ({ urlPattern })) }),
    ]).catch(() => {});
  }

  private async recordRequest(tab: Tab, req: Request, failed: boolean): Promise<void> {
    const started = tab.inflight.get(req) ?? Date.now();
    tab.inflight.delete(req);
    const ms = Date.now() - started;
    const url = req.url();
    if (url.startsWith('data:')) return;
    const method = req.method();
    const response = failed ? null : await req.response().catch(() => null);
    // Headers come from events Playwright already holds; the body stays in Chromium until asked for.
    const [sizes, reqHeaders, resHeaders] = await Promise.all([
      failed ? null : req.sizes().catch(() => null),
      req.headersArray().catch(() => []),
      response ? response.headersArray().catch(() => []) : [],
    ]);
    const request = keptHeaders(reqHeaders);
    const reply = keptHeaders(resHeaders);
    const timing = req.timing();
    const detail: NetworkDetail = {
      statusText: failed ? (req.failure()?.errorText ?? 'failed') : (response?.statusText() ?? ''),
      mimeType: resHeaders.find((h) => h.name.toLowerCase() === 'content-type')?.value ?? '',
      requestHeaders: request.headers,
      responseHeaders: reply.headers,
      headersCut: request.cut + reply.cut,
      timings: timing.responseEnd >= 0 || timing.responseStart >= 0 ? harTimings(timing) : undefined,
      body: response ? () => response.body() : undefined,
    };
    if (failed) this.logs.recordNetwork({ ts: started, method, url, status: req.failure()?.errorText ?? 'failed', ms }, detail);
    else this.logs.recordNetwork({ ts: started, method, url, status: response?.status() ?? 0, ms, bytes: sizes?.responseBodySize }, detail);
  }

  tab(id?: number): Tab {
    const tab = this.tabs.get(id ?? this.activeId);
    if (!tab) {
      if (id !== undefined) throw new BrowseError(`No tab with id ${id}.`, 'Run `tabs` to list open tabs.');
      throw new BrowseError('No tab is open.', 'Run `newtab <url>` to open one.');
    }
    return tab;
  }

  get activeTabId(): number {
    return this.activeId;
  }

  listTabs(): Tab[] {
    return [...this.tabs.values()];
  }

  activate(id: number): Tab {
    const tab = this.tab(id);
    this.activeId = id;
    return tab;
  }

  async newTab(url?: string): Promise<Tab> {
    const page = await this.browserContext.newPage();
    const tab = this.adopt(page);
    this.activeId = tab.id;
    if (url) await page.goto(url, { waitUntil: 'domcontentloaded', timeout: DEFAULTS.navigationTimeoutMs });
    return tab;
  }

  takeNotices(): string[] {
    return this.notices.splice(0);
  }

  /**
   * After a command ran out of time: when the tab's renderer no longer answers (a script in an endless
   * loop, a hung page), the tab gets a fresh blank page under the same id and the stuck one is closed.
   * Cookies, storage and the other tabs are untouched. Returns the URL it was on, or undefined if it answers.
   */
  async replaceIfStuck(tab: Tab): Promise<string | undefined> {
    if (tab.page.isClosed() || (await within(tab.page.evaluate('1').then(() => true), STUCK_PROBE_MS))) return undefined;
    const stuck = tab.page;
    const url = stuck.url();
    this.replacing = tab;
    try {
      this.attach(tab, await this.browserContext.newPage());
    } finally {
      this.replacing = undefined;
    }
    void within(stuck.close({ runBeforeUnload: false }), 5000);
    return url;
  }

  /** Closing the last tab leaves a blank one, so the session always has a page to act on. */
  async closeTab(id?: number): Promise<{ closed: Tab; active: Tab }> {
    const tab = this.tab(id);
    await tab.page.close();
    this.tabs.delete(tab.id);
    if (this.tabs.size === 0) await this.newTab();
    else if (this.activeId === tab.id || !this.tabs.has(this.activeId)) this.activeId = Math.max(...this.tabs.keys());
    return { closed: tab, active: this.tab() };
  }

  /**
   * Waits (≤2 s) for the requests an action started to finish, so the next read sees their effect.
   * Requests older than the action (long polls, streams) are not waited on.
   */
  async settle(tab: Tab, since: number, timeoutMs: number = DEFAULTS.settleTimeoutMs): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    const busy = () => [...tab.inflight.values()].some((t) => t >= since);
    await new Promise((r) => setImmediate(r));
    while (busy() && Date.now() < deadline && !tab.page.isClosed()) {
      await new Promise((r) => setTimeout(r, 10));
    }
  }


  /** Extra HTTP headers sent with every request of the session (kept across recreations). */
  get extraHeaders(): Readonly<Record<string, string>> {
    return this.headers;
  }

  async setExtraHeaders(headers: Record<string, string>): Promise<void> {
    await this.browserContext.setExtraHTTPHeaders(headers);
    this.headers = { ...headers };
  }

  /** Cookies, localStorage and every tab (URL, sessionStorage, per-tab viewport) of the current context. */
  async captureSession(): Promise<SessionSnapshot> {
    const context = this.browserContext;
    const state = (await within(context.storageState(), 5000)) ?? { cookies: (await context.cookies()).map(toStoredCookie), origins: [] };
    const tabs = await Promise.all(this.listTabs().map((t) => this.captureTab(t)));
    return { cookies: state.cookies, origins: state.origins, tabs: tabs.sort((a, b) => a.id - b.id), activeId: this.activeId };
  }

  private async captureTab(tab: Tab): Promise<SavedTab> {
    const page = tab.page;
    const saved: SavedTab = { id: tab.id, url: page.url() };
    const size = page.viewportSize();
    if (size && (size.width !== this.options.viewport.width || size.height !== this.options.viewport.height)) saved.viewport = size;
    if (/^https?:/i.test(saved.url)) {
      const session = await within(
        page.evaluate(() => ({ origin: location.origin, items: Object.keys(sessionStorage).map((name) => ({ name, value: sessionStorage.getItem(name) ?? '' })) })),
        1000,
      );
      if (session?.items.length) saved.sessionStorage = session;
    } else if (saved.url === 'about:blank') {
      const html = await within(page.evaluate(() => (document.body?.childElementCount || document.body?.textContent?.trim() ? document.documentElement.outerHTML : '')), 1000);
      if (html && html.length <= MAX_SAVED_HTML) saved.html = html;
    }
    return saved;
  }

  /**
   * Replaces the context (and with `headed`, the browser) while keeping the session: cookies,
   * localStorage, sessionStorage, extra headers, and every tab under its id, the active one active.
   * Nothing changes unless the new context is up with its tabs; then the old one is closed.
   */
  async recreateContext(change: ContextChange = {}): Promise<RecreateReport> {
    if (this.recreating) throw new BrowseError('The browser is already being recreated by another command.', 'Wait for it to finish, then retry.', 503);
    const relaunch = change.headed !== undefined && change.headed !== (this.mode === 'headed');
    if (relaunch && this.shared) {
      throw new BrowseError('handoff and resume work in the default session only: a named session shares its browser.', 'Run it without --session (or BROWSE_SESSION).');
    }
    const blocked = relaunch ? this.relaunchBlocked?.() : undefined;
    if (blocked) throw new BrowseError(`${blocked} A handoff or resume relaunches it.`, 'Close them first: `session close <name>` (see `sessions`).');
    if (relaunch && this.mode === 'remote') {
      throw new BrowseError(`The browser is remote (${this.executable}); it cannot be shown here.`, 'Open the remote browser’s own viewer, or run without BROWSE_CONNECT/BROWSE_CDP_URL.');
    }
    this.recreating = true;
    let browser = this.browser!;
    let xvfb: VirtualDisplay | undefined;
    let display: string | undefined;
    let context: BrowserContext | undefined;
    try {
      const session = change.session ?? (await this.captureSession());
      const options: ContextOptions = {
        viewport: change.viewport ?? this.options.viewport,
        deviceScaleFactor: change.deviceScaleFactor ?? this.options.deviceScaleFactor,
        userAgent: change.userAgent ?? this.options.userAgent,
      };
      if (relaunch && change.headed) {
        const screen = await this.displayForHeaded();
        ({ xvfb, display } = screen);
        browser = this.watch(await this.launchLocal(false, screen.env));
      } else if (relaunch) {
        browser = this.watch(await this.launchLocal(true, this.env));
      }
      context = await browser.newContext(this.contextOptions(options, session));
      const problems: string[] = [];
      const opened = await Promise.all(session.tabs.map((saved) => this.reopenTab(context!, saved, Boolean(change.viewport), problems)));
      if (!opened.length) opened.push(this.makeTab(await context.newPage(), this.nextId++));

      const previous = new Map(this.tabs);
      const [oldBrowser, oldContext, oldXvfb] = [this.browser, this.context, this.xvfb];
      this.browser = browser;
      this.context = context;
      this.options = options;
      this.tabs.clear();
      for (const tab of opened) {
        if (!change.session) tab.snapshots = previous.get(tab.id)?.snapshots ?? tab.snapshots;
        this.tabs.set(tab.id, tab);
      }
      this.activeId = this.tabs.has(session.activeId) ? session.activeId : Math.max(...this.tabs.keys());
      this.nextId = Math.max(this.nextId, Math.max(...this.tabs.keys()) + 1);
      context.on('page', (page) => this.adopt(page));
      const active = this.activeId;
      for (const page of context.pages()) this.adopt(page); // popups opened while the tabs were reloading
      this.activeId = active;
      if (relaunch) {
        this.mode = change.headed ? 'headed' : 'headless';
        this.xvfb = xvfb;
        this.display = display;
        await oldBrowser?.close().catch(() => {});
        if (oldXvfb) await stopXvfb(oldXvfb);
      } else {
        await oldContext?.close().catch(() => {});
      }
      if (this.mode === 'headed') await this.tab().page.bringToFront().catch(() => {});
      return { tabs: this.tabs.size, activeId: this.activeId, cookies: session.cookies.length, problems };
    } catch (e) {
      if (context && context !== this.context) await context.close().catch(() => {});
      if (browser !== this.browser) await browser.close().catch(() => {});
      if (xvfb && xvfb !== this.xvfb) await stopXvfb(xvfb);
      throw e;
    } finally {
      this.recreating = false;
    }
  }

  private async reopenTab(context: BrowserContext, saved: SavedTab, resized: boolean, problems: string[]): Promise<Tab> {
    const page = await context.newPage();
    const tab = this.makeTab(page, saved.id);
    try {
      if (!resized && saved.viewport) await page.setViewportSize(saved.viewport);
      if (saved.html !== undefined) {
        await page.setContent(saved.html, { waitUntil: 'domcontentloaded', timeout: DEFAULTS.navigationTimeoutMs });
      } else if (RESTORABLE_URL.test(saved.url)) {
        const restore = saved.sessionStorage
          ? await page.addInitScript(({ origin, items }) => {
              if (window !== window.top || location.origin !== origin) return;
              try {
                for (const { name, value } of items) if (sessionStorage.getItem(name) === null) sessionStorage.setItem(name, value);
              } catch {}
            }, saved.sessionStorage)
          : undefined;
        try {
          await page.goto(saved.url, { waitUntil: 'domcontentloaded', timeout: DEFAULTS.navigationTimeoutMs });
        } finally {
          await restore?.dispose().catch(() => {});
        }
      } else if (saved.url !== 'about:blank') {
        problems.push(`tab ${saved.id}: ${safeUrl(saved.url)} cannot be reopened; it is blank now`);
      }
    } catch (e) {
      problems.push(`tab ${saved.id}: ${safeUrl(saved.url)} did not reload (${translateError(e).message})`);
    }
    return tab;
  }

  // Linux without a display gets a private Xvfb; elsewhere the desktop shows the window.
  private async displayForHeaded(): Promise<{ env: NodeJS.ProcessEnv; display: string; xvfb?: VirtualDisplay }> {
    const env = this.env;
    if (process.platform !== 'linux' || env.DISPLAY || env.WAYLAND_DISPLAY) {
      return { env, display: env.DISPLAY ? `DISPLAY ${env.DISPLAY}` : env.WAYLAND_DISPLAY ? `Wayland ${env.WAYLAND_DISPLAY}` : 'the desktop' };
    }
    const bin = Bun.which('Xvfb', { PATH: env.PATH ?? '' });
    if (!bin) {
      throw new BrowseError(
        'No display for a visible browser: DISPLAY is not set and Xvfb is not installed.',
        'Install a virtual display (`apt-get install -y xvfb`), or start the daemon with DISPLAY set to a running X server (`stop`, then DISPLAY=:0 browse …), then run `handoff` again.',
      );
    }
    const xvfb = await startXvfb(bin);
    return { env: { ...env, DISPLAY: xvfb.display }, display: `virtual display ${xvfb.display} (Xvfb: a person sees it through a VNC server, e.g. \`x11vnc -display ${xvfb.display}\`)`, xvfb };
  }

  async close(): Promise<void> {
    this.closing = true;
    if (this.shared) {
      await this.context?.close().catch(() => {}); // the browser belongs to the default session
      return;
    }
    await this.browser?.close().catch(() => {});
    if (this.xvfb) await stopXvfb(this.xvfb);
  }
}

function toStoredCookie(c: StoredCookie & { partitionKey?: string }): StoredCookie {
  return { name: c.name, value: c.value, domain: c.domain, path: c.path, expires: c.expires, httpOnly: c.httpOnly, secure: c.secure, sameSite: c.sameSite };
}

/** Starts Xvfb on the first free display from :99, waiting for its socket. */
async function startXvfb(bin: string): Promise<VirtualDisplay> {
  let tries = 0;
  for (let n = 99; n < 300 && tries < 5; n++) {
    const socket = `/tmp/.X11-unix/X${n}`;
    if (existsSync(`/tmp/.X${n}-lock`) || existsSync(socket)) continue;
    tries++;
    // -terminate: if the daemon is killed outright, Xvfb exits once its last client (Chromium) is gone.
    const proc = Bun.spawn([bin, `:${n}`, '-screen', '0', '1920x1080x24', '-nolisten', 'tcp', '-terminate'], { stdin: 'ignore', stdout: 'ignore', stderr: 'ignore' });
    const deadline = Date.now() + 5000;
    while (proc.exitCode === null && !existsSync(socket) && Date.now() < deadline) await Bun.sleep(10);
    if (proc.exitCode === null && existsSync(socket)) return { proc, display: `:${n}` };
    proc.kill('SIGKILL');
  }
  throw new BrowseError('Xvfb could not start a virtual display.', 'Try `Xvfb :99` by hand to see why, or set DISPLAY to a running X server.', 500);
}

async function stopXvfb(x: VirtualDisplay): Promise<void> {
  x.proc.kill('SIGTERM');
  const exited = await within(x.proc.exited, 2000);
  if (exited === undefined) x.proc.kill('SIGKILL');
}

/** Console argument as text: strings as written, other values by their JS description. */
function describeRemote(o: { type: string; value?: unknown; unserializableValue?: string; description?: string }): string {
  if (o.type === 'string') return String(o.value);
  if (o.type === 'undefined') return 'undefined';
  if (o.unserializableValue !== undefined) return o.unserializableValue;
  if (o.value !== undefined) return typeof o.value === 'object' ? JSON.stringify(o.value) : String(o.value);
  return o.description ?? `[${o.type}]`;
}
