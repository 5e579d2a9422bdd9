// The CLI's side of the HTTP contract. Deliberately light: the warm path of every call loads this.
import { BrowseError } from './errors';
import { isPidAlive, type DaemonState } from './state';

export interface CommandReply {
  ok: boolean;
  status: number;
  text: string;
  after?: string;
  failed?: boolean;
  /** The command takes its input from stdin and got no argument. */
  needsStdin?: boolean;
}

export interface CommandBody {
  command: string;
  args: string[];
  cwd?: string;
  tabId?: number;
  /** A named session; BROWSE_SESSION when --session is not given. */
  session?: string;
}

// A slow command is fine; a daemon that stops answering /health for this long is reported busy.
const WATCHDOG_MS = 2500;

const base = (s: DaemonState) => `http://127.0.0.1:${s.port}`;

export const busyError = (s: DaemonState) =>
  new BrowseError(
    `The daemon (pid ${s.pid}) is alive but not answering on port ${s.port}; it may be busy with a long command.`,
    'Retry in a moment, or run `browse --force-restart <command>` to replace it.',
    503,
  );

export function isConnectionRefused(e: unknown): boolean {
  const code = (e as { code?: string })?.code ?? '';
  return /ConnectionRefused|ECONNREFUSED|FailedToOpenSocket/i.test(code) || /Unable to connect|ECONNREFUSED/i.test(String(e));
}

export interface Health {
  status: string;
  mode?: string;
  uptime?: number;
  tabs?: number;
}

export async function fetchHealth(state: DaemonState, timeoutMs: number): Promise<Health | null> {
  try {
    const r = await fetch(`${base(state)}/health`, { signal: AbortSignal.timeout(timeoutMs) });
    return r.ok ? ((await r.json()) as Health) : null;
  } catch {
    return null;
  }
}

/** Throws only when the daemon could not be reached at all (a connection error). */
export async function postCommand(state: DaemonState, body: CommandBody, limit?: number | AbortSignal): Promise<CommandReply> {
  const r = await fetch(`${base(state)}/command`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${state.token}` },
    body: JSON.stringify(body),
    signal: typeof limit === 'number' ? AbortSignal.timeout(limit) : limit,
  });
  const text = await r.text();
  if (r.ok) return { ok: true, status: r.status, text, after: r.headers.get('x-browse-after') ?? undefined, failed: r.headers.has('x-browse-failed') };
  try {
    const { error, hint, needsStdin } = JSON.parse(text) as { error: string; hint?: string; needsStdin?: boolean };
    return { ok: false, status: r.status, text: hint ? `${error} ${hint}` : error, needsStdin };
  } catch {
    return { ok: false, status: r.status, text: text || `HTTP ${r.status}` };
  }
}

/** Sends a command; while it runs, checks now and then that the daemon still answers /health. */
export async function postWatched(state: DaemonState, body: CommandBody): Promise<CommandReply> {
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

export interface Outcome {
  out?: string;
  err?: string;
  code: number;
}

/** Turns a reply into what the CLI prints; after `stop`/`restart`, waits for the old daemon to go. */
export async function finishReply(reply: CommandReply, state: DaemonState, startFresh: () => Promise<DaemonState>): Promise<Outcome> {
  if (!reply.ok) return { err: reply.text, code: 1 };
  if (reply.after) {
    const deadline = Date.now() + 8000;
    while (isPidAlive(state.pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    if (reply.after === 'restart') {
      const fresh = await startFresh();
      return { out: `Restarted: daemon pid ${fresh.pid} on port ${fresh.port}.`, code: 0 };
    }
  }
  return { out: reply.text, code: reply.failed ? 1 : 0 };
}
