import { chromium, type Browser, type BrowserContext, type Frame, type Page, type Request } from 'playwright';
import { CHROMIUM_ARGS, findChromium, MISSING_CHROMIUM_HINT, sandboxAllowed } from './chromium';
import { DEFAULTS } from './config';
import { BrowseError } from './errors';
import type { LogStore } from './logs';
import type { RefMap } from './refs';

export interface Tab {
  id: number;
  page: Page;
  /** Requests started and not yet finished or failed, with their start time: what `settle` waits on. */
  inflight: Map<Request, number>;
  /** Refs of the last snapshot; cleared when a new document loads. */
  refs: RefMap;
  /** The frame entered with `frame`, if any. */
  frame?: Frame;
  /** Last snapshot lines per flag set, for `snapshot -D`. */
  snapshots: Map<string, string[]>;
}

export interface DialogPolicy {
  accept: boolean;
  promptText?: string;
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
  dialogPolicy: DialogPolicy = { accept: true };
  /** What drives the pages: a Chromium path, or the remote endpoint. */
  executable = '';
  mode: 'headless' | 'remote' = 'headless';

  constructor(
    private readonly logs: LogStore,
    private readonly onBrowserGone: (reason: string) => void,
  ) {}

  async launch(env = process.env): Promise<void> {
    this.browser = env.BROWSE_CONNECT || env.BROWSE_CDP_URL ? await this.connectRemote(env) : await this.launchLocal();
    this.browser.on('disconnected', () => {
      if (!this.closing) this.onBrowserGone(`${this.mode === 'remote' ? 'remote browser' : 'Chromium'} disconnected (crashed, killed or closed)`);
    });
    this.context = await this.browser.newContext({ viewport: { ...DEFAULTS.viewport } });
    this.context.on('page', (page) => this.adopt(page));
    await this.newTab();
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

  private async launchLocal(): Promise<Browser> {
    const choice = findChromium(() => chromium.executablePath());
    if (!choice) throw new BrowseError('Chromium was not found.', MISSING_CHROMIUM_HINT, 500);
    this.executable = choice.path ?? 'playwright';
    return chromium.launch({
      executablePath: choice.path,
      headless: true,
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
    const tab: Tab = { id: this.nextId++, page, inflight: new Map(), refs: new Map(), snapshots: new Map() };
    this.tabs.set(tab.id, tab);
    this.tabOf.set(page, tab);
    this.activeId = tab.id; // a popup or new tab takes focus, as it does for a person
    page.on('close', () => {
      this.tabs.delete(tab.id);
      if (this.activeId === tab.id) this.activeId = Math.max(0, ...this.tabs.keys());
    });
    page.on('domcontentloaded', () => {
      tab.refs = new Map(); // a new document: old refs would point at nothing, or worse, at look-alikes
      tab.frame = undefined;
    });
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
    });
    return tab;
  }

  /**
   * Console capture through CDP, not Playwright's `console` event: that event keeps a handle per
   * argument for the page's lifetime (200,000 messages cost ~600 MB that navigation does not free).
   */
  private async captureConsole(page: Page): Promise<void> {
    try {
      const cdp = await page.context().newCDPSession(page);
      cdp.on('Runtime.consoleAPICalled', (e) => this.logs.console.push({ ts: Date.now(), level: e.type, text: e.args.map(describeRemote).join(' ') }));
      await cdp.send('Runtime.enable');
    } catch {
      page.on('console', (msg) => this.logs.console.push({ ts: Date.now(), level: msg.type(), text: msg.text() }));
    }
  }

  private async recordRequest(tab: Tab, req: Request, failed: boolean): Promise<void> {
    const started = tab.inflight.get(req) ?? Date.now();
    tab.inflight.delete(req);
    const ms = Date.now() - started;
    const url = req.url();
    if (url.startsWith('data:')) return;
    if (failed) {
      this.logs.network.push({ ts: started, method: req.method(), url, status: req.failure()?.errorText ?? 'failed', ms });
      return;
    }
    const response = await req.response().catch(() => null);
    const sizes = await req.sizes().catch(() => null);
    this.logs.network.push({ ts: started, method: req.method(), url, status: response?.status() ?? 0, ms, bytes: sizes?.responseBodySize });
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


  async close(): Promise<void> {
    this.closing = true;
    await this.browser?.close().catch(() => {});
  }
}

/** Console argument as text: strings as written, other values by their JS description. */
function describeRemote(o: { type: string; value?: unknown; unserializableValue?: string; description?: string }): string {
  if (o.type === 'string') return String(o.value);
  if (o.type === 'undefined') return 'undefined';
  if (o.unserializableValue !== undefined) return o.unserializableValue;
  if (o.value !== undefined) return typeof o.value === 'object' ? JSON.stringify(o.value) : String(o.value);
  return o.description ?? `[${o.type}]`;
}
