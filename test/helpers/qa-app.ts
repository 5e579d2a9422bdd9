// The qa-app fixture (test/fixtures/qa-app): its server, its planted bugs, and the score of a QA report
// against them (pure, unit-tested).
import { cpSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

export const QA_APP_DIR = join(import.meta.dir, '..', 'fixtures', 'qa-app');
/** How many consecutive report lines may hold one bug's keywords: an issue's title plus a few detail lines. */
export const REPORT_WINDOW_LINES = 5;

export interface PlantedBug {
  id: string;
  title: string;
  page: string;
  where: string;
  /** Every group must have a keyword in the same stretch of lines. */
  keywordGroups: string[][];
}

/** The answer key: never served, never copied into an agent's working dir. */
const ANSWER_KEY = 'planted-bugs.json';

/**
 * Serves the shop from dir (the fixture, or a copy an agent may edit) on 127.0.0.1, random port. Files are
 * read on every request and never cached, so an edit shows on the next load, as with a dev server. The only
 * API is POST /api/order; everything unknown is a 404 page, which is what makes the checkout (it posts to
 * /api/orders) and the shipping link fail. Hidden paths (.git, .claude, .gstack) and the answer key are 404s.
 */
export function startQaAppServer(dir: string = QA_APP_DIR) {
  let orders = 0;
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    fetch(req) {
      const path = new URL(req.url).pathname;
      if (path === '/api/order' && req.method === 'POST') return Response.json({ orderId: `FH-${1000 + ++orders}` }, { status: 201 });
      const file = join(dir, path === '/' ? 'index.html' : path);
      const hidden = path.split('/').some((segment) => segment.startsWith('.'));
      if (req.method === 'GET' && !hidden && path !== `/${ANSWER_KEY}` && isFile(file)) return new Response(Bun.file(file), { headers: { 'cache-control': 'no-store' } });
      return new Response('<!doctype html><title>Page not found · Fernhill Goods</title><h1>Page not found</h1><p><a href="/">Back to the shop</a></p>', {
        status: 404,
        headers: { 'content-type': 'text/html; charset=utf-8' },
      });
    },
  });
  return { url: `http://127.0.0.1:${server.port}`, orders: () => orders, stop: () => server.stop(true) };
}

/** Copies the app's files (not the answer key) into dest, for an agent that is allowed to fix them. */
export function copyQaApp(dest: string): void {
  cpSync(QA_APP_DIR, dest, { recursive: true, filter: (src) => src !== join(QA_APP_DIR, ANSWER_KEY) });
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

export interface BugScore {
  found: string[];
  missed: string[];
  total: number;
}

export function loadPlantedBugs(path: string = join(QA_APP_DIR, ANSWER_KEY)): PlantedBug[] {
  return (JSON.parse(readFileSync(path, 'utf8')) as { bugs: PlantedBug[] }).bugs;
}

/** Case-insensitive whole-word match: word edges are enforced only where the keyword has a word character. */
function keywordPattern(keyword: string): RegExp {
  const escaped = keyword.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const start = /^\w/.test(keyword) ? '(?<!\\w)' : '';
  const end = /\w$/.test(keyword) ? '(?!\\w)' : '';
  return new RegExp(`${start}${escaped}${end}`, 'i');
}

/** Whether some window of consecutive lines holds a keyword of every group. */
export function reportNamesBug(report: string, bug: PlantedBug, windowLines: number = REPORT_WINDOW_LINES): boolean {
  const groups = bug.keywordGroups.map((g) => g.map(keywordPattern));
  const lines = report.replace(/[’‘]/g, "'").split('\n');
  for (let i = 0; i < lines.length; i++) {
    const window = lines.slice(i, i + windowLines).join('\n');
    if (groups.every((g) => g.some((re) => re.test(window)))) return true;
  }
  return false;
}

/** Which planted bugs the report names. */
export function scorePlantedBugs(report: string, bugs: PlantedBug[], windowLines: number = REPORT_WINDOW_LINES): BugScore {
  const found = bugs.filter((b) => reportNamesBug(report, b, windowLines)).map((b) => b.id);
  return { found, missed: bugs.map((b) => b.id).filter((id) => !found.includes(id)), total: bugs.length };
}
