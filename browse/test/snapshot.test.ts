// snapshot and refs (SPEC §3) through the compiled CLI: flags, refs in every element command, iframes,
// shadow DOM, staleness and ambiguity.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeHome, startFixtureServer } from './helpers';

const fixtures = startFixtureServer();
const other = startFixtureServer(); // a second origin for the cross-origin iframe
const crossPort = new URL(other.url('/')).port;
const home = makeHome('snapshot');
const run = home.run;
const ok = home.ok;
/** The ref printed on the line that contains `text` (e.g. `[button] "Save"`). */
const refOf = (out: string, text: string, nth = 0) => {
  const lines = out.split('\n').filter((l) => l.includes(text) && /@[ec]\d+ /.test(l));
  const m = lines[nth]?.match(/@([ec]\d+)/);
  if (!m) throw new Error(`no ref for ${text} in:\n${out}`);
  return `@${m[1]}`;
};
const pngSize = (path: string) => {
  const png = readFileSync(path);
  return { width: png.readUInt32BE(16), height: png.readUInt32BE(20) };
};

beforeAll(async () => {
  await ok('goto', fixtures.url('/snapshot.html'));
});
afterAll(async () => {
  await home.cleanup();
  fixtures.stop();
  other.stop();
});

describe('snapshot output', () => {
  test('one line per element with refs, roles, names and states', async () => {
    await ok('goto', fixtures.url('/snapshot.html'));
    const out = await ok('snapshot');
    const lines = out.split('\n');
    expect(lines[0]).toBe('@e1 [heading] "Orders" [level=1]');
    expect(out).toContain('[textbox] "Email"');
    expect(out).toContain('[textbox] "Coupon code"'); // placeholder as name, no label
    expect(out).toMatch(/@e\d+ \[textbox\]\n/); // a bare input still gets a ref
    expect(out).toContain('[checkbox] "I agree" [checked]');
    expect(out).toContain('[button] "Save" [disabled]');
    expect(out).toMatch(/^ {8}@e\d+ \[button\] "Delete"$/m); // indented by depth: table > rowgroup > row > cell > button
    expect(out).toContain('[paragraph]: Ready');
    expect(out).not.toContain('[generic]\n'); // no empty wrappers
  });

  test('a typed password never prints, in the tree or in a diff; other typed values do', async () => {
    await ok('goto', fixtures.url('/form.html'));
    try {
      await ok('snapshot');
      await ok('fill', '#pass', 'S3cretPass!');
      await ok('fill', '#user', 'ada');
      const diff = await ok('snapshot', '-D');
      const tree = await ok('snapshot');
      for (const out of [tree, diff]) {
        expect(out).not.toContain('S3cretPass');
        expect(out).toContain('[textbox] "Password": [REDACTED — 11 chars]');
      }
      expect(tree).toContain('[textbox] "User": ada');
    } finally {
      await ok('goto', fixtures.url('/snapshot.html'));
    }
  });

  test('long names are cut at 100 characters with an ellipsis', async () => {
    const out = await ok('snapshot', '-i');
    const long = out.split('\n').find((l) => l.includes('very long accessible name'))!;
    const name = JSON.parse(long.slice(long.indexOf('"')));
    expect(name).toHaveLength(100);
    expect(name).toEndWith('…');
  });

  test('-i lists only interactive elements, flat, with no text or URL lines', async () => {
    const out = await ok('snapshot', '-i');
    for (const line of out.split('\n')) expect(line).toMatch(/^@e\d+ \[(textbox|checkbox|button|link)\]/);
    expect(out.split('\n').filter((l) => l.includes('"Delete"'))).toHaveLength(10);
    expect(out).not.toContain('Orders');
    expect(out).not.toContain('→');
  });

  test('-c drops unnamed structure; -d limits depth; short flags combine', async () => {
    const compact = await ok('snapshot', '-c');
    expect(compact).not.toMatch(/\[(row|rowgroup)\]$/m);
    expect(compact).toContain('[button] "Delete"');
    const shallow = await ok('snapshot', '-d', '1');
    expect(shallow).toContain('[table]');
    expect(shallow).not.toContain('"Delete"'); // deeper than one level
    expect(shallow).toMatch(/^@e\d+ \[heading\] "Orders"/m); // numbered by the -i snapshot before it: refs stay per element
    const combined = await ok('snapshot', '-ic');
    expect(combined).toBe(await ok('snapshot', '-i', '-c'));
    expect(await ok('snapshot', '-id', '0')).toContain('[textbox] "Email"');
  });

  test('-s scopes to one element, and its refs work', async () => {
    const out = await ok('snapshot', '-s', 'form');
    expect(out).toContain('[textbox] "Email"');
    expect(out).not.toContain('Delete');
    await ok('fill', refOf(out, '"Email"'), 'scoped@example.com');
    expect(await ok('js', 'document.querySelector("#email").value')).toBe('scoped@example.com');
  });
});

describe('refs', () => {
  test('ten identical Delete buttons: the 7th ref deletes row 7', async () => {
    await ok('goto', fixtures.url('/snapshot.html'));
    const out = await ok('snapshot', '-i');
    const seventh = refOf(out, '"Delete"', 6);
    expect(await ok('click', seventh)).toStartWith(`Clicked ${seventh} (button "Delete")`);
    expect(await ok('text', '#status')).toBe('deleted 7');
    expect(await ok('js', '[...document.querySelectorAll("#rows tr")].map((r) => r.id).join()')).not.toContain('row-7,');
  });

  test('a ref whose role+name count changed is refused, not clicked blindly', async () => {
    // the snapshot above saw 10 Delete buttons; now there are 9
    const out = await ok('snapshot', '-i'); // fresh refs…
    const before = refOf(out, '"Delete"', 0);
    await ok('js', 'document.querySelector("#rows tr").remove()'); // …then the page changes under them
    const r = await run(['click', before]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`Ref ${before} (button "Delete") is ambiguous now — the element is gone and 8 look-alikes match (the snapshot saw 9).`);
    expect(r.stderr).toContain('run `snapshot`');
    expect(r.stderr).toMatch(/@e\d+ button "Delete" — 1 of 8, near cell "Item 2", at x=\d+ y=\d+/);
  });

  test('refs work in every element command', async () => {
    await ok('goto', fixtures.url('/snapshot.html'));
    const out = await ok('snapshot', '-i');
    const email = refOf(out, '"Email"');
    const agree = refOf(out, '"I agree"');
    const save = refOf(out, '"Save"');
    expect(await ok('fill', email, 'a@b.c')).toBe(`Filled ${email} (textbox "Email") (5 chars)`);
    expect(await ok('is', 'checked', agree)).toBe('true');
    expect(await ok('is', 'disabled', save)).toBe('true');
    expect(await ok('is', 'visible', email)).toBe('true');
    expect(JSON.parse(await ok('attrs', email))).toMatchObject({ id: 'email', type: 'email' });
    expect(await ok('css', save, 'display')).toBe('inline-block');
    expect(await ok('html', save)).toContain('id="save"');
    expect(await ok('text', refOf(out, '"More"'))).toBe('More');
    expect(await ok('hover', refOf(out, '"More"'))).toStartWith('Hovered @e');
    expect(await ok('scroll', refOf(out, '"Shadow button"'))).toStartWith('Scrolled @e');
    expect(await ok('wait', email, '1000')).toStartWith(`Found ${email}`);
    const shot = join(home.dir, 'ref.png');
    await ok('screenshot', '--selector', save, shot);
    expect(pngSize(shot).height).toBeLessThan(60);
  });

  test('stale refs fail fast and name the element; a fresh snapshot works (SPA swap, no navigation)', async () => {
    await ok('goto', fixtures.url('/spa.html'));
    const first = await ok('snapshot', '-i');
    const open = refOf(first, '"Open settings"');
    await ok('click', open);
    const r = await run(['click', open]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`Error: Ref ${open} (button "Open settings") is stale — the element is gone. Run \`snapshot\` for fresh refs.`);
    expect(r.ms).toBeLessThan(1000); // checked up front, not after a 5 s action timeout
    const fresh = await ok('snapshot', '-i');
    expect(fresh).toContain('[button] "Save settings"');
    expect(await ok('click', refOf(fresh, '"Save settings"'))).toContain('button "Save settings"');
  });

  test('navigation clears refs; unknown refs say which exist', async () => {
    await ok('goto', fixtures.url('/snapshot.html'));
    await ok('snapshot', '-i');
    expect((await run(['click', '@e999'])).stderr).toMatch(/Ref @e999 does not exist; the snapshots of this page have @e1–@e\d+\./);
    await ok('goto', fixtures.url('/spa.html'));
    expect((await run(['click', '@e1'])).stderr).toContain('Ref @e1 does not exist: this tab has no refs (they clear on navigation).');
  });
});

describe('snapshot -D', () => {
  test('first call stores a baseline; after a click it shows exactly the change', async () => {
    await ok('goto', fixtures.url('/snapshot.html'));
    const base = await ok('snapshot', '-c', '-d', '9', '-D'); // flags no other test uses: a first call
    expect(base).toStartWith('(no earlier snapshot with these flags on this tab');
    const more = refOf(base, '"More"');
    await ok('click', more);
    const diff = await ok('snapshot', '-c', '-d', '9', '-D');
    const changed = diff.split('\n').filter((l) => l.startsWith('+') || l.startsWith('-'));
    expect(changed).toEqual([expect.stringMatching(/^- @e\d+ \[button\] "More"$/), expect.stringMatching(/^\+ @e\d+ \[button\] "More" \[expanded\]$/), expect.stringMatching(/^\+ @e\d+ \[paragraph\]: Extra details$/)]);
    expect(diff.length).toBeLessThan(300);
    expect(await ok('snapshot', '-c', '-d', '9', '-D')).toBe('(no changes since the previous snapshot)');
  });
});

describe('snapshot -C, -a, -H', () => {
  test('-C gives @c refs to clickable elements missing from the tree, and they click', async () => {
    await ok('goto', fixtures.url('/snapshot.html'));
    const out = await ok('snapshot', '-iC');
    expect(out).toContain('@c1 [div] "Fancy div" (cursor:pointer, onclick) → #fancy');
    expect(out).toContain('@c2 [span] "Focusable span" (tabindex=0) → #ti');
    expect(await ok('click', '@c1')).toStartWith('Clicked @c1 (div "Fancy div")');
    expect(await ok('text', '#status')).toBe('fancy clicked');
  });

  test('-a and -H write full-page PNGs and leave no overlay behind', async () => {
    await ok('goto', fixtures.url('/snapshot.html'));
    const pageHeight = Number(await ok('js', 'document.documentElement.scrollHeight'));
    const annotated = join(home.dir, 'annotated.png');
    const out = await ok('snapshot', '-i', '-a', '-o', annotated);
    expect(out).toEndWith(`Annotated screenshot: ${annotated}`);
    expect(pngSize(annotated)).toEqual({ width: 1280, height: Math.max(720, pageHeight) });
    const heat = join(home.dir, 'heat.png');
    const heatOut = await ok('snapshot', '-i', '-H', '{"@e1":"green","@e2":"red"}', '-o', heat);
    expect(heatOut).toEndWith(`Heatmap screenshot: ${heat}`);
    expect(pngSize(heat).width).toBe(1280);
    expect(await ok('js', 'document.getElementById("__browse_overlay__") === null')).toBe('true');
  });

  test('bad flags give actionable errors', async () => {
    const cases: [string[], string][] = [
      [['snapshot', '-d', 'x'], '--depth must be a whole number'],
      [['snapshot', '-s', '#nothing-here'], "Selector '#nothing-here' matched nothing"],
      [['snapshot', '-H', '{"@e1":"url(javascript:alert(1))"}'], 'is not allowed. Use one of: green, red'],
      [['snapshot', '-H', 'not json'], '-H needs a JSON object'],
      [['snapshot', '-H', '{"e1":"green"}'], "-H key 'e1' is not a ref"],
      [['snapshot', '-z'], "Unknown flag '-z' for snapshot"],
      [['snapshot', '-di', '2'], 'must come last'],
      [['snapshot', '-o', '/tmp/x.png'], '-o names the PNG of -a or -H'],
      [['snapshot', '-a', '-o', '/etc/x.png'], 'outside the allowed directories'],
    ];
    for (const [args, message] of cases) {
      const r = await run(args);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(message);
    }
  });
});

describe('iframes and shadow DOM', () => {
  test('same-origin and cross-origin iframes appear in snapshot, and their refs fill and click', async () => {
    await ok('goto', fixtures.url(`/frames.html?cross=${crossPort}`));
    await ok('wait', '--load');
    const out = await ok('snapshot', '-i');
    expect(out.split('\n')).toEqual([
      expect.stringMatching(/^@e1 \[iframe\]$/),
      '  @e2 [textbox] "Frame name"',
      '  @e3 [button] "Frame button"',
      expect.stringMatching(/^@e4 \[iframe\]$/),
      '  @e5 [textbox] "Frame name"',
      '  @e6 [button] "Frame button"',
    ]);
    await ok('fill', '@e5', 'cross value');
    await ok('click', '@e6');
    await ok('fill', '@e2', 'same value');
    await ok('click', '@e3');
    const full = await ok('snapshot');
    expect(full).toContain('[paragraph]: clicked with same value');
    expect(full).toContain('[paragraph]: clicked with cross value');
    expect(full).toContain('[heading] "cross frame"');
  });

  test('frame enters an iframe by selector, @ref, --name or --url; navigation inside is refused', async () => {
    await ok('goto', fixtures.url(`/frames.html?cross=${crossPort}`));
    await ok('wait', '--load');
    expect(await ok('frame', '#cross')).toContain(`Entered frame "cross-frame" http://localhost:${crossPort}/frame-inner.html?who=cross`);
    expect(await ok('text', 'h2')).toBe('cross frame');
    const inner = await ok('snapshot', '-i');
    expect(inner).toBe('@e1 [textbox] "Frame name"\n@e2 [button] "Frame button"');
    await ok('fill', '@e1', 'inside');
    await ok('click', '@e2');
    expect(await ok('text', '#out')).toBe('clicked with inside');
    const nav = await run(['goto', fixtures.url('/basic.html')]);
    expect(nav.stderr).toBe('Error: goto acts on the whole tab, but a frame is entered. Run `frame main` first.');
    expect(await ok('frame', 'main')).toStartWith('Back in the main frame');
    const top = await ok('snapshot', '-i');
    expect(await ok('frame', refOf(top, '[iframe]', 0))).toContain('Entered frame "same-frame"');
    expect(await ok('text', 'h2')).toBe('same frame');
    await ok('frame', 'main');
    expect(await ok('frame', '--url', 'who=cross')).toContain('cross-frame');
    await ok('frame', 'main');
    expect(await ok('frame', '--name', 'same-frame')).toContain('same-frame');
    await ok('frame', 'main');
    expect((await run(['frame', '--name', 'nope'])).stderr).toContain('No frame matches --name nope. Frames on this page: same-frame');
    expect((await run(['frame', 'h1'])).stderr).toContain("'h1' is not an iframe");
  });

  test('elements inside an open shadow root get refs that work', async () => {
    await ok('goto', fixtures.url('/snapshot.html'));
    const out = await ok('snapshot', '-i');
    await ok('fill', refOf(out, '"Shadow input"'), 'from the shadows');
    await ok('click', refOf(out, '"Shadow button"'));
    expect(await ok('text', '#status')).toBe('shadow clicked: from the shadows');
  });
});

describe('large pages', () => {
  test('a 5,000-node page snapshots within time', async () => {
    await ok('goto', fixtures.url('/generated?n=5000'));
    const r = await run(['snapshot', '-i', '--max-output', '0']);
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n').length).toBeGreaterThan(1000);
    expect(r.ms).toBeLessThan(5000);
    const last = refOf(r.stdout, '"Button 499"');
    expect(await ok('click', last)).toContain('button "Button 499"');
  });
});
