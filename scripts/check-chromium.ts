// Used by ./setup: find a Chromium the way the daemon does, and (with --launch) prove a headless launch works.
import { chromium } from 'playwright';
import { CHROMIUM_ARGS, findChromium, sandboxAllowed } from '../browse/src/chromium';

const choice = findChromium(() => chromium.executablePath());
if (!choice) {
  console.log('none');
  process.exit(2);
}
if (!process.argv.includes('--launch')) {
  console.log(`${choice.path} (${choice.source})`);
  process.exit(0);
}
try {
  const browser = await chromium.launch({ executablePath: choice.path, headless: true, chromiumSandbox: sandboxAllowed(), args: CHROMIUM_ARGS, timeout: 30_000 });
  const page = await browser.newPage();
  await page.setContent('<title>ok</title><p>launch check</p>');
  const title = await page.title();
  await browser.close();
  if (title !== 'ok') throw new Error(`unexpected page title '${title}'`);
  console.log(`headless launch works: ${choice.path} (${choice.source}), version ${browser.version()}`);
} catch (e) {
  console.error(`headless launch failed with ${choice.path}: ${(e as Error).message.split('\n')[0]}`);
  console.error('Fix: install the libraries Chromium needs (Debian/Ubuntu: apt-get install -y chromium), or point BROWSE_CHROMIUM_PATH at a working Chrome/Chromium.');
  process.exit(1);
}
