import { BrowseError, oneLine, translateError } from '../errors';
import { COMMON_FLAGS, defineCommand, GLOBAL_FLAGS, GROUP_ORDER, type Command, type FlagSpec } from './define';

const MAX_CHAIN_STEPS = 50;

export const status = defineCommand({
  name: 'status',
  category: 'meta',
  group: 'Meta',
  description: 'Daemon health: pid, port, uptime, tabs, version',
  async run(ctx) {
    const d = ctx.daemon;
    return [
      'Status: healthy',
      `Mode: ${d.mode}`,
      `PID: ${d.pid}`,
      `Port: ${d.port}`,
      `Uptime: ${Math.round((Date.now() - d.startedAt) / 1000)}s`,
      `Session: ${ctx.session} (${ctx.sessions.names().length} open: \`sessions\` lists them)`,
      `Tabs: ${ctx.browser.listTabs().length} (active: ${ctx.browser.activeTabId})`,
      `URL: ${ctx.page.url()}`,
      `Version: ${d.binaryVersion}`,
      `Chromium: ${d.chromium}`,
    ].join('\n');
  },
});

export const stop = defineCommand({
  name: 'stop',
  category: 'meta',
  group: 'Meta',
  description: 'Shut down the daemon and its browser (the next command starts a fresh one)',
  whenNoDaemon: 'No daemon is running.',
  async run() {
    return { text: 'Stopped.', after: 'exit' };
  },
});

export const restart = defineCommand({
  name: 'restart',
  category: 'meta',
  group: 'Meta',
  description: 'Restart the daemon with a fresh browser',
  async run() {
    return { text: 'Restarting…', after: 'restart' };
  },
});

export const help = defineCommand({
  name: 'help',
  category: 'meta',
  group: 'Meta',
  description: 'List commands by group, or show one command in detail',
  args: [{ name: 'command', kind: 'string' }],
  local: true,
  async run(_ctx, { command }) {
    const { commands, findCommand, unknownCommand } = await import('./index');
    if (command) {
      const cmd = findCommand(String(command));
      if (!cmd) throw unknownCommand(String(command));
      return renderCommandHelp(cmd);
    }
    return renderHelp(commands);
  },
});

function renderCommandHelp(cmd: Command): string {
  const lines = [`Usage: browse ${cmd.usage}`, '', cmd.description, `Category: ${cmd.category}`];
  const flagLines = (flags: readonly FlagSpec[]) =>
    flags.map((f) => {
      const names = f.short ? `${f.short}, ${f.name}` : f.name;
      return `  ${(f.kind === 'boolean' ? names : `${names} ${f.value ?? '<value>'}`).padEnd(28)} ${f.description}`;
    });
  if (cmd.flags?.length) lines.push('', 'Flags:', ...flagLines(cmd.flags));
  lines.push('', 'Flags every command takes:', ...flagLines(COMMON_FLAGS));
  return lines.join('\n');
}

function renderHelp(all: readonly Command[]): string {
  const lines = ['browse — a persistent headless browser for AI agents.', 'Usage: browse <command> [args]    (selectors: CSS, or @refs from snapshot)', ''];
  for (const group of GROUP_ORDER) {
    const inGroup = all.filter((c) => c.group === group);
    if (!inGroup.length) continue;
    lines.push(`${group}:`);
    for (const c of inGroup) {
      if (c.usage.length < 45) lines.push(`  ${c.usage.padEnd(44)} ${c.description}`);
      else lines.push(`  ${c.usage}`, `  ${''.padEnd(44)} ${c.description}`);
    }
    lines.push('');
  }
  lines.push(`Every command also takes: ${COMMON_FLAGS.map((f) => `${f.name} ${f.value}`).join(', ')}.`);
  lines.push(`Global flags, before the command: ${GLOBAL_FLAGS.map((f) => `${f.name}${f.value ? ` ${f.value}` : ''} (${f.description})`).join(', ')}.`, '`help <command>` shows its flags.');
  return lines.join('\n');
}

/** Splits `cmd a | cmd "b c"` text into steps of words, honouring quotes. */
export function parseChainText(text: string): string[][] {
  const steps: string[][] = [];
  let words: string[] = [];
  let word = '';
  let quote: string | null = null;
  let inWord = false;
  const endWord = () => {
    if (inWord) words.push(word);
    word = '';
    inWord = false;
  };
  const endStep = () => {
    endWord();
    if (words.length) steps.push(words);
    words = [];
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quote) {
      if (c === quote) quote = null;
      else if (c === '\\' && quote === '"' && i + 1 < text.length) word += text[++i];
      else word += c;
    } else if (c === '"' || c === "'") {
      quote = c;
      inWord = true;
    } else if (c === '|' || c === '\n') endStep();
    else if (/\s/.test(c)) endWord();
    else {
      word += c;
      inWord = true;
    }
  }
  if (quote) throw new BrowseError('Unclosed quote in chain input.', 'Close the quote, or pass a JSON array of steps.');
  endStep();
  return steps;
}

export function parseSteps(raw: string): string[][] {
  const trimmed = raw.trim();
  if (trimmed.startsWith('[') || trimmed.startsWith('{')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(trimmed);
    } catch (e) {
      throw new BrowseError(`Chain JSON is invalid: ${(e as Error).message}.`, 'Pass an array of steps like [["goto","http://localhost:3000"],["text"]].');
    }
    if (!Array.isArray(parsed) || !parsed.every((s) => Array.isArray(s) && s.length > 0 && s.every((w) => typeof w === 'string'))) {
      throw new BrowseError('Chain JSON must be an array of non-empty arrays of strings.', 'Example: [["goto","http://localhost:3000"],["click","#submit"]].');
    }
    return parsed as string[][];
  }
  return parseChainText(trimmed);
}

export const chain = defineCommand({
  name: 'chain',
  deadlineMs: 0, // each step has its own deadline
  category: 'meta',
  group: 'Meta',
  description: 'Run several commands in one call: a JSON array of [cmd, ...args], or `cmd a | cmd b` (argument or stdin)',
  args: [{ name: 'steps', kind: 'rest', required: true }],
  flags: [{ name: '--stop-on-error', kind: 'boolean', description: 'Stop at the first failing step' }],
  stdin: true,
  async run(ctx, { steps: raw, stopOnError }) {
    const steps = parseSteps(String(raw));
    if (!steps.length) throw new BrowseError('The chain has no steps.', 'Example: browse chain \'goto http://localhost:3000 | text\'');
    if (steps.length > MAX_CHAIN_STEPS) throw new BrowseError(`The chain has ${steps.length} steps; the limit is ${MAX_CHAIN_STEPS}.`, 'Split it into several chains.');
    const out: string[] = [];
    const failed: number[] = [];
    for (const [i, [name, ...words]] of steps.entries()) {
      out.push(`[${i + 1}/${steps.length}] ${[name, ...words].join(' ')}`);
      try {
        if (name === 'chain') throw new BrowseError('A chain cannot contain another chain.', 'Put the steps in one flat list.');
        const result = await ctx.execute(name, words);
        out.push(result.text);
        if (result.after) {
          out.push(`(chain ended: ${name} stops the daemon)`);
          return { text: out.join('\n'), after: result.after };
        }
      } catch (e) {
        const err = translateError(e);
        failed.push(i + 1);
        out.push(`FAILED: ${oneLine(err.message, err.hint)}`);
        if (stopOnError) break;
      }
    }
    if (failed.length) out.push(`${failed.length} of ${steps.length} steps failed (step ${failed.join(', ')}).`);
    return { text: out.join('\n'), failed: failed.length > 0 };
  },
});
