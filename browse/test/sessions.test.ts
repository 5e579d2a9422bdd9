// Named sessions (issue 7): isolated contexts inside one daemon and one Chromium, so parallel agents don't
// collide. Through the compiled CLI, with --session and BROWSE_SESSION.
import { afterAll, describe, expect, test } from 'bun:test';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeHome, startFixtureServer, waitFor } from './helpers';

const fixtures = startFixtureServer();
const home = makeHome('sessions');
const { ok, run } = home;
afterAll(async () => {
  await home.cleanup();
  fixtures.stop();
});

const inSession = (name: string, ...args: string[]) => run(['--session', name, ...args]);
const okIn = async (name: string, ...args: string[]) => {
  const r = await inSession(name, ...args);
  if (r.code !== 0) throw new Error(`--session ${name} ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
};

describe('named sessions', () => {
  test('5 sessions driven at once, 100 commands each: every answer comes from its own session', async () => {
    await ok('goto', fixtures.url('/basic.html?s=default'));
    const names = ['s1', 's2', 's3', 's4', 's5'];
    await Promise.all(
      names.map(async (name) => {
        await okIn(name, 'goto', fixtures.url(`/basic.html?s=${name}`));
        await okIn(name, 'cookie', `who=${name}`);
        await okIn(name, 'js', `localStorage.setItem('who', '${name}')`);
      }),
    );
    const wrong: string[] = [];
    const driven = names.map(async (name) => {
      for (let i = 0; i < 25; i++) {
        const url = await okIn(name, 'url');
        if (!url.includes(`?s=${name}`)) wrong.push(`${name} url: ${url}`);
        const stored = await okIn(name, 'js', "localStorage.getItem('who')");
        if (!stored.includes(`\n${name}\n`)) wrong.push(`${name} storage: ${stored}`);
        const cookies = await okIn(name, 'cookies');
        if (!cookies.includes(`"value": "${name}"`) || names.some((n) => n !== name && cookies.includes(`"value": "${n}"`))) wrong.push(`${name} cookies: ${cookies}`);
        const tabs = await okIn(name, 'tabs');
        // Under this load a title may take over 100 ms: then the last one seen is shown, marked busy.
        if (!new RegExp(`\\* \\[1\\] Basic fixture( \\(busy\\))? — ${fixtures.url(`/basic.html?s=${name}`).replace(/[.?]/g, '\\$&')}`).test(tabs) || tabs.includes('[2]')) wrong.push(`${name} tabs: ${tabs}`);
      }
    });
    await Promise.all(driven);
    expect(wrong).toEqual([]);
    expect(await ok('url')).toBe(fixtures.url('/basic.html?s=default')); // the default session was not touched
    expect(await ok('cookies')).not.toContain('"name": "who"');
  }, 120_000);

  test('sessions lists them and marks the caller; BROWSE_SESSION picks one like --session does', async () => {
    const listed = (await run(['sessions'], { env: { BROWSE_SESSION: 's2' } })).stdout;
    for (const name of ['default', 's1', 's2', 's3', 's4', 's5']) expect(listed).toContain(` ${name} — 1 tab, opened `);
    expect(listed).toMatch(/^\* s2 — /m);
    expect((await run(['url'], { env: { BROWSE_SESSION: 's3' } })).stdout).toContain('?s=s3');
  });

  test('tab ids, refs and logs are per session', async () => {
    expect(await okIn('s4', 'newtab', fixtures.url('/basic.html'))).toContain('Opened tab 2');
    expect(await ok('newtab')).toContain('Opened tab 2'); // the default session counts its own tabs
    await ok('closetab');
    await okIn('s4', 'closetab');
    await okIn('s1', 'goto', fixtures.url('/console.html'));
    expect(await waitFor(async () => (await okIn('s1', 'console')).includes('console fixture'), 5000)).toBe(true);
    expect(await okIn('s2', 'console')).not.toContain('console fixture');
    await okIn('s5', 'snapshot', '-i');
    expect((await inSession('s2', 'click', '@e1')).stderr).toContain('@e1'); // s2 took no snapshot: no refs
    await ok('status'); // the logs reach disk within a second, in the session's own file
    expect(await waitFor(() => existsSync(join(home.dir, '.gstack', 'browse-console.s1.log')) && readFileSync(join(home.dir, '.gstack', 'browse-console.s1.log'), 'utf8').includes('console fixture'), 5000)).toBe(true);
  });

  test('session close ends one session only; the default one cannot be closed that way; bad names are refused', async () => {
    expect(await ok('session', 'close', 's5')).toBe('Closed session s5 (1 tab).');
    expect(await ok('sessions')).not.toContain(' s5 ');
    expect(await okIn('s4', 'url')).toContain('?s=s4');
    expect((await run(['session', 'close', 'default'])).stderr).toContain('The default session is the daemon itself. Run `stop` to end it');
    expect((await run(['session', 'close', 'nope'])).stderr).toContain("No session named 'nope'.");
    expect((await inSession('no spaces', 'url')).stderr).toContain("'no spaces' is not a session name.");
    expect(await okIn('s5', 'url')).toBe('about:blank'); // a closed name opens afresh on next use
  });

  test('handoff is refused in a named session, and in the default one while others share the browser', async () => {
    expect((await inSession('s1', 'handoff')).stderr).toContain('handoff and resume work in the default session only');
    expect((await run(['handoff'])).stderr).toContain('Other sessions are open (');
  });
});
