// Tier-2 evals: run an agent CLI (Claude Code's `claude -p`) on a prompt and turn its stream-json
// transcript into a SessionResult. parseNDJSON and exitReasonOf are pure; runAgentSession does the I/O.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { constants, tmpdir } from 'node:os';
import { join } from 'node:path';

export const DEFAULT_AGENT_COMMAND = ['claude', '-p', '--output-format', 'stream-json', '--verbose'];
export const DEFAULT_ALLOWED_TOOLS = ['Bash', 'Read', 'Write', 'Glob', 'Grep'];
export const DEFAULT_MAX_TURNS = 30;
export const DEFAULT_TIMEOUT_MS = 10 * 60_000;
const KILL_GRACE_MS = 2000;
const STDERR_TAIL_CHARS = 4000;

/**
 * How a session ended. Decided by exitReasonOf, first match wins:
 * 1. our timeout fired                                                  → 'timeout'
 * 2. a `result` event with subtype 'error_max_turns'                    → 'error_max_turns'
 * 3. a `result` event with is_error true, any other `error_*` subtype,
 *    or whose result text reads as an API failure (apiErrorText)         → 'error_api'
 * 4. a `result` event with subtype 'success'                            → 'success'
 * 5. no `result` event, but an assistant event flagged as an API error  → 'error_api'
 * 6. otherwise (crash, or exit without a result, even with code 0)      → `exit_code_${n}`
 *    (killed by a signal we did not send: n = 128 + signal number)
 * The transcript wins over the exit code because the CLI exits 1 for every is_error result.
 */
export type ExitReason = 'success' | 'timeout' | 'error_max_turns' | 'error_api' | `exit_code_${number}`;

export interface ToolCall {
  tool: string;
  input: Record<string, unknown>;
  id?: string;
}

/** One parsed NDJSON line; only `type` is relied on, the rest is read defensively. */
export type StreamEvent = { type?: string; subtype?: string; [key: string]: unknown };

export interface ResultEvent {
  subtype: string;
  isError: boolean;
  numTurns: number | null;
  costUsd: number | null;
  durationMs: number | null;
  text: string;
}

export interface ParsedTranscript {
  events: StreamEvent[];
  /** Lines that were not a JSON object (partial writes, banners, stray prints). */
  garbageLines: number;
  toolCalls: ToolCall[];
  lastToolCall: ToolCall | null;
  /** num_turns of the result, else the number of distinct assistant messages. */
  turns: number;
  costUsd: number;
  /** The agent's own duration_ms (from the result), when it reported one. */
  agentDurationMs: number | null;
  /** The result text, else the text of the last assistant message. */
  output: string;
  result: ResultEvent | null;
  /** The first API-error text seen (a flagged assistant message or an error result). */
  apiError: string | null;
  model: string | null;
}

export interface SessionOptions {
  prompt: string;
  cwd?: string;
  timeoutMs?: number;
  maxTurns?: number;
  allowedTools?: string[];
  /** Extra environment for the agent, on top of process.env. */
  env?: Record<string, string>;
  /** The agent command line without the per-run options; wins over EVALS_AGENT_CMD and the default. */
  agentCommand?: string[];
  /** Called for every parsed event as it arrives (progress output). */
  onEvent?: (event: StreamEvent) => void;
}

export interface SessionResult {
  exitReason: ExitReason;
  exitCode: number | null;
  turns: number;
  toolCalls: ToolCall[];
  lastToolCall: ToolCall | null;
  costUsd: number;
  /** Wall-clock time of the whole session, measured here. */
  durationMs: number;
  output: string;
  transcript: StreamEvent[];
  rawLines: string[];
  garbageLines: number;
  apiError: string | null;
  stderrTail: string;
  command: string[];
}

// Texts Claude Code prints in place of an answer when the API call itself failed.
const API_ERROR_PREFIXES = ['api error', 'invalid api key', 'credit balance is too low', 'authentication_error', 'overloaded_error'];

/** The text, when it is one of the CLI's API-failure messages rather than an answer that mentions one. */
export function apiErrorText(text: string): string | null {
  const t = text.trim();
  return API_ERROR_PREFIXES.some((p) => t.toLowerCase().startsWith(p)) ? t : null;
}

const asObject = (v: unknown): Record<string, unknown> | null => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null);
const asNumber = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const contentBlocks = (e: StreamEvent): Record<string, unknown>[] => {
  const content = asObject(e.message)?.content;
  return Array.isArray(content) ? content.map(asObject).filter((b): b is Record<string, unknown> => b !== null) : [];
};

/** The tool_use blocks of one assistant event. */
export function toolCallsOf(event: StreamEvent): ToolCall[] {
  if (event.type !== 'assistant') return [];
  return contentBlocks(event).flatMap((b) => {
    if (b.type !== 'tool_use' || typeof b.name !== 'string') return [];
    return [{ tool: b.name, input: asObject(b.input) ?? {}, ...(typeof b.id === 'string' ? { id: b.id } : {}) }];
  });
}

function resultEventOf(e: StreamEvent): ResultEvent {
  return {
    subtype: typeof e.subtype === 'string' ? e.subtype : 'unknown',
    isError: e.is_error === true,
    numTurns: asNumber(e.num_turns),
    costUsd: asNumber(e.total_cost_usd) ?? asNumber(e.cost_usd),
    durationMs: asNumber(e.duration_ms),
    text: typeof e.result === 'string' ? e.result : '',
  };
}

/** Lines of NDJSON → events plus what the evals need from them. Pure: never throws on bad lines. */
export function parseNDJSON(input: string | string[]): ParsedTranscript {
  const lines = typeof input === 'string' ? input.split('\n') : input;
  const events: StreamEvent[] = [];
  const toolCalls: ToolCall[] = [];
  const seenToolIds = new Set<string>();
  const assistantMessages = new Set<string>();
  let garbageLines = 0;
  let lastAssistantText = '';
  let result: ResultEvent | null = null;
  let apiError: string | null = null;
  let model: string | null = null;

  for (const raw of lines) {
    const line = raw.trim();
    if (line === '') continue;
    let event: StreamEvent | null = null;
    try {
      event = asObject(JSON.parse(line)) as StreamEvent | null;
    } catch {
      event = null;
    }
    if (event === null) {
      garbageLines++;
      continue;
    }
    events.push(event);
    if (event.type === 'system' && event.subtype === 'init' && typeof event.model === 'string') model = event.model;
    if (event.type === 'assistant') {
      const message = asObject(event.message);
      // Claude Code may split one message's blocks over several events that share its id.
      assistantMessages.add(typeof message?.id === 'string' ? message.id : `#${events.length}`);
      for (const call of toolCallsOf(event)) {
        if (call.id !== undefined && seenToolIds.has(call.id)) continue;
        if (call.id !== undefined) seenToolIds.add(call.id);
        toolCalls.push(call);
      }
      const texts = contentBlocks(event).flatMap((b) => (b.type === 'text' && typeof b.text === 'string' ? [b.text] : []));
      if (texts.length > 0) lastAssistantText = texts.join('\n');
      const flagged = event.isApiErrorMessage === true || typeof event.error === 'string';
      if (apiError === null && flagged) apiError = apiErrorText(texts.join('\n')) ?? (typeof event.error === 'string' ? event.error : 'API error');
    }
    if (event.type === 'result') {
      result = resultEventOf(event);
      if (apiError === null && result.subtype !== 'error_max_turns' && (result.isError || apiErrorText(result.text))) apiError = result.text || result.subtype;
    }
  }

  return {
    events,
    garbageLines,
    toolCalls,
    lastToolCall: toolCalls.at(-1) ?? null,
    turns: result?.numTurns ?? assistantMessages.size,
    costUsd: result?.costUsd ?? 0,
    agentDurationMs: result?.durationMs ?? null,
    output: result && result.text !== '' ? result.text : lastAssistantText,
    result,
    apiError,
    model,
  };
}

/** The exit reason of a finished session (mapping documented on ExitReason). Pure. */
export function exitReasonOf(t: ParsedTranscript, proc: { timedOut: boolean; exitCode: number | null }): ExitReason {
  if (proc.timedOut) return 'timeout';
  const r = t.result;
  if (r) {
    if (r.subtype === 'error_max_turns') return 'error_max_turns';
    if (r.isError || r.subtype.startsWith('error') || apiErrorText(r.text)) return 'error_api';
    if (r.subtype === 'success') return 'success';
  }
  if (t.apiError !== null) return 'error_api';
  return `exit_code_${proc.exitCode ?? -1}`;
}

/** The argv to spawn: option > EVALS_AGENT_CMD (split on spaces) > the default, then the per-run options. */
export function agentCommandLine(opts: Pick<SessionOptions, 'agentCommand' | 'maxTurns' | 'allowedTools'>, env: Record<string, string | undefined> = process.env): string[] {
  const fromEnv = env.EVALS_AGENT_CMD?.trim().split(/\s+/).filter(Boolean);
  const base = opts.agentCommand ?? (fromEnv && fromEnv.length > 0 ? fromEnv : DEFAULT_AGENT_COMMAND);
  const tools = opts.allowedTools ?? DEFAULT_ALLOWED_TOOLS;
  return [...base, '--max-turns', String(opts.maxTurns ?? DEFAULT_MAX_TURNS), '--allowedTools', tools.join(' ')];
}

/** Reads a byte stream as text, chunk by chunk as it arrives; `cancel` stops a read that would never end. */
function pump(stream: ReadableStream<Uint8Array>, onText: (text: string) => void): { done: Promise<void>; cancel: () => void } {
  const reader = stream.getReader();
  const decoder = new TextDecoder();
  const done = (async () => {
    try {
      for (let r = await reader.read(); !r.done; r = await reader.read()) onText(decoder.decode(r.value, { stream: true }));
      onText(decoder.decode());
    } catch {
      // cancelled, or the pipe broke: keep what was read
    }
  })();
  return { done, cancel: () => void reader.cancel().catch(() => {}) };
}

/** Turns text chunks into whole lines; `flush` hands over a last line with no newline. */
function lineSplitter(onLine: (line: string) => void): { push: (text: string) => void; flush: () => void } {
  let pending = '';
  return {
    push(text) {
      pending += text;
      for (let nl = pending.indexOf('\n'); nl !== -1; nl = pending.indexOf('\n')) {
        onLine(pending.slice(0, nl));
        pending = pending.slice(nl + 1);
      }
    },
    flush() {
      if (pending !== '') onLine(pending);
      pending = '';
    },
  };
}

/** Signals the agent's whole process group (it runs in its own session), falling back to the child. */
function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    try {
      process.kill(pid, signal);
    } catch {
      // already gone
    }
  }
}

/** Runs the agent on the prompt (fed on stdin from a temp file), streaming its NDJSON until exit or timeout. */
export async function runAgentSession(opts: SessionOptions): Promise<SessionResult> {
  const command = agentCommandLine(opts);
  const promptDir = mkdtempSync(join(tmpdir(), 'gstack-eval-prompt-'));
  const promptFile = join(promptDir, 'prompt.md');
  writeFileSync(promptFile, opts.prompt);
  const started = performance.now();
  const rawLines: string[] = [];
  let stderr = '';
  let timedOut = false;

  try {
    const proc = Bun.spawn(command, {
      cwd: opts.cwd ?? process.cwd(),
      env: { ...process.env, ...opts.env },
      stdin: Bun.file(promptFile),
      stdout: 'pipe',
      stderr: 'pipe',
      detached: true, // own process group, so a timeout kills the tools the agent started too
    });
    const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    let killTimer: ReturnType<typeof setTimeout> | undefined;
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(proc.pid, 'SIGTERM');
      killTimer = setTimeout(() => killGroup(proc.pid, 'SIGKILL'), KILL_GRACE_MS);
    }, timeoutMs);

    const lines = lineSplitter((line) => {
      rawLines.push(line);
      const event = opts.onEvent && parseNDJSON([line]).events[0];
      if (event) opts.onEvent?.(event);
    });
    const stdout = pump(proc.stdout, lines.push);
    const stderrPump = pump(proc.stderr, (text) => {
      stderr = (stderr + text).slice(-STDERR_TAIL_CHARS);
    });

    await proc.exited;
    clearTimeout(timer);
    clearTimeout(killTimer);
    if (timedOut) killGroup(proc.pid, 'SIGKILL'); // leftovers that ignored SIGTERM
    // A grandchild that outlives the agent may hold the pipes open: give it a moment, then stop reading.
    await Promise.race([Promise.all([stdout.done, stderrPump.done]), Bun.sleep(KILL_GRACE_MS)]);
    stdout.cancel();
    stderrPump.cancel();
    lines.flush();

    const t = parseNDJSON(rawLines);
    const exitCode = proc.exitCode ?? (proc.signalCode === null ? null : 128 + signalNumber(proc.signalCode));
    return {
      exitReason: exitReasonOf(t, { timedOut, exitCode }),
      exitCode,
      turns: t.turns,
      toolCalls: t.toolCalls,
      lastToolCall: t.lastToolCall,
      costUsd: t.costUsd,
      durationMs: Math.round(performance.now() - started),
      output: t.output,
      transcript: t.events,
      rawLines,
      garbageLines: t.garbageLines,
      apiError: t.apiError,
      stderrTail: stderr.trimEnd(),
      command,
    };
  } finally {
    rmSync(promptDir, { recursive: true, force: true });
  }
}

function signalNumber(signal: NodeJS.Signals | number): number {
  return typeof signal === 'number' ? signal : (constants.signals[signal] ?? 0);
}
