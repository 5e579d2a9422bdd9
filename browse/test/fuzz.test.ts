// Abuse: 1,000 random and malformed requests against a live daemon. It must answer every one with a
// result or a JSON error, never crash, and keep the session (tabs, cookies) intact.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import { commands } from '../src/commands/index';
import { makeHome, startFixtureServer, unwrap, waitFor } from './helpers';

const fixtures = startFixtureServer();
const home = makeHome('fuzz');
const CASES = 1000;
const SEED = Number(process.env.FUZZ_SEED ?? 20261122);

// Commands that end or rebuild the session on purpose are not fuzzed: their job is to change it. Nor is
// cookie-import-browser: it reads the real user's browsers (a Keychain prompt on a Mac); its own tests cover bad input.
const LIFECYCLE = new Set(['stop', 'restart', 'closetab', 'tab', 'handoff', 'resume', 'state', 'useragent', 'viewport', 'cookie-import', 'cookie-import-browser']);

function prng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = [
  '', ' ', '#', '#id', 'div > p', '[[', '::', ':has(', 'button', 'h1', '.dup', '*', 'a[href', '@e1', '@e999999', '@c1', '@x', '@',
  'javascript:alert(1)', 'file:///etc/passwd', 'http://169.254.169.254/latest', 'http://[::ffff:a9fe:a9fe]/', 'http://2852039166/',
  'about:blank', 'data:text/html,<h1>x</h1>', 'http://127.0.0.1:1/', 'ftp://x', 'http://', '//x', '-1', '0', '99999999999999999999',
  '1e9', 'NaN', '--', '--x', '-', '-i', '-ddd', '--timeout', '--clip', '--clip=1,2', '--selector', '{', '[[]]', '[["chain","[]"]]',
  '[["url"]]', 'null', '\u0000', '\u001b[31mred', '\ud800', '\udfff\ud800', '😀', 'ü'.repeat(50), '../../../../etc/passwd', '/etc/x.png',
  '/tmp/browse-fuzz.png', 'x.png', 'Enter', 'Control+Alt+Delete', 'NotAKey', '375x812', '0x0', '100000x1', 'green', '{"@e1":"red"}',
  'document.title', '1+1', 'throw new Error("x")', 'a=b', '=', 'Name:value', 'Authorization: Bearer x', 'set', 'save', 'main',
];

function randomWord(r: () => number): string {
  const roll = r();
  if (roll < 0.75) return WORDS[Math.floor(r() * WORDS.length)];
  if (roll < 0.85) return Array.from({ length: Math.floor(r() * 20) }, () => String.fromCharCode(Math.floor(r() * 0xffff))).join('');
  if (roll < 0.9) return 'A'.repeat(Math.floor(r() * 20000));
  return String(Math.floor((r() - 0.5) * 2 ** 40));
}

function randomName(r: () => number, names: string[]): string {
  const roll = r();
  const name = names[Math.floor(r() * names.length)];
  if (roll < 0.8) return name;
  if (roll < 0.9) return name.slice(0, -1) + String.fromCharCode(97 + Math.floor(r() * 26)); // a typo
  return randomWord(r);
}

function randomBody(r: () => number, names: string[], tabId: number): string {
  const roll = r();
  if (roll < 0.8) {
    const args = Array.from({ length: Math.floor(r() * 5) }, () => randomWord(r));
    return JSON.stringify({ command: randomName(r, names), args, ...(r() < 0.7 ? { tabId } : {}) });
  }
  const raw = [
    'not json', '{"command":', 'null', '[]', '{}', '{"command":1}', '{"command":"url","args":{"a":1}}', '{"command":"url","args":[1,null,{}]}',
    '{"command":"url","tabId":"x"}', '{"command":"url","tabId":-5}', '{"command":"url","tabId":1e308}', '[[[[[[[[[[]]]]]]]]]]',
    `{"command":"text","args":["${'\\\\ud800'}"]}`, `{"command":"js","args":["${'x'.repeat(100_000)}"]}`, '{"commands":[]}', '\u0000\u0001',
  ];
  return raw[Math.floor(r() * raw.length)];
}

let base = '';
let token = '';
let pid = 0;

beforeAll(async () => {
  await home.run(['goto', fixtures.url('/set-cookie')]);
  await home.run(['newtab', fixtures.url('/form.html')]);
  const s = home.state()!;
  base = `http://127.0.0.1:${s.port}`;
  token = s.token;
  pid = s.pid;
});
afterAll(async () => {
  await home.cleanup();
  fixtures.stop();
});

describe('fuzz', () => {
  test(`${CASES} random and malformed requests: every one answered, daemon up, session intact`, async () => {
    const r = prng(SEED);
    const names = commands.map((c) => c.name).filter((n) => !LIFECYCLE.has(n));
    const bodies = Array.from({ length: CASES }, (_, i) => ({ path: i % 10 === 0 ? '/batch' : '/command', body: randomBody(r, names, 2) }));
    // /batch gets arrays of the same kind of steps
    for (const b of bodies) if (b.path === '/batch') b.body = `{"commands":[${[b.body, randomBody(r, names, 2)].join(',')}]}`;
    const tally = { ok: 0, clientError: 0, serverError: 0 };
    const slow: string[] = [];
    const serverErrors = new Map<string, number>();
    let next = 0;
    const worker = async () => {
      while (next < bodies.length) {
        const { path, body } = bodies[next++];
        const t0 = Date.now();
        const res = await fetch(base + path, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body, signal: AbortSignal.timeout(70_000) }).catch((e) => {
          throw new Error(`no answer within 70 s to ${path} ${body.slice(0, 300)}: ${e}`);
        });
        if (Date.now() - t0 > 10_000) slow.push(`${Date.now() - t0} ms: ${body.slice(0, 200)}`);
        const text = await res.text();
        if (res.ok) {
          tally.ok++;
          continue;
        }
        const parsed = JSON.parse(text) as { error: unknown; hint?: unknown };
        expect(typeof parsed.error).toBe('string');
        expect(res.status).toBeGreaterThanOrEqual(400);
        if (res.status >= 500) {
          tally.serverError++;
          const key = String(parsed.error).slice(0, 80);
          serverErrors.set(key, (serverErrors.get(key) ?? 0) + 1);
        } else tally.clientError++;
      }
    };
    const started = Date.now();
    await Promise.all(Array.from({ length: 40 }, worker));
    console.log(`fuzz: ${CASES} requests in ${Date.now() - started} ms (seed ${SEED}):`, tally, serverErrors.size ? Object.fromEntries(serverErrors) : '', slow);
    expect(tally.ok + tally.clientError + tally.serverError).toBe(CASES);

    const health = await (await fetch(`${base}/health`)).json();
    expect(health.status).toBe('healthy');
    expect(home.state()!.pid).toBe(pid);
    const tabs = unwrap((await home.run(['tabs'])).stdout);
    expect(tabs).toContain(`[1] Cookies — ${fixtures.url('/set-cookie')}`);
    expect(unwrap((await home.run(['cookies'])).stdout)).toContain('"theme"');
  });

  test('a page emitting 200,000 console messages keeps the daemon bounded', async () => {
    const rss = () => Number(readFileSync(`/proc/${pid}/status`, 'utf8').match(/VmRSS:\s+(\d+)/)![1]) / 1024;
    const before = rss();
    await home.run(['goto', fixtures.url('/flood.html?n=200000')]);
    const counted = async () => {
      const res = await fetch(`${base}/command`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: JSON.stringify({ command: 'console', args: ['--max-output', '0'] }) });
      return (await res.text()).split('\n').filter((l) => l.includes('flood message')).length;
    };
    // The ring holds the newest 50,000; wait until the last message has arrived.
    expect(await waitFor(async () => (await counted()) === 50_000 && (await (await fetch(`${base}/command`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: JSON.stringify({ command: 'console', args: ['--max-output', '0'] }) })).text()).includes('flood message 199999 '), 60_000, 500)).toBe(true);
    const grown = rss() - before;
    console.log(`console flood: RSS ${before.toFixed(0)} → ${rss().toFixed(0)} MB`);
    expect(grown).toBeLessThan(300);
    expect((await fetch(`${base}/health`)).ok).toBe(true);
  }, 120_000);
});
