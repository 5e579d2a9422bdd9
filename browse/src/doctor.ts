// `browse doctor`: checks the install from the CLI's side, one line per check, with the fix on each line that
// needs one. It starts no daemon and changes nothing; the Chromium launch runs in a child process
// (`browse __check-chromium`), so this process never loads Playwright.
import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, fstatSync, lstatSync, openSync, readFileSync, readSync, type Stats } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { LAUNCH_FAILED_HINT, MISSING_CHROMIUM_HINT } from './chromium';
import type { ChromiumReport } from './chromium-check';
import { fetchHealth } from './client';
import { isCompiled, readBinaryVersion, resolvePaths, selfArgv, type Paths } from './config';
import { isOurDaemon, isPidAlive, readState, type DaemonState } from './state';

type Level = 'ok' | 'warn' | 'FAIL';

interface Check {
  level: Level;
  name: string;
  found: string;
  /** The command to run (or what to do); shown on the same line. */
  fix?: string;
}

const HEALTH_TIMEOUT_MS = 1500;
const CHROMIUM_CHECK_MS = 40_000; // the launch itself is capped at 30 s
const REMOTE_TIMEOUT_MS = 5000;
const short = (v: string) => (/^[0-9a-f]{40}$/.test(v) ? v.slice(0, 12) : v);
const octal = (mode: number) => `0${(mode & 0o777).toString(8)}`;
const myUid = () => (typeof process.getuid === 'function' ? process.getuid() : undefined);

function render(checks: Check[]): { text: string; failed: boolean } {
  const tag = { ok: 'ok  ', warn: 'warn', FAIL: 'FAIL' } as const;
  const lines = checks.map((c) => `${tag[c.level]}  ${c.name}: ${c.found}${c.fix ? ` Fix: ${c.fix}` : ''}`);
  const fails = checks.filter((c) => c.level === 'FAIL').length;
  const warns = checks.filter((c) => c.level === 'warn').length;
  if (fails + warns === 0) lines.push('doctor: all checks passed.');
  else lines.push(`doctor: ${fails} failed, ${warns} ${warns === 1 ? 'warning' : 'warnings'}${fails ? '; each FAIL line says how to fix it' : ''}.`);
  return { text: lines.join('\n'), failed: fails > 0 };
}

export async function runDoctor(env = process.env): Promise<{ text: string; failed: boolean }> {
  const paths = resolvePaths(env);
  const remote = env.BROWSE_CONNECT ? 'BROWSE_CONNECT' : env.BROWSE_CDP_URL ? 'BROWSE_CDP_URL' : undefined;
  // The slow checks run while the quick ones are made.
  const browserCheck = remote ? checkRemote(remote, env[remote]!) : checkChromium(env);
  const checks: Check[] = [...checkBinary()];
  checks.push(...checkStateDir(paths));
  const { checks: stateChecks, state } = checkStateFile(paths);
  checks.push(...stateChecks);
  checks.push(...(await checkDaemon(paths, state)));
  checks.push(await browserCheck);
  checks.push(checkDaemonLog(paths));
  if (process.platform === 'linux') checks.push(checkDisplay(env), checkKeyring(env));
  return render(checks);
}

function checkBinary(): Check[] {
  const version = readBinaryVersion();
  if (!isCompiled) return [{ level: 'ok', name: 'binary', found: 'running from source (version dev)' }];
  if (version === 'unknown') {
    return [{ level: 'warn', name: 'binary', found: `${process.execPath} has no readable .version beside it, so daemon restarts after a rebuild cannot be detected.`, fix: 'Rebuild: `bun run build` (or ./setup) in its checkout.' }];
  }
  const checks: Check[] = [{ level: 'ok', name: 'binary', found: `${process.execPath}, version ${short(version)}` }];
  // browse/dist/browse inside a checkout: is the build behind a `git pull`?
  const checkout = resolve(dirname(process.execPath), '..', '..');
  if (existsSync(join(checkout, '.git')) && existsSync(join(checkout, 'package.json'))) {
    const git = spawnSync('git', ['-C', checkout, 'rev-parse', 'HEAD'], { encoding: 'utf8', timeout: 3000, stdio: ['ignore', 'pipe', 'ignore'] });
    const head = git.status === 0 ? git.stdout.trim() : '';
    if (head && head !== version) {
      checks.push({ level: 'warn', name: 'build', found: `the checkout is at ${short(head)} but this binary was built from ${short(version)}.`, fix: `Rebuild: \`cd ${checkout} && ./setup\` (or \`bun run build\`).` });
    } else if (head) checks.push({ level: 'ok', name: 'build', found: 'matches the checkout (git HEAD)' });
  }
  return checks;
}

function statOrNull(path: string): Stats | null {
  try {
    return lstatSync(path);
  } catch {
    return null;
  }
}

function ownerProblem(st: Stats, path: string): Check | null {
  const uid = myUid();
  if (uid === undefined || st.uid === uid) return null;
  return { level: 'FAIL', name: 'ownership', found: `${path} belongs to uid ${st.uid}, not to you (uid ${uid}).`, fix: `\`sudo chown -R ${uid} ${path}\`, or set BROWSE_STATE_FILE to a path of your own.` };
}

function checkStateDir(paths: Paths): Check[] {
  const dir = paths.stateDir;
  const st = statOrNull(dir);
  if (!st) return [{ level: 'ok', name: 'state dir', found: `${dir} does not exist yet (the first command creates it, 0700)` }];
  if (!st.isDirectory()) return [{ level: 'FAIL', name: 'state dir', found: `${dir} is not a directory.`, fix: 'Move it away, or set BROWSE_STATE_FILE to a path in a directory of its own.' }];
  const owner = ownerProblem(st, dir);
  if (owner) return [{ ...owner, name: 'state dir' }];
  const perm = st.mode & 0o777;
  const gstack = basename(dir) === '.gstack';
  const checks: Check[] = [];
  if (gstack && perm !== 0o700) {
    checks.push({ level: 'FAIL', name: 'state dir', found: `${dir} is ${octal(perm)}; it holds the daemon's token and logs and must be 0700.`, fix: `\`chmod 700 ${dir}\`` });
  } else if (!gstack && perm & 0o022 && !(st.mode & 0o1000)) {
    checks.push({ level: 'warn', name: 'state dir', found: `${dir} is ${octal(perm)}: other users can replace the state file in it.`, fix: `\`chmod 700 ${dir}\`, or point BROWSE_STATE_FILE into a directory of its own.` });
  } else {
    checks.push({ level: 'ok', name: 'state dir', found: `${dir} (${octal(perm)}, yours${gstack ? '' : '; not a .gstack dir, so its mode is left as it is'})` });
  }
  if (gstack && !existsSync(join(dir, '.gitignore'))) {
    checks.push({ level: 'warn', name: 'gitignore', found: `${dir} has no .gitignore, so the token could end up in a commit.`, fix: `\`echo '*' > ${join(dir, '.gitignore')}\` (the next daemon start writes it too).` });
  }
  return checks;
}

function checkStateFile(paths: Paths): { checks: Check[]; state: DaemonState | null } {
  const file = paths.stateFile;
  const st = statOrNull(file);
  if (!st) return { checks: [], state: null };
  const checks: Check[] = [];
  const owner = ownerProblem(st, file);
  const perm = st.mode & 0o777;
  if (owner) checks.push({ ...owner, name: 'state file' });
  else if (!st.isFile()) checks.push({ level: 'FAIL', name: 'state file', found: `${file} is not a regular file.`, fix: `\`rm ${file}\`` });
  else if (perm !== 0o600) checks.push({ level: 'FAIL', name: 'state file', found: `${file} is ${octal(perm)}; it holds the daemon's token and must be 0600.`, fix: `\`chmod 600 ${file}\`` });
  else checks.push({ level: 'ok', name: 'state file', found: `${file} (0600, yours)` });
  const state = readState(paths);
  if (!state && st.isFile() && !owner) {
    checks.push({ level: 'warn', name: 'daemon', found: `${file} is not a valid state file; the next command starts a new daemon and overwrites it.`, fix: `Nothing needed, or \`rm ${file}\`.` });
  }
  return { checks, state };
}

/** Process state letter from /proc (R, S, T = stopped, Z = zombie); '' where there is no /proc. */
function procState(pid: number): string {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
  } catch {
    return '';
  }
}

async function checkDaemon(paths: Paths, state: DaemonState | null): Promise<Check[]> {
  const checks = checkLock(paths);
  if (!state) {
    if (!existsSync(paths.stateFile)) checks.push({ level: 'ok', name: 'daemon', found: `none running (no ${paths.stateFile}); the next command starts one` });
    return checks;
  }
  const { pid, port } = state;
  const staleFix = `Nothing needed: the next command replaces it (or \`rm ${paths.stateFile}\`).`;
  if (!isPidAlive(pid)) {
    const how = procState(pid) === 'Z' ? 'has exited (a zombie nobody reaped)' : 'is not running';
    checks.push({ level: 'warn', name: 'daemon', found: `stale state: ${paths.stateFile} names pid ${pid}, which ${how}; the daemon crashed or was killed.`, fix: staleFix });
    return checks;
  }
  if (!isOurDaemon(pid)) {
    checks.push({ level: 'warn', name: 'daemon', found: `stale state: pid ${pid} in ${paths.stateFile} is running but is not a browse daemon (the pid was reused).`, fix: staleFix });
    return checks;
  }
  const mine = readBinaryVersion();
  checks.push({ level: 'ok', name: 'daemon', found: `pid ${pid}, port ${port}, mode ${state.mode}, started ${state.startedAt}` });
  if (state.binaryVersion === mine) checks.push({ level: 'ok', name: 'version', found: `the daemon runs this binary's version (${short(mine)})` });
  else checks.push({ level: 'warn', name: 'version', found: `the daemon runs ${short(state.binaryVersion)}, this binary is ${short(mine)}; the next command restarts it.`, fix: 'Nothing needed, or `browse stop` now.' });
  checks.push(await checkPort(state));
  return checks;
}

function checkLock(paths: Paths): Check[] {
  if (!existsSync(paths.lockFile)) return [];
  let owner = 0;
  try {
    owner = Number(readFileSync(paths.lockFile, 'utf8'));
  } catch {}
  if (owner > 0 && isPidAlive(owner)) return [{ level: 'ok', name: 'start lock', found: `pid ${owner} is starting a daemon right now` }];
  return [{ level: 'warn', name: 'start lock', found: `${paths.lockFile} was left by ${owner > 0 ? `pid ${owner}, which is gone` : 'an unknown process'}; the next start removes it once it is stale.`, fix: `Nothing needed, or \`rm ${paths.lockFile}\`.` }];
}

async function checkPort(state: DaemonState): Promise<Check> {
  const where = `127.0.0.1:${state.port}`;
  const started = performance.now();
  const health = await fetchHealth(state, HEALTH_TIMEOUT_MS);
  const ms = Math.round(performance.now() - started);
  if (!health) {
    const stopped = procState(state.pid) === 'T';
    return {
      level: 'FAIL',
      name: 'port',
      found: `pid ${state.pid} is alive but not answering GET /health on ${where} within ${HEALTH_TIMEOUT_MS / 1000}s (${stopped ? 'the process is stopped by a signal' : 'busy with a long command, or stuck'}).`,
      fix: `${stopped ? `\`kill -CONT ${state.pid}\`, or ` : 'Retry in a moment; if it stays so, '}\`browse --force-restart status\` replaces it.`,
    };
  }
  if (health.status !== 'healthy') return { level: 'warn', name: 'port', found: `${where} answers, but the daemon is ${health.status}; the next command starts a fresh one.` };
  // GET on /command is refused with 405 after the token is checked and before anything runs: a side-effect-free auth probe.
  let auth = 0;
  try {
    const r = await fetch(`http://${where}/command`, { headers: { authorization: `Bearer ${state.token}` }, signal: AbortSignal.timeout(HEALTH_TIMEOUT_MS) });
    auth = r.status;
  } catch {}
  if (auth === 401) return { level: 'FAIL', name: 'port', found: `${where} answers /health but rejects the state file's token (another daemon on that port?).`, fix: '`browse --force-restart status`' };
  return { level: 'ok', name: 'port', found: `${where} answers /health in ${ms} ms (${health.tabs === 1 ? '1 tab' : `${health.tabs ?? '?'} tabs`}, up ${health.uptime ?? '?'}s)${auth === 405 ? ', token accepted' : ''}` };
}

async function checkChromium(env: NodeJS.ProcessEnv): Promise<Check> {
  const name = 'chromium';
  const proc = Bun.spawn([...selfArgv('__check-chromium'), '--launch'], { env, stdin: 'ignore', stdout: 'pipe', stderr: 'pipe' });
  const timer = setTimeout(() => proc.kill('SIGKILL'), CHROMIUM_CHECK_MS);
  const [out, err] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  clearTimeout(timer);
  let report: ChromiumReport;
  try {
    report = JSON.parse(out.trim().split('\n').pop() ?? '') as ChromiumReport;
  } catch {
    const why = proc.signalCode ? `timed out after ${CHROMIUM_CHECK_MS / 1000}s` : (err.trim().split('\n').pop() ?? `exit ${proc.exitCode}`);
    return { level: 'FAIL', name, found: `the launch check did not finish: ${why}`, fix: 'Run `bun run scripts/check-chromium.ts --launch` in the checkout to see the full error.' };
  }
  const { choice, launch } = report;
  if (!choice) {
    if (env.BROWSE_CHROMIUM_PATH) {
      return { level: 'FAIL', name, found: `BROWSE_CHROMIUM_PATH=${env.BROWSE_CHROMIUM_PATH} does not exist (when it is set there is no fallback).`, fix: 'Point it at a Chrome/Chromium executable (`which chromium`), or unset it.' };
    }
    return { level: 'FAIL', name, found: 'none found (BROWSE_CHROMIUM_PATH unset, no Playwright browser, no system Chromium or Chrome).', fix: MISSING_CHROMIUM_HINT };
  }
  const what = `${choice.path ?? 'Playwright-managed'} (${choice.source})`;
  if (!launch?.ok) {
    const fix = choice.source === 'BROWSE_CHROMIUM_PATH' ? 'Point BROWSE_CHROMIUM_PATH at a working Chrome/Chromium (`which chromium`), or unset it.' : LAUNCH_FAILED_HINT;
    return { level: 'FAIL', name, found: `${what} does not launch headless: ${launch?.error ?? 'no result'}`, fix };
  }
  return { level: 'ok', name, found: `${what}, version ${launch.version}, headless launch in ${launch.ms} ms` };
}

/** Remote mode: the daemon launches nothing, so check that the endpoint answers instead. */
async function checkRemote(variable: 'BROWSE_CONNECT' | 'BROWSE_CDP_URL', endpoint: string): Promise<Check> {
  const name = 'browser';
  const ws = variable === 'BROWSE_CONNECT';
  const allowed = ws ? /^wss?:\/\//i : /^(https?|wss?):\/\//i;
  if (!allowed.test(endpoint)) {
    return { level: 'FAIL', name, found: `${variable} is not a ${ws ? 'ws:// or wss://' : 'http(s):// or ws(s)://'} URL.`, fix: `Fix or unset ${variable}.` };
  }
  const url = new URL(endpoint);
  const shown = `${url.protocol}//${url.host}`; // paths and queries may carry secrets
  const mode = `remote mode (${variable}; no local Chromium is launched)`;
  try {
    if (/^https?:$/.test(url.protocol)) {
      url.pathname = `${url.pathname.replace(/\/$/, '')}/json/version`;
      const r = await fetch(url, { signal: AbortSignal.timeout(REMOTE_TIMEOUT_MS) });
      if (!r.ok) throw new Error(`HTTP ${r.status} from /json/version`);
      const info = (await r.json()) as { Browser?: string };
      return { level: 'ok', name, found: `${mode}: CDP at ${shown} answers (${info.Browser ?? 'unknown browser'})` };
    }
    await openWebSocket(endpoint);
    return { level: 'ok', name, found: `${mode}: ${shown} accepts WebSocket connections` };
  } catch (e) {
    const code = (e as { code?: unknown })?.code;
    const why = typeof code === 'string' ? code : e instanceof Error ? e.message : String(e);
    return { level: 'FAIL', name, found: `${mode}: ${shown} does not answer (${why}).`, fix: `Start the remote browser, or fix or unset ${variable}.` };
  }
}

function openWebSocket(endpoint: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(endpoint);
    const timer = setTimeout(() => {
      socket.close();
      reject(new Error(`no answer within ${REMOTE_TIMEOUT_MS / 1000}s`));
    }, REMOTE_TIMEOUT_MS);
    socket.onopen = () => {
      clearTimeout(timer);
      socket.close();
      resolve();
    };
    socket.onerror = () => {
      clearTimeout(timer);
      reject(new Error('connection failed'));
    };
  });
}

/** The last 64 KB of a file: enough for the recent lines of a log that may be large. */
function readTail(file: string, bytes = 64 * 1024): string {
  const fd = openSync(file, 'r');
  try {
    const size = fstatSync(fd).size;
    const buf = Buffer.alloc(Math.min(size, bytes));
    readSync(fd, buf, 0, buf.length, size - buf.length);
    return buf.toString('utf8');
  } finally {
    closeSync(fd);
  }
}

function checkDaemonLog(paths: Paths): Check {
  const name = 'daemon log';
  let lines: string[];
  try {
    lines = readTail(paths.daemonLog).split('\n').filter(Boolean);
  } catch {
    return { level: 'ok', name, found: `${paths.daemonLog} (not written yet)` };
  }
  const lastReady = lines.findLastIndex((l) => l.includes('daemon ready'));
  const errors = lines.slice(lastReady + 1).filter((l) => /fail|error|unavailable|in use|no free port|disconnected|unhandled/i.test(l));
  if (!errors.length) return { level: 'ok', name, found: `${paths.daemonLog} (no errors since the last start)` };
  const last = errors[errors.length - 1].slice(0, 300);
  return { level: 'warn', name, found: `${paths.daemonLog}, last error since the last start: ${last}`, fix: `Read the log: \`tail -n 20 ${paths.daemonLog}\`.` };
}

function checkDisplay(env: NodeJS.ProcessEnv): Check {
  const name = 'display';
  if (env.DISPLAY || env.WAYLAND_DISPLAY) return { level: 'ok', name, found: `${env.DISPLAY ? `DISPLAY=${env.DISPLAY}` : `WAYLAND_DISPLAY=${env.WAYLAND_DISPLAY}`} (for \`handoff\`)` };
  if (Bun.which('Xvfb', { PATH: env.PATH ?? '' })) return { level: 'ok', name, found: 'no DISPLAY; Xvfb is installed, so `handoff` starts a virtual display' };
  return { level: 'warn', name, found: 'no DISPLAY and no Xvfb: `handoff` cannot show a browser.', fix: '`sudo apt-get install -y xvfb`, or set DISPLAY to a running X server.' };
}

function checkKeyring(env: NodeJS.ProcessEnv): Check {
  const name = 'keyring';
  if (Bun.which('secret-tool', { PATH: env.PATH ?? '' })) return { level: 'ok', name, found: 'secret-tool is installed (for v11 cookies in `cookie-import-browser`)' };
  return { level: 'warn', name, found: 'secret-tool is missing: `cookie-import-browser` cannot decrypt v11 (keyring) cookies.', fix: '`sudo apt-get install -y libsecret-tools`' };
}
