// Every command of the first slice, through the compiled CLI against fixture pages.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { makeHome, startFixtureServer, unwrap, waitFor } from './helpers';

const fixtures = startFixtureServer();
const home = makeHome('commands');
const run = home.run;
const ok = home.ok;

beforeAll(async () => {
  await ok('goto', fixtures.url('/basic.html'));
});
afterAll(async () => {
  await home.cleanup();
  fixtures.stop();
});

describe('navigate', () => {
  test('goto reports the final URL and HTTP status; url prints it', async () => {
    expect(await ok('goto', fixtures.url('/status/404'))).toBe(`Navigated to ${fixtures.url('/status/404')} (404)`);
    expect(await ok('goto', fixtures.url('/basic.html'))).toBe(`Navigated to ${fixtures.url('/basic.html')} (200)`);
    expect(await ok('url')).toBe(fixtures.url('/basic.html'));
  });

  test('goto adds a scheme to a bare host:port', async () => {
    const bare = fixtures.url('/basic.html').replace('http://', '');
    expect(await ok('goto', bare)).toContain('(200)');
  });

  test('back, forward and reload move through history', async () => {
    await ok('goto', fixtures.url('/basic.html'));
    await ok('goto', fixtures.url('/form.html'));
    expect(await ok('back')).toBe(`Back to ${fixtures.url('/basic.html')} (200)`);
    expect(await ok('forward')).toBe(`Forward to ${fixtures.url('/form.html')} (200)`);
    await ok('fill', '#user', 'temp');
    expect(await ok('reload')).toBe(`Reloaded ${fixtures.url('/form.html')} (200)`);
    expect(await ok('js', 'document.querySelector("#user").value')).toBe('');
  });

  test('forward with no next page says so', async () => {
    await ok('goto', fixtures.url('/basic.html'));
    const r = await run(['forward']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('no next page');
  });
});

describe('read', () => {
  beforeAll(async () => {
    await ok('goto', fixtures.url('/basic.html'));
  });

  test('text prints visible text of the page or an element', async () => {
    const all = await ok('text');
    expect(all).toContain('Welcome');
    expect(all).toContain('Hello from the basic fixture.');
    expect(all).not.toContain('secret text');
    expect(await ok('text', '#intro')).toBe('Hello from the basic fixture.');
  });

  test('html prints the document or one element', async () => {
    expect(await ok('html')).toContain('<h1 id="title">Welcome</h1>');
    expect(await ok('html', '#title')).toBe('<h1 id="title">Welcome</h1>');
  });

  test('links lists text and absolute href', async () => {
    const links = await ok('links');
    expect(links).toContain(`Form page → ${fixtures.url('/form.html')}`);
    expect(links).toContain(`Back to top → ${fixtures.url('/basic.html#top')}`);
  });

  test('forms lists fields as JSON and masks passwords', async () => {
    await ok('goto', fixtures.url('/form.html'));
    await ok('fill', '#pass', 'hunter2-very-secret');
    const out = await ok('forms');
    expect(out).not.toContain('hunter2');
    const forms = JSON.parse(out);
    expect(forms[0]).toMatchObject({ id: 'login', method: 'POST' });
    const pass = forms[0].fields.find((f: { id: string }) => f.id === 'pass');
    expect(pass.value).toBe('[REDACTED — 19 chars]');
    expect(forms[0].fields.find((f: { id: string }) => f.id === 'user')).toMatchObject({ label: 'User', required: true });
    expect(forms[0].fields.find((f: { id: string }) => f.id === 'color').options).toEqual(['r', 'g', 'b']);
    expect(forms[1]).toMatchObject({ formless: true });
  });
});

describe('inspect', () => {
  beforeAll(async () => {
    await ok('goto', fixtures.url('/basic.html'));
  });

  test('js evaluates expressions, awaits promises, and prints JSON for objects', async () => {
    expect(await ok('js', 'document.title')).toBe('Basic fixture');
    expect(await ok('js', '1', '+', '2')).toBe('3');
    expect(await ok('js', 'Promise.resolve({a: 1})')).toBe('{\n  "a": 1\n}');
    expect(await ok('js', 'undefined')).toBe('undefined');
    const bad = await run(['js', 'nope(']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('JavaScript error');
  });

  test('css reads a computed property; attrs lists attributes', async () => {
    expect(await ok('css', '#box', 'color')).toBe('rgb(255, 0, 0)');
    expect(JSON.parse(await ok('attrs', '#intro'))).toEqual({ id: 'intro', 'data-kind': 'greeting', class: 'lead' });
  });

  test('is checks element states', async () => {
    expect(await ok('is', 'visible', '#title')).toBe('true');
    expect(await ok('is', 'hidden', '#hidden-p')).toBe('true');
    expect(await ok('is', 'disabled', '#disabled-btn')).toBe('true');
    expect(await ok('is', 'enabled', '#disabled-btn')).toBe('false');
    await ok('goto', fixtures.url('/form.html'));
    expect(await ok('is', 'checked', '#remember')).toBe('false');
    await ok('click', '#remember');
    expect(await ok('is', 'checked', '#remember')).toBe('true');
    expect(await ok('is', 'editable', '#user')).toBe('true');
    await ok('click', '#user');
    expect(await ok('is', 'focused', '#user')).toBe('true');
    const bad = await run(['is', 'shiny', '#user']);
    expect(bad.stderr).toContain("'shiny' is not one of visible, hidden");
  });

  test('console and network capture page activity; --errors filters; --clear empties', async () => {
    await ok('console', '--clear');
    await ok('network', '--clear');
    await ok('goto', fixtures.url('/console.html'));
    expect(await waitFor(async () => (await ok('console')).includes('data ok=true'), 5000)).toBe(true);
    const log = await ok('console');
    expect(log).toMatch(/\[\d{4}-\d\d-\d\dT[^\]]+\] \[log\] hello from console fixture/);
    expect(log).toContain('[warning] careful now');
    const errors = await ok('console', '--errors');
    expect(errors).toContain('something failed');
    expect(errors).not.toContain('careful now');
    await ok('click', '#boom');
    expect(await waitFor(async () => (await ok('console', '--errors')).includes('Uncaught kaboom'), 5000)).toBe(true);
    expect(await waitFor(async () => (await ok('network')).includes('/missing.json'), 5000)).toBe(true);
    const net = await ok('network');
    expect(net).toMatch(new RegExp(`GET ${fixtures.url('/data.json').replace(/[.?]/g, '\\$&')} → 200 \\(\\d+ms, \\d+B\\)`));
    expect(net).toContain('/missing.json → 404');
    expect(await ok('console', '--clear')).toMatch(/^Cleared \d+ console entries\.$/);
    expect(await ok('console')).toBe('(no console entries)');
  });

  test('logs are flushed to .gstack files within about a second', async () => {
    await ok('js', 'console.log("flush-marker-42")');
    const file = join(home.dir, '.gstack', 'browse-console.log');
    expect(await waitFor(() => existsSync(file) && readFileSync(file, 'utf8').includes('flush-marker-42'), 5000)).toBe(true);
    expect(readFileSync(join(home.dir, '.gstack', 'browse-network.log'), 'utf8')).toContain('GET ');
  });

  test('cookies are listed with secret-looking values redacted', async () => {
    await ok('goto', fixtures.url('/set-cookie'));
    const out = await ok('cookies');
    expect(out).not.toContain('abc123supersecret');
    const cookies = JSON.parse(out);
    expect(cookies.find((c: { name: string }) => c.name === 'theme').value).toBe('dark');
    expect(cookies.find((c: { name: string }) => c.name === 'session_id')).toMatchObject({ value: '[REDACTED — 17 chars]', httpOnly: true });
  });

  test('storage reads and writes localStorage, redacting secrets', async () => {
    await ok('goto', fixtures.url('/basic.html'));
    expect(await ok('storage', 'set', 'greeting', 'hello', 'world')).toBe('Set localStorage["greeting"] (11 chars)');
    await ok('storage', 'set', 'auth_token', 'abcdef');
    const dump = JSON.parse(await ok('storage'));
    expect(dump.localStorage.greeting).toBe('hello world');
    expect(dump.localStorage.auth_token).toBe('[REDACTED — 6 chars]');
    expect(dump.sessionStorage).toEqual({});
    expect((await run(['storage', 'set', 'only-key'])).stderr).toContain('needs a key and a value');
  });
});

describe('interact', () => {
  beforeAll(async () => {
    await ok('goto', fixtures.url('/form.html'));
  });

  test('fill replaces the value and fires change', async () => {
    expect(await ok('fill', '#user', 'Ada', 'Lovelace')).toBe('Filled #user (12 chars)');
    expect(await ok('js', 'document.querySelector("#user").value')).toBe('Ada Lovelace');
    expect(await ok('text', '#last-change')).toBe('user=Ada Lovelace');
    expect(await ok('fill', '#user', '')).toBe('Filled #user (0 chars)'); // an empty word clears the field
    expect(await ok('js', 'document.querySelector("#user").value')).toBe('');
    expect((await run(['fill', '#user'])).stderr).toContain('Missing <text>.'); // no word at all is still an error
  });

  test('click waits for the request it started before returning', async () => {
    await ok('fill', '#user', 'grace');
    expect(await ok('click', '#go')).toBe(`Clicked #go → now at ${fixtures.url('/form.html')}`);
    expect(await ok('text', '#last-change')).toBe('server said grace');
  });

  test('select picks by value or by label', async () => {
    expect(await ok('select', '#color', 'g')).toBe('Selected "g" in #color');
    expect(await ok('select', '#color', 'Blue')).toBe('Selected "b" in #color');
    expect(await ok('text', '#last-change')).toBe('color=b');
  });

  test('hover, type and press', async () => {
    expect(await ok('hover', '#go')).toBe('Hovered #go');
    expect(await ok('text', '#hovered')).toBe('yes');
    await ok('click', '#loose');
    expect(await ok('type', 'hi there')).toBe('Typed 8 characters');
    expect(await ok('js', 'document.querySelector("#loose").value')).toBe('hi there');
    expect(await ok('press', 'Enter')).toBe('Pressed Enter');
    expect(await ok('text', '#keys')).toEndWith('Enter');
    expect((await run(['press', 'Fnord'])).stderr).toContain("Unknown key 'Fnord'");
  });

  test('scroll brings an element into view or goes to the bottom', async () => {
    await ok('goto', fixtures.url('/basic.html'));
    expect(await ok('scroll', '#far')).toBe('Scrolled #far into view');
    expect(Number(await ok('js', 'Math.round(window.scrollY)'))).toBeGreaterThan(1000);
    await ok('js', 'window.scrollTo(0, 0)');
    expect(await ok('scroll')).toMatch(/^Scrolled to bottom \(y=\d+\)$/);
  });

  test('wait for an element that appears later, and for load states', async () => {
    await ok('goto', fixtures.url('/tabs.html'));
    await ok('click', '#later');
    expect(await ok('wait', '#late')).toMatch(/^Found #late after \d+ms$/);
    expect(await ok('wait', '--load')).toMatch(/^Reached load after \d+ms$/);
    expect(await ok('wait', '--networkidle', '5000')).toMatch(/^Reached networkidle/);
    const never = await run(['wait', '#never', '300']);
    expect(never.code).toBe(1);
    expect(never.stderr).toContain("Element '#never' did not appear within 300ms");
    expect((await run(['wait'])).stderr).toContain('exactly one of');
  });

  test('viewport resizes the page', async () => {
    expect(await ok('viewport', '375x812')).toBe('Viewport set to 375x812');
    expect(await ok('js', '`${innerWidth}x${innerHeight}`')).toBe('375x812');
    await ok('viewport', '1280x720');
    expect((await run(['viewport', 'big'])).stderr).toContain("Invalid size 'big'");
  });

  test('dialogs are auto-accepted and logged; dialog-dismiss and dialog-accept <text> change the policy', async () => {
    await ok('dialog', '--clear');
    await ok('goto', fixtures.url('/dialog.html'));
    await ok('click', '#alert');
    await ok('click', '#confirm');
    expect(await ok('text', '#out')).toBe('confirm=true');
    expect(await ok('dialog-dismiss')).toBe('Dialogs will be dismissed.');
    await ok('click', '#confirm');
    expect(await ok('text', '#out')).toBe('confirm=false');
    await ok('dialog-accept', 'Grace', 'Hopper');
    await ok('click', '#prompt');
    expect(await ok('text', '#out')).toBe('prompt=Grace Hopper');
    await ok('dialog-accept');
    const log = await ok('dialog');
    expect(log).toMatch(/\[alert\] "Hello alert" → accepted/);
    expect(log).toContain('[confirm] "Are you sure?" → dismissed');
    expect(log).toContain('[prompt] "Your name?" → accepted with "Grace Hopper"');
  });
});

describe('actionability', () => {
  test('click waits for an element that becomes enabled or visible, scrolls to far ones, and refuses covered ones', async () => {
    await ok('goto', fixtures.url('/actionability.html'));
    await ok('click', '#arm');
    await ok('click', '#late'); // disabled for 400 ms: the full actionability wait takes over
    expect(await ok('text', '#out')).toBe('late clicked');
    await ok('click', '#show');
    await ok('click', '#hidden-btn');
    expect(await ok('text', '#out')).toBe('hidden clicked');
    await ok('click', '#far-btn');
    expect(await ok('text', '#out')).toBe('far clicked');
    const covered = await run(['click', '#covered']);
    expect(covered.code).toBe(1);
    expect(covered.stderr).toContain("Element '#covered' not found or not interactable within 5s.");
  });
});

describe('visual', () => {
  test('screenshot writes a PNG: full page, viewport, element, clip', async () => {
    await ok('goto', fixtures.url('/basic.html'));
    const full = join(home.dir, 'full.png');
    expect(await ok('screenshot', '--full-res', full)).toStartWith(`Screenshot saved: ${full} (1280x`);
    const png = readFileSync(full);
    expect(png.subarray(1, 4).toString()).toBe('PNG');
    const height = png.readUInt32BE(20);
    expect(height).toBeGreaterThan(3000); // the whole 3000px page, not just the viewport
    await ok('screenshot', '--viewport', join(home.dir, 'vp.png'));
    expect(readFileSync(join(home.dir, 'vp.png')).readUInt32BE(20)).toBe(720);
    await ok('screenshot', '--selector', '#box', join(home.dir, 'el.png'));
    expect(readFileSync(join(home.dir, 'el.png')).readUInt32BE(20)).toBeLessThan(100);
    await ok('screenshot', '--clip', '0,0,200,100', join(home.dir, 'clip.png'));
    expect(readFileSync(join(home.dir, 'clip.png')).readUInt32BE(16)).toBe(200);
    expect(await ok('screenshot', 'rel.png', '--viewport')).toBe(`Screenshot of the viewport saved: ${join(home.dir, 'rel.png')}`);
  });

  test('screenshot refuses paths outside the temp dir and the project', async () => {
    const r = await run(['screenshot', '/etc/evil.png']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('outside the allowed directories');
    expect(existsSync('/etc/evil.png')).toBe(false);
    expect((await run(['screenshot', join(home.dir, 'x.jpg')])).stderr).toContain('must end in .png');
    rmSync(join(home.dir, 'full.png'), { force: true });
  });
});

describe('tabs', () => {
  test('newtab, tabs, tab, closetab, and popups become tabs', async () => {
    await ok('goto', fixtures.url('/tabs.html'));
    const opened = await ok('newtab', fixtures.url('/form.html'));
    const id = Number(opened.match(/Opened tab (\d+)/)![1]);
    expect(await ok('url')).toBe(fixtures.url('/form.html'));
    let list = await ok('tabs');
    expect(list).toContain(`* [${id}] Form fixture — ${fixtures.url('/form.html')}`);
    const first = Number(list.match(/ \[(\d+)\] Tabs fixture/)![1]);
    expect(await ok('tab', String(first))).toBe(`Switched to tab ${first}: ${fixtures.url('/tabs.html')}`);
    expect(await ok('url')).toBe(fixtures.url('/tabs.html'));
    await ok('click', '#popup');
    expect(await waitFor(async () => (await ok('tabs')).includes('Basic fixture'), 5000)).toBe(true);
    expect(await ok('url')).toBe(fixtures.url('/basic.html')); // the popup took focus
    expect(await ok('closetab')).toMatch(/^Closed tab \d+; active tab is \d+/);
    expect(await ok('closetab', String(id))).toMatch(new RegExp(`^Closed tab ${id};`));
    list = await ok('tabs');
    expect(list.split('\n')).toHaveLength(1);
    expect((await run(['tab', '999'])).stderr).toContain('No tab with id 999');
  });

  test('closing the last tab leaves a blank one', async () => {
    const list = await ok('tabs');
    expect(list.split('\n')).toHaveLength(1);
    expect(await ok('closetab')).toMatch(/active tab is \d+: about:blank$/);
    expect(await ok('url')).toBe('about:blank');
  });
});

describe('meta', () => {
  test('status describes the daemon', async () => {
    const out = await ok('status');
    expect(out).toContain('Status: healthy');
    expect(out).toContain(`PID: ${home.state()!.pid}`);
    expect(out).toMatch(/Tabs: \d+ \(active: \d+\)/);
  });

  test('help lists every group and details one command', async () => {
    const out = await ok('help');
    for (const g of ['Navigate:', 'Read:', 'Inspect:', 'Interact:', 'Visual:', 'Tabs:', 'Meta:']) expect(out).toContain(g);
    expect(out).toContain('goto <url>');
    const one = await ok('help', 'screenshot');
    expect(one).toContain('Usage: browse screenshot [path] [--viewport] [--selector <sel>] [--clip <x,y,w,h>]');
    expect(one).toContain('--clip <x,y,w,h>');
    expect((await run(['help', 'clik'])).stderr).toContain("Did you mean 'click'?");
  });

  test('chain runs steps from a JSON argument or piped text and reports each', async () => {
    const json = JSON.stringify([['goto', fixtures.url('/form.html')], ['fill', '#user', 'Linus'], ['text', '#last-change']]);
    const out = await ok('chain', json);
    expect(out).toBe(
      [`[1/3] goto ${fixtures.url('/form.html')}`, `Navigated to ${fixtures.url('/form.html')} (200)`, '[2/3] fill #user Linus', 'Filled #user (5 chars)', '[3/3] text #last-change', 'user=Linus'].join('\n'),
    );
    const piped = await run(['chain'], { stdin: `goto ${fixtures.url('/basic.html')} | text "#intro"\nurl` });
    expect(piped.code).toBe(0);
    expect(unwrap(piped.stdout)).toContain('[2/3] text #intro\nHello from the basic fixture.');
    expect(piped.stdout).toEndWith(fixtures.url('/basic.html'));
  });

  test('chain names the failing step, exits 1, and --stop-on-error stops there', async () => {
    const steps = JSON.stringify([['url'], ['click', '#does-not-exist'], ['clik'], ['url']]);
    const r = await run(['chain', steps]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('[2/4] click #does-not-exist\nFAILED: Element \'#does-not-exist\' not found or not interactable within 5s.');
    expect(r.stdout).toContain("FAILED: Unknown command 'clik'. Did you mean 'click'?");
    expect(r.stdout).toEndWith('2 of 4 steps failed (step 2, 3).');
    const tooLong = await run(['chain', JSON.stringify(Array.from({ length: 51 }, () => ['url']))]);
    expect(tooLong.stderr).toContain('The chain has 51 steps; the limit is 50.');
    const stopped = await run(['chain', '--stop-on-error', JSON.stringify([['clik'], ['url']])]);
    expect(stopped.stdout).not.toContain('[2/2]');
    expect((await run(['chain', JSON.stringify([['chain', '[]']])])).stdout).toContain('cannot contain another chain');
    expect((await run(['chain', '{"not":"an array"}'])).stderr).toContain('Chain JSON must be an array');
  });
});
