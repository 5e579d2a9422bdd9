import type { Frame } from 'playwright';
import { DEFAULTS } from '../config';
import { BrowseError } from '../errors';
import { normalizeUrl } from '../policy';
import { defineCommand } from './define';

export const tabs = defineCommand({
  name: 'tabs',
  untrusted: true,
  category: 'read',
  group: 'Tabs',
  description: 'List open tabs; * marks the active one',
  async run(ctx) {
    const active = ctx.browser.activeTabId;
    const rows = await Promise.all(
      ctx.browser.listTabs().map(async (t) => {
        const live = await Promise.race([t.page.title().catch(() => ''), new Promise<undefined>((r) => setTimeout(() => r(undefined), TITLE_WAIT_MS))]);
        const title = live ?? (t.title ? `${t.title} (busy)` : '(busy)');
        return `${t.id === active ? '*' : ' '} [${t.id}] ${title || '(untitled)'} — ${t.page.url()}`;
      }),
    );
    return rows.join('\n');
  },
});

export const tab = defineCommand({
  name: 'tab',
  category: 'meta',
  group: 'Tabs',
  description: 'Make a tab the active one',
  args: [{ name: 'id', kind: 'int', required: true }],
  async run(ctx, { id }) {
    const t = ctx.browser.activate(Number(id));
    await t.page.bringToFront().catch(() => {});
    return `Switched to tab ${t.id}: ${t.page.url()}`;
  },
});

/** A page too busy to say its title shows "(busy)": `tabs` is on the control path and must answer fast. */
const TITLE_WAIT_MS = 100;

export const newtab = defineCommand({
  name: 'newtab',
  deadlineMs: DEFAULTS.navigationDeadlineMs,
  category: 'write',
  group: 'Tabs',
  description: 'Open a new tab (optionally at a URL) and make it active',
  args: [{ name: 'url', kind: 'url' }],
  async run(ctx, { url }) {
    const t = await ctx.browser.newTab();
    if (!url) return `Opened tab ${t.id}`;
    const response = await t.page.goto(normalizeUrl(String(url)), { waitUntil: 'domcontentloaded', timeout: ctx.navigationTimeout });
    return `Opened tab ${t.id}: ${t.page.url()} (${response ? response.status() : 'no response'})`;
  },
});

export const closetab = defineCommand({
  name: 'closetab',
  category: 'write',
  group: 'Tabs',
  description: 'Close a tab (default: the active one); closing the last tab leaves a blank one',
  args: [{ name: 'id', kind: 'int' }],
  async run(ctx, { id }) {
    const { closed, active } = await ctx.browser.closeTab(id === undefined ? ctx.tab.id : Number(id));
    return `Closed tab ${closed.id}; active tab is ${active.id}: ${active.page.url()}`;
  },
});

export const frame = defineCommand({
  name: 'frame',
  category: 'meta',
  group: 'Tabs',
  description: 'Enter an iframe so later commands act inside it; `frame main` returns to the page',
  usage: 'frame <sel|@ref|--name n|--url pattern|main>',
  args: [{ name: 'target', kind: 'selector' }],
  flags: [
    { name: '--name', kind: 'string', value: '<name>', description: "The frame whose name attribute is this" },
    { name: '--url', kind: 'string', value: '<pattern>', description: 'The first frame whose URL contains this text' },
  ],
  async run(ctx, { target, name, url }) {
    if ([target, name, url].filter((v) => v !== undefined).length !== 1) {
      throw new BrowseError('frame needs exactly one of: a selector or @ref, --name <name>, --url <pattern>, or main.', 'Example: `frame iframe#checkout` or `frame main`.');
    }
    if (target === 'main') {
      ctx.tab.frame = undefined;
      return `Back in the main frame: ${ctx.page.url()}`;
    }
    let found: Frame | null | undefined;
    if (name !== undefined) found = ctx.page.frame({ name: String(name) });
    else if (url !== undefined) found = ctx.page.frames().find((f) => f !== ctx.page.mainFrame() && f.url().includes(String(url)));
    else {
      const handle = await (await ctx.resolve(String(target))).elementHandle({ timeout: ctx.actionTimeout });
      found = await handle.contentFrame();
      await handle.dispose();
      if (!found) throw new BrowseError(`'${target}' is not an iframe.`, 'Point at an <iframe> element (its @ref from `snapshot`, or a CSS selector).');
    }
    if (!found) {
      const known = ctx.page.frames().filter((f) => f !== ctx.page.mainFrame()).map((f) => (f.name() ? `${f.name()} (${f.url()})` : f.url()));
      throw new BrowseError(`No frame matches ${name !== undefined ? `--name ${name}` : `--url ${url}`}.`, known.length ? `Frames on this page: ${known.join(', ')}.` : 'This page has no iframes.');
    }
    ctx.tab.frame = found;
    return `Entered frame ${found.name() ? `"${found.name()}" ` : ''}${found.url()}; commands now act inside it (\`frame main\` to leave).`;
  },
});
