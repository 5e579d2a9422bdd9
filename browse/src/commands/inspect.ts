import { DEFAULTS } from '../config';
import { BrowseError } from '../errors';
import { formatConsole, formatDialog, formatNetwork } from '../logs';
import { redactValue } from '../redact';
import { defineCommand } from './define';

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

function logCommand<T>(
  name: 'console' | 'network' | 'dialog',
  description: string,
  format: (e: T) => string,
  extra: { flag: `--${string}`; description: string; keep: (e: T) => boolean }[] = [],
) {
  return defineCommand({
    name,
    untrusted: true,
    category: 'read',
    group: 'Inspect',
    description,
    flags: [...extra.map((x) => ({ name: x.flag, kind: 'boolean' as const, description: x.description })), { name: '--clear', kind: 'boolean', description: 'Empty the buffer' }],
    async run(ctx, input) {
      const buffer = ctx.logs[name] as unknown as { toArray(): T[]; clear(): void; length: number };
      if (input.clear) {
        await ctx.logs.flush(); // entries not yet on disk still reach the log file
        const n = buffer.length;
        buffer.clear();
        return `Cleared ${n} ${name} entries.`;
      }
      let entries = buffer.toArray();
      for (const x of extra) if (input[x.flag.slice(2)]) entries = entries.filter(x.keep);
      return entries.length ? entries.map(format).join('\n') : `(no ${name} entries)`;
    },
  });
}

export const consoleLog = logCommand('console', 'Console messages and uncaught errors from all tabs', formatConsole, [
  { flag: '--errors', description: 'Only errors', keep: (e) => e.level === 'error' },
]);
export const network = logCommand('network', 'Finished and failed requests: method, URL, status, time, size', formatNetwork);
export const dialog = logCommand('dialog', 'Dialogs (alert/confirm/prompt) the pages opened and what was done', formatDialog);

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
