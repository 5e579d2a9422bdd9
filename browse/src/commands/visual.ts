import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BrowseError } from '../errors';
import { validateOutputPath } from '../policy';
import { defineCommand } from './define';

export const screenshot = defineCommand({
  name: 'screenshot',
  category: 'read',
  group: 'Visual',
  description: 'Save a PNG of the full page (default), the viewport, one element or a clip rectangle',
  args: [{ name: 'path', kind: 'path' }],
  flags: [
    { name: '--viewport', kind: 'boolean', description: 'Only the visible viewport' },
    { name: '--selector', kind: 'string', value: '<sel>', description: 'Only this element (CSS or @ref)' },
    { name: '--clip', kind: 'string', value: '<x,y,w,h>', description: 'Only this rectangle, in CSS pixels' },
  ],
  async run(ctx, input) {
    const out = validateOutputPath(input.path ? ctx.callerPath(String(input.path)) : join(tmpdir(), 'browse-screenshot.png'));
    if (!out.endsWith('.png')) throw new BrowseError('Screenshots are PNG files: the path must end in .png.', `Try \`screenshot ${out.replace(/\.[^./]*$/, '')}.png\`.`);
    if ([input.viewport, input.selector, input.clip].filter(Boolean).length > 1) {
      throw new BrowseError('Use only one of --viewport, --selector, --clip.', 'Run `help screenshot`.');
    }
    if (input.selector) {
      await (await ctx.resolve(String(input.selector))).screenshot({ path: out, timeout: ctx.actionTimeout });
      return `Screenshot of ${input.selector} saved: ${out}`;
    }
    if (input.clip) {
      const parts = String(input.clip).split(',').map(Number);
      if (parts.length !== 4 || parts.some((n) => !Number.isFinite(n) || n < 0) || parts[2] === 0 || parts[3] === 0) {
        throw new BrowseError(`Invalid --clip '${input.clip}'.`, 'Use --clip x,y,width,height with non-negative numbers, e.g. --clip 0,0,800,600.');
      }
      const [x, y, width, height] = parts;
      await ctx.page.screenshot({ path: out, clip: { x, y, width, height } });
      return `Screenshot of ${width}x${height} at ${x},${y} saved: ${out}`;
    }
    await ctx.page.screenshot({ path: out, fullPage: !input.viewport });
    return `Screenshot${input.viewport ? ' of the viewport' : ''} saved: ${out}`;
  },
});
