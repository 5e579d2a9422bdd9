import { existsSync } from 'node:fs';
import { execFileSync } from 'node:child_process';

export interface ChromiumChoice {
  path: string | undefined; // undefined: let Playwright use its managed browser
  source: 'BROWSE_CHROMIUM_PATH' | 'playwright' | 'system';
}

const SYSTEM_CANDIDATES = [
  '/usr/bin/chromium',
  '/usr/bin/chromium-browser',
  '/usr/bin/google-chrome',
  '/usr/bin/google-chrome-stable',
  '/snap/bin/chromium',
  '/Applications/Google Chrome.app/Contents/MacOS/Google Chrome',
  '/Applications/Chromium.app/Contents/MacOS/Chromium',
];

/** Discovery order: BROWSE_CHROMIUM_PATH, Playwright's managed browser, a system Chromium/Chrome. */
export function findChromium(managedPath: () => string, env = process.env): ChromiumChoice | null {
  const override = env.BROWSE_CHROMIUM_PATH;
  if (override) return existsSync(override) ? { path: override, source: 'BROWSE_CHROMIUM_PATH' } : null;
  try {
    const managed = managedPath();
    if (managed && existsSync(managed)) return { path: managed, source: 'playwright' };
  } catch {}
  for (const p of SYSTEM_CANDIDATES) if (existsSync(p)) return { path: p, source: 'system' };
  for (const name of ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable']) {
    try {
      const found = execFileSync('which', [name], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
      if (found) return { path: found, source: 'system' };
    } catch {}
  }
  return null;
}

// Chromium's sandbox cannot start as root or in most containers; elsewhere keep it on.
export function sandboxAllowed(env = process.env): boolean {
  const root = typeof process.getuid === 'function' && process.getuid() === 0;
  const container = existsSync('/.dockerenv') || existsSync('/run/.containerenv');
  return !(root || env.CI || container);
}

export const CHROMIUM_ARGS = [
  // A closed network otherwise floods Chromium with refused background connections.
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--no-default-browser-check',
];

export const MISSING_CHROMIUM_HINT =
  'No Chromium found. Run ./setup, or install one (Debian/Ubuntu: `sudo apt-get install -y chromium`; macOS: `bunx playwright install chromium`), or set BROWSE_CHROMIUM_PATH.';

export const LAUNCH_FAILED_HINT =
  'Install the libraries Chromium needs (Debian/Ubuntu: `sudo apt-get install -y chromium`), or point BROWSE_CHROMIUM_PATH at a working Chrome/Chromium.';
