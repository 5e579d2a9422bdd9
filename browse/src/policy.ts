import { existsSync, realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { tmpdir } from 'node:os';
import { basename, dirname, isAbsolute, resolve, sep } from 'node:path';
import { BrowseError } from './errors';

// Files are read and written only under the temp dir or the daemon's working directory.
function allowedRoots(): string[] {
  const roots = new Set<string>();
  for (const r of [tmpdir(), '/tmp', process.cwd()]) {
    try {
      roots.add(realpathSync(r));
    } catch {}
  }
  return [...roots];
}

const within = (p: string, root: string) => p === root || p.startsWith(root.endsWith(sep) ? root : root + sep);

/** For files we write: the parent must exist and resolve (through symlinks) inside an allowed root. */
export function validateOutputPath(p: string): string {
  const abs = isAbsolute(p) ? p : resolve(p);
  let parent: string;
  try {
    parent = realpathSync(dirname(abs));
  } catch {
    throw new BrowseError(`Directory ${dirname(abs)} does not exist.`, 'Create it first, or write under /tmp.');
  }
  let real = resolve(parent, basename(abs));
  if (existsSync(real)) real = realpathSync(real); // an existing symlink must not lead outside
  assertAllowed(real, p);
  return real;
}

/** For files we read: must exist and resolve inside an allowed root. */
export function validateInputPath(p: string): string {
  let real: string;
  try {
    real = realpathSync(resolve(p));
  } catch {
    throw new BrowseError(`File ${p} does not exist.`, 'Check the path; relative paths are resolved against your working directory.');
  }
  assertAllowed(real, p);
  return real;
}

function assertAllowed(real: string, shown: string): void {
  if (!allowedRoots().some((root) => within(real, root))) {
    throw new BrowseError(`Path ${shown} is outside the allowed directories.`, `Use a file under ${tmpdir()} or the project directory (${process.cwd()}).`);
  }
}

const METADATA_HOSTS = new Set(['169.254.169.254', 'metadata.google.internal', 'metadata', '100.100.100.200', 'fd00:ec2::254', '[fd00:ec2::254]']);

/** Accepts http(s), file and about:blank; bare hosts get a scheme; cloud metadata endpoints are refused. */
export function normalizeUrl(input: string): string {
  let raw = input.trim();
  if (raw === 'about:blank') return raw;
  if (!/^[a-z][a-z0-9+.-]*:/i.test(raw) || /^(localhost|[\d.]+):\d+/i.test(raw)) {
    const local = /^(localhost|127\.|\[::1\]|0\.0\.0\.0)/i.test(raw);
    raw = `${local ? 'http' : 'https'}://${raw}`;
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new BrowseError(`Invalid URL '${input}'.`, 'Give a full URL such as https://example.com or http://localhost:3000/path.');
  }
  if (!['http:', 'https:', 'file:'].includes(url.protocol)) {
    throw new BrowseError(`URL scheme '${url.protocol}' is not allowed.`, 'Use http://, https://, file:// or about:blank.');
  }
  if (url.protocol === 'file:') {
    validateInputPath(fileURLToPath(url));
    return url.href;
  }
  if (METADATA_HOSTS.has(url.hostname.toLowerCase())) {
    throw new BrowseError(`Refusing to open cloud metadata address ${url.hostname}.`, 'Navigate to your application instead.');
  }
  return url.href;
}
