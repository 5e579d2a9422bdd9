// Session commands through the compiled CLI: upload, cookie, cookie-import, header, useragent,
// viewport --scale, state save/load, download, handoff/resume.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { childPids, makeHome, pidAlive, startFixtureServer, unwrap, waitFor } from './helpers';

const fixtures = startFixtureServer();
const FIXTURE_DIR = join(import.meta.dir, 'fixtures');

// Echoes what the browser sent, so headers and cookies are checked where they arrive.
const echo = Bun.serve({
  hostname: '127.0.0.1',
  port: 0,
  fetch(req) {
    const url = new URL(req.url);
    const text = (body: string, init: ResponseInit = {}) => new Response(body, { ...init, headers: { 'content-type': 'text/plain', ...(init.headers ?? {}) } });
    if (url.pathname === '/headers') return text(JSON.stringify(Object.fromEntries(req.headers), null, 1));
    if (url.pathname === '/protected') {
      return /(^|;\s*)dl_auth=ok(;|$)/.test(req.headers.get('cookie') ?? '') ? text('members-only report\n') : text('login first', { status: 401 });
    }
    if (url.pathname === '/attachment') return text('a,b\n1,2\n', { headers: { 'content-disposition': 'attachment; filename="data export.csv"', 'content-type': 'text/csv' } });
    if (url.pathname === '/to-metadata') return new Response(null, { status: 302, headers: { location: 'http://169.254.169.254/latest/meta-data/' } });
    if (url.pathname === '/to-file') return new Response(null, { status: 302, headers: { location: '/session-file.txt' } });
    if (url.pathname === '/session-file.txt') return text('after a redirect\n');
    return text('not found', { status: 404 });
  },
});
const echoUrl = (p: string) => `http://127.0.0.1:${echo.port}${p}`;

const home = makeHome('session');
const run = home.run;
const ok = home.ok;
const fails = home.fails;
const inHome = (name: string, content: string) => {
  const p = join(home.dir, name);
  writeFileSync(p, content);
  return p;
};
const echoed = async () => JSON.parse(await ok('text')) as Record<string, string>;
/** `tabs` as `*id url` / ` id url` lines: titles are left out, since under load `tabs` may print (busy) for one. */
const tabsOf = (out: string) => out.split('\n').map((l) => l.replace(/^([* ]) \[(\d+)\] .* — (\S+)$/, '$1$2 $3'));
const tabList = async (runner: (...args: string[]) => Promise<string> = ok) => tabsOf(await runner('tabs'));
const statesDir = join(dirname(home.stateFile), 'browse-states');
const createdFiles: string[] = [];

beforeAll(async () => {
  await ok('goto', fixtures.url('/session-upload.html'));
});
afterAll(async () => {
  await home.cleanup();
  for (const f of createdFiles) rmSync(f, { force: true });
  fixtures.stop();
  echo.stop(true);
});

describe('upload', () => {
  beforeAll(async () => {
    inHome('note.txt', 'hello');
    inHome('photo with space.png', 'not really a png');
    mkdirSync(join(home.dir, 'folder'), { recursive: true });
    await ok('goto', fixtures.url('/session-upload.html'));
  });

  test('upload sets files on single and multiple inputs; the page sees names and sizes', async () => {
    expect(await ok('upload', '#single', 'note.txt')).toBe('Uploaded 1 file to #single: note.txt (5 B)');
    expect(await ok('upload', '#many', 'note.txt', 'photo with space.png')).toBe('Uploaded 2 files to #many: note.txt (5 B), photo with space.png (16 B)');
    const out = await ok('text', '#out');
    expect(out).toContain('single=note.txt:5');
    expect(out).toContain('many=note.txt:5,photo with space.png:16');
  });

  test('upload on a button takes the file chooser it opens (hidden input behind a custom widget)', async () => {
    expect(await ok('upload', '#pick', join(home.dir, 'note.txt'))).toBe('Uploaded 1 file to #pick: note.txt (5 B)');
    expect(await ok('text', '#out')).toContain('hidden-input=note.txt:5');
  });

  test('upload works with an @ref from snapshot', async () => {
    const snap = await ok('snapshot', '-i');
    const ref = snap.match(/(@e\d+) \[button\] "Choose avatar"/)?.[1];
    expect(ref).toBeDefined();
    expect(await ok('upload', ref!, 'photo with space.png')).toContain(`to ${ref} (button "Choose avatar")`);
  });

  test('upload refuses: two files for a single input, a non-file element, missing, outside and directory paths', async () => {
    expect(await fails('upload', '#single', 'note.txt', 'photo with space.png')).toContain('#single takes one file, got 2');
    expect(await fails('upload', '#plain', 'note.txt')).toContain('is not a file input, and clicking it opened no file chooser');
    expect(await fails('upload', '#single', 'missing.txt')).toContain('missing.txt does not exist');
    expect(await fails('upload', '#single', '/etc/passwd')).toContain('outside the allowed directories');
    expect(await fails('upload', '#single', 'folder')).toContain('is a directory');
    expect(await fails('upload', '#single')).toContain('Missing <file>');
  });
});

describe('cookie', () => {
  test('cookie sets a cookie for the current host; the reply gives the length, never the value', async () => {
    await ok('goto', echoUrl('/headers'));
    const out = await ok('cookie', 'session_token=s3cr3t-value-123');
    expect(out).toBe('Set cookie session_token (16 chars) for 127.0.0.1, path /');
    await ok('reload');
    expect((await echoed()).cookie).toContain('session_token=s3cr3t-value-123');
    expect(await ok('cookies')).toContain('"value": "[REDACTED — 16 chars]"');
  });

  test('cookie refuses malformed pairs without echoing them, and pages that are not a site', async () => {
    for (const bad of ['just-a-secret-value', '=orphan-value']) {
      const err = await fails('cookie', bad);
      expect(err).toContain('cookie needs <name>=<value>');
      expect(err).not.toContain(bad);
    }
    expect(await fails('cookie', 'bad name=1')).toContain('has characters a cookie name cannot hold');
    expect(await fails('cookie', 'a=b;c')).toContain("contains ';'");
    await ok('newtab');
    expect(await fails('cookie', 'theme=dark')).toContain('A cookie belongs to a site, but this tab shows about:blank');
    await ok('closetab');
  });
});

describe('cookie-import', () => {
  const inAnHour = Date.now() / 1000 + 3600;
  const exportFile = () =>
    inHome(
      'cookies.json',
      JSON.stringify([
        { name: 'pw_pref', value: 'blue-value-1', domain: '127.0.0.1', path: '/', expires: -1, httpOnly: false, secure: false, sameSite: 'Lax' },
        { domain: '127.0.0.1', hostOnly: true, expirationDate: inAnHour + 0.25, name: 'ext_pref', value: 'green-value-2', path: '/', sameSite: 'unspecified', secure: false, session: false, storeId: '0', httpOnly: true },
        { name: 'elsewhere', value: 'other-value-3', domain: '.example.com', path: '/', sameSite: 'no_restriction', secure: true, expirationDate: inAnHour },
        { name: 'old', value: 'stale-value-4', domain: '127.0.0.1', path: '/', expires: 1000 },
        { value: 'nameless-value-5', domain: '127.0.0.1' },
        { name: 'loose', value: 'loose-value-6', domain: '127.0.0.1', sameSite: 'no_restriction', secure: false },
        42,
        { name: 'nowhere', value: 'nowhere-value-8' },
      ]),
    );

  test('cookie-import takes Playwright and browser-export cookies, reports counts and why others were skipped, never values', async () => {
    const out = await ok('cookie-import', exportFile());
    expect(out).toContain('Imported 3 cookies for 2 domains: 127.0.0.1 (2), .example.com (1).');
    expect(out).toContain('Skipped 5:');
    expect(out).toContain('#4 "old": expired');
    expect(out).toContain('#5: no name');
    expect(out).toContain('#6 "loose": SameSite=None without Secure');
    expect(out).toContain('#7: not an object');
    expect(out).toContain('#8 "nowhere": no valid domain');
    expect(out).not.toMatch(/value-\d/);
    await ok('goto', echoUrl('/headers'));
    const sent = (await echoed()).cookie;
    expect(sent).toContain('pw_pref=blue-value-1');
    expect(sent).toContain('ext_pref=green-value-2');
    const jar = JSON.parse(await ok('cookies')) as { name: string; domain: string; httpOnly: boolean; expires: string }[];
    expect(jar.find((c) => c.name === 'ext_pref')).toMatchObject({ httpOnly: true, domain: '127.0.0.1' });
    expect(jar.find((c) => c.name === 'ext_pref')!.expires).not.toBe('session');
    expect(jar.find((c) => c.name === 'elsewhere')).toMatchObject({ domain: '.example.com' });
  });

  test('cookie-import reads a Playwright storageState file and a relative path from the caller’s cwd', async () => {
    mkdirSync(join(home.dir, 'sub'), { recursive: true });
    writeFileSync(join(home.dir, 'sub', 'state.json'), JSON.stringify({ cookies: [{ name: 'from_state', value: 'v', domain: '127.0.0.1', path: '/', expires: -1, httpOnly: false, secure: false, sameSite: 'Lax' }], origins: [] }));
    const r = await run(['cookie-import', 'state.json'], { cwd: join(home.dir, 'sub') });
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe('Imported 1 cookie for 1 domain: 127.0.0.1 (1).');
  });

  test('cookie-import refuses missing, outside, non-JSON (without quoting it) and non-list files', async () => {
    expect(await fails('cookie-import', 'nope.json')).toContain('nope.json does not exist');
    expect(await fails('cookie-import', '/etc/passwd')).toContain('outside the allowed directories');
    const bad = inHome('bad.json', '[{"name": "sid", "value": hunter2-secret}]');
    const err = await fails('cookie-import', bad);
    expect(err).toContain('is not valid JSON');
    expect(err).not.toContain('hunter2');
    expect(await fails('cookie-import', inHome('obj.json', '{"hello": 1}'))).toContain('holds no list of cookies');
  });
});

describe('header', () => {
  afterAll(async () => {
    await ok('header', '--clear');
  });

  test('header sends extra headers with every request, merged; reply and listing mask credentials', async () => {
    expect(await ok('header', 'X-Trace:', 'abc')).toBe('Added header X-Trace: abc (sent with every request; 1 extra header in all).');
    const auth = await ok('header', 'Authorization: Bearer plain-looking-credential');
    expect(auth).toBe('Added header Authorization: Bearer [REDACTED — 24 chars] (sent with every request; 2 extra headers in all).');
    expect(await ok('header', 'X-Api-Key: k-123456')).toContain('X-Api-Key: [REDACTED — 8 chars]');
    expect(await ok('header', 'X-Forwarded-Note: ghp_abcdefghijklmnopqrstuv')).toContain('X-Forwarded-Note: [REDACTED — 26 chars]');
    const list = await ok('header');
    expect(list).toBe(
      ['Extra headers (4):', '  X-Trace: abc', '  Authorization: Bearer [REDACTED — 24 chars]', '  X-Api-Key: [REDACTED — 8 chars]', '  X-Forwarded-Note: [REDACTED — 26 chars]'].join('\n'),
    );
    await ok('goto', echoUrl('/headers'));
    const sent = await echoed();
    expect(sent['x-trace']).toBe('abc');
    expect(sent.authorization).toBe('Bearer plain-looking-credential');
    expect(sent['x-api-key']).toBe('k-123456');
  });

  test('header replaces by name (any case), `Name:` removes one, --clear removes all', async () => {
    expect(await ok('header', 'x-trace: xyz')).toContain('Replaced header x-trace: xyz');
    await ok('reload');
    expect((await echoed())['x-trace']).toBe('xyz');
    expect(await ok('header', 'X-Trace:')).toBe('Removed header X-Trace; 3 extra headers left.');
    await ok('reload');
    expect((await echoed())['x-trace']).toBeUndefined();
    expect(await ok('header', '--clear')).toBe('Cleared 3 extra headers.');
    await ok('reload');
    expect((await echoed()).authorization).toBeUndefined();
    expect(await ok('header')).toBe('(no extra headers)');
  });

  test('header refuses malformed input without echoing it, and headers Chromium owns', async () => {
    const err = await fails('header', 'secret-without-colon');
    expect(err).toContain('header needs <Name>:<value>');
    expect(err).not.toContain('secret-without-colon');
    expect(await fails('header', 'Bad Name: 1')).toContain("'Bad Name' is not a valid header name");
    expect(await fails('header', 'Host: evil.example')).toContain('Chromium sets Host itself');
    expect(await fails('header', 'User-Agent: x')).toContain('useragent <ua>');
    expect(await fails('header', '--clear', 'X-A: 1')).toContain('takes no header');
    expect(await fails('header', 'X-Never-Set:')).toContain('No extra header X-Never-Set to remove');
  });
});

describe('useragent and viewport --scale recreate the context, keeping the session', () => {
  beforeAll(async () => {
    await ok('goto', fixtures.url('/session-storage.html'));
    for (const t of (await ok('tabs')).split('\n').filter((l) => !l.startsWith('*'))) await ok('closetab', t.match(/\[(\d+)\]/)![1]);
    await ok('storage', 'set', 'note', 'kept-note');
    await ok('js', 'sessionStorage.setItem("draft", "kept-draft")');
    await ok('cookie', 'keep=yes');
    await ok('header', 'X-Keep: 1');
  });
  afterAll(async () => {
    await ok('header', '--clear');
  });

  test('useragent changes navigator.userAgent and the request header; cookies, storage, headers, tab ids and the active tab survive', async () => {
    const first = Number((await ok('tabs')).match(/^\* \[(\d+)\]/)![1]);
    const second = Number((await ok('newtab', echoUrl('/headers'))).match(/Opened tab (\d+)/)![1]);
    await ok('tab', String(first));
    const out = await ok('useragent', 'TestAgent/9.9 (gstack session test)');
    expect(out).toContain('User agent set to "TestAgent/9.9 (gstack session test)".');
    expect(out).toContain(`2 tabs reopened (active tab ${first}: ${fixtures.url('/session-storage.html')})`);
    expect(await tabList()).toEqual([`*${first} ${fixtures.url('/session-storage.html')}`, ` ${second} ${echoUrl('/headers')}`]);
    expect(JSON.parse(await ok('text', '#at-load'))).toMatchObject({ local: 'kept-note', session: 'kept-draft' });
    expect(await ok('js', 'navigator.userAgent')).toBe('TestAgent/9.9 (gstack session test)');
    await ok('tab', String(second));
    await ok('reload');
    const sent = await echoed();
    expect(sent['user-agent']).toBe('TestAgent/9.9 (gstack session test)');
    expect(sent['x-keep']).toBe('1');
    expect(sent.cookie).toContain('keep=yes');
    await ok('tab', String(first));
  });

  test('viewport --scale sets the device pixel ratio and size for every tab and keeps the session', async () => {
    const out = await ok('viewport', '400x300', '--scale', '2');
    expect(out).toMatch(/^Viewport set to 400x300 at scale 2 for all tabs \(context recreated; 2 tabs reopened, \d+ cookies? kept\)\.$/);
    expect(JSON.parse(await ok('text', '#at-load'))).toEqual({ local: 'kept-note', session: 'kept-draft', dpr: 2, width: 400 });
    expect(await ok('js', 'navigator.userAgent')).toBe('TestAgent/9.9 (gstack session test)');
    await ok('viewport', '600x400'); // without --scale: this tab only, scale kept
    expect(await ok('js', '[devicePixelRatio, innerWidth].join()')).toBe('2,600');
    await ok('useragent', 'TestAgent/10'); // a per-tab size survives a later recreation
    expect(await ok('js', '[devicePixelRatio, innerWidth].join()')).toBe('2,600');
  });

  test('viewport --scale and useragent refuse bad values', async () => {
    for (const bad of ['0', 'abc', '9', '-1']) expect(await fails('viewport', '400x300', `--scale=${bad}`)).toContain(`Invalid scale '${bad}'`);
    expect(await fails('viewport', '400x300', '--scale')).toContain('Flag --scale needs a value');
    expect(await fails('useragent', 'x'.repeat(1100))).toContain('at most 1024 characters');
  });

  test('a blank tab whose document was written by script comes back with that document', async () => {
    const id = (await ok('newtab')).match(/Opened tab (\d+)/)![1];
    await ok('js', 'document.body.innerHTML = "<h1 id=made>written by script</h1>"');
    expect(await ok('useragent', 'TestAgent/11')).toContain(`3 tabs reopened (active tab ${id}: about:blank)`);
    expect(await ok('text', '#made')).toBe('written by script');
    await ok('closetab', id);
  });
});

describe('state', () => {
  test('state save writes a 0600 file in a 0700 dir with cookies, localStorage and tabs; load brings them back over later changes', async () => {
    await ok('goto', fixtures.url('/session-storage.html'));
    await ok('cookie', 'keep=saved');
    const out = await ok('state', 'save', 'login-1');
    const file = join(statesDir, 'login-1.json');
    expect(out).toMatch(/^Saved state 'login-1': \d+ cookies, localStorage of 1 origin, 2 tabs → /);
    expect(out).toEndWith(file);
    expect(statSync(statesDir).mode & 0o777).toBe(0o700);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const saved = JSON.parse(readFileSync(file, 'utf8'));
    expect(saved.cookies.find((c: { name: string }) => c.name === 'keep').value).toBe('saved');
    expect(saved.tabs.map((t: { url: string }) => t.url)).toContain(fixtures.url('/session-storage.html'));
    expect(saved.origins.flatMap((o: { localStorage: unknown[] }) => o.localStorage)).toContainEqual({ name: 'note', value: 'kept-note' });
    const tabsBefore = await tabList();

    await ok('cookie', 'keep=changed');
    await ok('storage', 'set', 'note', 'changed-note');
    await ok('newtab', fixtures.url('/basic.html'));
    const loaded = await ok('state', 'load', 'login-1');
    expect(loaded).toContain("Loaded state 'login-1' (saved ");
    expect(loaded).toContain('2 tabs reopened');
    expect(loaded).toMatch(/\d+ cookies and localStorage from the state; extra headers kept\./);
    expect(await tabList()).toEqual(tabsBefore);
    const jar = JSON.parse(await ok('cookies')) as { name: string; value: string }[];
    expect(jar.find((c) => c.name === 'keep')!.value).toBe('saved');
    expect(JSON.parse(await ok('text', '#at-load')).local).toBe('kept-note');
  });

  test('state names are restricted; an unknown name lists the saved ones', async () => {
    for (const bad of ['../evil', '.hidden', 'a/b', 'a..b', 'x'.repeat(65), 'semi;colon']) {
      expect(await fails('state', 'save', bad)).toContain('Invalid state name');
      expect(await fails('state', 'load', bad)).toContain('Invalid state name');
    }
    expect(existsSync(join(dirname(statesDir), 'evil.json'))).toBe(false);
    expect(await fails('state', 'load', 'never-saved')).toContain("No saved state 'never-saved'. Saved states: login-1");
    expect(await fails('state', 'drop', 'x')).toContain("'drop' is not one of save, load");
  });

  test('a tampered state file cannot open a metadata address or a file outside the allowed dirs', async () => {
    writeFileSync(
      join(statesDir, 'tampered.json'),
      JSON.stringify({
        cookies: [{ name: 'ok', value: '1', domain: '127.0.0.1', path: '/', expires: -1, httpOnly: false, secure: false, sameSite: 'Lax' }, { bogus: true }],
        tabs: [
          { id: 1, url: 'http://169.254.169.254/latest/meta-data/' },
          { id: 2, url: 'file:///etc/passwd' },
          { id: 3, url: fixtures.url('/basic.html') },
        ],
        activeId: 3,
      }),
    );
    const out = await ok('state', 'load', 'tampered');
    expect(out).toContain('1 malformed cookie skipped');
    expect(out).toContain('tab 1: http://169.254.169.254/latest/meta-data/ refused (Refusing to open cloud metadata address');
    expect(out).toContain('tab 2: file:///etc/passwd refused (Path /etc/passwd is outside the allowed directories.)');
    expect(await tabList()).toEqual([' 1 about:blank', ' 2 about:blank', `*3 ${fixtures.url('/basic.html')}`]);
    expect(await fails('state', 'load', 'not-json')).toContain("No saved state 'not-json'");
    writeFileSync(join(statesDir, 'not-json.json'), '{ nope');
    expect(await fails('state', 'load', 'not-json')).toContain('is not valid JSON');
  });
});

describe('download', () => {
  const outputPath = (out: string) => out.slice(out.lastIndexOf(' → ') + 3);

  test('download <url> saves to the temp dir under the server’s name without overwriting, and reports size and type', async () => {
    const url = fixtures.url('/session-download.txt');
    const out = await ok('download', url);
    expect(out).toMatch(/^Downloaded session-download(-\d+)?\.txt \(20 B, text\/plain\) from http:\/\/127\.0\.0\.1:\d+\/session-download\.txt → /);
    const first = outputPath(out);
    createdFiles.push(first);
    expect(dirname(first)).toBe(tmpdir());
    expect(readFileSync(first, 'utf8')).toBe(readFileSync(join(FIXTURE_DIR, 'session-download.txt'), 'utf8'));
    const second = outputPath(await ok('download', url));
    createdFiles.push(second);
    expect(second).not.toBe(first);
  });

  test('download by clicking a link (CSS or @ref) saves under its suggested name, into a given dir or file', async () => {
    await ok('goto', fixtures.url('/session-download.html'));
    const intoDir = await ok('download', '#report', home.dir);
    expect(intoDir).toBe(`Downloaded quarterly report.txt (20 B) from ${fixtures.url('/session-download.txt')} → ${join(home.dir, 'quarterly report.txt')}`);
    expect(readFileSync(join(home.dir, 'quarterly report.txt'), 'utf8')).toContain('1,42');
    const ref = (await ok('snapshot', '-i')).match(/(@e\d+) \[link\] "Download the report"/)![1];
    expect(await ok('download', ref, 'named.txt')).toEndWith(`→ ${join(home.dir, 'named.txt')}`);
    expect(readFileSync(join(home.dir, 'named.txt'), 'utf8')).toContain('2,17');
  });

  test('download <url> sends the session’s cookies and headers, follows redirects, and names files by Content-Disposition', async () => {
    await ok('goto', echoUrl('/headers'));
    expect(await fails('download', echoUrl('/protected'), 'p.txt')).toContain('answered HTTP 401');
    await ok('cookie', 'dl_auth=ok');
    expect(await ok('download', '/protected', 'p.txt')).toContain('Downloaded p.txt (20 B, text/plain)');
    expect(readFileSync(join(home.dir, 'p.txt'), 'utf8')).toBe('members-only report\n');
    await ok('header', 'X-From-Session: yes');
    await ok('download', echoUrl('/headers'), 'h.json');
    await ok('header', '--clear');
    expect(JSON.parse(readFileSync(join(home.dir, 'h.json'), 'utf8'))['x-from-session']).toBe('yes');
    expect(await ok('download', echoUrl('/attachment'), home.dir)).toContain(`Downloaded data export.csv (8 B, text/csv) from ${echoUrl('/attachment')} → ${join(home.dir, 'data export.csv')}`);
    expect(await ok('download', echoUrl('/to-file'), home.dir)).toContain(`from ${echoUrl('/session-file.txt')} → ${join(home.dir, 'session-file.txt')}`);
  });

  test('download refuses outside paths before fetching, HTTP errors, metadata redirects and non-http URLs', async () => {
    expect(await fails('download', fixtures.url('/session-download.txt'), '/etc/evil.txt')).toContain('outside the allowed directories');
    expect(existsSync('/etc/evil.txt')).toBe(false);
    expect(await fails('download', fixtures.url('/missing.bin'), 'm.bin')).toContain('answered HTTP 404');
    expect(existsSync(join(home.dir, 'm.bin'))).toBe(false);
    expect(await fails('download', echoUrl('/to-metadata'), 'meta.txt')).toContain('Refusing to open cloud metadata address 169.254.169.254');
    expect(await fails('download', `file://${join(home.dir, 'note.txt')}`)).toContain('download fetches http(s) URLs');
  });
});

describe('handoff and resume', () => {
  const linux = process.platform === 'linux';
  const xvfb = linux ? Bun.which('Xvfb') : null;

  test('resume without a handoff is refused', async () => {
    expect(await fails('resume')).toContain('The session is not handed off');
  });

  // PATH minus Xvfb: every directory that holds it is replaced by a copy of links without it.
  const pathWithoutXvfb = (scratch: string) =>
    (process.env.PATH ?? '')
      .split(delimiter)
      .map((dir, i) => {
        if (!existsSync(join(dir, 'Xvfb'))) return dir;
        const shadow = join(scratch, `bin${i}`);
        mkdirSync(shadow, { recursive: true });
        for (const f of readdirSync(dir)) if (f !== 'Xvfb') symlinkSync(join(dir, f), join(shadow, f));
        return shadow;
      })
      .join(delimiter);

  test.skipIf(!linux)('handoff without a display or Xvfb refuses and says what to install; the daemon stays headless', async () => {
    const bare = makeHome('session-nodisplay');
    const scratch = mkdtempSync(join(tmpdir(), 'browse-noxvfb-'));
    try {
      const env = { DISPLAY: '', WAYLAND_DISPLAY: '', PATH: pathWithoutXvfb(scratch) };
      const r = await bare.run(['handoff', 'solve it'], { env });
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('No display for a visible browser: DISPLAY is not set and Xvfb is not installed.');
      expect(r.stderr).toContain('apt-get install -y xvfb');
      expect(r.stderr).toContain('DISPLAY');
      const status = await bare.run(['status'], { env });
      expect(status.stdout).toContain('Mode: headless');
      expect(bare.state()?.mode).toBe('headless');
    } finally {
      await bare.cleanup();
      rmSync(scratch, { recursive: true, force: true });
    }
  });

  const xvfbOf = (pid: number) => childPids(pid).filter((p) => readFileSync(`/proc/${p}/cmdline`, 'utf8').includes('Xvfb'));

  test.skipIf(!xvfb)(
    'handoff opens a headed browser on Xvfb with the same cookies and tabs; resume returns headless keeping what the person did; stop ends Xvfb',
    async () => {
      const headed = makeHome('session-headed');
      const env = { DISPLAY: '', WAYLAND_DISPLAY: '' };
      const hok = async (...args: string[]) => {
        const r = await headed.run(args, { env });
        if (r.code !== 0) throw new Error(`browse ${args.join(' ')} failed: ${r.stderr}`);
        return unwrap(r.stdout);
      };
      try {
        await hok('goto', fixtures.url('/session-storage.html'));
        await hok('cookie', 'before=1');
        await hok('newtab', fixtures.url('/basic.html'));
        await hok('tab', '1');
        const tabs = await tabList(hok);

        const out = await hok('handoff', 'Please solve the CAPTCHA');
        expect(out).toMatch(/^Handed off: a visible browser is open on virtual display :\d+ \(Xvfb/);
        expect(out).toContain('For the person: Please solve the CAPTCHA');
        expect(out).toContain('run `resume`');
        const pid = headed.state()!.pid;
        expect(headed.state()!.mode).toBe('headed');
        expect(await hok('status')).toContain('Mode: headed');
        const health = await (await fetch(`http://127.0.0.1:${headed.state()!.port}/health`)).json();
        expect(health.mode).toBe('headed');
        expect(xvfbOf(pid).length).toBe(1);
        expect(await tabList(hok)).toEqual(tabs);
        expect(await hok('cookies')).toContain('"name": "before"');

        // What the person does in the visible browser: sign in (a cookie), store something, open a tab.
        await hok('cookie', 'during=2');
        await hok('storage', 'set', 'note', 'left-by-person');
        await hok('newtab', fixtures.url('/form.html'));
        const again = await headed.run(['handoff'], { env });
        expect(again.stderr).toContain('already handed off');

        const back = await hok('resume');
        expect(back).toContain('Resumed headless.');
        expect(back).toContain('3 tabs reopened (active tab 3:');
        expect(headed.state()!.mode).toBe('headless');
        expect(await hok('status')).toContain('Mode: headless');
        expect(await waitFor(() => xvfbOf(pid).length === 0, 5000)).toBe(true);
        const jar = await hok('cookies');
        expect(jar).toContain('"name": "before"');
        expect(jar).toContain('"name": "during"');
        await hok('tab', '1');
        expect(JSON.parse(await hok('text', '#at-load')).local).toBe('left-by-person');

        await hok('handoff');
        const [display] = xvfbOf(pid);
        expect(display).toBeGreaterThan(0);
        await headed.cleanup(); // stop while handed off: Xvfb goes with the daemon
        expect(await waitFor(() => !pidAlive(display), 5000)).toBe(true);
      } finally {
        await headed.cleanup();
      }
    },
    180_000,
  );
});
