// The pure parts of snapshot: parsing Playwright's aria text, rendering, and diffing.
import { describe, expect, test } from 'bun:test';
import { diffSnapshots } from '../src/snapshot/diff';
import { parseAriaSnapshot } from '../src/snapshot/parse';
import { renderSnapshot } from '../src/snapshot/render';

const SAMPLE = `- generic [active] [ref=e1]:
  - heading "Top \\"quoted\\"" [level=1] [ref=e2]
  - navigation [ref=e3]:
    - link "A" [ref=e4] [cursor=pointer] [box=10,20,30,40]:
      - /url: /a
  - generic [ref=e7]:
    - text: Name
    - textbox "Name" [ref=e8]
  - checkbox "Agree" [checked] [ref=e9]
  - combobox "Color" [ref=e10]:
    - option "Red" [selected]
  - iframe [ref=e13]:
    - generic [ref=f1e1]:
      - button "In frame" [ref=f1e2]
  - paragraph [ref=e18]: "Some: text"`;

describe('parseAriaSnapshot', () => {
  test('reads roles, quoted names, states, refs, boxes, props and inline text', () => {
    const [root] = parseAriaSnapshot(SAMPLE);
    expect(root.role).toBe('generic');
    const [heading, nav, group, checkbox, combo, iframe, para] = root.children;
    expect(heading).toMatchObject({ role: 'heading', name: 'Top "quoted"', states: ['level=1'], ariaRef: 'e2' });
    const link = nav.children[0];
    expect(link).toMatchObject({ role: 'link', name: 'A', cursorPointer: true, box: [10, 20, 30, 40], props: { url: '/a' } });
    expect(group.children[0]).toMatchObject({ role: 'text', text: 'Name' });
    expect(checkbox.states).toEqual(['checked']);
    expect(combo.children[0]).toMatchObject({ role: 'option', name: 'Red', states: ['selected'] });
    expect(iframe.children[0].children[0]).toMatchObject({ role: 'button', name: 'In frame', ariaRef: 'f1e2' });
    expect(para).toMatchObject({ role: 'paragraph', text: 'Some: text' });
  });
});

describe('renderSnapshot', () => {
  const tree = parseAriaSnapshot(SAMPLE);

  test('default: every element but unnamed generics, indented by depth, with refs in order', () => {
    const { lines, refs } = renderSnapshot(tree);
    expect(lines).toEqual([
      '@e1 [heading] "Top \\"quoted\\"" [level=1]',
      '@e2 [navigation]',
      '  @e3 [link] "A" → /a',
      '"Name"',
      '@e4 [textbox] "Name"',
      '@e5 [checkbox] "Agree" [checked]',
      '@e6 [combobox] "Color"',
      '  @e7 [option] "Red" [selected]',
      '@e8 [iframe]',
      '  @e9 [button] "In frame"',
      '@e10 [paragraph]: Some: text',
    ]);
    expect(refs.find((r) => r.ref === 'e9')!.frames.map((f) => f.role)).toEqual(['iframe']);
  });

  test('-i: interactive only, flat, select options left out, iframe kept as a header', () => {
    expect(renderSnapshot(tree, { interactive: true }).lines).toEqual([
      '@e1 [link] "A"',
      '@e2 [textbox] "Name"',
      '@e3 [checkbox] "Agree" [checked]',
      '@e4 [combobox] "Color"',
      '@e5 [iframe]',
      '  @e6 [button] "In frame"',
    ]);
  });

  test('-c drops unnamed structure; -d cuts depth', () => {
    expect(renderSnapshot(tree, { compact: true }).lines).not.toContain('@e2 [navigation]');
    const shallow = renderSnapshot(tree, { depth: 0 }).lines;
    expect(shallow.every((l) => !l.startsWith(' '))).toBe(true);
    expect(shallow).not.toContain('  @e3 [link] "A" → /a');
  });
});

describe('diffSnapshots', () => {
  test('compares without refs, prints new refs, one line of context, removals first', () => {
    const before = ['@e1 [heading] "A"', '@e2 [button] "More"', '@e3 [link] "x"', '@e4 [link] "y"', '@e5 [link] "z"'];
    const after = ['@e1 [heading] "A"', '@e2 [button] "More" [expanded]', '@e3 [paragraph]: shown', '@e4 [link] "x"', '@e5 [link] "y"', '@e6 [link] "z"'];
    expect(diffSnapshots(before, after)).toEqual(['@@', '  @e1 [heading] "A"', '- @e2 [button] "More"', '+ @e2 [button] "More" [expanded]', '+ @e3 [paragraph]: shown', '  @e4 [link] "x"']);
    expect(diffSnapshots(before, before)).toEqual([]);
  });

  test('separate changes get separate hunks', () => {
    const a = Array.from({ length: 10 }, (_, i) => `@e${i + 1} [row] "${i}"`);
    const b = [...a];
    b[1] = '@e2 [row] "one!"';
    b[8] = '@e9 [row] "eight!"';
    expect(diffSnapshots(a, b).filter((l) => l === '@@')).toHaveLength(2);
  });
});
