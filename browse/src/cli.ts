import { fetchHealth, postCommand, type CommandReply } from './client';
import { findCommand, unknownCommand } from './commands/index';
import { parseInput } from './commands/define';
import type { CommandContext } from './commands/context';
import { readBinaryVersion, resolvePaths } from './config';
import { busyError, ensureDaemon, isOurDaemon, recoverUnreachable, startDaemon } from './daemon-control';

// A slow command is fine; a daemon that stops answering /health for this long is reported busy.
const WATCHDOG_MS = 2500;
import { BrowseError, oneLine } from './errors';
import { isPidAlive, readState, type DaemonState } from './state';

const liveDaemon = (paths: ReturnType<typeof resolvePaths>) => {
  const s = readState(paths);
  return s !== null && isOurDaemon(s.pid);
};

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** Sends a command; while it runs, checks now and then that the daemon still answers /health. */
async function postWatched(state: DaemonState, body: Parameters<typeof postCommand>[1]): Promise<CommandReply> {
  const abort = new AbortController();
  let wedged = false;
  const watchdog = setInterval(async () => {
    if (!(await fetchHealth(state, WATCHDOG_MS))) {
      wedged = true;
      abort.abort();
    }
  }, WATCHDOG_MS);
  try {
    return await postCommand(state, body, abort.signal);
  } catch (e) {
    if (wedged) throw busyError(state);
    throw e;
  } finally {
    clearInterval(watchdog);
  }
}

async function send(paths: ReturnType<typeof resolvePaths>, state: DaemonState, body: Parameters<typeof postCommand>[1]): Promise<{ reply: CommandReply; state: DaemonState }> {
  try {
    return { reply: await postWatched(state, body), state };
  } catch (e) {
    if (e instanceof BrowseError) throw e;
    if (!isConnectionRefused(e)) {
      throw new BrowseError('Lost the connection to the daemon while the command ran; it may have crashed.', 'Run `status` (a fresh daemon starts if needed), then retry the command.', 503);
    }
    // Never reached the daemon, so nothing ran: safe to retry once against a live one.
    const next = await recoverUnreachable(paths, state);
    return { reply: await postWatched(next, body), state: next };
  }
}

function isConnectionRefused(e: unknown): boolean {
  const code = (e as { code?: string })?.code ?? '';
  return /ConnectionRefused|ECONNREFUSED|FailedToOpenSocket/i.test(code) || /Unable to connect|ECONNREFUSED/i.test(String(e));
}

async function waitForPidExit(pid: number, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (isPidAlive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
}

async function run(argv: string[]): Promise<{ out?: string; err?: string; code: number }> {
  let forceRestart = false;
  while (argv[0]?.startsWith('--')) {
    const flag = argv.shift()!;
    if (flag === '--force-restart') forceRestart = true;
    else if (flag === '--help') argv.unshift('help');
    else if (flag === '--version') return { out: readBinaryVersion(), code: 0 };
    else throw new BrowseError(`Unknown global flag '${flag}'.`, 'Global flags: --force-restart, --help, --version.');
  }
  const [name = 'help', ...words] = argv;
  const cmd = findCommand(name);
  if (!cmd) throw unknownCommand(name);
  if (cmd.stdin && words.every((w) => w.startsWith('--')) && !process.stdin.isTTY) {
    const piped = (await readStdin()).trim();
    if (piped) words.push(piped);
  }
  const input = parseInput(cmd, words); // bad input never starts a browser
  if (cmd.local) {
    const out = await cmd.run({} as CommandContext, input);
    return { out: typeof out === 'string' ? out : out.text, code: 0 };
  }

  const paths = resolvePaths();
  if (cmd.whenNoDaemon && !forceRestart && !liveDaemon(paths)) return { out: cmd.whenNoDaemon, code: 0 };
  const initial = await ensureDaemon(paths, { forceRestart });
  const { reply, state } = await send(paths, initial, { command: name, args: words, cwd: process.cwd() });
  if (!reply.ok) return { err: reply.text, code: 1 };
  if (reply.after) {
    await waitForPidExit(state.pid, 8000);
    if (reply.after === 'restart') {
      const fresh = await startDaemon(paths);
      return { out: `Restarted: daemon pid ${fresh.pid} on port ${fresh.port}.`, code: 0 };
    }
  }
  return { out: reply.text, code: reply.failed ? 1 : 0 };
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  if (argv[0] === '__daemon') {
    const { runDaemon } = await import('./server'); // Playwright loads only in the daemon
    await runDaemon();
    return;
  }
  let result: { out?: string; err?: string; code: number };
  try {
    result = await run(argv);
  } catch (e) {
    const err = e instanceof BrowseError ? e : new BrowseError(e instanceof Error ? e.message : String(e), 'Run `browse status`, or see .gstack/browse-daemon.log.');
    result = { err: oneLine(err.message, err.hint), code: 1 };
  }
  if (result.out !== undefined) await Bun.write(Bun.stdout, result.out.endsWith('\n') ? result.out : `${result.out}\n`);
  if (result.err !== undefined) await Bun.write(Bun.stderr, `Error: ${result.err}\n`);
  process.exit(result.code);
}

main();
