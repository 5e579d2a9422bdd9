import type { Frame, Locator, Page } from 'playwright';
import type { BrowserManager, Tab } from '../browser-manager';
import type { LogStore } from '../logs';
import type { Sessions } from '../sessions';
import type { CommandResult } from './define';

export interface DaemonInfo {
  pid: number;
  port: number;
  mode: string;
  /** Records a mode change where /health, `status` and the state file read it. */
  setMode(mode: 'headless' | 'headed' | 'remote'): void;
  startedAt: number;
  binaryVersion: string;
  /** A one-time link (30 s) to the cookie picker page this daemon serves, opening on this browser/profile. */
  pickerUrl(preselect?: { browser?: string; profile?: string }): string;
  chromium: string;
}

// What a handler may use. Playwright stays behind `page` and `resolve`.
export interface CommandContext {
  readonly tab: Tab;
  readonly page: Page;
  /** The document commands act in: the frame entered with `frame`, else the main frame. */
  readonly frame: Frame;
  readonly browser: BrowserManager;
  readonly logs: LogStore;
  readonly daemon: DaemonInfo;
  /** The caller's session name (`default` unless --session / BROWSE_SESSION). */
  readonly session: string;
  readonly sessions: Sessions;
  /** Playwright timeout for one element action: a little under the command's deadline. */
  readonly actionTimeout: number;
  /** Playwright timeout for a navigation, likewise. */
  readonly navigationTimeout: number;
  /** CSS selector (in ctx.frame) or @ref (checked to still exist, unambiguously) → a Locator. */
  resolve(target: string): Promise<Locator>;
  /** After an action: wait briefly for the network requests it started. */
  settle(): Promise<void>;
  /** Resolves a user-given path against the caller's working directory. */
  callerPath(p: string): string;
  /** Runs another command through the same pipeline (used by chain). */
  execute(name: string, words: string[]): Promise<CommandResult>;
}
