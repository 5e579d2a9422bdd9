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

/** For requests a page makes by itself: metadata addresses and files outside the allowed roots. */
export function requestBlockedReason(rawUrl: string): string | null {
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    return null;
  }
  if (url.protocol === 'file:') {
    try {
      validateInputPath(fileURLToPath(url));
      return null;
    } catch {
      return 'file outside the allowed directories';
    }
  }
  return isMetadataAddress(url.hostname) ? 'cloud metadata address' : null;
}

function assertAllowed(real: string, shown: string): void {
  if (!allowedRoots().some((root) => within(real, root))) {
    throw new BrowseError(`Path ${shown} is outside the allowed directories.`, `Use a file under ${tmpdir()} or the project directory (${process.cwd()}).`);
  }
}

// Cloud metadata endpoints (AWS/GCP/Azure/OCI, ECS task metadata, Alibaba, AWS IPv6) and their names.
const METADATA_IPV4 = new Set(['169.254.169.254', '169.254.170.2', '169.254.169.123', '100.100.100.200']);
const METADATA_IPV6 = new Set(['fd00:ec2:0:0:0:0:0:254']);
const METADATA_NAMES = new Set(['metadata.google.internal', 'metadata.goog', 'metadata', 'instance-data', 'instance-data.ec2.internal']);

/** URL patterns to intercept: every metadata host as the browser writes it (IPv4 spellings are already
 * normalised; IPv4 inside IPv6 appears as mapped, compatible or NAT64 hex), plus all file:// URLs. */
export const BLOCKED_REQUEST_PATTERNS = (() => {
  const hex = (v4: string) => {
    const [a, b, c, d] = v4.split('.').map(Number);
    return `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  };
  const hosts = [
    ...METADATA_IPV4,
    ...[...METADATA_IPV4].flatMap((v4) => [`[::ffff:${hex(v4)}]`, `[::${hex(v4)}]`, `[64:ff9b::${hex(v4)}]`]),
    ...[...METADATA_IPV6].map((v6) => `[${v6.replace(/(^|:)(0(:|$))+/, '::')}]`),
    ...METADATA_NAMES,
  ];
  return ['file://*', ...hosts.flatMap((h) => [`http://${h}/*`, `https://${h}/*`, `http://${h}:*`, `https://${h}:*`])];
})();

/** Eight 16-bit groups of an IPv6 address, or null if it is not one. */
function ipv6Groups(addr: string): number[] | null {
  const a = addr.replace(/^\[|\]$/g, '').toLowerCase();
  if (!a.includes(':')) return null;
  const tail = a.match(/(\d+)\.(\d+)\.(\d+)\.(\d+)$/); // ::ffff:1.2.3.4 written in dotted form
  const pair = (x: string, y: string) => ((Number(x) << 8) | Number(y)).toString(16);
  const hex = tail ? `${a.slice(0, -tail[0].length)}${pair(tail[1], tail[2])}:${pair(tail[3], tail[4])}` : a;
  const [head, rest] = hex.split('::');
  const left = head ? head.split(':') : [];
  const right = rest === undefined ? [] : rest ? rest.split(':') : [];
  const fill = rest === undefined ? 0 : 8 - left.length - right.length;
  const groups = [...left, ...Array(Math.max(0, fill)).fill('0'), ...right].map((g) => parseInt(g || '0', 16));
  return groups.length === 8 && groups.every((g) => Number.isInteger(g) && g >= 0 && g <= 0xffff) ? groups : null;
}

/** An IPv4 address carried inside IPv6 (mapped ::ffff:, compatible ::, NAT64 64:ff9b::). */
function embeddedIpv4(g: number[]): string | null {
  const mapped = g.slice(0, 5).every((x) => x === 0) && (g[5] === 0xffff || g[5] === 0);
  const nat64 = g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((x) => x === 0);
  if (!mapped && !nat64) return null;
  return [g[6] >> 8, g[6] & 0xff, g[7] >> 8, g[7] & 0xff].join('.');
}

/** True for a metadata endpoint written as a name, an IPv4 address, or any IPv6 form of one. */
export function isMetadataAddress(host: string): boolean {
  const h = host.toLowerCase().replace(/\.$/, '');
  if (METADATA_NAMES.has(h) || METADATA_IPV4.has(h)) return true;
  const g = ipv6Groups(h);
  if (!g) return false;
  if (METADATA_IPV6.has(g.map((x) => x.toString(16)).join(':'))) return true;
  const v4 = embeddedIpv4(g);
  return v4 !== null && METADATA_IPV4.has(v4);
}

const metadataError = (host: string, via?: string) =>
  new BrowseError(`Refusing to open cloud metadata address ${host}${via ? ` (${via} resolves to it)` : ''}.`, 'Navigate to your application instead.');

const DNS_CHECK_TIMEOUT_MS = 2000;

/** Also refuses host names that resolve to a metadata address (checked before every navigation). */
export async function assertSafeDestination(rawUrl: string): Promise<void> {
  let url: URL;
  try {
    url = new URL(normalizeUrl(rawUrl));
  } catch (e) {
    if (e instanceof BrowseError) throw e;
    return;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (/^[\d.]+$/.test(host) || host.includes(':')) return; // literal addresses were checked by normalizeUrl
  const { lookup } = await import('node:dns/promises');
  const found = await Promise.race([
    lookup(host, { all: true }).catch(() => []),
    new Promise<{ address: string }[]>((r) => setTimeout(() => r([]), DNS_CHECK_TIMEOUT_MS)),
  ]);
  const bad = found.find((a) => isMetadataAddress(a.address));
  if (bad) throw metadataError(bad.address, host);
}

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
  if (isMetadataAddress(url.hostname)) throw metadataError(url.hostname);
  return url.href;
}

/** URL without query or fragment: signed URLs carry tokens, and reports end up in transcripts. */
export function safeUrl(url: string): string {
  try {
    const u = new URL(url);
    return u.protocol === 'about:' || u.protocol === 'data:' ? url.slice(0, 40) : `${u.origin === 'null' ? u.protocol + '//' : u.origin}${u.pathname}`;
  } catch {
    return url.slice(0, 80);
  }
}
