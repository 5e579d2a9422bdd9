// Comparing pages: `diff` loads two URLs in a scratch tab of the same context (same cookies) and diffs their text.
import { DEFAULTS } from '../config';
import { plural } from '../errors';
import { normalizeUrl } from '../policy';
import { diffSnapshots } from '../snapshot/diff';
import type { CommandContext } from './context';
import { defineCommand } from './define';

type Page = CommandContext['page'];

/** Default budget for the printed diff; --all prints everything. */
const MAX_DIFF_LINES = 300;
/** After DOMContentLoaded, how long to wait for `load` (images, late scripts) before reading. */
const LOAD_GRACE_MS = 3_000;

/** The page's visible text, one trimmed non-empty line per entry: layout whitespace is not a difference. */
async function visibleLines(page: Page, url: string): Promise<{ lines: string[]; status: string; final: string }> {
  const response = await page.goto(url, { waitUntil: 'domcontentloaded', timeout: DEFAULTS.navigationTimeoutMs });
  await page.waitForLoadState('load', { timeout: LOAD_GRACE_MS }).catch(() => {});
  const text = await page.evaluate(() => document.body?.innerText ?? document.documentElement?.textContent ?? '');
  const lines = text
    .split('\n')
    .map((l) => l.replace(/\s+/g, ' ').trim())
    .filter(Boolean);
  return { lines, status: response ? String(response.status()) : 'no response', final: page.url() };
}


export const diff = defineCommand({
  name: 'diff',
  deadlineMs: 45_000, // two navigations
  category: 'read',
  group: 'Compare',
  untrusted: true,
  description: 'Line diff of the visible text of two URLs, loaded in a temporary tab (your tabs are left alone)',
  args: [
    { name: 'url1', kind: 'url', required: true },
    { name: 'url2', kind: 'url', required: true },
  ],
  flags: [{ name: '--all', kind: 'boolean', description: `Print the whole diff (default: the first ${MAX_DIFF_LINES} lines)` }],
  async run(ctx, input) {
    const urls = [normalizeUrl(String(input.url1)), normalizeUrl(String(input.url2))];
    const active = ctx.browser.activeTabId;
    // The browser manager adopts every page of the context as a tab and focuses it: focus goes back after.
    const scratch = await ctx.page.context().newPage();
    let a: Awaited<ReturnType<typeof visibleLines>>;
    let b: Awaited<ReturnType<typeof visibleLines>>;
    try {
      a = await visibleLines(scratch, urls[0]);
      b = await visibleLines(scratch, urls[1]);
    } finally {
      await scratch.close().catch(() => {});
      try {
        ctx.browser.activate(active);
      } catch {} // the tab was closed meanwhile: nothing to give focus back to
    }

    const head = [`--- ${a.final} (${a.status})`, `+++ ${b.final} (${b.status})`];
    const body = diffSnapshots(a.lines, b.lines);
    const added = body.filter((l) => l.startsWith('+ ')).length;
    const removed = body.filter((l) => l.startsWith('- ')).length;
    if (!added && !removed) return [...head, `No differences in visible text (${plural(a.lines.length, 'line')}).`].join('\n');
    const summary = `${plural(added, 'line')} added, ${removed} removed (${a.lines.length} → ${b.lines.length} lines)`;
    const shown = input.all || body.length <= MAX_DIFF_LINES ? body : body.slice(0, MAX_DIFF_LINES);
    const cut = body.length - shown.length;
    const tail = cut ? [`… ${plural(cut, 'more diff line')} not shown. Run \`diff ${String(input.url1)} ${String(input.url2)} --all\` for the rest.`] : [];
    return [...head, summary, ...shown, ...tail].join('\n');
  },
});
