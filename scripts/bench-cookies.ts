// Cookie import benchmark: 5,000 cookies from a real Chromium profile into the daemon's session, whole CLI process.
// Baselines from the same run: a warm `url` call (the CLI's fixed cost) and Playwright's own addCookies of the same
// 5,000 plaintext cookies in-process (the floor).
import { Database } from 'bun:sqlite';
import { createCipheriv, createHash, pbkdf2Sync } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright';
import { chromiumPath, makeChromiumProfile } from '../browse/test/cookie-fixtures';
import { requireBinary, timedCli } from './bench-cli';

const COOKIES = 5000;
const HOSTS = 250;
const RUNS = 7;
const BAR_MS = 1000;

requireBinary();

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const work = mkdtempSync(join(tmpdir(), 'browse-bench-cookies-'));
const home = join(work, 'home');
const stateFile = join(work, 'state', 'browse.json');
const env = { ...process.env, HOME: home, XDG_CONFIG_HOME: '', BROWSE_STATE_FILE: stateFile, BROWSE_IDLE_TIMEOUT: '120000', BROWSE_NO_OPEN: '1' };

async function cli(args: string[]): Promise<{ ms: number; out: string }> {
  const r = await timedCli(args, { env });
  if (r.code !== 0) throw new Error(`browse ${args.join(' ')}: ${r.stderr.trim()}`);
  return { ms: r.ms, out: r.stdout.trim() };
}

/** Fills the real DB up to COOKIES rows, encrypted as Chromium does (v10, host hash, "peanuts" key). */
function fillDb(file: string): { name: string; value: string; domain: string; path: string; expires: number }[] {
  const key = pbkdf2Sync('peanuts', 'saltysalt', 1, 16, 'sha1');
  const db = new Database(file);
  const template = db.query('SELECT * FROM cookies LIMIT 1').get() as Record<string, unknown>;
  const have = Number((db.query('SELECT COUNT(*) AS n FROM cookies').get() as { n: number }).n);
  const cols = Object.keys(template);
  const insert = db.prepare(`INSERT INTO cookies (${cols.join(',')}) VALUES (${cols.map(() => '?').join(',')})`);
  const plain: { name: string; value: string; domain: string; path: string; expires: number }[] = [];
  const expiresUtc = BigInt(Date.now() + 86_400_000) * 1000n + 11_644_473_600_000_000n;
  db.transaction(() => {
    for (let i = 0; i < COOKIES - have; i++) {
      const host = `.site${i % HOSTS}.test`;
      const value = `v${i}-${'x'.repeat(40)}`;
      const c = createCipheriv('aes-128-cbc', key, Buffer.alloc(16, 0x20));
      const enc = Buffer.concat([Buffer.from('v10'), c.update(Buffer.concat([createHash('sha256').update(host).digest(), Buffer.from(value)])), c.final()]);
      const row = { ...template, host_key: host, name: `c${i}`, value: '', encrypted_value: enc, path: '/', expires_utc: expiresUtc, has_expires: 1, is_persistent: 1 };
      insert.run(...(cols.map((k) => row[k as keyof typeof row]) as never[]));
      plain.push({ name: `c${i}`, value, domain: host, path: '/', expires: Number(expiresUtc - 11_644_473_600_000_000n) / 1e6 });
    }
  })();
  db.close();
  return plain;
}

async function floorMs(cookies: ReturnType<typeof fillDb>): Promise<number> {
  const browser = await chromium.launch({ executablePath: chromiumPath(), args: process.getuid?.() === 0 ? ['--no-sandbox'] : [] });
  try {
    const samples: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const context = await browser.newContext();
      const started = performance.now();
      await context.addCookies(cookies);
      samples.push(performance.now() - started);
      await context.close();
    }
    return median(samples);
  } finally {
    await browser.close();
  }
}

try {
  console.error('bench-cookies: making a real Chromium profile…');
  const profile = await makeChromiumProfile({ home, cookies: [{ host: 'www.shop.test', header: 'seed=1; Path=/; Max-Age=86400' }] });
  const plain = fillDb(profile.cookiesPath);
  console.error(`bench-cookies: ${COOKIES} cookies on ${HOSTS} hosts; timing…`);
  await cli(['url']); // start the daemon
  const urls: number[] = [];
  for (let i = 0; i < RUNS; i++) urls.push((await cli(['url'])).ms);
  const url = median(urls);
  const imports: number[] = [];
  let out = '';
  for (let i = 0; i < RUNS; i++) {
    const r = await cli(['cookie-import-browser', 'chromium', '--all']);
    imports.push(r.ms);
    out = r.out;
  }
  await cli(['stop']);
  const floor = await floorMs(plain);
  const p50 = median(imports);
  console.log(
    [
      '',
      `Cookie import — ${new Date().toISOString()}, ${RUNS} runs each, whole CLI processes on a warm daemon`,
      `Last reply: ${out}`,
      '',
      '| what | p50 (ms) | ratio |',
      '|---|---:|---:|',
      `| \`cookie-import-browser chromium --all\` (${COOKIES} cookies: read, decrypt, add) | ${p50.toFixed(1)} | 1.00 |`,
      `| baseline: warm \`url\` (fixed CLI cost) | ${url.toFixed(1)} | ${(url / p50).toFixed(2)} |`,
      `| floor: Playwright \`addCookies\` of the same ${COOKIES} plaintext cookies, in-process | ${floor.toFixed(1)} | ${(floor / p50).toFixed(2)} |`,
      '',
      `Bar: < ${BAR_MS} ms → ${p50 < BAR_MS ? 'PASS' : 'MISS'}`,
      '',
    ].join('\n'),
  );
} catch (e) {
  console.error(`bench-cookies failed: ${e instanceof Error ? e.message : String(e)}`);
  process.exitCode = 1;
} finally {
  if (existsSync(stateFile)) await cli(['stop']).catch(() => {});
  rmSync(work, { recursive: true, force: true });
}
