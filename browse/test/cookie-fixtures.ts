// Real cookie DBs for the import tests: real Chromium, a fresh profile, cookies set by a local HTTPS server,
// the browser's own cookie list as ground truth, then a clean close so everything is flushed to disk.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Cookie } from 'playwright';
import { CHROMIUM_ARGS, findChromium, sandboxAllowed } from '../src/chromium';

export interface FixtureCookie {
  /** Host the page is served from (mapped to 127.0.0.1). */
  host: string;
  /** The Set-Cookie header the page sends. */
  header: string;
  /** Set from an iframe inside this top-level host (partitioned cookies). */
  embeddedIn?: string;
}

export interface ChromiumProfile {
  /** <home>/.config/<browserDir> */
  dataDir: string;
  cookiesPath: string;
  /** Chromium's own view of the cookies after a restart (exact expiry as stored), plus the session cookies. */
  truth: Cookie[];
}

let tls: { cert: string; key: string } | undefined;
/** A throwaway self-signed certificate (Chromium is told to ignore certificate errors). */
function certificate(): { cert: string; key: string } {
  if (tls) return tls;
  const dir = mkdtempSync(join(tmpdir(), 'browse-cert-'));
  const r = spawnSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-subj', '/CN=fixture.test', '-days', '2', '-keyout', join(dir, 'k.pem'), '-out', join(dir, 'c.pem')], { stdio: 'ignore' });
  if (r.status !== 0) throw new Error('openssl could not make a test certificate');
  tls = { cert: readFileSync(join(dir, 'c.pem'), 'utf8'), key: readFileSync(join(dir, 'k.pem'), 'utf8') };
  rmSync(dir, { recursive: true, force: true });
  return tls;
}

export function chromiumPath(): string {
  const found = findChromium(() => chromium.executablePath());
  if (!found?.path) throw new Error('No Chromium found: run ./setup');
  return found.path;
}

/** Chromium's launch options for a fixture profile; v11 uses the desktop keyring reachable through `env`. */
function launchOptions(store: 'basic' | 'gnome-libsecret', env?: Record<string, string>) {
  return {
    executablePath: chromiumPath(),
    headless: true,
    ignoreDefaultArgs: ['--password-store=basic', '--use-mock-keychain'],
    args: [...CHROMIUM_ARGS, ...(sandboxAllowed() ? [] : ['--no-sandbox']), `--password-store=${store}`, '--ignore-certificate-errors', '--host-resolver-rules=MAP *.test 127.0.0.1, MAP *.example 127.0.0.1'],
    env: env ? { ...process.env, ...env } : process.env,
  };
}

/**
 * Makes `<home>/.config/<browserDir>/<profile>/Cookies` with real Chromium: each cookie is set by a page of a
 * local HTTPS server (or an iframe inside `embeddedIn` for partitioned cookies).
 */
export async function makeChromiumProfile(opts: {
  home: string;
  cookies: FixtureCookie[];
  browserDir?: string;
  profile?: string;
  store?: 'basic' | 'gnome-libsecret';
  env?: Record<string, string>;
}): Promise<ChromiumProfile> {
  const { cert, key } = certificate();
  const server: ReturnType<typeof Bun.serve> = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    tls: { cert, key },
    fetch(req): Response {
      const url = new URL(req.url);
      const i = Number(url.searchParams.get('i'));
      if (url.pathname === '/embed') {
        return new Response(`<title>top</title><iframe src="https://${opts.cookies[i].host}:${server.port}/set?i=${i}"></iframe>`, { headers: { 'content-type': 'text/html' } });
      }
      if (url.pathname === '/set') return new Response(`<title>set ${i}</title>set`, { headers: { 'content-type': 'text/html', 'set-cookie': opts.cookies[i].header } });
      return new Response('not found', { status: 404 });
    },
  });
  const dataDir = join(opts.home, '.config', opts.browserDir ?? 'chromium');
  const profile = opts.profile ?? 'Default';
  const store = opts.store ?? 'basic';
  mkdirSync(dataDir, { recursive: true });
  try {
    const context = await chromium.launchPersistentContext(dataDir, { ...launchOptions(store, opts.env), args: [...launchOptions(store, opts.env).args, `--profile-directory=${profile}`] });
    const page = context.pages()[0] ?? (await context.newPage());
    for (const [i, c] of opts.cookies.entries()) {
      const url = c.embeddedIn ? `https://${c.embeddedIn}:${server.port}/embed?i=${i}` : `https://${c.host}:${server.port}/set?i=${i}`;
      await page.goto(url);
      if (c.embeddedIn) await page.frameLocator('iframe').locator('body').waitFor();
    }
    const firstRun = await context.cookies();
    await context.close(); // a clean close flushes the cookie store to disk
    // Chromium reports a fresh cookie's expiry a few ms off what it stores; a restart on a copy reads the stored one.
    const copy = mkdtempSync(join(tmpdir(), 'browse-profile-copy-'));
    cpSync(dataDir, copy, { recursive: true });
    let stored: Cookie[];
    try {
      const again = await chromium.launchPersistentContext(copy, { ...launchOptions(store, opts.env), args: [...launchOptions(store, opts.env).args, `--profile-directory=${profile}`] });
      stored = await again.cookies();
      await again.close();
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
    const truth = [...stored, ...firstRun.filter((c) => c.expires === -1)];
    const profileDir = join(dataDir, profile);
    const cookiesPath = [join(profileDir, 'Network', 'Cookies'), join(profileDir, 'Cookies')].find((p) => existsSync(p));
    if (!cookiesPath) throw new Error(`Chromium wrote no cookie DB under ${profileDir}`);
    return { dataDir, cookiesPath, truth };
  } finally {
    server.stop(true);
  }
}

/** A private D-Bus session with an unlocked gnome-keyring, or the reason there cannot be one here. */
export interface Keyring {
  env: Record<string, string>;
  stop(): void;
}

export function keyringUnavailable(): string | undefined {
  for (const tool of ['dbus-daemon', 'dbus-send', 'gnome-keyring-daemon', 'secret-tool']) {
    if (spawnSync('which', [tool], { stdio: 'ignore' }).status !== 0) return `${tool} is not installed (./setup installs dbus, gnome-keyring and libsecret-tools on Debian as root)`;
  }
  return undefined;
}

export async function startKeyring(password = 'keyring-test-password'): Promise<Keyring> {
  const dir = mkdtempSync(join(tmpdir(), 'browse-keyring-'));
  const run = join(dir, 'run');
  mkdirSync(run, { mode: 0o700 });
  const bus = spawn('dbus-daemon', ['--session', '--nofork', '--print-address=1', '--nopidfile'], { stdio: ['ignore', 'pipe', 'ignore'] });
  const address = await new Promise<string>((resolve, reject) => {
    let out = '';
    bus.stdout!.on('data', (d) => {
      out += String(d);
      if (out.includes('\n')) resolve(out.trim());
    });
    bus.on('exit', () => reject(new Error('dbus-daemon exited')));
  });
  const env = { DBUS_SESSION_BUS_ADDRESS: address, XDG_DATA_HOME: join(dir, 'data'), XDG_RUNTIME_DIR: run };
  const keyring: ChildProcess = spawn('gnome-keyring-daemon', ['--foreground', '--unlock', '--components=secrets'], { env: { ...process.env, ...env, HOME: dir }, stdio: ['pipe', 'ignore', 'ignore'] });
  keyring.stdin!.end(password);
  // Ready once our keyring owns the Secret Service name; asking earlier would make D-Bus start a locked one.
  const ask = ['--session', '--print-reply', '--dest=org.freedesktop.DBus', '/org/freedesktop/DBus', 'org.freedesktop.DBus.NameHasOwner', 'string:org.freedesktop.secrets'];
  for (let i = 0; ; i++) {
    const r = spawnSync('dbus-send', ask, { env: { ...process.env, ...env }, encoding: 'utf8', timeout: 3000 });
    if (r.stdout?.includes('boolean true')) break;
    if (i === 200) throw new Error('gnome-keyring did not come up on the private D-Bus session');
    await Bun.sleep(25);
  }
  return {
    env,
    stop() {
      keyring.kill('SIGKILL');
      bus.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Stores (replacing) the password Chromium keeps in the keyring for `application`. */
export function setKeyringPassword(keyring: Keyring, application: string, password: string): void {
  const env = { ...process.env, ...keyring.env };
  spawnSync('secret-tool', ['clear', 'application', application], { env, stdio: 'ignore' });
  const r = spawnSync('secret-tool', ['store', '--label', 'Chromium Safe Storage', 'application', application], { env, input: password, stdio: ['pipe', 'ignore', 'pipe'] });
  if (r.status !== 0) throw new Error(`secret-tool store failed: ${r.stderr}`);
}

/** A daemon session's cookies, values included, read back through `state save` (output never shows values). */
export async function savedCookies(run: (...args: string[]) => Promise<{ code: number; stderr: string }>, daemonDir: string): Promise<Cookie[]> {
  const name = `s${randomBytes(4).toString('hex')}`;
  const r = await run('state', 'save', name);
  if (r.code !== 0) throw new Error(r.stderr);
  return JSON.parse(readFileSync(join(daemonDir, '.gstack', 'browse-states', `${name}.json`), 'utf8')).cookies;
}
