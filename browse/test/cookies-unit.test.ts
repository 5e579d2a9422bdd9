// Cookie import without a browser: key derivation and decryption against vectors made by independent tools
// (openssl, WebCrypto), the macOS/Linux key helpers through real spawned fake tools, Windows' Local State key,
// profile discovery on fake homes, and the cookie DB reader on DBs written here.
import { Database } from 'bun:sqlite';
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { BrowseError } from '../src/errors';
import { BROWSERS, findBrowser, findProfile, installedBrowsers, type BrowserInfo, type Env } from '../src/cookies/browsers';
import { readCookieDb, readCookieHosts } from '../src/cookies/db';
import { decryptValue, deriveKey, UndecryptableError, type KeySource, type Platform } from '../src/cookies/decrypt';
import { expiresFromChromium, hostMatches, normalizeDomain } from '../src/cookies/import';
import { KEYCHAIN_TIMEOUT_MS, linuxKeyringPassword, macKeychainPassword, runHelper, windowsMasterKey } from '../src/cookies/keys';

const ROOT = mkdtempSync(join(tmpdir(), 'browse-cookies-unit-'));
afterAll(() => rmSync(ROOT, { recursive: true, force: true }));
let dirCount = 0;
const freshDir = (label: string) => {
  const d = join(ROOT, `${label}-${++dirCount}`);
  mkdirSync(d, { recursive: true });
  return d;
};

/** Runs an independent tool (openssl, python3) with an argument array and binary stdin/stdout. */
function tool(cmd: string[], input: Uint8Array = new Uint8Array()): { ok: boolean; out: Buffer; err: string } {
  const r = Bun.spawnSync(cmd, { stdin: input, stdout: 'pipe', stderr: 'pipe' });
  return { ok: r.exitCode === 0, out: Buffer.from(r.stdout), err: r.stderr.toString() };
}
function mustTool(cmd: string[], input?: Uint8Array): Buffer {
  const r = tool(cmd, input);
  if (!r.ok) throw new Error(`${cmd.slice(0, 2).join(' ')} failed: ${r.err}`);
  return r.out;
}

/** PBKDF2-HMAC-SHA1(password, "saltysalt", iterations) → 16 bytes, by `openssl kdf`, else Python's hashlib. */
function referenceKey(password: string, iterations: number): Buffer {
  const ossl = tool(['openssl', 'kdf', '-keylen', '16', '-kdfopt', 'digest:SHA1', '-kdfopt', `pass:${password}`, '-kdfopt', 'salt:saltysalt', '-kdfopt', `iter:${iterations}`, 'PBKDF2']);
  if (ossl.ok) return Buffer.from(ossl.out.toString().trim().replace(/:/g, ''), 'hex');
  const py = "import hashlib,sys;print(hashlib.pbkdf2_hmac('sha1',sys.argv[1].encode(),b'saltysalt',int(sys.argv[2]),16).hex())";
  return Buffer.from(mustTool(['python3', '-c', py, password, String(iterations)]).toString().trim(), 'hex');
}

const sha256 = (data: string | Buffer) => mustTool(['openssl', 'dgst', '-sha256', '-binary'], Buffer.from(data));

/** Chromium's CBC value: 'v10'/'v11' + AES-128-CBC(IV of 16 spaces), with SHA-256(host) first from DB version 24. */
function cbcValue(prefix: string, key: Buffer, plain: Buffer, hashHost?: string): Buffer {
  const body = hashHost === undefined ? plain : Buffer.concat([sha256(hashHost), plain]);
  const ct = mustTool(['openssl', 'enc', '-aes-128-cbc', '-K', key.toString('hex'), '-iv', '20'.repeat(16)], body);
  return Buffer.concat([Buffer.from(prefix), ct]);
}

/** Windows' GCM value by WebCrypto: prefix + 12-byte nonce + ciphertext + 16-byte tag. */
async function gcmValue(prefix: string, key: Buffer, nonce: Buffer, plain: Buffer, hashHost?: string): Promise<Buffer> {
  const body = hashHost === undefined ? plain : Buffer.concat([sha256(hashHost), plain]);
  const k = await crypto.subtle.importKey('raw', new Uint8Array(key), 'AES-GCM', false, ['encrypt']);
  const sealed = Buffer.from(await crypto.subtle.encrypt({ name: 'AES-GCM', iv: new Uint8Array(nonce) }, k, new Uint8Array(body)));
  return Buffer.concat([Buffer.from(prefix), nonce, sealed]);
}

const keysOf = (v10: Buffer, v11: Buffer[] = []): KeySource => ({ v10: async () => v10, v11: async () => v11 });
/** A key source that fails the test if a key is asked for (a keychain prompt must not happen for nothing). */
const noKeys: KeySource = {
  v10: async () => {
    throw new Error('v10 key was requested');
  },
  v11: async () => {
    throw new Error('v11 key was requested');
  },
};

async function undecryptableReason(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(UndecryptableError);
    return (e as Error).message;
  }
  throw new Error('expected UndecryptableError, but the value decrypted');
}

function browseErrorOf(fn: () => unknown): BrowseError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(BrowseError);
    return e as BrowseError;
  }
  throw new Error('expected a BrowseError');
}
async function browseErrorOfAsync(p: Promise<unknown>): Promise<BrowseError> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(BrowseError);
    return e as BrowseError;
  }
  throw new Error('expected a BrowseError');
}

const PLAINTEXTS: Record<string, Buffer> = {
  'ascii session id': Buffer.from('sess-4f2a9c'),
  'multi-byte UTF-8': Buffer.from('café ☕ 日本語 🍪'),
  empty: Buffer.alloc(0),
  'exactly 16 bytes': Buffer.from('0123456789abcdef'),
  'exactly 32 bytes (a hash-sized value)': Buffer.from('0123456789abcdef0123456789abcdef'),
  '4 KB': Buffer.from('x'.repeat(4000) + 'END!'.repeat(24)),
};
const HOST = '.github.com';
const browser = (id: string) => BROWSERS.find((b) => b.id === id)!;

describe('key derivation', () => {
  test("Linux v10 key is PBKDF2-SHA1('peanuts', 'saltysalt', 1), the same as openssl's and the published Chromium key", () => {
    const expected = referenceKey('peanuts', 1);
    expect(expected.toString('hex')).toBe('fd621fe5a2b402539dfa147ca9272778');
    expect(deriveKey('peanuts', 1).equals(expected)).toBe(true);
  });

  test('macOS key from a Keychain password with 1003 iterations matches openssl', () => {
    const password = 'q8Zr3x+Tf1LmN0pQ/eW9aA==';
    expect(deriveKey(password, 1003).equals(referenceKey(password, 1003))).toBe(true);
    expect(deriveKey(password, 1003).equals(referenceKey(password, 1))).toBe(false);
  });
});

describe('AES-128-CBC values (Linux and macOS)', () => {
  const linuxKey = referenceKey('peanuts', 1);
  const macPassword = 'q8Zr3x+Tf1LmN0pQ/eW9aA==';
  const macKey = referenceKey(macPassword, 1003);
  const cases: [Platform, Buffer][] = [
    ['linux', linuxKey],
    ['darwin', macKey],
  ];

  for (const [platform, key] of cases) {
    for (const [label, plain] of Object.entries(PLAINTEXTS)) {
      test(`${platform}: ${label} value decrypts exactly at DB version 24 (host hash checked and removed)`, async () => {
        const value = cbcValue('v10', key, plain, HOST);
        expect(await decryptValue(platform, value, HOST, 24, keysOf(key))).toBe(plain.toString('utf8'));
      });
      test(`${platform}: ${label} value decrypts whole at DB version 23 (nothing stripped)`, async () => {
        const value = cbcValue('v10', key, plain);
        expect(await decryptValue(platform, value, HOST, 23, keysOf(key))).toBe(plain.toString('utf8'));
      });
    }
  }

  test('a value without a host hash at version 24 is undecryptable, not silently cut by 32 bytes', async () => {
    const value = cbcValue('v10', linuxKey, Buffer.from('a'.repeat(64)));
    expect(await undecryptableReason(decryptValue('linux', value, HOST, 24, keysOf(linuxKey)))).toBe('host hash mismatch');
  });

  test("a value hashed for another host at version 24 is undecryptable", async () => {
    const value = cbcValue('v10', linuxKey, Buffer.from('token'), '.evil.com');
    expect(await undecryptableReason(decryptValue('linux', value, HOST, 24, keysOf(linuxKey)))).toBe('host hash mismatch');
  });

  test('a wrong key is undecryptable, named after the platform key source', async () => {
    const wrong = referenceKey('not-the-password', 1003);
    const mac = cbcValue('v10', macKey, Buffer.from('value-of-some-length'), HOST);
    expect(await undecryptableReason(decryptValue('darwin', mac, HOST, 24, keysOf(wrong)))).toMatch(/Keychain key does not decrypt/);
    const linux = cbcValue('v10', linuxKey, Buffer.from('value-of-some-length'));
    expect(await undecryptableReason(decryptValue('linux', linux, HOST, 23, keysOf(wrong)))).toMatch(/v10 key does not decrypt/);
  });

  test('Linux v11 tries the keyring key, then the empty-password fallback', async () => {
    const keyring = referenceKey('keyring-secret', 1);
    const empty = referenceKey('', 1);
    const byKeyring = cbcValue('v11', keyring, Buffer.from('from-keyring'), HOST);
    const byEmpty = cbcValue('v11', empty, Buffer.from('from-empty'), HOST);
    const keys = keysOf(linuxKey, [keyring, empty]);
    expect(await decryptValue('linux', byKeyring, HOST, 24, keys)).toBe('from-keyring');
    expect(await decryptValue('linux', byEmpty, HOST, 24, keys)).toBe('from-empty');
    expect(await undecryptableReason(decryptValue('linux', byKeyring, HOST, 24, keysOf(linuxKey, [empty])))).toMatch(/keyring password/);
  });

  test('a ciphertext that is not whole AES blocks is undecryptable', async () => {
    const value = cbcValue('v10', linuxKey, Buffer.from('abc'));
    await undecryptableReason(decryptValue('linux', value.subarray(0, value.length - 1), HOST, 23, keysOf(linuxKey)));
  });

  test('an unknown prefix is undecryptable without asking for any key', async () => {
    expect(await undecryptableReason(decryptValue('linux', Buffer.from('v99abcdefabcdefabcdef'), HOST, 24, noKeys))).toMatch(/unknown encryption prefix 'v99'/);
    expect(await undecryptableReason(decryptValue('darwin', Buffer.from('v11abcdefabcdefabcdef'), HOST, 24, noKeys))).toMatch(/unknown encryption prefix 'v11'/);
    expect(await undecryptableReason(decryptValue('darwin', Buffer.from([0x01, 0x00, 0x7f, 1, 2, 3]), HOST, 24, noKeys))).toMatch(/unknown encryption prefix '\?\?\?'/);
  });
});

describe('AES-256-GCM values (Windows)', () => {
  const key = sha256('browse test windows key');
  const nonce = Buffer.from('0a1b2c3d4e5f60718293a4b5', 'hex');

  test("WebCrypto's GCM ciphertext is the AES-256-CTR stream from nonce||00000002 (openssl), so the vectors are sound", async () => {
    const plain = Buffer.from('cross-check: '.repeat(10));
    const value = await gcmValue('v10', key, nonce, plain);
    const ciphertext = value.subarray(3 + 12, value.length - 16);
    const ctr = mustTool(['openssl', 'enc', '-aes-256-ctr', '-K', key.toString('hex'), '-iv', `${nonce.toString('hex')}00000002`], plain);
    expect(ciphertext.equals(ctr)).toBe(true);
    expect(value.length).toBe(3 + 12 + plain.length + 16);
  });

  for (const [label, plain] of Object.entries(PLAINTEXTS)) {
    test(`${label} value decrypts exactly at version 24 and at version 23`, async () => {
      expect(await decryptValue('win32', await gcmValue('v10', key, nonce, plain, HOST), HOST, 24, keysOf(key))).toBe(plain.toString('utf8'));
      expect(await decryptValue('win32', await gcmValue('v10', key, nonce, plain), HOST, 23, keysOf(key))).toBe(plain.toString('utf8'));
    });
  }

  test('v11 values are AES-GCM too', async () => {
    expect(await decryptValue('win32', await gcmValue('v11', key, nonce, Buffer.from('eleven'), HOST), HOST, 24, keysOf(key))).toBe('eleven');
  });

  test('a value hashed for another host at version 24 is reported as a host hash mismatch', async () => {
    const value = await gcmValue('v10', key, nonce, Buffer.from('token'), 'other.example');
    expect(await undecryptableReason(decryptValue('win32', value, HOST, 24, keysOf(key)))).toBe('host hash mismatch');
  });

  test('a tampered tag, a tampered ciphertext, a wrong key or a truncated value fail authentication', async () => {
    const value = await gcmValue('v10', key, nonce, Buffer.from('authentic value'), HOST);
    const tag = Buffer.from(value);
    tag[tag.length - 1] ^= 0x01;
    const body = Buffer.from(value);
    body[3 + 12] ^= 0x80;
    for (const [bad, k] of [
      [tag, key],
      [body, key],
      [value, sha256('another key')],
      [value.subarray(0, 3 + 20), key],
    ] as const) {
      expect(await undecryptableReason(decryptValue('win32', bad, HOST, 24, keysOf(k)))).toMatch(/AES-GCM authentication failed/);
    }
  });

  test('app-bound v20 and legacy DPAPI values are named, and no key is fetched for them', async () => {
    const v20 = await gcmValue('v20', key, nonce, Buffer.from('bound'), HOST);
    expect(await undecryptableReason(decryptValue('win32', v20, HOST, 24, noKeys))).toMatch(/app-bound/);
    const dpapi = Buffer.from('01000000d08c9ddf0115d1118c7a00c04fc297eb', 'hex');
    expect(await undecryptableReason(decryptValue('win32', dpapi, HOST, 24, noKeys))).toMatch(/legacy DPAPI/);
  });
});

describe('windowsMasterKey (Local State + DPAPI)', () => {
  const key = sha256('browse test windows key');
  const writeLocalState = (content: unknown) => {
    const dir = freshDir('win-local-state');
    writeFileSync(join(dir, 'Local State'), typeof content === 'string' ? content : JSON.stringify(content));
    return dir;
  };
  const protectedBlob = Buffer.from('protected-by-dpapi-blob-bytes');

  test('reads os_crypt.encrypted_key, hands DPAPI the blob without its prefix, and the key decrypts a GCM value', async () => {
    const dir = writeLocalState({ os_crypt: { encrypted_key: Buffer.concat([Buffer.from('DPAPI'), protectedBlob]).toString('base64') } });
    const seen: Buffer[] = [];
    const got = await windowsMasterKey(dir, async (blob) => {
      seen.push(Buffer.from(blob));
      return key;
    });
    expect(seen.map((b) => b.toString())).toEqual([protectedBlob.toString()]);
    expect(got.equals(key)).toBe(true);
    const value = await gcmValue('v10', key, Buffer.alloc(12, 7), Buffer.from('windows cookie'), HOST);
    expect(await decryptValue('win32', value, HOST, 24, keysOf(got))).toBe('windows cookie');
  });

  const neverCalled = async (): Promise<Buffer> => {
    throw new Error('DPAPI must not be called');
  };

  test('a missing or unparsable Local State says to open the browser once', async () => {
    for (const dir of [freshDir('win-empty'), writeLocalState('{not json')]) {
      const e = await browseErrorOfAsync(windowsMasterKey(dir, neverCalled));
      expect(e.message).toContain("Cannot read the browser's key file");
      expect(e.message).toContain(join(dir, 'Local State'));
      expect(e.hint).toMatch(/Open the browser once/);
    }
  });

  test('a key without the DPAPI prefix, or no key at all, is refused before DPAPI is called', async () => {
    for (const content of [
      { os_crypt: { encrypted_key: Buffer.concat([Buffer.from('APPB'), protectedBlob]).toString('base64') } },
      { os_crypt: {} },
      { other: true },
    ]) {
      const e = await browseErrorOfAsync(windowsMasterKey(writeLocalState(content), neverCalled));
      expect(e.message).toContain('has no DPAPI-protected cookie key');
      expect(e.hint).toContain('cookie-import <file>');
    }
  });

  test('a DPAPI result that is not 32 bytes is refused', async () => {
    const dir = writeLocalState({ os_crypt: { encrypted_key: Buffer.concat([Buffer.from('DPAPI'), protectedBlob]).toString('base64') } });
    const e = await browseErrorOfAsync(windowsMasterKey(dir, async () => key.subarray(0, 16)));
    expect(e.message).toContain('wrong size');
    expect(e.hint).toMatch(/Windows user/);
  });
});

/** A fake helper tool in its own dir: records its arguments (one per line) in <dir>/<name>.args, then runs `body`. */
function fakeTool(name: string, body: string): { run: typeof runHelper; argsSeen: () => string[]; dir: string } {
  const dir = freshDir(`bin-${name}`);
  const file = join(dir, name);
  writeFileSync(file, `#!/bin/sh\nprintf '%s\\n' "$@" >> "$(dirname "$0")/${name}.args"\n${body}\n`);
  chmodSync(file, 0o755);
  // The real runHelper and execFile; only the command is resolved in the fake tool's dir.
  const run: typeof runHelper = (cmd, args, opts) => runHelper(join(dir, cmd), args, opts);
  const argsFile = join(dir, `${name}.args`);
  return { run, dir, argsSeen: () => (existsSync(argsFile) ? readFileSync(argsFile, 'utf8').split('\n').slice(0, -1) : []) };
}
/** Same tool, with a short timeout instead of the production one (the wait itself is what is tested). */
const withTimeout = (run: typeof runHelper, timeoutMs: number): typeof runHelper => (cmd, args, opts) => run(cmd, args, { ...opts, timeoutMs });

describe('macOS Keychain through a spawned `security`', () => {
  const chrome = browser('chrome');

  test('the password is returned without its newline, asked for with the browser’s service and account', async () => {
    const fake = fakeTool('security', `printf '%s\\n' 'pa$$ word/with+chars=='`);
    expect(await macKeychainPassword(chrome, fake.run)).toBe('pa$$ word/with+chars==');
    expect(fake.argsSeen()).toEqual(['find-generic-password', '-w', '-s', 'Chrome Safe Storage', '-a', 'Chrome']);
    const brave = fakeTool('security', `echo secret`);
    await macKeychainPassword(browser('brave'), brave.run);
    expect(brave.argsSeen()).toEqual(['find-generic-password', '-w', '-s', 'Brave Safe Storage', '-a', 'Brave']);
  });

  const failures: Record<string, { body: string; timeoutMs?: number; message: RegExp; hint: RegExp }> = {
    'exit 44: no item': { body: 'exit 44', message: /Keychain has no "Chrome Safe Storage" item/, hint: /Open Chrome once/ },
    'exit 51: denied': { body: 'exit 51', message: /Access to "Chrome Safe Storage" in the Keychain was denied \(security exit 51\)/, hint: /click "Allow"/ },
    'exit 128: prompt cancelled': { body: 'exit 128', message: /was denied \(security exit 128\)/, hint: /click "Allow"/ },
    'no answer in time': {
      body: 'exec sleep 30',
      timeoutMs: 300,
      message: new RegExp(`No answer to the Keychain prompt for "Chrome Safe Storage" within ${KEYCHAIN_TIMEOUT_MS / 1000}s`),
      hint: /Run the command again and click "Allow"/,
    },
  };
  const seen: BrowseError[] = [];
  for (const [label, c] of Object.entries(failures)) {
    test(`${label} → a BrowseError that says what to do`, async () => {
      const fake = fakeTool('security', c.body);
      const started = performance.now();
      const e = await browseErrorOfAsync(macKeychainPassword(chrome, c.timeoutMs ? withTimeout(fake.run, c.timeoutMs) : fake.run));
      expect(e.message).toMatch(c.message);
      expect(e.hint ?? '').toMatch(c.hint);
      expect(fake.argsSeen().length).toBe(6); // the tool really ran
      if (c.timeoutMs) expect(performance.now() - started).toBeLessThan(5_000);
      seen.push(e);
    });
  }

  test('a missing `security` tool is its own error', async () => {
    const fake = fakeTool('security', 'exit 0');
    const e = await browseErrorOfAsync(macKeychainPassword(chrome, (cmd, args, opts) => fake.run(`${cmd}-not-installed`, args, opts)));
    expect(e.message).toMatch(/`security` tool was not found/);
    expect(e.hint).toMatch(/macOS/);
    seen.push(e);
  });

  test('every Keychain failure has a distinct message and hint', () => {
    expect(seen.length).toBe(Object.keys(failures).length + 1);
    expect(new Set(seen.map((e) => e.message)).size).toBe(seen.length);
    const kinds = seen.filter((e) => !/exit 128/.test(e.message)); // 51 and 128 are the same kind: denied
    expect(new Set(kinds.map((e) => e.hint)).size).toBe(kinds.length);
  });
});

describe('Linux keyring through a spawned `secret-tool`', () => {
  test('the stored password is returned, looked up by the browser’s application attribute', async () => {
    const fake = fakeTool('secret-tool', `[ "$3" = chrome ] && printf '%s' 'Kx9/keyring+pw==' && exit 0\nexit 1`);
    expect(await linuxKeyringPassword(browser('chrome'), fake.run)).toEqual({ password: 'Kx9/keyring+pw==' });
    expect(fake.argsSeen()).toEqual(['lookup', 'application', 'chrome']);
  });

  test('each application attribute is tried in order until one has a password', async () => {
    const fake = fakeTool('secret-tool', `[ "$3" = chromium ] && echo edge-pw && exit 0\nexit 1`);
    expect(await linuxKeyringPassword(browser('edge'), fake.run)).toEqual({ password: 'edge-pw' });
    expect(fake.argsSeen()).toEqual(['lookup', 'application', 'microsoft-edge', 'lookup', 'application', 'chromium']);
  });

  test('nothing stored → a problem naming the Safe Storage item, no password', async () => {
    const fake = fakeTool('secret-tool', 'exit 1');
    const r = await linuxKeyringPassword(browser('chromium'), fake.run);
    expect(r.password).toBeUndefined();
    expect(r.problem).toMatch(/keyring has no "Chromium Safe Storage" password/);
  });

  test('secret-tool not installed → a problem saying how to install it', async () => {
    const fake = fakeTool('secret-tool', 'exit 0');
    const r = await linuxKeyringPassword(browser('chrome'), (cmd, args, opts) => fake.run(`${cmd}-not-installed`, args, opts));
    expect(r.password).toBeUndefined();
    expect(r.problem).toMatch(/secret-tool is not installed.*libsecret-tools/);
  });

  test('a keyring that does not answer in time → a problem asking whether it is locked', async () => {
    const fake = fakeTool('secret-tool', 'exec sleep 30');
    const r = await linuxKeyringPassword(browser('chrome'), withTimeout(fake.run, 300));
    expect(r.problem).toMatch(/did not answer.*locked/);
  });
});

/** Creates each file (and its folders); empty unless content is given. */
function layout(root: string, files: Record<string, string>) {
  for (const [rel, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, rel)), { recursive: true });
    writeFileSync(join(root, rel), content);
  }
}

describe('browser and profile discovery', () => {
  const mac = freshDir('home-mac');
  const macEnv: Env = { platform: 'darwin', home: mac, vars: {} };
  const AS = 'Library/Application Support';
  beforeAll(() => {
    layout(mac, {
      [`${AS}/Google/Chrome/Default/Cookies`]: '',
      [`${AS}/Google/Chrome/Profile 1/Cookies`]: '',
      [`${AS}/Google/Chrome/Profile 1/Preferences`]: JSON.stringify({ profile: { name: 'Work' } }),
      [`${AS}/Google/Chrome/Profile 10/Network/Cookies`]: '',
      [`${AS}/Google/Chrome/Profile 2/Cookies`]: '',
      [`${AS}/Google/Chrome/Local State`]: JSON.stringify({ profile: { info_cache: { 'Profile 2': { name: 'Side Project' } } } }),
      [`${AS}/Google/Chrome/Profile 3/Cookies`]: '',
      [`${AS}/Google/Chrome/Profile 3/Preferences`]: JSON.stringify({ profile: { name: 'Home/Work' } }),
      [`${AS}/Google/Chrome/a..b/Cookies`]: '',
      [`${AS}/Google/Chrome/Guest Profile/Cookies`]: '',
      [`${AS}/Google/Chrome/System Profile/Cookies`]: '',
      [`${AS}/Google/Chrome/Crashpad/settings.dat`]: '',
      [`${AS}/Google/Chrome/Profile 4/Preferences`]: '{}', // no cookie DB: not a profile to offer
      [`${AS}/Arc/User Data/Default/Cookies`]: '',
      [`${AS}/com.operasoftware.Opera/Cookies`]: '',
      [`${AS}/BraveSoftware/Brave-Browser/Default/Preferences`]: '{}', // installed, never browsed
    });
  });

  test('macOS: installed browsers are those with a cookie DB, in table order', () => {
    expect(installedBrowsers(macEnv).map((b) => b.browser.id)).toEqual(['chrome', 'arc', 'opera']);
    const arc = findBrowser('arc', macEnv);
    expect(arc.dataDir).toBe(join(mac, AS, 'Arc/User Data'));
    expect(arc.profiles).toEqual([{ dir: 'Default', displayName: 'Default', cookiesPath: join(mac, AS, 'Arc/User Data/Default/Cookies') }]);
  });

  test('profiles are ordered Default, Profile 1, 2, 3, 10, then others; Guest, System and cookie-less folders are left out', () => {
    const chrome = findBrowser('chrome', macEnv);
    expect(chrome.profiles.map((p) => p.dir)).toEqual(['Default', 'Profile 1', 'Profile 2', 'Profile 3', 'Profile 10', 'a..b']);
    expect(chrome.profiles.map((p) => p.displayName)).toEqual(['Default', 'Work', 'Side Project', 'Home/Work', 'Profile 10', 'a..b']);
    expect(chrome.profiles.find((p) => p.dir === 'Profile 10')!.cookiesPath).toBe(join(mac, AS, 'Google/Chrome/Profile 10/Network/Cookies'));
  });

  test('Opera keeps its one profile in the data dir itself, named Default unless its Preferences name it', () => {
    const opera = findBrowser('Opera', macEnv);
    expect(opera.profiles).toEqual([{ dir: 'Default', displayName: 'Default', cookiesPath: join(mac, AS, 'com.operasoftware.Opera/Cookies') }]);
    expect(findProfile(opera, undefined).dir).toBe('Default');
    expect(findProfile(opera, 'default').dir).toBe('Default');
    const home = freshDir('home-opera');
    layout(home, { '.config/opera/Cookies': '', '.config/opera/Preferences': JSON.stringify({ profile: { name: 'Opera Me' } }) });
    const named = findBrowser('opera', { platform: 'linux', home, vars: {} });
    expect(named.profiles.map((p) => [p.dir, p.displayName])).toEqual([['Default', 'Opera Me']]);
  });

  test('findBrowser accepts the id, an alias or the display name, in any case', () => {
    for (const name of ['chrome', 'google-chrome', 'googlechrome', 'Chrome', ' CHROME ']) {
      expect(findBrowser(name, macEnv).browser.id).toBe('chrome');
    }
  });

  test('an unknown browser lists the installed and the known ones', () => {
    const e = browseErrorOf(() => findBrowser('netscape', macEnv));
    expect(e.message).toBe("Unknown browser 'netscape'.");
    expect(e.hint).toContain('Installed: chrome, arc, opera.');
    expect(e.hint).toContain(`Known: ${BROWSERS.map((b) => b.id).join(', ')}.`);
  });

  test('a known browser without cookies, or not made for this OS, says so and lists what is installed', () => {
    const brave = browseErrorOf(() => findBrowser('brave', macEnv));
    expect(brave.message).toContain('Brave has no profile with cookies under');
    expect(brave.hint).toContain('Installed: chrome, arc, opera.');
    const arcOnLinux = browseErrorOf(() => findBrowser('arc', { platform: 'linux', home: mac, vars: {} }));
    expect(arcOnLinux.message).toBe('Arc is not available on Linux.');
    expect(arcOnLinux.hint).toMatch(/No Chromium-family browser/);
  });

  test('findProfile: Default when none is given, else by folder or by display name, case-insensitively', () => {
    const chrome = findBrowser('chrome', macEnv);
    expect(findProfile(chrome, undefined).dir).toBe('Default');
    expect(findProfile(chrome, 'Profile 1').dir).toBe('Profile 1');
    expect(findProfile(chrome, 'profile 10').dir).toBe('Profile 10');
    expect(findProfile(chrome, 'WORK').dir).toBe('Profile 1');
    expect(findProfile(chrome, 'side project').dir).toBe('Profile 2');
  });

  test("findProfile refuses '/', '\\\\', '..', control characters and '' before looking, even when such a profile exists", () => {
    const chrome = findBrowser('chrome', macEnv);
    for (const bad of ['Home/Work', 'a..b', '../../etc', 'Profile 1\\..', 'Default\n', 'Def\x00ault', 'x\x7f', '']) {
      const e = browseErrorOf(() => findProfile(chrome, bad));
      expect(e.message).toBe('A profile name cannot contain /, \\, .. or control characters.');
      expect(e.hint).toContain('Profile 1 (Work)');
    }
  });

  test('a missing profile lists the profiles there are', () => {
    const e = browseErrorOf(() => findProfile(findBrowser('chrome', macEnv), 'Personal'));
    expect(e.message).toBe("Chrome has no profile 'Personal'.");
    expect(e.hint).toBe('Profiles: Default, Profile 1 (Work), Profile 2 (Side Project), Profile 3 (Home/Work), Profile 10, a..b. Pass one with --profile.');
  });

  test('Linux: ~/.config by default, $XDG_CONFIG_HOME when set', () => {
    const home = freshDir('home-linux');
    layout(home, {
      '.config/chromium/Default/Cookies': '',
      '.config/chromium/Profile 1/Cookies': '',
      '.config/BraveSoftware/Brave-Browser/Default/Cookies': '',
      'xdg/google-chrome/Default/Cookies': '',
    });
    const env: Env = { platform: 'linux', home, vars: {} };
    expect(installedBrowsers(env).map((b) => b.browser.id)).toEqual(['chromium', 'brave']);
    expect(findBrowser('brave-browser', env).profiles[0].cookiesPath).toBe(join(home, '.config/BraveSoftware/Brave-Browser/Default/Cookies'));
    const xdg: Env = { platform: 'linux', home, vars: { XDG_CONFIG_HOME: join(home, 'xdg') } };
    expect(installedBrowsers(xdg).map((b) => b.browser.id)).toEqual(['chrome']);
    expect(findBrowser('chrome', xdg).dataDir).toBe(join(home, 'xdg/google-chrome'));
  });

  test('Windows: Network/Cookies is preferred over the old root Cookies; %LOCALAPPDATA% and %APPDATA% are honoured; Opera is under Roaming', () => {
    const home = freshDir('home-win');
    layout(home, {
      'AppData/Local/Google/Chrome/User Data/Default/Network/Cookies': '',
      'AppData/Local/Google/Chrome/User Data/Default/Cookies': '',
      'AppData/Local/Google/Chrome/User Data/Profile 1/Cookies': '',
      'AppData/Roaming/Opera Software/Opera Stable/Network/Cookies': '',
      'Elsewhere/Local/Microsoft/Edge/User Data/Default/Network/Cookies': '',
      'Elsewhere/Roaming/Opera Software/Opera Stable/Cookies': '',
    });
    const env: Env = { platform: 'win32', home, vars: {} };
    expect(installedBrowsers(env).map((b) => b.browser.id)).toEqual(['chrome', 'opera']);
    const chrome = findBrowser('chrome', env);
    expect(chrome.profiles.map((p) => p.cookiesPath)).toEqual([
      join(home, 'AppData/Local/Google/Chrome/User Data/Default/Network/Cookies'),
      join(home, 'AppData/Local/Google/Chrome/User Data/Profile 1/Cookies'),
    ]);
    expect(findBrowser('opera', env).profiles[0].cookiesPath).toBe(join(home, 'AppData/Roaming/Opera Software/Opera Stable/Network/Cookies'));
    const moved: Env = { platform: 'win32', home, vars: { LOCALAPPDATA: join(home, 'Elsewhere/Local'), APPDATA: join(home, 'Elsewhere/Roaming') } };
    expect(installedBrowsers(moved).map((b) => b.browser.id)).toEqual(['edge', 'opera']);
    expect(findBrowser('msedge', moved).dataDir).toBe(join(home, 'Elsewhere/Local/Microsoft/Edge/User Data'));
    expect(findBrowser('opera', moved).profiles[0].cookiesPath).toBe(join(home, 'Elsewhere/Roaming/Opera Software/Opera Stable/Cookies'));
  });

  test('an empty home has no browsers, and says so', () => {
    const env: Env = { platform: 'linux', home: freshDir('home-empty'), vars: {} };
    expect(installedBrowsers(env)).toEqual([]);
    expect(browseErrorOf(() => findBrowser('chromium', env)).hint).toMatch(/No Chromium-family browser with a cookie database was found/);
  });
});

describe('domain helpers', () => {
  test('normalizeDomain turns URLs, dots and case into a bare host name', () => {
    expect(normalizeDomain('https://GitHub.com/login?x=1')).toBe('github.com');
    expect(normalizeDomain('http://user:pw@api.example.org:8080/')).toBe('api.example.org');
    expect(normalizeDomain('.github.com')).toBe('github.com');
    expect(normalizeDomain('GITHUB.COM.')).toBe('github.com');
    expect(normalizeDomain('  localhost ')).toBe('localhost');
  });

  test('normalizeDomain refuses what is not a host name', () => {
    for (const bad of ['', '   ', 'github.com/path', 'a b.com', 'foo..bar', '../etc/passwd', 'http://', 'a'.repeat(254), '*.github.com', 'javascript:alert(1)']) {
      const e = browseErrorOf(() => normalizeDomain(bad));
      expect(e.message).toMatch(/is not a domain/);
      expect(e.hint).toMatch(/github\.com/);
    }
  });

  test('hostMatches covers the domain, its subdomains and dot-prefixed host keys, and nothing that merely ends alike', () => {
    for (const host of ['github.com', '.github.com', 'api.github.com', '.gist.api.github.com', 'GitHub.COM']) {
      expect(hostMatches(host, ['github.com'])).toBe(true);
    }
    for (const host of ['notgithub.com', '.notgithub.com', 'github.com.evil.com', 'github.co', 'com']) {
      expect(hostMatches(host, ['github.com'])).toBe(false);
    }
    expect(hostMatches('example.org', ['github.com', 'example.org'])).toBe(true);
    expect(hostMatches('example.org', [])).toBe(false);
  });

  test('expiresFromChromium converts 1601-based microseconds to Unix seconds exactly', () => {
    expect(expiresFromChromium(13439885648398534n, true)).toBe(1795412048.398534);
    expect(expiresFromChromium(11644473600000000n, true)).toBe(0);
  });

  test('session cookies expire -1; a date past year 9999 is clamped to 9999-12-31T23:59:59Z', () => {
    expect(expiresFromChromium(0n, false)).toBe(-1);
    expect(expiresFromChromium(13439885648398534n, false)).toBe(-1);
    expect(expiresFromChromium(0n, true)).toBe(-1);
    expect(expiresFromChromium(9_223_372_036_854_775_807n, true)).toBe(253402300799);
    expect(new Date(253402300799 * 1000).toISOString()).toBe('9999-12-31T23:59:59.000Z');
  });
});

describe('cookie DB reader', () => {
  // A private TMPDIR: the reader's temp copies can be counted without racing anything else on the machine.
  const tmp = freshDir('tmpdir');
  let savedTmp: string | undefined;
  beforeAll(() => {
    savedTmp = process.env.TMPDIR;
    process.env.TMPDIR = tmp;
  });
  afterAll(() => {
    if (savedTmp === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = savedTmp;
  });
  const leftovers = () => readdirSync(tmp).filter((f) => f.startsWith('browse-cookies-'));

  const FULL_COLUMNS = 'samesite INTEGER NOT NULL DEFAULT -1, top_frame_site_key TEXT NOT NULL DEFAULT "", has_cross_site_ancestor INTEGER NOT NULL DEFAULT 0,';
  /** A cookie DB shaped like Chromium's (`optional` false: an old layout without samesite/partition columns). */
  function writeDb(file: string, opts: { version: number; optional: boolean; rows: Record<string, unknown>[]; wal?: boolean }): Database {
    const db = new Database(file, { create: true, safeIntegers: true });
    if (opts.wal) db.exec('PRAGMA journal_mode = WAL');
    db.exec('CREATE TABLE meta(key LONGVARCHAR NOT NULL UNIQUE PRIMARY KEY, value LONGVARCHAR)');
    db.query("INSERT INTO meta VALUES ('version', ?), ('last_compatible_version', '16')").run(String(opts.version));
    db.exec(
      'CREATE TABLE cookies(creation_utc INTEGER NOT NULL, host_key TEXT NOT NULL, name TEXT NOT NULL, value TEXT NOT NULL, ' +
        'encrypted_value BLOB NOT NULL, path TEXT NOT NULL, expires_utc INTEGER NOT NULL, is_secure INTEGER NOT NULL, ' +
        `is_httponly INTEGER NOT NULL, has_expires INTEGER NOT NULL, ${opts.optional ? FULL_COLUMNS : ''} last_access_utc INTEGER NOT NULL DEFAULT 0)`,
    );
    db.transaction(() => {
      for (const r of opts.rows) {
        const cols = Object.keys(r);
        db.query(`INSERT INTO cookies (creation_utc, ${cols.join(', ')}) VALUES (0, ${cols.map(() => '?').join(', ')})`).run(...(Object.values(r) as never[]));
      }
    })();
    return db;
  }
  const row = (over: Record<string, unknown>) => ({
    host_key: '.github.com',
    name: 'n',
    value: '',
    encrypted_value: new Uint8Array([0x76, 0x31, 0x30, 1, 2, 3]),
    path: '/',
    expires_utc: 13439885648398534n,
    is_secure: 1,
    is_httponly: 0,
    has_expires: 1,
    ...over,
  });
  const fileBytes = (f: string) => readFileSync(f);

  test('reads every column exactly, with expires_utc past 2^53 as a BigInt, and leaves the file and TMPDIR untouched', () => {
    const file = join(freshDir('db-full'), 'Cookies');
    const big = 2n ** 53n + 12345n;
    writeDb(file, {
      version: 24,
      optional: true,
      rows: [
        row({ name: 'big', expires_utc: big, samesite: 2, is_httponly: 1 }),
        row({ host_key: 'chips.example', name: 'part', value: 'plain', encrypted_value: new Uint8Array(), samesite: 0, top_frame_site_key: 'https://top.example', has_cross_site_ancestor: 1 }),
        row({ host_key: 'other.org', name: 'skip' }),
      ],
    }).close();
    const before = fileBytes(file);
    const db = readCookieDb(file, 'Test (Default)', (h) => h !== 'other.org');
    expect(db.metaVersion).toBe(24);
    expect(db.rows).toEqual([
      { hostKey: '.github.com', name: 'big', value: '', encrypted: Buffer.from([0x76, 0x31, 0x30, 1, 2, 3]), path: '/', expiresUtc: big, isSecure: true, isHttpOnly: true, hasExpires: true, sameSite: 2, topFrameSiteKey: '', hasCrossSiteAncestor: false },
      { hostKey: 'chips.example', name: 'part', value: 'plain', encrypted: Buffer.alloc(0), path: '/', expiresUtc: 13439885648398534n, isSecure: true, isHttpOnly: false, hasExpires: true, sameSite: 0, topFrameSiteKey: 'https://top.example', hasCrossSiteAncestor: true },
    ]);
    expect(typeof db.rows[0].expiresUtc).toBe('bigint');
    expect(readCookieHosts(file, 'Test (Default)')).toEqual(new Map([['.github.com', 1], ['chips.example', 1], ['other.org', 1]]));
    expect(fileBytes(file).equals(before)).toBe(true);
    expect(readdirSync(dirname(file))).toEqual(['Cookies']);
    expect(leftovers()).toEqual([]);
  });

  test('an old layout without samesite, top_frame_site_key and has_cross_site_ancestor still reads, with neutral defaults', () => {
    const file = join(freshDir('db-old'), 'Cookies');
    writeDb(file, { version: 12, optional: false, rows: [row({ name: 'old' })] }).close();
    const db = readCookieDb(file, 'Old (Default)', () => true);
    expect(db.metaVersion).toBe(12);
    expect(db.rows).toHaveLength(1);
    expect(db.rows[0]).toMatchObject({ name: 'old', sameSite: -1, topFrameSiteKey: '', hasCrossSiteAncestor: false, expiresUtc: 13439885648398534n });
    expect(leftovers()).toEqual([]);
  });

  test('rows still in the -wal file of an open DB are read, and neither the DB nor its WAL changes', () => {
    const file = join(freshDir('db-wal'), 'Cookies');
    const writer = writeDb(file, { version: 24, optional: true, wal: true, rows: [row({ name: 'in-wal' })] });
    try {
      expect(existsSync(`${file}-wal`)).toBe(true);
      const [db, wal] = [fileBytes(file), fileBytes(`${file}-wal`)];
      expect(readCookieDb(file, 'Live (Default)', () => true).rows.map((r) => r.name)).toEqual(['in-wal']);
      expect(fileBytes(file).equals(db)).toBe(true);
      expect(fileBytes(`${file}-wal`).equals(wal)).toBe(true);
      expect(leftovers()).toEqual([]);
    } finally {
      writer.close();
    }
  });

  test('a truncated DB and a file that is not a DB → "cannot be read" with a hint, and no temp copy is left', () => {
    const dir = freshDir('db-corrupt');
    const truncated = join(dir, 'Truncated');
    const many = Array.from({ length: 300 }, (_, i) => row({ name: `c${i}`, encrypted_value: new Uint8Array(600).fill(i % 251) }));
    writeDb(truncated, { version: 24, optional: true, rows: many }).close();
    truncateSync(truncated, 3 * 4096);
    const garbage = join(dir, 'Garbage');
    writeFileSync(garbage, 'this is not an SQLite database, just some text that is long enough to have a header'.repeat(20));
    for (const file of [truncated, garbage]) {
      const before = fileBytes(file);
      const e = browseErrorOf(() => readCookieDb(file, 'Broken (Default)', () => true));
      expect(e.message).toContain("Broken (Default)'s cookie database cannot be read");
      expect(e.hint).toMatch(/truncated or corrupt/);
      expect(fileBytes(file).equals(before)).toBe(true);
    }
    expect(leftovers()).toEqual([]);
  });

  test('a missing file → a BrowseError naming the path, before any copy is made', () => {
    const file = join(freshDir('db-missing'), 'Cookies');
    const e = browseErrorOf(() => readCookieDb(file, 'Gone (Default)', () => true));
    expect(e.message).toBe(`Gone (Default) has no cookie database at ${file}.`);
    expect(e.hint).toMatch(/--profile/);
    expect(leftovers()).toEqual([]);
  });
});
