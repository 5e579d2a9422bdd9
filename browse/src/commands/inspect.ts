import { DEFAULTS } from '../config';
import { BrowseError, plural } from '../errors';
import { harOf } from '../har';
import { formatConsole, formatDialog, formatNetwork, type LogKind, type Logged, type NetworkEntry } from '../logs';
import { BODY_CAP, DETAIL_LIMIT, describeBody } from '../network-detail';
import { writeOutputFile } from '../output';
import { redactValue } from '../redact';
import type { CommandContext } from './context';
import { defineCommand, type FlagSpec, type Input } from './define';

/** A page value as text: strings as they are, everything else as JSON (shared by `js` and `eval`). */
export function showValue(value: unknown): string {
  if (value === undefined) return 'undefined';
  if (typeof value === 'string') return value;
  return JSON.stringify(value, null, 2) ?? String(value);
}

export const js = defineCommand({
  name: 'js',
  deadlineMs: DEFAULTS.scriptDeadlineMs,
  untrusted: true,
  category: 'read',
  group: 'Inspect',
  description: 'Evaluate a JavaScript expression in the page and print the result (promises are awaited)',
  args: [{ name: 'expression', kind: 'rest', required: true }],
  async run(ctx, { expression }) {
    try {
      return showValue(await ctx.frame.evaluate(String(expression)));
    } catch (e) {
      const msg = (e instanceof Error ? e.message : String(e)).split('\n')[0].replace(/^page\.evaluate: /, '');
      if (/Target|closed|destroyed/.test(msg)) throw e;
      throw new BrowseError(`JavaScript error: ${msg}`, 'Fix the expression; it runs as `page.evaluate(expr)` in the page.');
    }
  },
});

export const css = defineCommand({
  name: 'css',
  untrusted: true,
  category: 'read',
  group: 'Inspect',
  description: 'Computed value of a CSS property on an element',
  args: [
    { name: 'selector', kind: 'selector', required: true },
    { name: 'property', kind: 'string', required: true },
  ],
  async run(ctx, { selector, property }) {
    return (await ctx.resolve(String(selector))).evaluate(
      (el, prop) => getComputedStyle(el).getPropertyValue(prop),
      String(property),
      { timeout: ctx.actionTimeout },
    );
  },
});

export const attrs = defineCommand({
  name: 'attrs',
  untrusted: true,
  category: 'read',
  group: 'Inspect',
  description: "An element's attributes as JSON",
  args: [{ name: 'selector', kind: 'selector', required: true }],
  async run(ctx, { selector }) {
    const found = await (await ctx.resolve(String(selector))).evaluate(
      (el) => Object.fromEntries(Array.from(el.attributes, (a) => [a.name, a.value])),
      undefined,
      { timeout: ctx.actionTimeout },
    );
    return JSON.stringify(found, null, 2);
  },
});

const STATES = ['visible', 'hidden', 'enabled', 'disabled', 'checked', 'editable', 'focused'] as const;

export const is = defineCommand({
  name: 'is',
  category: 'read',
  group: 'Inspect',
  description: 'Check an element state; prints true or false',
  args: [
    { name: 'state', kind: 'string', required: true, choices: STATES },
    { name: 'selector', kind: 'selector', required: true },
  ],
  async run(ctx, { state, selector }) {
    const loc = await ctx.resolve(String(selector));
    const timeout = ctx.actionTimeout;
    switch (state as (typeof STATES)[number]) {
      case 'visible':
        return String(await loc.isVisible());
      case 'hidden':
        return String(await loc.isHidden());
      case 'enabled':
        return String(await loc.isEnabled({ timeout }));
      case 'disabled':
        return String(await loc.isDisabled({ timeout }));
      case 'checked':
        return String(await loc.isChecked({ timeout }));
      case 'editable':
        return String(await loc.isEditable({ timeout }));
      case 'focused':
        return String(await loc.evaluate((el) => el === document.activeElement, undefined, { timeout }));
    }
  },
});

const CURSOR_FLAGS: FlagSpec[] = [
  { name: '--since-last', kind: 'boolean', description: 'Only entries added since your previous read of this log (every read moves your cursor)' },
  { name: '--since', kind: 'string', value: '<id|time>', description: 'Only entries after id #N, or at or after an ISO time' },
];
const CLEAR_FLAG: FlagSpec = { name: '--clear', kind: 'boolean', description: 'Empty the buffer (ids keep counting)' };

// One cursor per log per caller, the caller being the working directory the CLI sends: agents in
// different checkouts sharing a daemon don't take each other's entries, and it costs nothing to track.
// Two agents in the same directory share a cursor (named sessions will scope logs per session anyway).
const callerOf = (ctx: CommandContext) => ctx.callerPath('.');

/** Entries after --since / --since-last, without moving the caller's cursor. */
function selectLog<K extends LogKind>(ctx: CommandContext, kind: K, input: Input) {
  if (input.sinceLast && input.since !== undefined) throw new BrowseError('--since-last and --since both choose where to start.', `Use one: \`${kind} --since-last\` or \`${kind} --since <id|time>\`.`);
  const since = input.since === undefined ? undefined : parseSince(String(input.since), kind);
  const entries = ctx.logs.entries(kind, input.sinceLast ? ctx.logs.cursor(kind, callerOf(ctx)) : typeof since === 'number' ? since : 0);
  return since instanceof Date ? entries.filter((x) => x.entry.ts >= since.getTime()) : entries;
}

/** A read of the log: selectLog, then the caller's cursor moves to the newest entry now logged. */
function readLog<K extends LogKind>(ctx: CommandContext, kind: K, input: Input) {
  const entries = selectLog(ctx, kind, input);
  ctx.logs.advanceCursor(kind, callerOf(ctx), ctx.logs.newestId(kind));
  return entries;
}

function parseSince(value: string, kind: LogKind): number | Date {
  if (/^#?\d+$/.test(value)) return Number(value.replace('#', ''));
  const t = Date.parse(value);
  if (/^\d{4}-\d\d-\d\d/.test(value) && !Number.isNaN(t)) return new Date(t);
  throw new BrowseError(`--since takes an entry id (#123) or an ISO time (2025-01-31T12:00:00Z), not '${value}'.`, `Ids are the #N at the start of each \`${kind}\` line.`);
}

async function clearLog(ctx: CommandContext, kind: LogKind): Promise<string> {
  await ctx.logs.flush(); // entries not yet on disk still reach the log file
  const n = ctx.logs[kind].length;
  ctx.logs[kind].clear();
  if (kind === 'network') ctx.logs.networkDetails.clear();
  return `Cleared ${n} ${kind} entries.`;
}

const listed = <T>(kind: LogKind, entries: Logged<T>[], format: (e: T, id: number) => string) =>
  entries.length ? entries.map((x) => format(x.entry, x.id)).join('\n') : `(no ${kind} entries)`;

export const consoleLog = defineCommand({
  name: 'console',
  untrusted: true,
  category: 'read',
  group: 'Inspect',
  description: 'Console messages and uncaught errors from all tabs, each with its id (#N)',
  flags: [{ name: '--errors', kind: 'boolean', description: 'Only errors' }, ...CURSOR_FLAGS, CLEAR_FLAG],
  async run(ctx, input) {
    if (input.clear) return clearLog(ctx, 'console');
    let entries = readLog(ctx, 'console', input);
    if (input.errors) entries = entries.filter((x) => x.entry.level === 'error');
    return listed('console', entries, formatConsole);
  },
});

export const dialog = defineCommand({
  name: 'dialog',
  untrusted: true,
  category: 'read',
  group: 'Inspect',
  description: 'Dialogs (alert/confirm/prompt) the pages opened and what was done, each with its id (#N)',
  flags: [...CURSOR_FLAGS, CLEAR_FLAG],
  async run(ctx, input) {
    if (input.clear) return clearLog(ctx, 'dialog');
    return listed('dialog', readLog(ctx, 'dialog', input), formatDialog);
  },
});

/** `--status 4xx | 404 | failed` → a test on an entry's status. */
function statusFilter(value: string): (e: NetworkEntry) => boolean {
  const v = value.toLowerCase();
  if (v === 'failed') return (e) => typeof e.status === 'string' || e.status === 0;
  if (/^[1-5]xx$/.test(v)) return (e) => typeof e.status === 'number' && Math.floor(e.status / 100) === Number(v[0]);
  if (/^[1-5]\d\d$/.test(v)) return (e) => e.status === Number(v);
  throw new BrowseError(`--status takes a code (404), a class (4xx) or 'failed', not '${value}'.`, 'Example: network --status 5xx');
}

async function networkDetail(ctx: CommandContext, idText: string, withBody: boolean): Promise<string> {
  if (!/^#?\d+$/.test(idText)) throw new BrowseError(`'${idText}' is not a request id.`, 'Ids are the #N at the start of each `network` line.');
  const id = Number(idText.replace('#', ''));
  const e = ctx.logs.entry('network', id);
  if (!e) throw new BrowseError(`Request #${id} is not in the network log (cleared, overwritten, or not made yet).`, 'Run `network` to see the ids held.');
  const d = ctx.logs.networkDetails.get(id);
  const lines = [
    `#${id} ${e.method} ${e.url} → ${e.status}${d?.statusText && typeof e.status === 'number' ? ` ${d.statusText}` : ''}`,
    `started ${new Date(e.ts).toISOString()} · took ${e.ms}ms · size ${e.bytes === undefined ? 'unknown' : `${e.bytes}B`}${d?.mimeType ? ` · ${d.mimeType}` : ''}`,
  ];
  if (!d) {
    lines.push(`(headers not kept: only the newest ${DETAIL_LIMIT} requests keep their details)`);
    return lines.join('\n');
  }
  if (d.timings) {
    const t = d.timings;
    const phase = (name: string, ms: number) => `${name} ${ms < 0 ? '-' : `${ms}ms`}`;
    lines.push(`timing: ${[phase('dns', t.dns), phase('connect', t.connect), phase('tls', t.ssl), phase('wait', t.wait), phase('receive', t.receive)].join(', ')}`);
  }
  const block = (title: string, headers: [string, string][]) => [`${title}:`, ...(headers.length ? headers.map(([n, v]) => `  ${n}: ${v}`) : ['  (none)'])];
  lines.push(...block('request headers', d.requestHeaders), ...block('response headers', d.responseHeaders));
  if (d.headersCut) lines.push(`(${d.headersCut} more headers not kept: each request keeps about 8 KB of them)`);
  if (withBody) lines.push('body:', await describeBody(d));
  else if (d.body) lines.push('(body: add --body)');
  return lines.join('\n');
}

export const network = defineCommand({
  name: 'network',
  untrusted: true,
  category: 'read',
  group: 'Inspect',
  description: 'Finished and failed requests (id, method, URL, status, time, size); `network <id>` shows one with headers and timing',
  args: [{ name: 'request', kind: 'string', display: '<id>' }],
  flags: [
    { name: '--status', kind: 'string', value: '<4xx|404|failed>', description: 'Only requests with this status, status class, or that failed' },
    { name: '--method', kind: 'string', value: '<GET>', description: 'Only requests with this method' },
    { name: '--url', kind: 'string', value: '<text>', description: 'Only requests whose URL contains this text' },
    ...CURSOR_FLAGS,
    { name: '--id', kind: 'string', value: '<id>', description: 'Show one request: headers (secrets redacted), timing, size' },
    { name: '--body', kind: 'boolean', description: `With an id: also the response body (text, first ${BODY_CAP / 1024} KB; while the page is still loaded)` },
    { name: '--har', kind: 'string', value: '<path>', description: 'Write the network log (after the filters) as a HAR 1.2 file' },
    CLEAR_FLAG,
  ],
  async run(ctx, input) {
    if (input.clear) return clearLog(ctx, 'network');
    const id = input.request ?? input.id;
    if (id !== undefined) return networkDetail(ctx, String(id), Boolean(input.body));
    if (input.body) throw new BrowseError('--body needs a request id.', 'Example: network 12 --body');
    const keep = [
      input.status === undefined ? undefined : statusFilter(String(input.status)),
      input.method === undefined ? undefined : (e: NetworkEntry) => e.method.toUpperCase() === String(input.method).toUpperCase(),
      input.url === undefined ? undefined : (e: NetworkEntry) => e.url.includes(String(input.url)),
    ].filter((f) => f !== undefined);
    if (input.har !== undefined) {
      const entries = selectLog(ctx, 'network', input).filter((x) => keep.every((k) => k(x.entry)));
      const target = writeOutputFile(ctx.callerPath(String(input.har)), JSON.stringify(harOf(entries, (i) => ctx.logs.networkDetails.get(i), ctx.daemon.binaryVersion), null, 2));
      return `Wrote ${plural(entries.length, 'request')} as HAR 1.2 to ${target}`;
    }
    const entries = readLog(ctx, 'network', input).filter((x) => keep.every((k) => k(x.entry)));
    return listed('network', entries, formatNetwork);
  },
});

export const cookies = defineCommand({
  name: 'cookies',
  untrusted: true,
  category: 'read',
  group: 'Inspect',
  description: 'Cookies of the session as JSON (secret-looking values redacted)',
  async run(ctx) {
    const all = await ctx.browser.browserContext.cookies();
    const rows = all.map((c) => ({
      name: c.name,
      value: redactValue(c.name, c.value),
      domain: c.domain,
      path: c.path,
      expires: c.expires === -1 ? 'session' : new Date(c.expires * 1000).toISOString(),
      httpOnly: c.httpOnly,
      secure: c.secure,
      sameSite: c.sameSite,
    }));
    return rows.length ? JSON.stringify(rows, null, 2) : '(no cookies)';
  },
});

export const storage = defineCommand({
  name: 'storage',
  untrusted: true,
  category: 'read',
  group: 'Inspect',
  description: 'localStorage and sessionStorage as JSON, or `storage set <key> <value>` to write localStorage',
  usage: 'storage [set <key> <value>]',
  args: [
    { name: 'action', kind: 'string', choices: ['set'] },
    { name: 'key', kind: 'string' },
    { name: 'value', kind: 'rest' },
  ],
  async run(ctx, { action, key, value }) {
    if (action === 'set') {
      if (key === undefined || value === undefined) throw new BrowseError('storage set needs a key and a value.', 'Usage: storage set <key> <value>');
      await ctx.frame.evaluate(([k, v]) => localStorage.setItem(k, v), [String(key), String(value)] as const);
      return `Set localStorage[${JSON.stringify(key)}] (${String(value).length} chars)`;
    }
    if (key !== undefined) throw new BrowseError(`Unexpected argument '${key}'.`, 'Usage: storage [set <key> <value>]');
    const dump = await ctx.frame.evaluate(() => {
      const read = (s: Storage) => Object.fromEntries(Array.from({ length: s.length }, (_, i) => s.key(i)!).map((k) => [k, s.getItem(k) ?? '']));
      try {
        return { localStorage: read(localStorage), sessionStorage: read(sessionStorage) };
      } catch {
        return null;
      }
    });
    if (!dump) throw new BrowseError('This page has no storage access (opaque origin such as about:blank or a sandboxed frame).', 'Run `goto <url>` first.');
    const redact = (o: Record<string, string>) => Object.fromEntries(Object.entries(o).map(([k, v]) => [k, redactValue(k, v)]));
    return JSON.stringify({ localStorage: redact(dump.localStorage), sessionStorage: redact(dump.sessionStorage) }, null, 2);
  },
});
