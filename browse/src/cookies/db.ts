// Reads a browser's cookie DB without touching it: copy it (with its -wal/-shm/-journal) to a private temp dir,
// open the copy read-only, delete the copy. Integers are read as BigInt: expires_utc exceeds 2^53.
import { Database } from 'bun:sqlite';
import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { BrowseError } from '../errors';

export interface CookieRow {
  hostKey: string;
  name: string;
  /** Plaintext column: set only by very old browsers or unencrypted rows. */
  value: string;
  encrypted: Buffer;
  path: string;
  expiresUtc: bigint;
  isSecure: boolean;
  isHttpOnly: boolean;
  hasExpires: boolean;
  sameSite: number;
  /** Partitioned (CHIPS) cookies: the top-level site, '' otherwise. */
  topFrameSiteKey: string;
  hasCrossSiteAncestor: boolean;
}

export interface CookieDb {
  metaVersion: number;
  rows: CookieRow[];
}

const SIDE_FILES = ['-wal', '-shm', '-journal'];

/** Host keys and counts only (no values): what the picker lists. */
export function readCookieHosts(file: string, label: string): Map<string, number> {
  return withCopy(file, label, (db) => {
    const counts = new Map<string, number>();
    for (const r of db.query('SELECT host_key AS h, COUNT(*) AS n FROM cookies GROUP BY host_key').all() as { h: string; n: bigint }[]) {
      counts.set(r.h, Number(r.n));
    }
    return counts;
  });
}

/** Every row whose host passes `keep`, with the DB's meta version. */
export function readCookieDb(file: string, label: string, keep: (hostKey: string) => boolean): CookieDb {
  return withCopy(file, label, (db) => {
    const meta = db.query("SELECT value FROM meta WHERE key = 'version'").get() as { value: string | bigint } | null;
    const metaVersion = Number(meta?.value ?? 0);
    const cols = new Set((db.query('PRAGMA table_info(cookies)').all() as { name: string }[]).map((c) => c.name));
    const opt = (col: string, fallback: string) => (cols.has(col) ? col : `${fallback} AS ${col}`);
    const sql =
      'SELECT host_key, name, value, encrypted_value, path, expires_utc, is_secure, is_httponly, has_expires, ' +
      `${opt('samesite', '-1')}, ${opt('top_frame_site_key', "''")}, ${opt('has_cross_site_ancestor', '0')} FROM cookies`;
    const rows: CookieRow[] = [];
    for (const r of db.query(sql).all() as Record<string, unknown>[]) {
      const hostKey = String(r.host_key);
      if (!keep(hostKey)) continue;
      rows.push({
        hostKey,
        name: String(r.name),
        value: String(r.value ?? ''),
        encrypted: Buffer.from((r.encrypted_value as Uint8Array | null) ?? new Uint8Array()),
        path: String(r.path),
        expiresUtc: BigInt(r.expires_utc as bigint),
        isSecure: Number(r.is_secure) === 1,
        isHttpOnly: Number(r.is_httponly) === 1,
        hasExpires: Number(r.has_expires) === 1,
        sameSite: Number(r.samesite),
        topFrameSiteKey: String(r.top_frame_site_key ?? ''),
        hasCrossSiteAncestor: Number(r.has_cross_site_ancestor) === 1,
      });
    }
    return { metaVersion, rows };
  });
}

function withCopy<T>(file: string, label: string, read: (db: Database) => T): T {
  if (!existsSync(file)) throw new BrowseError(`${label} has no cookie database at ${file}.`, 'Open the browser with that profile once, or pick another profile with --profile.');
  const dir = mkdtempSync(join(tmpdir(), 'browse-cookies-')); // 0700: only we can read the copy
  const copy = join(dir, basename(file));
  try {
    try {
      copyFileSync(file, copy);
      for (const side of SIDE_FILES) if (existsSync(file + side)) copyFileSync(file + side, copy + side);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'EBUSY' || code === 'EPERM' || code === 'EACCES') {
        throw new BrowseError(`${label}'s cookie database is locked by the running browser (${code}).`, 'Quit the browser and run the command again.');
      }
      throw new BrowseError(`Cannot copy ${label}'s cookie database: ${(e as Error).message}.`, 'Check that the file is readable by this user.');
    }
    let db: Database | undefined;
    try {
      db = new Database(copy, { readonly: true, safeIntegers: true });
      return read(db);
    } catch (e) {
      if (e instanceof BrowseError) throw e;
      const msg = (e as Error).message;
      if (/locked|busy/i.test(msg)) {
        throw new BrowseError(`${label}'s cookie database is locked: the browser was writing to it.`, 'Run the command again in a moment, or quit the browser first.');
      }
      if (/no such table|no such column/i.test(msg)) {
        throw new BrowseError(`${label}'s cookie database has an unknown layout (${msg}).`, 'This browser version is not supported; export cookies from the browser and use `cookie-import <file>`.');
      }
      throw new BrowseError(`${label}'s cookie database cannot be read: ${msg}.`, 'The file may be truncated or corrupt; open the browser once so it repairs it, or pick another profile with --profile.');
    } finally {
      db?.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
