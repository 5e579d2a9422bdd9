import { DEFAULTS } from '../config';
import { normalizeUrl } from '../policy';
import { defineCommand } from './define';

export const tabs = defineCommand({
  name: 'tabs',
  category: 'read',
  group: 'Tabs',
  description: 'List open tabs; * marks the active one',
  async run(ctx) {
    const active = ctx.browser.activeTabId;
    const rows = await Promise.all(
      ctx.browser.listTabs().map(async (t) => {
        const title = await Promise.race([t.page.title().catch(() => ''), new Promise<string>((r) => setTimeout(() => r('(busy)'), 200))]);
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

export const newtab = defineCommand({
  name: 'newtab',
  category: 'write',
  group: 'Tabs',
  description: 'Open a new tab (optionally at a URL) and make it active',
  args: [{ name: 'url', kind: 'url' }],
  async run(ctx, { url }) {
    const t = await ctx.browser.newTab();
    if (url) await t.page.goto(normalizeUrl(String(url)), { waitUntil: 'domcontentloaded', timeout: DEFAULTS.navigationTimeoutMs });
    return `Opened tab ${t.id}${url ? `: ${t.page.url()}` : ''}`;
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
