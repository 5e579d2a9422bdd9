// Chromium's cookie value encryption, per platform and per row prefix. Pure functions: keys come in, plaintext goes out.
import { createDecipheriv, createHash, pbkdf2Sync } from 'node:crypto';

/** Chromium's fixed parameters: PBKDF2-SHA1 over salt "saltysalt", AES-128-CBC with an IV of 16 spaces. */
export const SALT = 'saltysalt';
export const CBC_IV = Buffer.alloc(16, 0x20);
export const LINUX_V10_PASSWORD = 'peanuts';
export const LINUX_ITERATIONS = 1;
export const MACOS_ITERATIONS = 1003;
/** From cookie DB version 24 on, the plaintext starts with SHA-256 of the row's host_key. */
export const HOST_HASH_MIN_VERSION = 24;

export function deriveKey(password: string | Buffer, iterations: number): Buffer {
  return pbkdf2Sync(password, SALT, iterations, 16, 'sha1');
}

/** AES-128-CBC with PKCS#7 padding; throws on a wrong key (bad padding), which the caller counts. */
export function decryptCbc(key: Buffer, ciphertext: Buffer): Buffer {
  if (ciphertext.length === 0 || ciphertext.length % 16 !== 0) throw new Error('ciphertext is not a whole number of AES blocks');
  const d = createDecipheriv('aes-128-cbc', key, CBC_IV);
  return Buffer.concat([d.update(ciphertext), d.final()]);
}

/** Windows: AES-256-GCM, 12-byte nonce first, 16-byte tag last. */
export function decryptGcm(key: Buffer, blob: Buffer): Buffer {
  if (blob.length < 12 + 16) throw new Error('value too short for AES-GCM');
  const d = createDecipheriv('aes-256-gcm', key, blob.subarray(0, 12));
  d.setAuthTag(blob.subarray(blob.length - 16));
  return Buffer.concat([d.update(blob.subarray(12, blob.length - 16)), d.final()]);
}

/**
 * Removes the SHA-256(host_key) prefix that DBs at meta version ≥ 24 carry, after checking it. Older DBs
 * have no prefix, so stripping 32 bytes blindly would eat the start of every value.
 */
export function stripHostHash(plain: Buffer, hostKey: string, metaVersion: number): Buffer {
  if (metaVersion < HOST_HASH_MIN_VERSION) return plain;
  const expected = createHash('sha256').update(hostKey).digest();
  if (plain.length < 32 || !plain.subarray(0, 32).equals(expected)) throw new Error('host hash mismatch');
  return plain.subarray(32);
}

export type Platform = 'linux' | 'darwin' | 'win32';

/** Keys a row may need; each is fetched only when a row of its kind appears (a keychain prompt is consent). */
export interface KeySource {
  /** Linux v10 and macOS v10 (CBC), or Windows v10/v11 (GCM). */
  v10(): Promise<Buffer>;
  /** Linux v11: the keyring key. Candidates in order (the keyring password, then Chromium's empty-password fallback). */
  v11(): Promise<Buffer[]>;
}

export class UndecryptableError extends Error {}

/** Decrypts one row's value by its prefix; throws UndecryptableError with a reason shared by rows that fail alike. */
export async function decryptValue(platform: Platform, encrypted: Buffer, hostKey: string, metaVersion: number, keys: KeySource): Promise<string> {
  const prefix = encrypted.subarray(0, 3).toString('latin1');
  const body = encrypted.subarray(3);
  let plain: Buffer;
  if (platform === 'win32') {
    if (prefix === 'v20') throw new UndecryptableError('app-bound encryption (v20)');
    if (prefix !== 'v10' && prefix !== 'v11') throw new UndecryptableError('legacy DPAPI value (no v10 prefix)');
    try {
      plain = decryptGcm(await keys.v10(), body);
    } catch (e) {
      if (e instanceof UndecryptableError) throw e;
      throw new UndecryptableError('AES-GCM authentication failed (wrong key from Local State)');
    }
  } else if (prefix === 'v10' || (prefix === 'v11' && platform === 'linux')) {
    const candidates = prefix === 'v10' ? [await keys.v10()] : await keys.v11();
    let found: Buffer | undefined;
    let hashMismatch = false;
    for (const key of candidates) {
      let decrypted: Buffer;
      try {
        decrypted = decryptCbc(key, body);
      } catch {
        continue; // bad padding: not this key
      }
      try {
        found = stripHostHash(decrypted, hostKey, metaVersion);
        break;
      } catch {
        hashMismatch = true; // valid padding by chance, or a value copied from another host
      }
    }
    if (!found && hashMismatch && candidates.length === 1) throw new UndecryptableError('host hash mismatch');
    if (!found) throw new UndecryptableError(prefix === 'v11' ? 'the keyring password does not decrypt it' : `the ${platform === 'darwin' ? 'Keychain' : 'v10'} key does not decrypt it`);
    plain = found;
  } else {
    throw new UndecryptableError(`unknown encryption prefix '${prefix.replace(/[^\x20-\x7e]/g, '?')}'`);
  }
  if (platform === 'win32') {
    try {
      plain = stripHostHash(plain, hostKey, metaVersion);
    } catch {
      throw new UndecryptableError('host hash mismatch');
    }
  }
  return plain.toString('utf8');
}
