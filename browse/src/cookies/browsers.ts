// Which Chromium-family browsers we read cookies from, where each keeps its profiles, and which profiles exist.
// Paths come only from this table and the user's home; a profile name is matched against what is on disk.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { BrowseError } from '../errors';
import type { Platform } from './decrypt';

export interface BrowserInfo {
  id: string;
  name: string;
  aliases: string[];
  /** Under ~/Library/Application Support. */
  mac?: { dir: string; keychainService: string; keychainAccount: string };
  /** Under $XDG_CONFIG_HOME (~/.config); `secretApps`: the libsecret `application` attribute(s) of its v11 password. */
  linux?: { dir: string; secretApps: string[] };
  /** Under %LOCALAPPDATA% (or %APPDATA% when `roaming`). */
  win?: { dir: string; roaming?: boolean };
  /** The user-data dir is itself the only profile (Opera). */
  singleProfile?: boolean;
}

export const BROWSERS: readonly BrowserInfo[] = [
  {
    id: 'chrome',
    name: 'Chrome',
    aliases: ['google-chrome', 'googlechrome'],
    mac: { dir: 'Google/Chrome', keychainService: 'Chrome Safe Storage', keychainAccount: 'Chrome' },
    linux: { dir: 'google-chrome', secretApps: ['chrome'] },
    win: { dir: 'Google/Chrome/User Data' },
  },
  {
    id: 'chromium',
    name: 'Chromium',
    aliases: [],
    mac: { dir: 'Chromium', keychainService: 'Chromium Safe Storage', keychainAccount: 'Chromium' },
    linux: { dir: 'chromium', secretApps: ['chromium'] },
    win: { dir: 'Chromium/User Data' },
  },
  {
    id: 'arc',
    name: 'Arc',
    aliases: [],
    mac: { dir: 'Arc/User Data', keychainService: 'Arc Safe Storage', keychainAccount: 'Arc' },
    win: { dir: 'Packages/TheBrowserCompany.Arc_ttt76q6gyoxaa/LocalCache/Local/Arc/User Data' },
  },
  {
    id: 'brave',
    name: 'Brave',
    aliases: ['brave-browser'],
    mac: { dir: 'BraveSoftware/Brave-Browser', keychainService: 'Brave Safe Storage', keychainAccount: 'Brave' },
    linux: { dir: 'BraveSoftware/Brave-Browser', secretApps: ['brave'] },
    win: { dir: 'BraveSoftware/Brave-Browser/User Data' },
  },
  {
    id: 'edge',
    name: 'Edge',
    aliases: ['microsoft-edge', 'msedge'],
    mac: { dir: 'Microsoft Edge', keychainService: 'Microsoft Edge Safe Storage', keychainAccount: 'Microsoft Edge' },
    linux: { dir: 'microsoft-edge', secretApps: ['microsoft-edge', 'chromium'] },
    win: { dir: 'Microsoft/Edge/User Data' },
  },
  {
    id: 'comet',
    name: 'Comet',
    aliases: ['perplexity'],
    mac: { dir: 'Comet', keychainService: 'Comet Safe Storage', keychainAccount: 'Comet' },
    win: { dir: 'Perplexity/Comet/User Data' },
  },
  {
    id: 'vivaldi',
    name: 'Vivaldi',
    aliases: [],
    mac: { dir: 'Vivaldi', keychainService: 'Vivaldi Safe Storage', keychainAccount: 'Vivaldi' },
    linux: { dir: 'vivaldi', secretApps: ['vivaldi', 'chrome'] },
    win: { dir: 'Vivaldi/User Data' },
  },
  {
    id: 'opera',
    name: 'Opera',
    aliases: [],
    mac: { dir: 'com.operasoftware.Opera', keychainService: 'Opera Safe Storage', keychainAccount: 'Opera' },
    linux: { dir: 'opera', secretApps: ['opera', 'chromium'] },
    win: { dir: 'Opera Software/Opera Stable', roaming: true },
    singleProfile: true,
  },
];

/** Where to look: tests pass a fake home and platform; the daemon uses its own. */
export interface Env {
  platform: Platform;
  home: string;
  /** XDG_CONFIG_HOME, LOCALAPPDATA, APPDATA when set. */
  vars: Record<string, string | undefined>;
}

export function currentEnv(): Env {
  const platform = (['darwin', 'win32'].includes(process.platform) ? process.platform : 'linux') as Platform;
  return { platform, home: homedir(), vars: process.env };
}

export function userDataDir(browser: BrowserInfo, env: Env): string | undefined {
  const { platform, home, vars } = env;
  if (platform === 'darwin') return browser.mac && join(home, 'Library', 'Application Support', browser.mac.dir);
  if (platform === 'linux') return browser.linux && join(vars.XDG_CONFIG_HOME || join(home, '.config'), browser.linux.dir);
  if (!browser.win) return undefined;
  const base = browser.win.roaming ? vars.APPDATA || join(home, 'AppData', 'Roaming') : vars.LOCALAPPDATA || join(home, 'AppData', 'Local');
  return join(base, browser.win.dir);
}

export interface Profile {
  /** Folder name: Default, Profile 1, … */
  dir: string;
  /** The name the browser shows (from Preferences, else Local State), or the folder name. */
  displayName: string;
  /** Network/Cookies (newer layouts) or Cookies at the profile root. */
  cookiesPath: string;
}

export interface InstalledBrowser {
  browser: BrowserInfo;
  dataDir: string;
  profiles: Profile[];
}

const readJson = (file: string): Record<string, unknown> | undefined => {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  }
};

function cookiesFile(profileDir: string): string | undefined {
  for (const p of [join(profileDir, 'Network', 'Cookies'), join(profileDir, 'Cookies')]) {
    try {
      if (statSync(p).isFile()) return p;
    } catch {}
  }
  return undefined;
}

function displayName(dataDir: string, dir: string, profileDir: string): string {
  const prefs = readJson(join(profileDir, 'Preferences')) as { profile?: { name?: unknown } } | undefined;
  if (typeof prefs?.profile?.name === 'string' && prefs.profile.name.trim()) return prefs.profile.name.trim();
  const local = readJson(join(dataDir, 'Local State')) as { profile?: { info_cache?: Record<string, { name?: unknown }> } } | undefined;
  const cached = local?.profile?.info_cache?.[dir]?.name;
  return typeof cached === 'string' && cached.trim() ? cached.trim() : dir;
}

/** Profiles that hold a cookie DB: Default, Profile N and any other folder with one (not Guest/System). */
export function listProfiles(browser: BrowserInfo, dataDir: string): Profile[] {
  if (browser.singleProfile) {
    const cookiesPath = cookiesFile(dataDir);
    return cookiesPath ? [{ dir: 'Default', displayName: displayName(dataDir, 'Default', dataDir), cookiesPath }] : [];
  }
  let entries: string[];
  try {
    entries = readdirSync(dataDir);
  } catch {
    return [];
  }
  const order = (d: string) => (d === 'Default' ? -1 : Number(d.match(/^Profile (\d+)$/)?.[1] ?? 1e9));
  return entries
    .filter((d) => d !== 'Guest Profile' && d !== 'System Profile')
    .flatMap((dir) => {
      const profileDir = join(dataDir, dir);
      const cookiesPath = cookiesFile(profileDir);
      return cookiesPath ? [{ dir, displayName: displayName(dataDir, dir, profileDir), cookiesPath }] : [];
    })
    .sort((a, b) => order(a.dir) - order(b.dir) || a.dir.localeCompare(b.dir));
}

export function installedBrowsers(env: Env): InstalledBrowser[] {
  return BROWSERS.flatMap((browser) => {
    const dataDir = userDataDir(browser, env);
    if (!dataDir || !existsSync(dataDir)) return [];
    const profiles = listProfiles(browser, dataDir);
    return profiles.length ? [{ browser, dataDir, profiles }] : [];
  });
}

const describeInstalled = (env: Env) => {
  const found = installedBrowsers(env);
  return found.length ? `Installed: ${found.map((b) => b.browser.id).join(', ')}.` : 'No Chromium-family browser with a cookie database was found in this home directory.';
};

export function findBrowser(name: string, env: Env): InstalledBrowser {
  const key = name.trim().toLowerCase();
  const browser = BROWSERS.find((b) => b.id === key || b.aliases.includes(key) || b.name.toLowerCase() === key);
  if (!browser) {
    throw new BrowseError(`Unknown browser '${name.slice(0, 40)}'.`, `${describeInstalled(env)} Known: ${BROWSERS.map((b) => b.id).join(', ')}.`);
  }
  const dataDir = userDataDir(browser, env);
  if (!dataDir) throw new BrowseError(`${browser.name} is not available on ${env.platform === 'darwin' ? 'macOS' : env.platform === 'win32' ? 'Windows' : 'Linux'}.`, describeInstalled(env));
  const profiles = listProfiles(browser, dataDir);
  if (!profiles.length) throw new BrowseError(`${browser.name} has no profile with cookies under ${dataDir}.`, `Open ${browser.name} once and sign in, or pick another browser. ${describeInstalled(env)}`);
  return { browser, dataDir, profiles };
}

/** A profile by folder or display name; anything that could leave the data dir is refused before any lookup. */
export function findProfile(installed: InstalledBrowser, name: string | undefined): Profile {
  const { profiles, browser } = installed;
  const names = profiles.map((p) => (p.displayName === p.dir ? p.dir : `${p.dir} (${p.displayName})`)).join(', ');
  if (name === undefined) return profiles.find((p) => p.dir === 'Default') ?? profiles[0];
  if (!name || name.includes('/') || name.includes('\\') || name.includes('..') || /[\x00-\x1f\x7f]/.test(name)) {
    throw new BrowseError('A profile name cannot contain /, \\, .. or control characters.', `Profiles of ${browser.name}: ${names}.`);
  }
  const lower = name.toLowerCase();
  const hit = profiles.find((p) => p.dir.toLowerCase() === lower) ?? profiles.find((p) => p.displayName.toLowerCase() === lower);
  if (!hit) throw new BrowseError(`${browser.name} has no profile '${name.slice(0, 60)}'.`, `Profiles: ${names}. Pass one with --profile.`);
  return hit;
}
