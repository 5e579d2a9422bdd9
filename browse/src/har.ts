// The network log as a HAR 1.2 document. Requests older than the newest DETAIL_LIMIT have no headers or
// timing phases left, so they appear with empty header lists and their total time as `wait`.
import type { Logged, NetworkEntry } from './logs';
import type { NetworkDetail, Timings } from './network-detail';

const headerList = (h: [string, string][] | undefined) => (h ?? []).map(([name, value]) => ({ name, value }));

function queryString(url: string): { name: string; value: string }[] {
  try {
    return [...new URL(url).searchParams].map(([name, value]) => ({ name, value }));
  } catch {
    return [];
  }
}

export function harOf(entries: Logged<NetworkEntry>[], detailOf: (id: number) => NetworkDetail | undefined, version: string) {
  return {
    log: {
      version: '1.2',
      creator: { name: 'gstack browse', version },
      pages: [],
      entries: entries.map(({ id, entry: e }) => {
        const d = detailOf(id);
        const timings: Timings = d?.timings ?? { dns: -1, connect: -1, ssl: -1, send: 0, wait: e.ms, receive: 0 };
        const time = [timings.dns, timings.connect, timings.send, timings.wait, timings.receive].filter((t) => t > 0).reduce((a, b) => a + b, 0);
        const failed = typeof e.status === 'string';
        return {
          startedDateTime: new Date(e.ts).toISOString(),
          time,
          request: { method: e.method, url: e.url, httpVersion: '', cookies: [], headers: headerList(d?.requestHeaders), queryString: queryString(e.url), headersSize: -1, bodySize: -1 },
          response: {
            status: failed ? 0 : e.status,
            statusText: d?.statusText ?? (failed ? String(e.status) : ''),
            httpVersion: '',
            cookies: [],
            headers: headerList(d?.responseHeaders),
            content: { size: e.bytes ?? 0, mimeType: d?.mimeType ?? '' },
            redirectURL: d?.responseHeaders.find(([n]) => n.toLowerCase() === 'location')?.[1] ?? '',
            headersSize: -1,
            bodySize: e.bytes ?? -1,
          },
          cache: {},
          timings: { blocked: -1, ...timings },
          _id: id,
          ...(failed ? { _error: e.status } : {}),
        };
      }),
    },
  };
}
