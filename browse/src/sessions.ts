// Named sessions: parallel agents on one machine each get an isolated browser context (own tabs, tab ids,
// refs, cookies, storage, logs) inside the one daemon and the one Chromium. `default` is the daemon's own.
import { BrowserManager } from './browser-manager';
import type { Paths } from './config';
import { DEFAULTS } from './config';
import { BrowseError } from './errors';
import { LogStore } from './logs';

export const DEFAULT_SESSION = 'default';
const NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,31}$/;
const MAX_SESSIONS = 32;

export interface Session {
  name: string;
  browser: BrowserManager;
  logs: LogStore;
  createdAt: number;
  lastUsed: number;
}

export class Sessions {
  private readonly open = new Map<string, Session>();
  private readonly starting = new Map<string, Promise<Session>>();

  constructor(
    private readonly main: Session,
    private readonly paths: Paths,
    private readonly onBrowserGone: (reason: string) => void,
  ) {
    this.open.set(main.name, main);
    // A relaunch (handoff, resume) replaces the one Chromium: the other sessions' contexts would die with it.
    main.browser.relaunchBlocked = () =>
      this.open.size > 1 ? `Other sessions are open (${this.names().filter((n) => n !== DEFAULT_SESSION).join(', ')}); they share this browser.` : undefined;
  }

  /** The named session, opened on first use. */
  async get(name = DEFAULT_SESSION): Promise<Session> {
    const found = this.open.get(name);
    if (found) {
      found.lastUsed = Date.now();
      return found;
    }
    if (!NAME.test(name)) throw new BrowseError(`'${name.slice(0, 40)}' is not a session name.`, 'Use 1–32 letters, digits, dots, dashes or underscores, e.g. --session agent-2.');
    const pending = this.starting.get(name);
    if (pending) return pending;
    if (this.open.size + this.starting.size >= MAX_SESSIONS) {
      throw new BrowseError(`${MAX_SESSIONS} sessions are open, the most one daemon keeps.`, 'Run `sessions`, then `session close <name>` for those you are done with.');
    }
    const start = this.start(name);
    this.starting.set(name, start);
    try {
      const session = await start;
      this.open.set(name, session);
      return session;
    } finally {
      this.starting.delete(name);
    }
  }

  private async start(name: string): Promise<Session> {
    const logs = new LogStore(DEFAULTS.logCapacity, (kind) => this.paths.logFile(kind).replace(/\.log$/, `.${name}.log`));
    const browser = new BrowserManager(logs, this.onBrowserGone);
    await browser.launchShared(this.main.browser);
    logs.startFlushing();
    return { name, browser, logs, createdAt: Date.now(), lastUsed: Date.now() };
  }

  list(): Session[] {
    return [...this.open.values()];
  }

  names(): string[] {
    return [...this.open.keys()];
  }

  /** Closes a named session's context (its tabs, cookies and storage go); its log files stay. Returns its tab count. */
  async close(name: string): Promise<number> {
    if (name === DEFAULT_SESSION) throw new BrowseError('The default session is the daemon itself.', 'Run `stop` to end it, or `restart` for a fresh one.');
    const session = this.open.get(name);
    if (!session) throw new BrowseError(`No session named '${name}'.`, `Open ones: ${this.names().join(', ')}.`);
    this.open.delete(name);
    const tabs = session.browser.listTabs().length;
    await session.browser.close();
    session.logs.flushSync();
    return tabs;
  }

  /** At shutdown: every session's last log lines reach disk. */
  flushAll(): void {
    for (const s of this.open.values()) s.logs.flushSync();
  }
}
