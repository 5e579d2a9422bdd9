// The tier-2 session runner: the pure NDJSON parser and exit-reason mapping on transcripts written here, and
// runAgentSession against stand-in agent CLIs (small scripts behind the same interface: prompt on stdin,
// stream-json on stdout), since a real agent cannot run offline.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { agentCommandLine, DEFAULT_AGENT_COMMAND, exitReasonOf, parseNDJSON, runAgentSession, type StreamEvent } from './helpers/session-runner.ts';

const init = (): StreamEvent => ({ type: 'system', subtype: 'init', model: 'claude-test-1', cwd: '/tmp/x', tools: ['Bash', 'Read'], session_id: 's1' });
const toolUse = (msgId: string, id: string, name: string, input: Record<string, unknown>): StreamEvent => ({
  type: 'assistant',
  message: { id: msgId, role: 'assistant', content: [{ type: 'tool_use', id, name, input }] },
});
const say = (msgId: string, text: string): StreamEvent => ({ type: 'assistant', message: { id: msgId, role: 'assistant', content: [{ type: 'text', text }] } });
const toolResult = (id: string, content: string): StreamEvent => ({ type: 'user', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content }] } });
const result = (fields: Record<string, unknown>): StreamEvent => ({ type: 'result', subtype: 'success', is_error: false, num_turns: 3, total_cost_usd: 0.0123, duration_ms: 4567, result: 'done', ...fields });
const ndjson = (...events: StreamEvent[]) => events.map((e) => JSON.stringify(e)).join('\n');

const successTranscript = ndjson(
  init(),
  say('m1', 'I will open the page.'),
  toolUse('m1', 't1', 'Bash', { command: '$B goto http://127.0.0.1:1234/' }),
  toolResult('t1', 'Navigated to http://127.0.0.1:1234/ (200)'),
  toolUse('m2', 't2', 'Read', { file_path: '/repo/SKILL.md' }),
  toolResult('t2', '# browse'),
  say('m3', 'TITLE: Example'),
  result({ result: 'TITLE: Example', num_turns: 3, total_cost_usd: 0.0123 }),
);

describe('parseNDJSON', () => {
  test('a success transcript: tool calls in order, the last one, turns, cost, output and model', () => {
    const t = parseNDJSON(successTranscript);
    expect(t.garbageLines).toBe(0);
    expect(t.events).toHaveLength(8);
    expect(t.toolCalls).toEqual([
      { tool: 'Bash', input: { command: '$B goto http://127.0.0.1:1234/' }, id: 't1' },
      { tool: 'Read', input: { file_path: '/repo/SKILL.md' }, id: 't2' },
    ]);
    expect(t.lastToolCall?.tool).toBe('Read');
    expect(t.turns).toBe(3);
    expect(t.costUsd).toBe(0.0123);
    expect(t.agentDurationMs).toBe(4567);
    expect(t.output).toBe('TITLE: Example');
    expect(t.model).toBe('claude-test-1');
    expect(t.apiError).toBeNull();
    expect(exitReasonOf(t, { timedOut: false, exitCode: 0 })).toBe('success');
  });

  test('accepts an array of lines as well as one string', () => {
    expect(parseNDJSON(successTranscript.split('\n'))).toEqual(parseNDJSON(successTranscript));
  });

  test('blank lines are skipped; partial, non-JSON and non-object lines are counted, not thrown', () => {
    const text = ['', 'Loading Claude…', JSON.stringify(init()), '   ', '{"type":"assistant","message":{"content":[{"type":"tool_u', '42', '"text"', '[1,2]', JSON.stringify(result({})), ''].join('\n');
    const t = parseNDJSON(text);
    expect(t.garbageLines).toBe(5);
    expect(t.events.map((e) => e.type)).toEqual(['system', 'result']);
    expect(t.output).toBe('done');
  });

  test('CRLF line ends parse like LF', () => {
    expect(parseNDJSON(successTranscript.replaceAll('\n', '\r\n')).toolCalls).toHaveLength(2);
  });

  test('max turns: subtype error_max_turns wins over is_error', () => {
    const t = parseNDJSON(ndjson(init(), toolUse('m1', 't1', 'Bash', { command: 'ls' }), result({ subtype: 'error_max_turns', is_error: true, num_turns: 5, result: undefined })));
    expect(t.turns).toBe(5);
    expect(t.apiError).toBeNull();
    expect(exitReasonOf(t, { timedOut: false, exitCode: 1 })).toBe('error_max_turns');
    expect(t.lastToolCall).toEqual({ tool: 'Bash', input: { command: 'ls' }, id: 't1' });
  });

  test('API error: a result with is_error and the CLI\'s "API Error" text', () => {
    const t = parseNDJSON(ndjson(init(), say('m1', 'API Error: 529 {"type":"error","error":{"type":"overloaded_error"}}'), result({ is_error: true, result: 'API Error: 529 overloaded', total_cost_usd: 0 })));
    expect(t.apiError).toBe('API Error: 529 overloaded');
    expect(exitReasonOf(t, { timedOut: false, exitCode: 1 })).toBe('error_api');
  });

  test('API error: is_error alone, or an error_during_execution result, also map to error_api', () => {
    expect(exitReasonOf(parseNDJSON(ndjson(result({ is_error: true, result: 'Invalid API key · Please run /login' }))), { timedOut: false, exitCode: 1 })).toBe('error_api');
    expect(exitReasonOf(parseNDJSON(ndjson(result({ subtype: 'error_during_execution', is_error: false, result: undefined }))), { timedOut: false, exitCode: 1 })).toBe('error_api');
  });

  test('API error with no result event: an assistant message flagged as one', () => {
    const t = parseNDJSON(ndjson(init(), { ...say('m1', 'API Error: Connection error.'), isApiErrorMessage: true }));
    expect(t.result).toBeNull();
    expect(t.apiError).toBe('API Error: Connection error.');
    expect(exitReasonOf(t, { timedOut: false, exitCode: 1 })).toBe('error_api');
  });

  test('an answer that only mentions an API error is still a success', () => {
    const t = parseNDJSON(ndjson(result({ result: 'Found 2 issues. The checkout shows "API Error: 500" after submit.' })));
    expect(t.apiError).toBeNull();
    expect(exitReasonOf(t, { timedOut: false, exitCode: 0 })).toBe('success');
  });

  test('no result event: the exit code decides, even 0; a timeout beats everything', () => {
    const t = parseNDJSON(ndjson(init(), say('m1', 'working')));
    expect(exitReasonOf(t, { timedOut: false, exitCode: 0 })).toBe('exit_code_0');
    expect(exitReasonOf(t, { timedOut: false, exitCode: 137 })).toBe('exit_code_137');
    expect(exitReasonOf(parseNDJSON(successTranscript), { timedOut: true, exitCode: null })).toBe('timeout');
  });

  test('without a result: turns count distinct assistant messages, output is the last text, cost is 0', () => {
    const t = parseNDJSON(ndjson(say('m1', 'first'), toolUse('m1', 't1', 'Bash', { command: 'a' }), say('m2', 'second'), say('m3', 'third')));
    expect(t.turns).toBe(3);
    expect(t.output).toBe('third');
    expect(t.costUsd).toBe(0);
  });

  test('a tool_use repeated under the same id counts once', () => {
    const call = toolUse('m1', 't1', 'Bash', { command: 'echo hi' });
    expect(parseNDJSON(ndjson(call, call)).toolCalls).toHaveLength(1);
  });
});

describe('agentCommandLine', () => {
  test('defaults to claude -p with stream-json, then --max-turns and --allowedTools', () => {
    expect(agentCommandLine({}, {})).toEqual([...DEFAULT_AGENT_COMMAND, '--max-turns', '30', '--allowedTools', 'Bash Read Write Glob Grep']);
  });

  test('EVALS_AGENT_CMD is split on spaces; the option wins over it', () => {
    const env = { EVALS_AGENT_CMD: '  my-agent  -p --fast ' };
    expect(agentCommandLine({ maxTurns: 4, allowedTools: ['Bash'] }, env)).toEqual(['my-agent', '-p', '--fast', '--max-turns', '4', '--allowedTools', 'Bash']);
    expect(agentCommandLine({ agentCommand: ['other'] }, env)[0]).toBe('other');
  });
});

describe('runAgentSession with stand-in agent CLIs', () => {
  let dir: string;
  /** Writes an executable script and returns its path. */
  const script = (name: string, body: string) => {
    const path = join(dir, name);
    writeFileSync(path, `#!/bin/bash\n${body}\n`);
    chmodSync(path, 0o755);
    return path;
  };

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'gstack-session-runner-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test('success: the prompt arrives on stdin, options and env are passed, NDJSON streams into a SessionResult', async () => {
    const transcript = join(dir, 'success.ndjson');
    writeFileSync(transcript, `Some banner line\n${successTranscript}\n`);
    const agent = script('agent-success', `cat > "$FAKE_OUT/stdin.txt"\nprintf '%s\\n' "$@" > "$FAKE_OUT/argv.txt"\npwd > "$FAKE_OUT/cwd.txt"\ncat "${transcript}"`);
    const prompt = 'Read SKILL.md.\nThen report "TITLE".\n';
    const seen: string[] = [];
    const r = await runAgentSession({ prompt, cwd: dir, maxTurns: 7, allowedTools: ['Bash', 'Read'], agentCommand: [agent, '-p'], env: { FAKE_OUT: dir }, onEvent: (e) => seen.push(String(e.type)) });
    expect(readFileSync(join(dir, 'stdin.txt'), 'utf8')).toBe(prompt);
    expect(readFileSync(join(dir, 'argv.txt'), 'utf8').split('\n').slice(0, -1)).toEqual(['-p', '--max-turns', '7', '--allowedTools', 'Bash Read']);
    expect(readFileSync(join(dir, 'cwd.txt'), 'utf8').trim()).toBe(dir);
    expect(r.exitReason).toBe('success');
    expect(r.exitCode).toBe(0);
    expect(r.turns).toBe(3);
    expect(r.costUsd).toBe(0.0123);
    expect(r.toolCalls.map((c) => c.tool)).toEqual(['Bash', 'Read']);
    expect(r.lastToolCall?.input).toEqual({ file_path: '/repo/SKILL.md' });
    expect(r.output).toBe('TITLE: Example');
    expect(r.garbageLines).toBe(1);
    expect(r.rawLines[0]).toBe('Some banner line');
    expect(r.transcript).toHaveLength(8);
    expect(seen).toEqual(['system', 'assistant', 'assistant', 'user', 'assistant', 'user', 'assistant', 'result']);
    expect(r.durationMs).toBeGreaterThan(0);
  });

  test('events arrive while the agent runs; a line split across writes and a last line with no newline are read whole', async () => {
    const done = JSON.stringify(result({ result: 'streamed' }));
    // The agent waits for a file that only our onEvent callback creates: it finishes only if streaming is live.
    const agent = script('agent-stream', `cat > /dev/null\necho '${JSON.stringify(init())}'\nwhile [ ! -f "$FAKE_OUT/go" ]; do sleep 0.01; done\nprintf '%s' '${done.slice(0, 20)}'\nsleep 0.05\nprintf '%s' '${done.slice(20)}'`);
    const r = await runAgentSession({
      prompt: 'x',
      cwd: dir,
      timeoutMs: 3000,
      agentCommand: [agent],
      env: { FAKE_OUT: dir },
      onEvent: (e) => {
        if (e.subtype === 'init') writeFileSync(join(dir, 'go'), '');
      },
    });
    expect(r.exitReason).toBe('success');
    expect(r.output).toBe('streamed');
    expect(r.rawLines).toHaveLength(2);
  });

  test('a hanging agent times out, and it and its children are killed', async () => {
    // The init line is printed only once both pid files are written, so seeing it proves they exist.
    const agent = script('agent-hang', `sleep 30 &\necho $! > "$FAKE_OUT/child.pid"\necho $$ > "$FAKE_OUT/agent.pid"\necho '${JSON.stringify(init())}'\nwait`);
    let ready = false;
    const started = performance.now();
    const r = await runAgentSession({ prompt: 'hang', cwd: dir, timeoutMs: 1000, agentCommand: [agent], env: { FAKE_OUT: dir }, onEvent: (e) => (ready ||= e.subtype === 'init') });
    expect(ready).toBe(true); // else the timeout fired before the agent started: raise timeoutMs
    expect(r.exitReason).toBe('timeout');
    expect(performance.now() - started).toBeLessThan(4000);
    expect(r.transcript.map((e) => e.subtype)).toEqual(['init']);
    for (const file of ['agent.pid', 'child.pid']) expect(await diesWithin(Number(readFileSync(join(dir, file), 'utf8')), 2000)).toBe(true);
  });

  test('an agent that exits with code 3 and no result → exit_code_3, with its stderr tail', async () => {
    const agent = script('agent-exit3', `cat > /dev/null\necho "fatal: no credentials" >&2\nexit 3`);
    const r = await runAgentSession({ prompt: 'x', cwd: dir, agentCommand: [agent] });
    expect(r.exitReason).toBe('exit_code_3');
    expect(r.exitCode).toBe(3);
    expect(r.stderrTail).toBe('fatal: no credentials');
    expect(r.transcript).toEqual([]);
  });

  test('the prompt temp file is removed afterwards', async () => {
    // While the agent runs, find the prompt file by its unique contents; it must be gone once the run returns.
    const prompt = `prompt-${process.pid}-${crypto.randomUUID()}`;
    const agent = script('agent-where', `cat > /dev/null\necho '${JSON.stringify(init())}'`);
    let promptDir: string | undefined;
    await runAgentSession({ prompt, cwd: dir, agentCommand: [agent], onEvent: () => (promptDir ??= promptDirHolding(prompt)) });
    expect(promptDir).toBeDefined();
    expect(existsSync(promptDir!)).toBe(false);
  });
});

/** The runner's temp prompt dir whose prompt.md holds exactly this text. */
function promptDirHolding(prompt: string): string | undefined {
  return readdirSync(tmpdir())
    .filter((name) => name.startsWith('gstack-eval-prompt-'))
    .map((name) => join(tmpdir(), name))
    .find((d) => {
      try {
        return readFileSync(join(d, 'prompt.md'), 'utf8') === prompt;
      } catch {
        return false;
      }
    });
}

/** Gone, or a zombie (an orphan whose parent was killed may never be reaped), per `ps`: works on Linux and macOS. */
function dead(pid: number): boolean {
  const ps = Bun.spawnSync(['ps', '-o', 'stat=', '-p', String(pid)], { stdout: 'pipe', stderr: 'ignore' });
  const state = ps.stdout.toString().trim();
  return state === '' || state.startsWith('Z');
}

/** Waits for the process to die (signals land asynchronously); false if it is still running after ms. */
async function diesWithin(pid: number, ms: number): Promise<boolean> {
  for (const deadline = performance.now() + ms; performance.now() < deadline; await Bun.sleep(20)) if (dead(pid)) return true;
  return dead(pid);
}
