import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BrowseError } from '../errors';
import { validateOutputPath } from '../policy';
import { captureSnapshot } from '../snapshot/capture';
import { diffSnapshots } from '../snapshot/diff';
import { HEAT_COLOURS, labelPaints, screenshotWithOverlay, type Paint } from '../snapshot/overlay';
import { defineCommand, type FlagSpec } from './define';

// The one table of snapshot flags: parsing, `help` and the skill docs all read it.
export const SNAPSHOT_FLAGS: FlagSpec[] = [
  { name: '--interactive', short: '-i', kind: 'boolean', description: 'Only interactive elements (buttons, links, inputs…), flat' },
  { name: '--compact', short: '-c', kind: 'boolean', description: 'Drop unnamed structural nodes' },
  { name: '--depth', short: '-d', kind: 'int', value: '<N>', description: 'Only N levels deep (0 = top level)' },
  { name: '--selector', short: '-s', kind: 'string', value: '<sel>', description: 'Only the subtree of this element' },
  { name: '--diff', short: '-D', kind: 'boolean', description: "Unified diff against this tab's previous snapshot with the same flags" },
  { name: '--annotate', short: '-a', kind: 'boolean', description: 'Also save a full-page PNG with every ref labelled' },
  { name: '--output', short: '-o', kind: 'string', value: '<path>', description: 'Where -a / -H write the PNG' },
  { name: '--cursor', short: '-C', kind: 'boolean', description: 'Also list clickable elements missing from the tree (cursor:pointer, onclick, tabindex) as @c refs' },
  { name: '--heatmap', short: '-H', kind: 'string', value: '<json>', description: `Save a PNG colouring refs, e.g. '{"@e1":"green","@e4":"red"}' (${Object.keys(HEAT_COLOURS).join(', ')})` },
];

function parseHeatmap(raw: string): Record<string, string> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new BrowseError('-H needs a JSON object of ref → colour.', `Example: -H '{"@e1":"green","@e3":"red"}'`);
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new BrowseError('-H needs a JSON object of ref → colour.', `Example: -H '{"@e1":"green"}'`);
  for (const [ref, colour] of Object.entries(parsed)) {
    if (!/^@[ec]\d+$/.test(ref)) throw new BrowseError(`-H key '${ref}' is not a ref.`, 'Keys are refs such as @e3 or @c1.');
    if (typeof colour !== 'string' || !(colour in HEAT_COLOURS)) {
      throw new BrowseError(`-H colour ${JSON.stringify(colour)} for ${ref} is not allowed.`, `Use one of: ${Object.keys(HEAT_COLOURS).join(', ')}.`);
    }
  }
  return parsed as Record<string, string>;
}

export const snapshot = defineCommand({
  name: 'snapshot',
  untrusted: true,
  category: 'read',
  group: 'Snapshot',
  description: 'The accessibility tree, one line per element with an @e ref that every element command accepts',
  flags: SNAPSHOT_FLAGS,
  async run(ctx, input) {
    const heat = input.heatmap === undefined ? undefined : parseHeatmap(String(input.heatmap));
    if (input.depth !== undefined && Number(input.depth) < 0) throw new BrowseError('-d needs a depth of 0 or more.', 'Example: snapshot -d 2');
    if (input.output !== undefined && !input.annotate && !heat) throw new BrowseError('-o names the PNG of -a or -H.', 'Add -a (labelled refs) or -H <json> (heatmap).');
    const outFor = (fallback: string) => {
      const out = validateOutputPath(ctx.callerPath(String(input.output ?? join(tmpdir(), fallback))));
      if (!out.endsWith('.png')) throw new BrowseError('The -o path must end in .png.', 'Example: -o /tmp/annotated.png');
      return out;
    };
    const annotatePath = input.annotate ? outFor('browse-annotated.png') : undefined;
    const heatPath = heat ? outFor('browse-heatmap.png') : undefined;

    const frame = ctx.frame;
    const capture = await captureSnapshot(frame, {
      interactive: Boolean(input.interactive),
      compact: Boolean(input.compact),
      depth: input.depth === undefined ? undefined : Number(input.depth),
      selector: input.selector === undefined ? undefined : String(input.selector),
      cursor: Boolean(input.cursor),
      boxes: Boolean(annotatePath || heatPath),
    }, ctx.tab.refs);
    ctx.tab.refs = capture.refs;

    const key = JSON.stringify([input.interactive, input.compact, input.cursor, input.depth, input.selector, frame.url()]);
    const previous = ctx.tab.snapshots.get(key);
    ctx.tab.snapshots.set(key, capture.lines);

    const out: string[] = [];
    if (input.diff) {
      if (!previous) out.push('(no earlier snapshot with these flags on this tab: stored this one as the baseline; run `snapshot -D` again after an action)', ...capture.lines);
      else {
        const d = diffSnapshots(previous, capture.lines);
        out.push(...(d.length ? d : ['(no changes since the previous snapshot)']));
      }
    } else {
      out.push(...(capture.lines.length ? capture.lines : ['(no accessible elements' + (input.interactive ? ' that are interactive' : '') + ')']));
    }
    if (annotatePath) {
      await screenshotWithOverlay(ctx.page, labelPaints(capture.marks), annotatePath);
      out.push(`Annotated screenshot: ${annotatePath}`);
    }
    if (heat && heatPath) {
      const byRef = new Map(capture.marks.map((m) => [`@${m.ref}`, m.box]));
      const paints: Paint[] = [];
      for (const [ref, colour] of Object.entries(heat)) {
        const box = byRef.get(ref);
        if (!box) throw new BrowseError(`-H names ${ref}, which this snapshot does not have.`, 'Use refs printed by the same snapshot flags.');
        paints.push({ box, label: ref, fill: HEAT_COLOURS[colour] });
      }
      await screenshotWithOverlay(ctx.page, paints, heatPath);
      out.push(`Heatmap screenshot: ${heatPath}`);
    }
    return out.join('\n');
  },
});
