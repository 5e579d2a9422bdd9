import { DEFAULTS } from '../config';
import { BrowseError } from '../errors';
import { normalizeUrl } from '../policy';
import { defineCommand } from './define';

const nav = (timeout: number) => ({ waitUntil: 'domcontentloaded', timeout }) as const;
const statusOf = (r: { status(): number } | null) => (r ? String(r.status()) : 'no response');

export const goto = defineCommand({
  name: 'goto',
  deadlineMs: DEFAULTS.navigationDeadlineMs,
  category: 'write',
  group: 'Navigate',
  mainFrameOnly: true,
  description: 'Open a URL and wait for DOMContentLoaded (15 s); prints the HTTP status',
  args: [{ name: 'url', kind: 'url', required: true }],
  async run(ctx, { url }) {
    const target = normalizeUrl(String(url));
    let response;
    try {
      response = await ctx.page.goto(target, nav(ctx.navigationTimeout));
    } catch (e) {
      // Chromium shows its error page a moment after a failed load: let it land, or it cuts off the next goto.
      if (/net::ERR_/.test(String(e))) await ctx.page.waitForURL(/^chrome-error:/, { timeout: 2000 }).catch(() => {});
      throw e;
    }
    return `Navigated to ${ctx.page.url()} (${statusOf(response)})`;
  },
});

// back and forward differ only in direction and wording.
function historyCommand(name: 'back' | 'forward') {
  const [label, missing, hint] =
    name === 'back'
      ? ['Back to', 'There is no previous page in this tab.', 'Run `goto <url>` to navigate.']
      : ['Forward to', 'There is no next page in this tab.', 'Run `back` first, or `goto <url>`.'];
  return defineCommand({
    name,
    deadlineMs: DEFAULTS.navigationDeadlineMs,
    category: 'write',
    group: 'Navigate',
    mainFrameOnly: true,
    description: `Go ${name} in history`,
    async run(ctx) {
      const before = ctx.page.url();
      const response = await (name === 'back' ? ctx.page.goBack(nav(ctx.navigationTimeout)) : ctx.page.goForward(nav(ctx.navigationTimeout)));
      if (!response && ctx.page.url() === before) throw new BrowseError(missing, hint);
      return `${label} ${ctx.page.url()} (${statusOf(response)})`;
    },
  });
}

export const back = historyCommand('back');
export const forward = historyCommand('forward');

export const reload = defineCommand({
  name: 'reload',
  deadlineMs: DEFAULTS.navigationDeadlineMs,
  category: 'write',
  group: 'Navigate',
  mainFrameOnly: true,
  description: 'Reload the page',
  async run(ctx) {
    const response = await ctx.page.reload(nav(ctx.navigationTimeout));
    return `Reloaded ${ctx.page.url()} (${statusOf(response)})`;
  },
});

export const url = defineCommand({
  name: 'url',
  category: 'read',
  group: 'Navigate',
  description: 'Print the current URL',
  async run(ctx) {
    return ctx.page.url();
  },
});
