import type { Locator } from 'playwright';
import { BrowseError } from '../errors';
import { describeTarget } from '../refs';
import { DEFAULTS } from '../config';
import { defineCommand, type Input } from './define';

/**
 * Playwright's actionability wait costs two animation frames (~33 ms) even for an element that is
 * ready. One in-page check (attached, enabled, visible, and the element itself receives the pointer at
 * its centre) lets a ready element skip it; anything doubtful takes Playwright's full wait.
 */
function readyForPointer(loc: Locator, timeout: number): Promise<boolean> {
  return loc.evaluate(
    (el) => {
      if (!el.isConnected || (el as HTMLButtonElement).disabled || el.getAttribute('aria-disabled') === 'true') return false;
      const style = getComputedStyle(el);
      if (style.visibility !== 'visible' || style.pointerEvents === 'none') return false;
      let r = el.getBoundingClientRect();
      if (r.width === 0 || r.height === 0) return false;
      const outside = (b: DOMRect) => b.left + b.width / 2 < 0 || b.top + b.height / 2 < 0 || b.left + b.width / 2 > innerWidth || b.top + b.height / 2 > innerHeight;
      if (outside(r)) {
        el.scrollIntoView({ block: 'center', inline: 'center' });
        r = el.getBoundingClientRect();
        if (outside(r)) return false;
      }
      const root = el.getRootNode() as Document | ShadowRoot;
      const hit = root.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
      return hit !== null && (hit === el || el.contains(hit));
    },
    undefined,
    { timeout },
  );
}

export const click = defineCommand({
  name: 'click',
  deadlineMs: DEFAULTS.actionDeadlineMs,
  category: 'write',
  group: 'Interact',
  description: 'Click an element; waits briefly (≤2 s) for requests it started',
  args: [{ name: 'selector', kind: 'selector', required: true }],
  async run(ctx, { selector }) {
    const loc = await ctx.resolve(String(selector));
    const force = await readyForPointer(loc, ctx.actionTimeout);
    await loc.click({ timeout: ctx.actionTimeout, force });
    await ctx.settle();
    return `Clicked ${describeTarget(ctx.tab.refs, String(selector))} → now at ${ctx.page.url()}`;
  },
});

export const fill = defineCommand({
  name: 'fill',
  deadlineMs: DEFAULTS.actionDeadlineMs,
  category: 'write',
  group: 'Interact',
  description: 'Replace the value of an input, textarea or contenteditable; fires input and change',
  args: [
    { name: 'selector', kind: 'selector', required: true },
    { name: 'text', kind: 'rest', required: true },
  ],
  async run(ctx, { selector, text }) {
    const loc = await ctx.resolve(String(selector));
    await loc.fill(String(text), { timeout: ctx.actionTimeout });
    await loc.dispatchEvent('change', undefined, { timeout: ctx.actionTimeout });
    await ctx.settle();
    return `Filled ${describeTarget(ctx.tab.refs, String(selector))} (${String(text).length} chars)`;
  },
});

export const select = defineCommand({
  name: 'select',
  deadlineMs: DEFAULTS.actionDeadlineMs,
  category: 'write',
  group: 'Interact',
  description: 'Choose an option of a <select> by value or visible label',
  args: [
    { name: 'selector', kind: 'selector', required: true },
    { name: 'value', kind: 'rest', required: true },
  ],
  async run(ctx, { selector, value }) {
    const chosen = await (await ctx.resolve(String(selector))).selectOption(String(value), { timeout: ctx.actionTimeout });
    await ctx.settle();
    return `Selected ${JSON.stringify(chosen.join(', '))} in ${describeTarget(ctx.tab.refs, String(selector))}`;
  },
});

export const hover = defineCommand({
  name: 'hover',
  deadlineMs: DEFAULTS.actionDeadlineMs,
  category: 'write',
  group: 'Interact',
  description: 'Move the mouse over an element',
  args: [{ name: 'selector', kind: 'selector', required: true }],
  async run(ctx, { selector }) {
    const loc = await ctx.resolve(String(selector));
    await loc.hover({ timeout: ctx.actionTimeout, force: await readyForPointer(loc, ctx.actionTimeout) });
    return `Hovered ${describeTarget(ctx.tab.refs, String(selector))}`;
  },
});

const MAX_TYPE_CHARS = 5_000; // ~1 ms a key: longer input would hold the page for seconds

export const type = defineCommand({
  name: 'type',
  deadlineMs: DEFAULTS.actionDeadlineMs,
  category: 'write',
  group: 'Interact',
  description: 'Type text into the focused element, key by key (output shows only the length)',
  args: [{ name: 'text', kind: 'rest', required: true }],
  async run(ctx, { text }) {
    if (String(text).length > MAX_TYPE_CHARS) {
      throw new BrowseError(`type presses one key per character; ${String(text).length} is over the ${MAX_TYPE_CHARS} limit.`, 'Use `fill <sel> <text>` for long text.');
    }
    await ctx.page.keyboard.type(String(text));
    await ctx.settle();
    return `Typed ${String(text).length} characters`;
  },
});

export const press = defineCommand({
  name: 'press',
  deadlineMs: DEFAULTS.actionDeadlineMs,
  category: 'write',
  group: 'Interact',
  description: 'Press a key or chord: Enter, Tab, Escape, ArrowDown, Control+A …',
  args: [{ name: 'key', kind: 'string', required: true }],
  async run(ctx, { key }) {
    try {
      await ctx.page.keyboard.press(String(key));
    } catch (e) {
      if (/Unknown key/i.test(String(e))) throw new BrowseError(`Unknown key '${key}'.`, 'Use names like Enter, Tab, Escape, Backspace, ArrowDown, PageDown, or chords like Control+A.');
      throw e;
    }
    await ctx.settle();
    return `Pressed ${key}`;
  },
});

export const scroll = defineCommand({
  name: 'scroll',
  deadlineMs: DEFAULTS.actionDeadlineMs,
  category: 'write',
  group: 'Interact',
  description: 'Scroll an element into view, or the page to the bottom',
  args: [{ name: 'selector', kind: 'selector' }],
  async run(ctx, { selector }) {
    if (selector) {
      await (await ctx.resolve(String(selector))).scrollIntoViewIfNeeded({ timeout: ctx.actionTimeout });
      return `Scrolled ${selector} into view`;
    }
    const y = await ctx.frame.evaluate(() => {
      window.scrollTo(0, document.documentElement.scrollHeight);
      return Math.round(window.scrollY);
    });
    return `Scrolled to bottom (y=${y})`;
  },
});

const LOAD_STATES = ['networkidle', 'load', 'domcontentloaded'] as const;
const MAX_WAIT_MS = 60_000; // longer waits belong in a loop the agent controls

/** `wait`'s own time limit; `wait --load 3000` puts the number in the selector slot. */
function waitTimeout(input: Input): { selector: unknown; timeout: number } {
  let { selector, ms } = input;
  if (LOAD_STATES.some((s) => input[s]) && selector !== undefined && ms === undefined && /^\d+$/.test(String(selector))) {
    ms = Number(selector);
    selector = undefined;
  }
  return { selector, timeout: ms === undefined ? 10_000 : Number(ms) };
}

export const wait = defineCommand({
  name: 'wait',
  deadlineFor: (input) => Math.min(MAX_WAIT_MS, Math.max(0, waitTimeout(input).timeout)) + 1000, // as long as asked
  category: 'read',
  group: 'Interact',
  description: 'Wait for an element to be visible, or for a load state (default up to 10 s)',
  usage: 'wait <sel|--networkidle|--load|--domcontentloaded> [ms]',
  args: [
    { name: 'selector', kind: 'selector' },
    { name: 'ms', kind: 'int' },
  ],
  flags: LOAD_STATES.map((s) => ({ name: `--${s}` as const, kind: 'boolean' as const, description: `Wait for the ${s} load state` })),
  async run(ctx, input) {
    const states = LOAD_STATES.filter((s) => input[s]);
    const { selector, timeout } = waitTimeout(input);
    if (timeout < 0 || timeout > MAX_WAIT_MS) throw new BrowseError(`The wait time must be between 0 and ${MAX_WAIT_MS} ms.`, 'Give milliseconds, e.g. `wait .done 3000`.');
    if (states.length > 1 || (states.length === 1) === (selector !== undefined)) {
      throw new BrowseError('wait needs exactly one of: a selector, --networkidle, --load, --domcontentloaded.', 'Example: `wait .result` or `wait --networkidle 5000`.');
    }
    const started = Date.now();
    if (states.length) {
      await ctx.frame.waitForLoadState(states[0], { timeout });
      return `Reached ${states[0]} after ${Date.now() - started}ms`;
    }
    try {
      await (await ctx.resolve(String(selector))).waitFor({ state: 'visible', timeout });
    } catch (e) {
      if (/Timeout/.test(String(e))) throw new BrowseError(`Element '${selector}' did not appear within ${timeout}ms.`, 'Check the selector with `html` or `snapshot`, or wait longer: `wait <sel> <ms>`.');
      throw e;
    }
    return `Found ${selector} after ${Date.now() - started}ms`;
  },
});

export const viewport = defineCommand({
  name: 'viewport',
  deadlineMs: 120_000, // --scale reopens every tab
  category: 'write',
  group: 'Interact',
  description: 'Resize the viewport of the current tab, e.g. 375x812; --scale sets the device pixel ratio for every tab (recreates the context)',
  args: [{ name: 'size', kind: 'string', required: true, display: 'WxH' }],
  flags: [{ name: '--scale', kind: 'string', value: '<n>', description: 'Device scale factor (e.g. 2 for retina); keeps cookies, storage, headers and tabs' }],
  async run(ctx, { size, scale }) {
    const m = String(size).match(/^(\d{2,5})x(\d{2,5})$/);
    if (!m) throw new BrowseError(`Invalid size '${size}'.`, 'Use WIDTHxHEIGHT, e.g. `viewport 375x812`.');
    const [width, height] = [Number(m[1]), Number(m[2])];
    if (width > 10000 || height > 10000) throw new BrowseError('Viewport too large (max 10000x10000).', 'Use a realistic device size, e.g. 1280x720.');
    if (scale === undefined) {
      await ctx.page.setViewportSize({ width, height });
      return `Viewport set to ${width}x${height}`;
    }
    const factor = /^\d+(\.\d+)?$/.test(String(scale)) ? Number(scale) : NaN;
    if (!(factor >= 0.25 && factor <= 5)) throw new BrowseError(`Invalid scale '${scale}'.`, 'Use a number from 0.25 to 5, e.g. `viewport 375x812 --scale 3`.');
    // The device pixel ratio is fixed per context: a new one, with the session carried over.
    const report = await ctx.browser.recreateContext({ viewport: { width, height }, deviceScaleFactor: factor });
    const count = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`;
    const head = `Viewport set to ${width}x${height} at scale ${factor} for all tabs (context recreated; ${count(report.tabs, 'tab')} reopened, ${count(report.cookies, 'cookie')} kept).`;
    return [head, ...report.problems.map((p) => `  ! ${p}`)].join('\n');
  },
});

export const dialogAccept = defineCommand({
  name: 'dialog-accept',
  category: 'write',
  group: 'Interact',
  description: 'Accept upcoming dialogs (the default); text is typed into prompt() dialogs',
  args: [{ name: 'text', kind: 'rest' }],
  async run(ctx, { text }) {
    ctx.browser.dialogPolicy = { accept: true, promptText: text === undefined ? undefined : String(text) };
    return text === undefined ? 'Dialogs will be accepted.' : `Dialogs will be accepted; prompts answered with ${String(text).length} chars.`;
  },
});

export const dialogDismiss = defineCommand({
  name: 'dialog-dismiss',
  category: 'write',
  group: 'Interact',
  description: 'Dismiss upcoming dialogs (confirm() returns false, prompt() returns null)',
  async run(ctx) {
    ctx.browser.dialogPolicy = { accept: false };
    return 'Dialogs will be dismissed.';
  },
});
