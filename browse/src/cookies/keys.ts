// Where each platform keeps the cookie key: a fixed password (Linux v10), the desktop keyring (Linux v11),
// the macOS Keychain, or DPAPI via Local State (Windows). Keys live in memory for the daemon's life only.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BrowseError } from '../errors';
import type { BrowserInfo } from './browsers';
import { deriveKey, LINUX_ITERATIONS, LINUX_V10_PASSWORD, MACOS_ITERATIONS, type KeySource, type Platform } from './decrypt';

export interface HelperResult {
  code: number | null;
  stdout: string;
  /** The helper program is not installed. */
  missing: boolean;
  timedOut: boolean;
}

/** Runs a helper with an argument array (never a shell string); the secret comes back on stdout only. */
export function runHelper(cmd: string, args: string[], opts: { input?: string; timeoutMs: number }): Promise<HelperResult> {
  return new Promise((resolve) => {
    const child = execFile(cmd, args, { timeout: opts.timeoutMs, maxBuffer: 1 << 20, windowsHide: true, encoding: 'utf8' }, (err, stdout) => {
      const e = err as (NodeJS.ErrnoException & { killed?: boolean; code?: number | string }) | null;
      resolve({
        code: e ? (typeof e.code === 'number' ? e.code : null) : 0,
        stdout: String(stdout ?? ''),
        missing: e?.code === 'ENOENT',
        timedOut: Boolean(e?.killed),
      });
    });
    child.stdin?.end(opts.input ?? '');
  });
}

const cache = new Map<string, Promise<Buffer>>();

/** One key per (platform, browser, kind) for the daemon's life; a failed lookup is forgotten so a retry asks again. */
function cached(id: string, load: () => Promise<Buffer>): Promise<Buffer> {
  let p = cache.get(id);
  if (!p) {
    p = load();
    cache.set(id, p);
    p.catch(() => cache.delete(id));
  }
  return p;
}

export function forgetKeys(): void {
  cache.clear();
}

export const KEYCHAIN_TIMEOUT_MS = 30_000;

/** macOS: the "<Browser> Safe Storage" password; the Keychain prompt is the user's consent. */
export async function macKeychainPassword(browser: BrowserInfo, run = runHelper): Promise<string> {
  const { keychainService: service, keychainAccount: account } = browser.mac!;
  const r = await run('security', ['find-generic-password', '-w', '-s', service, '-a', account], { timeoutMs: KEYCHAIN_TIMEOUT_MS });
  if (r.code === 0 && r.stdout.trim()) return r.stdout.replace(/\n$/, '');
  if (r.missing) throw new BrowseError('The macOS `security` tool was not found.', 'Run this on macOS, where /usr/bin/security is part of the system.');
  if (r.timedOut) {
    throw new BrowseError(`No answer to the Keychain prompt for "${service}" within ${KEYCHAIN_TIMEOUT_MS / 1000}s.`, `Run the command again and click "Allow" (or "Always Allow") in the Keychain dialog.`);
  }
  if (r.code === 44) {
    throw new BrowseError(`The Keychain has no "${service}" item.`, `Open ${browser.name} once (it creates the item), or pick another browser with \`cookie-import-browser\`.`);
  }
  // 51 / 128 / 36: the user denied the prompt, or no prompt could be shown.
  throw new BrowseError(`Access to "${service}" in the Keychain was denied (security exit ${r.code}).`, `Run the command again and click "Allow" in the Keychain dialog; to stop the prompts, choose "Always Allow".`);
}

/** Linux: the password Chromium stored in libsecret; undefined with a reason when there is none. */
export async function linuxKeyringPassword(browser: BrowserInfo, run = runHelper): Promise<{ password?: string; problem?: string }> {
  for (const app of browser.linux?.secretApps ?? []) {
    const r = await run('secret-tool', ['lookup', 'application', app], { timeoutMs: 10_000 });
    if (r.missing) return { problem: 'v11 values need the desktop keyring, but secret-tool is not installed (Debian/Ubuntu: apt-get install libsecret-tools)' };
    if (r.timedOut) return { problem: 'the desktop keyring did not answer within 10s (is it locked?)' };
    if (r.code === 0 && r.stdout.length) return { password: r.stdout.replace(/\n$/, '') };
  }
  return { problem: `the desktop keyring has no "${browser.name} Safe Storage" password (is the keyring unlocked, and is this the same login session?)` };
}

/** Windows: Local State holds the AES-256 key, DPAPI-protected with a "DPAPI" prefix. */
export async function windowsMasterKey(dataDir: string, unprotect: (blob: Buffer) => Promise<Buffer> = dpapiUnprotect): Promise<Buffer> {
  const file = join(dataDir, 'Local State');
  let encoded: unknown;
  try {
    encoded = (JSON.parse(readFileSync(file, 'utf8')) as { os_crypt?: { encrypted_key?: unknown } }).os_crypt?.encrypted_key;
  } catch {
    throw new BrowseError(`Cannot read the browser's key file ${file}.`, 'Open the browser once so it writes Local State, then retry.');
  }
  const blob = typeof encoded === 'string' ? Buffer.from(encoded, 'base64') : Buffer.alloc(0);
  if (blob.subarray(0, 5).toString('latin1') !== 'DPAPI') {
    throw new BrowseError(`${file} has no DPAPI-protected cookie key (os_crypt.encrypted_key).`, 'This browser version stores its key another way; export cookies from the browser and use `cookie-import <file>` instead.');
  }
  const key = await unprotect(blob.subarray(5));
  if (key.length !== 32) throw new BrowseError('DPAPI returned a key of the wrong size.', 'Run the command as the Windows user who owns the browser profile.');
  return key;
}

/** DPAPI through PowerShell; the protected key goes in on stdin, the key comes back base64 on stdout. */
async function dpapiUnprotect(blob: Buffer): Promise<Buffer> {
  const script =
    'Add-Type -AssemblyName System.Security; $b=[Convert]::FromBase64String([Console]::In.ReadToEnd().Trim()); ' +
    "[Convert]::ToBase64String([Security.Cryptography.ProtectedData]::Unprotect($b,$null,'CurrentUser'))";
  const r = await runHelper('powershell.exe', ['-NoProfile', '-NonInteractive', '-Command', script], { input: blob.toString('base64'), timeoutMs: 20_000 });
  if (r.code !== 0 || !r.stdout.trim()) {
    throw new BrowseError('Windows DPAPI could not unprotect the browser key.', r.missing ? 'PowerShell was not found; run on Windows as the profile’s user.' : 'Run as the Windows user who owns the browser profile.');
  }
  return Buffer.from(r.stdout.trim(), 'base64');
}

/** The keys one browser's rows may need on this platform, each fetched on first use. */
export function keySource(browser: BrowserInfo, dataDir: string, platform: Platform, problems: { v11?: string }): KeySource {
  const id = `${platform}:${browser.id}`;
  if (platform === 'win32') {
    return { v10: () => cached(`${id}:${dataDir}`, () => windowsMasterKey(dataDir)), v11: async () => [] };
  }
  if (platform === 'darwin') {
    return { v10: () => cached(id, async () => deriveKey(await macKeychainPassword(browser), MACOS_ITERATIONS)), v11: async () => [] };
  }
  const empty = deriveKey('', LINUX_ITERATIONS);
  let v11: Promise<Buffer[]> | undefined; // one keyring lookup per import, even when it fails
  const loadV11 = async () => {
    try {
      const key = await cached(`${id}:v11`, async () => {
        const r = await linuxKeyringPassword(browser);
        if (r.password === undefined) throw new Error(r.problem);
        return deriveKey(r.password, LINUX_ITERATIONS);
      });
      return [key, empty];
    } catch (e) {
      problems.v11 = (e as Error).message;
      return [empty]; // Chromium itself falls back to an empty password when the keyring misbehaves
    }
  };
  return { v10: async () => deriveKey(LINUX_V10_PASSWORD, LINUX_ITERATIONS), v11: () => (v11 ??= loadV11()) };
}
