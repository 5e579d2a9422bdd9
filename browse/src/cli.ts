// Entry point of the one binary: `browse <command>` (CLI) or `browse __daemon` (the daemon).
// The warm path below imports only small modules: a call to a running daemon must cost milliseconds.
import { finishReply, isConnectionRefused, postWatched, type Outcome } from './client';
import { CLI_ONLY_COMMANDS, readBinaryVersion, resolvePaths } from './config';
import { BrowseError, oneLine } from './errors';
import { isOurDaemon, readState } from './state';

/** A running daemon of our version: send straight away. null = take the full path (nothing was sent). */
async function tryWarm(argv: string[]): Promise<Outcome | null> {
  // `--session <name>` is the one global flag agents give on every call: read it here too.
  const named = argv[0] === '--session' && argv.length > 2;
  const [name, ...words] = named ? argv.slice(2) : argv;
  const session = named ? argv[1] : process.env.BROWSE_SESSION || undefined;
  if (!name || name.startsWith('-') || CLI_ONLY_COMMANDS.has(name)) return null;
  const paths = resolvePaths();
  const state = readState(paths);
  if (!state || state.binaryVersion !== readBinaryVersion() || !isOurDaemon(state.pid)) return null;
  let reply;
  try {
    reply = await postWatched(state, { command: name, args: words, cwd: process.cwd(), session });
  } catch (e) {
    if (e instanceof BrowseError) throw e;
    if (isConnectionRefused(e)) return null; // it went away: the full path recovers
    throw new BrowseError('Lost the connection to the daemon while the command ran; it may have crashed.', 'Run `status` (a fresh daemon starts if needed), then retry the command.', 503);
  }
  if (reply.needsStdin) return null; // the full path reads stdin and sends again (nothing ran)
  return finishReply(reply, state, async () => (await import('./daemon-control')).startDaemon(paths));
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  if (argv[0] === '__daemon') {
    const { runDaemon } = await import('./server'); // Playwright loads only in the daemon
    await runDaemon();
    return;
  }
  if (argv[0] === '__check-chromium') {
    const { runChromiumCheck } = await import('./chromium-check'); // spawned by `doctor`, which never loads Playwright itself
    await runChromiumCheck(argv.slice(1));
    process.exit(0);
  }
  let result: Outcome;
  try {
    result = (await tryWarm(argv)) ?? (await (await import('./cli-full')).runFull(argv));
  } catch (e) {
    const err = e instanceof BrowseError ? e : new BrowseError(e instanceof Error ? e.message : String(e), 'Run `browse status`, or see .gstack/browse-daemon.log.');
    result = { err: oneLine(err.message, err.hint), code: 1 };
  }
  if (result.out !== undefined) await Bun.write(Bun.stdout, result.out.endsWith('\n') ? result.out : `${result.out}\n`);
  if (result.err !== undefined) await Bun.write(Bun.stderr, `Error: ${result.err}\n`);
  process.exit(result.code);
}

main();
