// Honest refs through the compiled CLI: one ref per element for the whole document whatever the flags, and
// every use says whether it hit the same element, was re-bound to a re-rendered twin, or was refused.
import { afterAll, beforeEach, describe, expect, test } from 'bun:test';
import { makeHome, startFixtureServer } from './helpers';

const fixtures = startFixtureServer();
const home = makeHome('refs');
const { run, ok } = home;
/** The ref printed on the line that contains `text` (e.g. `[button] "Save"`). */
const refOf = (out: string, text: string, nth = 0) => {
  const m = out.split('\n').filter((l) => l.includes(text) && /@e\d+ /.test(l))[nth]?.match(/@(e\d+)/);
  if (!m) throw new Error(`no ref for ${text} in:\n${out}`);
  return `@${m[1]}`;
};
const out = () => ok('text', '#out');

beforeEach(async () => {
  await ok('goto', fixtures.url('/refs.html'));
});
afterAll(async () => {
  await home.cleanup();
  fixtures.stop();
});

describe('one ref per element for the document', () => {
  test('an element keeps its ref across snapshot -c and snapshot -i; new elements get new numbers', async () => {
    const compact = await ok('snapshot', '-c');
    const interactive = await ok('snapshot', '-i');
    for (const name of ['"Save"', '"Apply"', '"Alpha"']) expect(refOf(interactive, name)).toBe(refOf(compact, name));
    expect(interactive.split('\n')[0]).not.toMatch(/^@e1 /); // -c gave @e1 to the heading; -i does not reuse it
    await ok('js', 'duplicateSave()');
    const after = await ok('snapshot', '-i');
    const used = new Set([...compact.matchAll(/@(e\d+)/g)].map((m) => m[1]));
    for (const m of after.matchAll(/@(e\d+) \[button\]/g)) expect(used.has(m[1])).toBe(false); // all three are new nodes
  });

  test('a ref copied from a -c snapshot still hits its element after a -i snapshot', async () => {
    const compact = await ok('snapshot', '-c');
    const apply = refOf(compact, '"Apply"');
    await ok('snapshot', '-i');
    expect(await ok('click', apply)).toStartWith(`Clicked ${apply} (button "Apply") →`);
    expect(await out()).toBe('Apply #2');
  });

  test('a ref from a full snapshot is still the same element after a narrower -s snapshot', async () => {
    const save = refOf(await ok('snapshot', '-i'), '"Save"');
    await ok('snapshot', '-s', 'nav'); // Playwright now only resolves refs it saw under <nav>
    expect(await ok('click', save)).toStartWith(`Clicked ${save} (button "Save") →`);
    expect(await out()).toBe('Save #1');
  });
});

describe('honest resolution', () => {
  test('the app replaces the button with an identical one: the click works and says it re-bound', async () => {
    const save = refOf(await ok('snapshot', '-i'), '"Save"');
    await ok('js', 'rerender()');
    expect(await ok('click', save)).toStartWith(`Clicked ${save} (re-bound: button "Save" was re-rendered) →`);
    expect(await out()).toBe('Save #3');
    expect(await ok('click', save)).toStartWith(`Clicked ${save} (button "Save") →`); // now bound to the new node
    expect(refOf(await ok('snapshot', '-i'), '"Save"')).toBe(save); // and the next snapshot agrees
  });

  test('a removed element is refused as gone, and nothing is clicked', async () => {
    const save = refOf(await ok('snapshot', '-i'), '"Save"');
    await ok('js', 'removeSave()');
    const r = await run(['click', save]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`Error: Ref ${save} (button "Save") is stale — the element is gone. Run \`snapshot\` for fresh refs.`);
    expect(await out()).toBe('none');
  });

  test('a button duplicated into two look-alikes is refused with both listed; a listed ref then works', async () => {
    const save = refOf(await ok('snapshot', '-i'), '"Save"');
    await ok('js', 'duplicateSave()');
    const r = await run(['click', save]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`Ref ${save} (button "Save") is ambiguous now — the element is gone and 2 look-alikes match (the snapshot saw 1). Not guessing`);
    const listed = [...r.stderr.matchAll(/^ {2}(@e\d+) button "Save" — (\d) of 2, .*at x=\d+ y=\d+$/gm)];
    expect(listed.map((m) => m[2])).toEqual(['1', '2']);
    expect(await out()).toBe('none');
    expect(await ok('click', listed[1][1])).toStartWith(`Clicked ${listed[1][1]} (button "Save") →`);
    expect(await out()).toBe('Save #4');
  });

  test('navigation clears the refs of the document', async () => {
    const save = refOf(await ok('snapshot', '-i'), '"Save"');
    await ok('goto', fixtures.url('/refs.html?again'));
    expect((await run(['click', save])).stderr).toContain(`Ref ${save} does not exist: this tab has no refs (they clear on navigation).`);
  });
});

describe('iframes', () => {
  test('an element in an iframe keeps its ref across flags and is re-bound after a re-render', async () => {
    await ok('goto', fixtures.url('/frames.html?cross=1'));
    await ok('wait', '--load');
    const compact = await ok('snapshot', '-c');
    const button = refOf(compact, '"Frame button"');
    expect(refOf(await ok('snapshot', '-i'), '"Frame button"')).toBe(button);
    await ok('frame', '#same');
    await ok('js', 'const b = document.querySelector("button"); b.replaceWith(b.cloneNode(true)); document.querySelector("button").onclick = () => (document.querySelector("#out").textContent = "twin")');
    await ok('frame', 'main');
    expect(await ok('click', button)).toStartWith(`Clicked ${button} (re-bound: button "Frame button" was re-rendered) →`);
    await ok('frame', '#same');
    expect(await ok('text', '#out')).toBe('twin');
    await ok('frame', 'main');
  });
});
