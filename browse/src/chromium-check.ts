// Finds Chromium the way the daemon does and proves that a headless launch works. Loads Playwright, so only
// ./setup (scripts/check-chromium.ts) and the hidden `browse __check-chromium` that `doctor` spawns import it.
import { chromium } from 'playwright';
import { CHROMIUM_ARGS, findChromium, sandboxAllowed, type ChromiumChoice } from './chromium';

export interface LaunchResult {
  ok: boolean;
  /** Chromium's own version string, when the launch worked. */
  version?: string;
  ms: number;
  /** The first line of the launch error. */
  error?: string;
}

/** What `__check-chromium` prints as one JSON line. */
export interface ChromiumReport {
  choice: ChromiumChoice | null;
  launch?: LaunchResult;
}

export function discoverChromium(env = process.env): ChromiumChoice | null {
  return findChromium(() => chromium.executablePath(), env);
}

/** Launches headless with the daemon's flags, renders a page and closes again. */
export async function checkLaunch(choice: ChromiumChoice, timeoutMs = 30_000): Promise<LaunchResult> {
  const started = performance.now();
  const ms = () => Math.round(performance.now() - started);
  try {
    const browser = await chromium.launch({ executablePath: choice.path, headless: true, chromiumSandbox: sandboxAllowed(), args: CHROMIUM_ARGS, timeout: timeoutMs });
    try {
      const page = await browser.newPage();
      await page.setContent('<title>ok</title><p>launch check</p>');
      const title = await page.title();
      if (title !== 'ok') throw new Error(`unexpected page title '${title}'`);
      return { ok: true, version: browser.version(), ms: ms() };
    } finally {
      await browser.close();
    }
  } catch (e) {
    return { ok: false, ms: ms(), error: (e instanceof Error ? e.message : String(e)).split('\n')[0].slice(0, 300) };
  }
}

/** The hidden `browse __check-chromium [--launch]`: one JSON line on stdout, for `doctor`. */
export async function runChromiumCheck(args: string[]): Promise<void> {
  const choice = discoverChromium();
  const report: ChromiumReport = { choice };
  if (choice && args.includes('--launch')) report.launch = await checkLaunch(choice);
  await Bun.write(Bun.stdout, `${JSON.stringify(report)}\n`);
}
