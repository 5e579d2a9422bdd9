// Per-request detail for `network <id>` and `network --har`: headers, timing and a way to fetch the body.
// The network ring holds 50,000 one-line entries; details are kept only for the newest DETAIL_LIMIT of
// them, with headers capped per request, so they cost at most ~DETAIL_LIMIT × HEADER_BUDGET × 2 (~16 MB).
import { redactValue } from './redact';

export const DETAIL_LIMIT = 1000;
/** Characters of header names and values kept per request, per direction. */
const HEADER_BUDGET = 8 * 1024;
const VALUE_CAP = 1024;
export const BODY_CAP = 10 * 1024;

/** Phases in ms as HAR names them; -1 where the browser did not report one. */
export interface Timings { dns: number; connect: number; ssl: number; send: number; wait: number; receive: number }

export interface NetworkDetail {
  statusText: string;
  mimeType: string;
  requestHeaders: [string, string][];
  responseHeaders: [string, string][];
  /** Headers left out because the per-request budget ran out. */
  headersCut: number;
  timings?: Timings;
  /**
   * The response body, read from the live response only when asked (`--body`). Chromium keeps bodies of
   * the current documents; after the tab navigates or closes this usually fails, and we say so.
   */
  body?: () => Promise<Buffer>;
}

// Cookie headers carry sessions even when their names look harmless.
const ALWAYS_SECRET = /^(cookie|set-cookie|proxy-authorization)$/i;

/** Headers with secret-looking values redacted, long values cut, and the list capped. */
export function keptHeaders(all: { name: string; value: string }[]): { headers: [string, string][]; cut: number } {
  const headers: [string, string][] = [];
  let used = 0;
  for (const { name, value } of all) {
    const shown = ALWAYS_SECRET.test(name) ? `[REDACTED — ${value.length} chars]` : redactValue(name, value);
    const capped = shown.length > VALUE_CAP ? `${shown.slice(0, VALUE_CAP)}… (${shown.length} chars)` : shown;
    if (used + name.length + capped.length > HEADER_BUDGET) return { headers, cut: all.length - headers.length };
    used += name.length + capped.length;
    headers.push([name, capped]);
  }
  return { headers, cut: 0 };
}

/** Playwright's request timing (ms relative to its start, -1 = unknown) → HAR phases. */
export function harTimings(t: { domainLookupStart: number; domainLookupEnd: number; connectStart: number; secureConnectionStart: number; connectEnd: number; requestStart: number; responseStart: number; responseEnd: number }): Timings {
  const span = (a: number, b: number) => (a >= 0 && b >= a ? round(b - a) : -1);
  return {
    dns: span(t.domainLookupStart, t.domainLookupEnd),
    connect: span(t.connectStart, t.connectEnd),
    ssl: span(t.secureConnectionStart, t.connectEnd),
    send: 0,
    wait: Math.max(0, span(t.requestStart, t.responseStart)),
    receive: Math.max(0, span(t.responseStart, t.responseEnd)),
  };
}

const round = (ms: number) => Math.round(ms * 10) / 10;

/** Newest-first eviction: inserting past the limit drops the oldest detail. */
export class NetworkDetails {
  private readonly byId = new Map<number, NetworkDetail>();
  constructor(readonly limit = DETAIL_LIMIT) {}

  set(id: number, detail: NetworkDetail): void {
    this.byId.set(id, detail);
    if (this.byId.size > this.limit) this.byId.delete(this.byId.keys().next().value as number);
  }

  get(id: number): NetworkDetail | undefined {
    return this.byId.get(id);
  }

  clear(): void {
    this.byId.clear();
  }
}

const TEXTUAL = /^text\/|[/+](json|xml|javascript|ecmascript|x-www-form-urlencoded|csv|graphql)\b|svg/i;

/** A response body for printing: text up to BODY_CAP bytes, with a line when cut, binary, or gone. */
export async function describeBody(detail: NetworkDetail | undefined): Promise<string> {
  if (!detail?.body) return '(no body: the request failed, or its details are no longer kept)';
  let buf: Buffer;
  try {
    buf = await detail.body();
  } catch {
    return '(body no longer available: the tab navigated or closed since; reload and ask again)';
  }
  if (buf.length === 0) return '(empty body)';
  const head = buf.subarray(0, BODY_CAP);
  if (!(TEXTUAL.test(detail.mimeType) || (!detail.mimeType && !head.includes(0)))) return `(binary body: ${buf.length} bytes of ${detail.mimeType || 'unknown type'}, not shown)`;
  const text = new TextDecoder().decode(head).replace(/\uFFFD$/, '');
  return buf.length > BODY_CAP ? `${text}\n(body cut: first ${BODY_CAP} of ${buf.length} bytes shown)` : text;
}
