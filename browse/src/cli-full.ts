// The CLI's full path, loaded only when the warm path in cli.ts cannot answer: global flags, local
// validation against the registry (bad input never starts a browser), stdin, starting or replacing daemons.
import { resolve } from 'node:path';
import { finishReply, isConnectionRefused, postWatched, type CommandBody, type CommandReply, type Outcome } from './client';
import { findCommand, unknownCommand } from './commands/index';
import { GLOBAL_FLAGS, parseInput } from './commands/define';
import type { CommandContext } from './commands/context';
import { readBinaryVersion, resolvePaths, type Paths } from './config';
import { ensureDaemon, recoverUnreachable, startDaemon } from './daemon-control';
import { BrowseError } from './errors';
import { isOurDaemon, readState, type DaemonState } from './state';

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

async function send(paths: Paths, state: DaemonState, body: CommandBody): Promise<{ reply: CommandReply; state: DaemonState }> {
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

export async function runFull(argv: string[]): Promise<Outcome> {
  let forceRestart = false;
  let session = process.env.BROWSE_SESSION || undefined;
  while (argv[0]?.startsWith('--')) {
    const flag = argv.shift()!;
    if (flag === '--force-restart') forceRestart = true;
    else if (flag === '--session') {
      session = argv.shift();
      if (!session) throw new BrowseError('--session needs a name.', 'Example: browse --session agent-2 goto http://localhost:3000');
    }
    else if (flag === '--help') argv.unshift('help');
    else if (flag === '--version') return { out: readBinaryVersion(), code: 0 };
    else throw new BrowseError(`Unknown global flag '${flag}'.`, `Global flags: ${GLOBAL_FLAGS.map((f) => f.name).join(', ')}.`);
  }
  const [name = 'help', ...words] = argv;
  const cmd = findCommand(name);
  if (!cmd) throw unknownCommand(name);
  if (cmd.stdin && words.every((w) => w.startsWith('--')) && !process.stdin.isTTY) {
    const piped = (await readStdin()).trim();
    if (piped) words.push(piped);
  }
  const input = parseInput(cmd, words);
  if (cmd.local) {
    const { timeout: _deadline, maxOutput, offset, out, ...own } = input; // a local command has no deadline to set
    const raw = await cmd.run({} as CommandContext, own);
    const result = typeof raw === 'string' ? { text: raw } : raw;
    const { shapeOutput } = await import('./output');
    const shaped = shapeOutput(result.text, cmd, { maxOutput, offset, out }, (p) => resolve(p));
    return { out: shaped.body + shaped.note, code: result.failed ? 1 : 0 };
  }
  const paths = resolvePaths();
  if (cmd.whenNoDaemon && !forceRestart) {
    const s = readState(paths);
    if (!s || !isOurDaemon(s.pid)) return { out: cmd.whenNoDaemon, code: 0 };
  }
  // A command that needs no daemon (stop) talks to whatever daemon runs, of any version.
  const initial = await ensureDaemon(paths, { forceRestart, anyVersion: Boolean(cmd.whenNoDaemon) });
  const { reply, state } = await send(paths, initial, { command: name, args: words, cwd: process.cwd(), session });
  return finishReply(reply, state, () => startDaemon(paths));
}
