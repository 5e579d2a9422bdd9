import { createHash, randomUUID, timingSafeEqual } from 'node:crypto';
import { isAbsolute, resolve } from 'node:path';
import { BrowserManager } from './browser-manager';
import { commands, findCommand, unknownCommand } from './commands/index';
import { createCookiePicker } from './cookie-picker';
import type { CommandContext, DaemonInfo } from './commands/context';
import { parseInput, type CommandResult } from './commands/define';
import { DEFAULTS, intFromEnv, readBinaryVersion, resolvePaths } from './config';
import { BrowseError, translateError } from './errors';
import { envelope, wellFormed } from './egress';
import { LogStore } from './logs';
import { shapeOutput } from './output';
import { assertSafeDestination } from './policy';
import { resolveTarget } from './refs';
import { DEFAULT_SESSION, Sessions, type Session } from './sessions';
import { ensureStateDir, removeStateIfOwned, writeState, type DaemonState } from './state';

const log = (msg: string) => console.log(`[${new Date().toISOString()}] ${msg}`);

interface CommandRequest {
  command: string;
  args?: string[];
  tabId?: number;
  /** A named session (`--session`, BROWSE_SESSION); the default one when absent. */
  session?: string;
  /** The caller's working directory, for relative paths in arguments. */
  cwd?: string;
}

function tokenMatches(header: string | null, token: string): boolean {
  const given = header?.startsWith('Bearer ') ? header.slice(7) : '';
  const digest = (s: string) => createHash('sha256').update(s).digest();
  return timingSafeEqual(digest(given), digest(token)) && given.length > 0;
}

const json = (body: unknown, status = 200) =>
  new Response(wellFormed(JSON.stringify(body)), { status, headers: { 'content-type': 'application/json; charset=utf-8' } });

const errorResponse = (e: BrowseError) => json({ error: wellFormed(e.message), hint: e.hint }, e.status);

function pickPort(): number {
  return 10000 + Math.floor(Math.random() * 50001);
}

export async function runDaemon(): Promise<void> {
  const paths = resolvePaths();
  ensureStateDir(paths);
  const token = randomUUID();
  const startedAt = Date.now();
  const idleTimeoutMs = intFromEnv('BROWSE_IDLE_TIMEOUT', DEFAULTS.idleTimeoutMs);
  const logs = new LogStore(DEFAULTS.logCapacity, paths.logFile);
  let lastActivity = Date.now();
  let activeRequests = 0;
  let shuttingDown = false;
  let server: ReturnType<typeof Bun.serve> | undefined;

  const shutdown = async (code: number, reason: string) => {
    if (shuttingDown) return;
    shuttingDown = true;
    log(`shutting down: ${reason}`);
    removeStateIfOwned(paths);
    logs.flushSync();
    sessions.flushAll();
    server?.stop(true);
    await Promise.race([browser.close(), new Promise((r) => setTimeout(r, 5000))]);
    process.exit(code);
  };

  const browser = new BrowserManager(logs, (reason) => void shutdown(1, reason));
  const sessions = new Sessions({ name: DEFAULT_SESSION, browser, logs, createdAt: startedAt, lastUsed: startedAt }, paths, (reason) => void shutdown(1, reason));
  const publishState = () =>
    writeState(paths, {
      pid: process.pid,
      port: daemon.port,
      token,
      startedAt: new Date(startedAt).toISOString(),
      binaryVersion: daemon.binaryVersion,
      mode: daemon.mode as DaemonState['mode'],
    });
  const daemon: DaemonInfo = {
    pid: process.pid,
    port: 0,
    mode: 'headless',
    startedAt,
    binaryVersion: readBinaryVersion(),
    chromium: '',
    setMode(mode) {
      daemon.mode = mode;
      if (!shuttingDown) publishState();
    },
    pickerUrl: (preselect) => picker.issueUrl(preselect),
  };
  const picker = createCookiePicker({ port: () => daemon.port, hasToken: (req) => tokenMatches(req.headers.get('authorization'), token), session: browser });

  // One pipeline for every command, whether it comes from /command, /batch or a chain step.
  const execute = async (name: string, words: string[], tabId: number | undefined, cwd: string | undefined, session: Session): Promise<CommandResult> => {
    const { browser, logs } = session;
    const cmd = findCommand(name);
    if (!cmd) throw unknownCommand(name);
    if (cmd.cliOnly) throw new BrowseError(`${cmd.name} runs in the browse CLI, not inside the daemon.`, `Run \`browse ${cmd.name}\` on its own (not as a chain step or over HTTP).`);
    const { timeout, maxOutput, offset, out, ...input } = parseInput(cmd, words);
    const tab = browser.tab(tabId);
    if (cmd.mainFrameOnly && tab.frame) {
      throw new BrowseError(`${cmd.name} acts on the whole tab, but a frame is entered.`, 'Run `frame main` first.');
    }
    for (const a of cmd.args ?? []) {
      if (a.kind === 'url' && input[a.name] !== undefined) await assertSafeDestination(String(input[a.name]));
    }
    const startedAt = Date.now();
    if (Number(timeout) < 0) throw new BrowseError('--timeout takes milliseconds, 0 or more (0: no deadline).', 'Example: --timeout 30000');
    const deadline = timeout !== undefined ? Number(timeout) : (cmd.deadlineFor?.(input) ?? cmd.deadlineMs ?? DEFAULTS.commandDeadlineMs);
    const target = cmd.args?.find((a) => a.kind === 'selector' && input[a.name] !== undefined);
    const ctx: CommandContext = {
      tab,
      page: tab.page,
      frame: tab.frame ?? tab.page.mainFrame(),
      browser,
      logs,
      daemon,
      session: session.name,
      sessions,
      // Playwright's own timeouts end a little before the deadline, so its more precise error wins the race
      // (0 for Playwright is no limit, as `--timeout 0` asks).
      actionTimeout: deadline === 0 ? (timeout !== undefined ? 0 : DEFAULTS.actionTimeoutMs) : Math.max(100, timeout !== undefined ? deadline - 1000 : Math.min(DEFAULTS.actionTimeoutMs, deadline - 1000)),
      navigationTimeout: deadline === 0 ? (timeout !== undefined ? 0 : DEFAULTS.navigationTimeoutMs) : Math.max(100, deadline - 500),
      resolve: (sel) => resolveTarget(tab.refs, tab.frame ?? tab.page.mainFrame(), sel),
      settle: () => browser.settle(tab, startedAt, deadline ? Math.min(DEFAULTS.settleTimeoutMs, startedAt + deadline - 250 - Date.now()) : undefined),
      callerPath: (p) => (isAbsolute(p) ? p : resolve(cwd && isAbsolute(cwd) ? cwd : process.cwd(), p)),
      execute: (n, w) => execute(n, w, tabId, cwd, session),
    };
    let result: CommandResult;
    try {
      const raw = await withDeadline(cmd.run(ctx, input), deadline, cmd.name, timeout !== undefined);
      result = typeof raw === 'string' ? { text: raw } : raw;
    } catch (e) {
      const err = translateError(e, target ? String(input[target.name]) : undefined);
      const url = err.status === 504 ? await browser.replaceIfStuck(tab) : undefined;
      if (url === undefined) throw err;
      throw new BrowseError(
        `${err.message} Tab ${tab.id}'s page stopped answering (a script in an endless loop, or a hung page), so it was replaced by a blank page; cookies and other tabs are kept.`,
        `Run \`goto ${url}\` to load it again.`,
        504,
      );
    }
    const text = shapeOutput(result.text, cmd, { out, offset, maxOutput }, ctx.callerPath);
    const notices = browser.takeNotices();
    return { ...result, text: [cmd.untrusted && out === undefined ? envelope(text.body) + text.note : text.body + text.note, ...notices].join('\n') };
  };

  const handleCommand = async (body: CommandRequest): Promise<Response> => {
    if (!body || typeof body.command !== 'string' || (body.args !== undefined && !Array.isArray(body.args))) {
      return errorResponse(new BrowseError('Request body must be JSON {command, args?, tabId?}.', 'Example: {"command":"goto","args":["http://localhost:3000"]}'));
    }
    const args = (body.args ?? []).map(String);
    const cmd = findCommand(body.command);
    if (cmd?.stdin && args.every((w) => w.startsWith('--'))) {
      // The CLI's warm path does not know which commands read stdin: tell it, and it sends again.
      return json({ error: `${cmd.name} needs input.`, hint: `Pass it as an argument or pipe it on stdin. Usage: ${cmd.usage}`, needsStdin: true }, 400);
    }
    try {
      const result = await execute(body.command, args, body.tabId, body.cwd, await sessions.get(body.session));
      if (result.after) setTimeout(() => void shutdown(0, `${body.command} command`), 10);
      const headers: Record<string, string> = { 'content-type': 'text/plain; charset=utf-8' };
      if (result.after) headers['x-browse-after'] = result.after;
      if (result.failed) headers['x-browse-failed'] = '1';
      return new Response(wellFormed(result.text), { headers });
    } catch (e) {
      const err = e instanceof BrowseError ? e : translateError(e);
      if (err.status >= 500) log(`error in ${body.command}: ${err.message}`);
      return errorResponse(err);
    }
  };

  const handleBatch = async (body: { commands?: CommandRequest[] }): Promise<Response> => {
    if (!body || !Array.isArray(body.commands)) {
      return errorResponse(new BrowseError('Request body must be JSON {commands: [{command, args?, tabId?}, …]}.', 'Send at least one command.'));
    }
    const results = [];
    for (const c of body.commands) {
      const r = await handleCommand(c);
      const text = await r.text();
      results.push(r.ok ? { ok: true, output: text } : { ok: false, ...JSON.parse(text) });
    }
    return json({ results });
  };

  const fetch = async (req: Request): Promise<Response> => {
    const path = new URL(req.url).pathname;
    if (path === '/health' && req.method === 'GET') {
      return json({ status: shuttingDown ? 'stopping' : 'healthy', mode: daemon.mode, uptime: Math.round((Date.now() - startedAt) / 1000), tabs: browser.listTabs().length, sessions: sessions.names().length });
    }
    const page = await picker.handle(req);
    if (page) {
      lastActivity = Date.now();
      return page;
    }
    if (path !== '/command' && path !== '/batch') return json({ error: 'Not found.', hint: 'Routes: GET /health, POST /command, POST /batch.' }, 404);
    if (!tokenMatches(req.headers.get('authorization'), token)) {
      return json({ error: 'Unauthorized.', hint: 'Send Authorization: Bearer <token> from the state file .gstack/browse.json.' }, 401);
    }
    if (req.method !== 'POST') return json({ error: `Use POST for ${path}.`, hint: 'Send a JSON body.' }, 405);
    if (shuttingDown) return json({ error: 'The daemon is shutting down.', hint: 'Run the command again; a fresh daemon will start.' }, 503);
    lastActivity = Date.now();
    activeRequests++;
    let body: unknown;
    try {
      try {
        body = await req.json();
      } catch {
        return errorResponse(new BrowseError('Request body is not valid JSON.', 'Send {"command":"…","args":[…]}.'));
      }
      return await (path === '/batch' ? handleBatch(body as { commands?: CommandRequest[] }) : handleCommand(body as CommandRequest));
    } finally {
      activeRequests--;
      lastActivity = Date.now();
    }
  };

  process.on('SIGTERM', () => log('SIGTERM ignored (agent sandboxes send it between calls); use `browse stop` or SIGINT'));
  process.on('SIGINT', () => void shutdown(0, 'SIGINT'));
  process.on('SIGHUP', () => void shutdown(0, 'SIGHUP'));
  process.on('unhandledRejection', (e) => log(`unhandled rejection: ${e instanceof Error ? e.message : String(e)}`));

  const fixedPort = intFromEnv('BROWSE_PORT', 0);
  for (let attempt = 1; attempt <= (fixedPort ? 1 : 5) && !server; attempt++) {
    const port = fixedPort || pickPort();
    try {
      server = Bun.serve({ hostname: '127.0.0.1', port, fetch, idleTimeout: 0 });
    } catch (e) {
      log(`port ${port} unavailable (${(e as Error).message})`);
    }
  }
  if (!server) {
    log(fixedPort ? `BROWSE_PORT=${fixedPort} is in use; unset it or pick another` : 'no free port after 5 tries');
    process.exit(1);
  }
  daemon.port = server.port ?? 0;

  try {
    await browser.launch();
  } catch (e) {
    const err = translateError(e);
    log(`browser launch failed: ${err.message} ${err.hint ?? ''}`);
    server.stop(true);
    process.exit(1);
  }
  daemon.chromium = browser.executable;
  daemon.mode = browser.mode;
  logs.startFlushing();
  publishState();
  log(`daemon ready: pid ${process.pid}, port ${daemon.port}, ${commands.length} commands, chromium ${browser.executable}`);

  if (idleTimeoutMs > 0) {
    const timer = setInterval(() => {
      if (activeRequests === 0 && Date.now() - lastActivity >= idleTimeoutMs) void shutdown(0, `idle for ${Math.round(idleTimeoutMs / 1000)}s`);
    }, Math.min(idleTimeoutMs / 4, 60_000));
    timer.unref?.();
  }
}

/** The daemon answers within the deadline even if Playwright does not: a stuck page never holds a caller. */
function withDeadline<T>(work: Promise<T>, ms: number, name: string, chosen: boolean): Promise<T> {
  if (ms <= 0) return work;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const seconds = ms < 10_000 ? `${(ms / 1000).toFixed(1).replace(/\.0$/, '')}s` : `${Math.round(ms / 1000)}s`;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new BrowseError(
            `${name} did not finish within ${seconds}${chosen ? ' (--timeout)' : ''}.`,
            `The page may be busy or stuck: check \`tabs\` and \`console --errors\`, then retry${chosen ? '' : ' (a longer wait: --timeout <ms>)'} or \`goto\` the page again.`,
            504,
          ),
        ),
      ms,
    );
  });
  return Promise.race([work, expired]).finally(() => clearTimeout(timer));
}
