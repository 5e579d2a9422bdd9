// Cookies from the user's own browser: import by domain, list what is there, or hand the choice to the picker page.
import { spawn } from 'node:child_process';
import { BROWSERS, currentEnv, findBrowser, findProfile, installedBrowsers } from '../cookies/browsers';
import { importIntoSession, listCookieDomains } from '../cookies/import';
import { BrowseError, plural } from '../errors';
import { defineCommand } from './define';

const LIST_LIMIT = 50;

function listInstalled(): string {
  const found = installedBrowsers(currentEnv());
  if (!found.length) return `No Chromium-family browser with a cookie database under ${currentEnv().home}. Known: ${BROWSERS.map((b) => b.id).join(', ')}.`;
  return found.map((b) => `${b.browser.id}: ${b.profiles.map((p) => (p.displayName === p.dir ? p.dir : `${p.dir} (${p.displayName})`)).join(', ')}`).join('\n');
}

function defaultBrowser(): string {
  const found = installedBrowsers(currentEnv());
  if (!found.length) {
    throw new BrowseError(`No Chromium-family browser with a cookie database was found under ${currentEnv().home}.`, `Known browsers: ${BROWSERS.map((b) => b.id).join(', ')}. Use \`cookie-import <file>\` to import an exported cookie file instead.`);
  }
  return found[0].browser.id;
}

/** Opens the picker in the user's default browser when there is a desktop to show it on. */
function openInDesktopBrowser(url: string): boolean {
  if (process.env.BROWSE_NO_OPEN) return false;
  if (process.platform === 'linux' && !process.env.DISPLAY && !process.env.WAYLAND_DISPLAY) return false;
  // `start` takes its first quoted argument as a window title, hence the empty one.
  const [cmd, args] =
    process.platform === 'darwin' ? ['open', [url]] : process.platform === 'win32' ? ['cmd', ['/c', 'start', '', url]] : ['xdg-open', [url]];
  try {
    const child = spawn(cmd, args as string[], { detached: true, stdio: 'ignore' });
    child.on('error', () => {});
    child.unref();
    return true;
  } catch {
    return false;
  }
}

export const cookieImportBrowser = defineCommand({
  name: 'cookie-import-browser',
  category: 'write',
  group: 'Session',
  description:
    'Import cookies from a browser on this machine (chrome, chromium, arc, brave, edge, comet, vivaldi, opera): --domain (with its subdomains) or --all imports directly; with neither it opens the cookie picker page. Values are never printed',
  args: [{ name: 'browser', kind: 'string' }],
  flags: [
    { name: '--profile', kind: 'string', value: '<name>', description: 'Profile folder or display name (default: Default)' },
    { name: '--domain', kind: 'string', value: '<domain>', repeatable: true, description: 'Import this domain and its subdomains; repeat for more' },
    { name: '--all', kind: 'boolean', description: 'Import every cookie of the profile' },
    { name: '--list', kind: 'boolean', description: 'List installed browsers and profiles; with a browser, its cookie domains and counts' },
  ],
  deadlineMs: 90_000, // a Keychain prompt waits for the user
  async run(ctx, input) {
    const domains = input.domain as string[] | undefined;
    const profile = input.profile as string | undefined;
    if (input.list) {
      if (!input.browser) return listInstalled();
      const { source, domains: list } = listCookieDomains(String(input.browser), profile);
      const shown = list.slice(0, LIST_LIMIT).map((d) => `${d.domain} (${d.count})`);
      const more = list.length > LIST_LIMIT ? `\n… ${list.length - LIST_LIMIT} more; import one with --domain` : '';
      return `${source}: ${plural(list.length, 'domain')} with cookies\n${shown.join('\n')}${more}`;
    }
    if (domains && input.all) throw new BrowseError('Give --domain or --all, not both.', 'Example: `cookie-import-browser chrome --domain github.com`.');
    const browser = input.browser ? String(input.browser) : defaultBrowser();
    if (domains || input.all) {
      return (await importIntoSession(ctx.browser, { browser, profile, domains })).text;
    }
    // Neither: the user chooses in the picker. Check the browser and profile now so a typo fails here.
    const installed = input.browser ? findBrowser(browser, currentEnv()) : undefined;
    const chosen = installed && profile ? findProfile(installed, profile).dir : undefined;
    const url = ctx.daemon.pickerUrl({ browser: installed?.browser.id, profile: chosen });
    const opened = openInDesktopBrowser(url);
    return [
      `Cookie picker: ${url}`,
      `${opened ? 'Opened in your default browser. ' : ''}The link works once, within 30s; run the command again for a new one.`,
      'Choose domains there; or import directly with `cookie-import-browser <browser> --domain <domain>`.',
    ].join('\n');
  },
});
