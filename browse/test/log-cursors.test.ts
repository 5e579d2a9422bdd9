// Log cursors: ids on every entry, --since-last / --since, network filters, detail by id, HAR export.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { LogStore } from '../src/logs';
import { makeHome, startFixtureServer, unwrap, waitFor } from './helpers';

const fixtures = startFixtureServer();
const home = makeHome('log-cursors');
const ok = home.ok;

const idOf = (log: string, needle: string): number => {
  const line = log.split('\n').findLast((l) => l.includes(needle)); // the newest
  if (!line) throw new Error(`no line with ${needle} in:\n${log}`);
  return Number(/^#(\d+) /.exec(line)![1]);
};

beforeAll(async () => {
  await ok('goto', fixtures.url('/log-cursors.html'));
  expect(await waitFor(async () => (await ok('network')).includes('/refused'), 5000)).toBe(true);
});
afterAll(async () => {
  await home.cleanup();
  fixtures.stop();
});

describe('cursors', () => {
  test('--since-last returns only entries added since the previous read, and every read advances it', async () => {
    await ok('console', '--since-last');
    await ok('js', 'console.log("cursor-one")');
    const first = await ok('console', '--since-last');
    expect(first).toMatch(/^#\d+ \[[^\]]+\] \[log\] cursor-one$/);
    expect(await ok('console', '--since-last')).toBe('(no console entries)');
    await ok('js', 'console.log("cursor-two")');
    const second = await ok('console', '--since-last');
    expect(second).toContain('cursor-two');
    expect(second).not.toContain('cursor-one');
    await ok('js', 'console.log("cursor-three")');
    expect(await ok('console')).toContain('cursor-three'); // a plain read moves the cursor too
    expect(await ok('console', '--since-last')).toBe('(no console entries)');
  });

  test('callers in another directory keep their own cursor', async () => {
    const sub = join(home.dir, 'other-agent');
    mkdirSync(sub, { recursive: true });
    const other = async () => unwrap((await home.run(['console', '--since-last'], { cwd: sub })).stdout);
    await other();
    await ok('js', 'console.log("shared-news")');
    expect(await ok('console', '--since-last')).toContain('shared-news');
    expect(await other()).toContain('shared-news'); // not taken by the first caller's read
    expect(await other()).toBe('(no console entries)');
  });

  test('--since <id> and --since <ISO time> start after an entry or at a time', async () => {
    await ok('js', 'console.log("since-a")');
    await ok('js', 'console.log("since-b")');
    const log = await ok('console');
    const a = idOf(log, 'since-a');
    const b = idOf(log, 'since-b');
    expect(b).toBeGreaterThan(a);
    const afterA = await ok('console', '--since', String(a));
    expect(afterA).toContain('since-b');
    expect(afterA).not.toContain('since-a');
    expect(await ok('console', '--since', `#${b}`)).not.toContain('since-b');
    const bTime = /\[([^\]]+)\]/.exec(log.split('\n').find((l) => l.includes('since-b'))!)![1];
    const fromTime = await ok('console', '--since', bTime);
    expect(fromTime).toContain('since-b');
    expect(fromTime).not.toContain('since-a');
    expect(await home.fails('console', '--since', 'yesterday')).toContain('--since takes an entry id');
  });

  test('dialog takes cursors too', async () => {
    await ok('dialog', '--since-last');
    await ok('goto', fixtures.url('/dialog.html'));
    await ok('click', '#alert');
    expect(await ok('dialog', '--since-last')).toMatch(/^#\d+ \[[^\]]+\] \[alert\] "Hello alert" → accepted$/);
    expect(await ok('dialog', '--since-last')).toBe('(no dialog entries)');
    await ok('goto', fixtures.url('/log-cursors.html'));
  });

  test('logs survive navigation', async () => {
    await ok('js', 'console.log("before-navigation")');
    await ok('goto', fixtures.url('/basic.html'));
    await ok('goto', fixtures.url('/log-cursors.html'));
    const log = await ok('console');
    expect(log).toContain('before-navigation');
    expect(idOf(log, 'before-navigation')).toBeLessThan(idOf(log, 'log-cursors page loaded'));
  });
});

describe('ids', () => {
  test('ids keep increasing across ring wraparound and --clear', () => {
    const logs = new LogStore(3, (k) => `/dev/null/${k}`);
    for (let i = 1; i <= 5; i++) logs.console.push({ ts: i, level: 'log', text: `m${i}` });
    expect(logs.entries('console').map((x) => [x.id, x.entry.text])).toEqual([[3, 'm3'], [4, 'm4'], [5, 'm5']]);
    expect(logs.entries('console', 4).map((x) => x.id)).toEqual([5]);
    expect(logs.entry('console', 2)).toBeUndefined();
    expect(logs.entry('console', 4)?.text).toBe('m4');
    logs.console.clear();
    logs.console.push({ ts: 6, level: 'log', text: 'm6' });
    expect(logs.entries('console').map((x) => x.id)).toEqual([6]);
    expect(logs.newestId('console')).toBe(6);
  });

  test('cursors are per log and per caller', () => {
    const logs = new LogStore(10, (k) => `/dev/null/${k}`);
    logs.advanceCursor('console', '/a', 4);
    logs.advanceCursor('console', '/a', 2); // never moves back
    expect(logs.cursor('console', '/a')).toBe(4);
    expect(logs.cursor('console', '/b')).toBe(0);
    expect(logs.cursor('network', '/a')).toBe(0);
  });
});

describe('network', () => {
  test('--status, --method and --url filter the log', async () => {
    const fourxx = await ok('network', '--status', '4xx');
    expect(fourxx).toContain('/missing.json → 404');
    expect(fourxx).not.toContain('/data.json');
    expect(await ok('network', '--status', '404')).toContain('/missing.json → 404');
    expect(await ok('network', '--status', '5xx')).toBe('(no network entries)');
    const failed = await ok('network', '--status', 'failed');
    expect(failed).toMatch(/\/refused → net::ERR_\w+ \(/); // port 1 is refused by Chromium itself
    expect(failed).not.toMatch(/→ [1-5]\d\d /); // navigation-aborted fetches are failures too
    const posts = await ok('network', '--method', 'post');
    expect(posts).toContain('POST ');
    expect(posts).toContain('/api/echo?user=posted');
    expect(posts).not.toContain('GET ');
    const byUrl = await ok('network', '--url', 'data.json');
    expect(byUrl.split('\n').every((l) => l.includes('data.json'))).toBe(true);
    expect(await home.fails('network', '--status', 'teapot')).toContain('--status takes');
  });

  test('network <id> shows headers (secrets redacted), timing and size; --body prints the body', async () => {
    await ok('goto', fixtures.url('/set-cookie')); // later requests carry a Cookie header
    await ok('goto', fixtures.url('/log-cursors.html'));
    expect(await waitFor(async () => (await ok('network', '--since-last', '--url', 'data.json')).includes('data.json → 200'), 5000)).toBe(true);
    const id = idOf(await ok('network', '--url', 'data.json'), 'data.json');
    const detail = await ok('network', String(id));
    expect(detail).toMatch(new RegExp(`^#${id} GET .*/data\\.json → 200 OK\\nstarted \\S+ · took \\d+ms · size \\d+B`));
    expect(detail).toMatch(/timing: dns .*wait [\d.]+ms, receive [\d.]+ms/);
    expect(detail).toMatch(/^ {2}x-trace: visible-trace-value$/im);
    expect(detail).toMatch(/^ {2}x-api-key: \[REDACTED — 24 chars\]$/im);
    expect(detail).not.toContain('sk-live-abcdef1234567890');
    expect(detail).toMatch(/^ {2}cookie: \[REDACTED — \d+ chars\]$/im);
    expect(detail).not.toContain('abc123supersecret');
    expect(detail).toMatch(/response headers:\n(.*\n)*? {2}content-type: application\/json/i);
    expect(detail).not.toContain('"ok"');
    expect(await ok('network', '--id', `#${id}`, '--body')).toContain('{"ok": true}');

    await ok('goto', fixtures.url('/generated?n=2000'));
    const big = idOf(await ok('network', '--url', '/generated'), '/generated');
    const body = await ok('network', String(big), '--body');
    expect(body).toContain('<title>Generated</title>');
    expect(body).toMatch(/\(body cut: first 10240 of \d+ bytes shown\)$/);
    expect(body.length).toBeLessThan(12_000);
    expect(await home.fails('network', '999999')).toContain('not in the network log');
    await ok('goto', fixtures.url('/log-cursors.html'));
  });

  test('--har writes HAR 1.2 with every listed request, and only to allowed paths', async () => {
    // The page's requests land a little after goto: wait until the log stops changing, so listing and export agree.
    let previous = '';
    const quiet = async () => {
      const now = await ok('network', '--max-output', '0');
      const same = now === previous && now.includes('refused');
      previous = now;
      return same;
    };
    expect(await waitFor(quiet, 5000, 300)).toBe(true);
    const lines = (await ok('network', '--max-output', '0')).split('\n').length;
    const written = await ok('network', '--har', 'all.har');
    expect(written).toBe(`Wrote ${lines} requests as HAR 1.2 to ${join(home.dir, 'all.har')}`);
    const har = JSON.parse(readFileSync(join(home.dir, 'all.har'), 'utf8'));
    expect(har.log.version).toBe('1.2');
    expect(har.log.creator.name).toBe('gstack browse');
    expect(har.log.entries.length).toBe(lines);
    const data = har.log.entries.findLast((e: any) => e.request.url.endsWith('/data.json'));
    expect(data.response.status).toBe(200);
    expect(data.response.content.mimeType).toContain('json');
    expect(new Date(data.startedDateTime).toISOString()).toBe(data.startedDateTime);
    expect(data.request.headers.find((h: any) => h.name.toLowerCase() === 'x-api-key').value).toMatch(/^\[REDACTED/);
    for (const k of ['send', 'wait', 'receive']) expect(data.timings[k]).toBeGreaterThanOrEqual(0);

    const listed = (await ok('network', '--url', 'missing.json', '--max-output', '0')).split('\n').length;
    expect(await ok('network', '--url', 'missing.json', '--har', 'missing.har')).toMatch(new RegExp(`^Wrote ${listed} requests? as HAR`));
    const missing = JSON.parse(readFileSync(join(home.dir, 'missing.har'), 'utf8'));
    expect(missing.log.entries.length).toBe(listed);
    expect(missing.log.entries.every((e: any) => e.request.url.includes('missing.json'))).toBe(true);
    expect(missing.log.entries.some((e: any) => e.response.status === 404)).toBe(true);
    expect((await home.run(['network', '--har', '/etc/browse.har'])).stderr).toContain('outside the allowed directories');
  });
});
