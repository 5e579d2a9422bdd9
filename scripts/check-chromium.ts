// Used by ./setup: find a Chromium the way the daemon does, and (with --launch) prove a headless launch works.
import { LAUNCH_FAILED_HINT } from '../browse/src/chromium';
import { checkLaunch, discoverChromium } from '../browse/src/chromium-check';

const choice = discoverChromium();
if (!choice) {
  console.log('none');
  process.exit(2);
}
if (!process.argv.includes('--launch')) {
  console.log(`${choice.path} (${choice.source})`);
  process.exit(0);
}
const launch = await checkLaunch(choice);
if (launch.ok) {
  console.log(`headless launch works: ${choice.path} (${choice.source}), version ${launch.version}`);
} else {
  console.error(`headless launch failed with ${choice.path}: ${launch.error}`);
  console.error(`Fix: ${LAUNCH_FAILED_HINT}`);
  process.exit(1);
}
