import type { DaemonState } from './state';

export interface CommandReply {
  ok: boolean;
  status: number;
  text: string;
  after?: string;
  failed?: boolean;
}

const base = (s: DaemonState) => `http://127.0.0.1:${s.port}`;

export async function fetchHealth(state: DaemonState, timeoutMs: number): Promise<{ status: string } | null> {
  try {
    const r = await fetch(`${base(state)}/health`, { signal: AbortSignal.timeout(timeoutMs) });
    return r.ok ? ((await r.json()) as { status: string }) : null;
  } catch {
    return null;
  }
}

/** Throws only when the daemon could not be reached at all (a connection error). */
export async function postCommand(
  state: DaemonState,
  body: { command: string; args: string[]; cwd?: string; tabId?: number },
  limit?: number | AbortSignal,
): Promise<CommandReply> {
  const r = await fetch(`${base(state)}/command`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${state.token}` },
    body: JSON.stringify(body),
    signal: typeof limit === 'number' ? AbortSignal.timeout(limit) : limit,
  });
  const text = await r.text();
  if (r.ok) return { ok: true, status: r.status, text, after: r.headers.get('x-browse-after') ?? undefined, failed: r.headers.has('x-browse-failed') };
  try {
    const { error, hint } = JSON.parse(text) as { error: string; hint?: string };
    return { ok: false, status: r.status, text: hint ? `${error} ${hint}` : error };
  } catch {
    return { ok: false, status: r.status, text: text || `HTTP ${r.status}` };
  }
}
