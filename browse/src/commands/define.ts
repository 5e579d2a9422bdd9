import { BrowseError } from '../errors';
import type { CommandContext } from './context';

export type Category = 'read' | 'write' | 'meta';
export type Group = 'Navigate' | 'Read' | 'Inspect' | 'Interact' | 'Visual' | 'Snapshot' | 'Compare' | 'Tabs' | 'Session' | 'Meta';
export const GROUP_ORDER: Group[] = ['Navigate', 'Read', 'Inspect', 'Interact', 'Visual', 'Snapshot', 'Compare', 'Tabs', 'Session', 'Meta'];

export interface ArgSpec {
  name: string;
  /**
   * selector: CSS or @ref · url · int · path (resolved against the caller's cwd by the CLI) ·
   * string: one word · rest: every remaining word, joined by spaces · paths: every remaining word kept
   * apart, each a path (file names may contain spaces).
   */
  kind: 'string' | 'selector' | 'url' | 'int' | 'path' | 'rest' | 'paths';
  required?: boolean;
  choices?: readonly string[];
  /** Shown in usage instead of <name>. */
  display?: string;
}

export interface FlagSpec {
  name: `--${string}`;
  /** One-letter form; boolean short flags combine (`-ic`), a value flag may end a cluster (`-id 3`). */
  short?: `-${string}`;
  kind: 'boolean' | 'string' | 'int';
  description: string;
  /** Placeholder for the value in usage, e.g. "<ms>". */
  value?: string;
  /** A string flag that may be given more than once: its values arrive as a list. */
  repeatable?: boolean;
}

/** Flags of the CLI itself, given before the command (`browse --force-restart goto …`). */
export const GLOBAL_FLAGS: readonly { name: `--${string}`; value?: string; description: string }[] = [
  { name: '--session', value: '<name>', description: 'act in this named session: own tabs, cookies and logs in the same daemon (or set BROWSE_SESSION)' },
  { name: '--force-restart', description: 'replace a running daemon, even a stuck one' },
  { name: '--version', description: 'print the binary version' },
  { name: '--help', description: 'same as `help`' },
];

/** Flags every command takes, handled by the daemon's pipeline rather than the handler. */
export const COMMON_FLAGS: FlagSpec[] = [
  { name: '--timeout', kind: 'int', value: '<ms>', description: 'Answer within this many ms instead of the command\'s own deadline (0 = none)' },
  { name: '--max-output', kind: 'int', value: '<n>', description: 'Print at most n characters (default 20000; 0 = no limit); the last line says what was cut' },
  { name: '--offset', kind: 'int', value: '<n>', description: 'Skip the first n characters of the output (to read past a cut)' },
  { name: '--out', kind: 'string', value: '<path>', description: 'Write the whole output to this file and print only where it went' },
];

export type Input = Record<string, string | number | boolean | string[] | undefined>;

export interface CommandResult {
  text: string;
  /** What the daemon does once the reply is sent. */
  after?: 'exit' | 'restart';
  /** The command reports its output but some part of it failed (chain): the CLI exits 1. */
  failed?: boolean;
}

export interface CommandSpec {
  name: string;
  category: Category;
  group: Group;
  description: string;
  args?: ArgSpec[];
  flags?: FlagSpec[];
  /** Overrides the usage derived from args and flags when the shape needs words. */
  usage?: string;
  /** Runs in the CLI process without a daemon (needs no browser). */
  local?: boolean;
  /** Must run in the caller's CLI process (it checks that binary and environment): the daemon refuses it. */
  cliOnly?: boolean;
  /** With no arguments, the CLI passes standard input (when piped) as the first argument. */
  stdin?: boolean;
  /** When no daemon is running, the CLI prints this instead of starting one just to run the command. */
  whenNoDaemon?: string;
  /** Acts on the whole tab (navigation): refused while a `frame` is entered. */
  mainFrameOnly?: boolean;
  /** Output carries page-controlled text: the daemon wraps it in the untrusted-content envelope. */
  untrusted?: boolean;
  /** How long the daemon lets the command run before answering with an error (0: no limit). */
  deadlineMs?: number;
  /** The deadline when it depends on the input (`wait` runs as long as asked). */
  deadlineFor?(input: Input): number;
  /** The output carries its own bound (base64 of a capped PNG): no default character budget. */
  unbudgeted?: boolean;
  run(ctx: CommandContext, input: Input): Promise<string | CommandResult>;
}

export interface Command extends CommandSpec {
  usage: string;
}

export function defineCommand(spec: CommandSpec): Command {
  return { ...spec, usage: spec.usage ?? deriveUsage(spec) };
}

function deriveUsage(spec: CommandSpec): string {
  const parts = [spec.name];
  for (const a of spec.args ?? []) {
    const label = (a.display ?? (a.choices ? a.choices.join('|') : a.name) + (a.kind === 'rest' ? '…' : '')) + (a.kind === 'paths' ? '…' : '');
    parts.push(a.required ? `<${label}>` : `[${label}]`);
  }
  for (const f of spec.flags ?? []) {
    const name = f.short ?? f.name;
    parts.push(f.kind === 'boolean' ? `[${name}]` : `[${name} ${f.value ?? '<value>'}${f.repeatable ? ' …' : ''}]`);
  }
  return parts.join(' ');
}

const flagKey = (name: string) => name.replace(/^--/, '').replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());

function usageError(cmd: Command, problem: string): BrowseError {
  return new BrowseError(`${problem} Usage: ${cmd.usage}`, `Run \`help ${cmd.name}\` for details.`);
}

/** Parses raw words by the command's declared spec; any mismatch is rejected before browser work. */
export function parseInput(cmd: Command, raw: readonly string[]): Input {
  const input: Input = {};
  const positional: string[] = [];
  const flags = [...(cmd.flags ?? []), ...COMMON_FLAGS];
  // A command without flags of its own reads other `--words` as text (`type --verbose`).
  const ownFlags = Boolean(cmd.flags?.length);
  let flagsDone = false;
  for (let i = 0; i < raw.length; i++) {
    const word = raw[i];
    if (typeof word !== 'string') throw usageError(cmd, `Argument ${i + 1} is not a string.`);
    if (!flagsDone && word === '--') {
      flagsDone = true;
      continue;
    }
    if (!flagsDone && word.startsWith('--')) {
      const [name, inline] = word.includes('=') ? [word.slice(0, word.indexOf('=')), word.slice(word.indexOf('=') + 1)] : [word, undefined];
      const spec = flags.find((f) => f.name === name);
      if (!spec && !ownFlags) {
        positional.push(word);
        continue;
      }
      if (!spec) throw usageError(cmd, `Unknown flag '${name}' for ${cmd.name}.`);
      if (spec.kind === 'boolean') {
        if (inline !== undefined) throw usageError(cmd, `Flag ${name} takes no value.`);
        input[flagKey(name)] = true;
        continue;
      }
      const value = inline ?? raw[++i];
      if (value === undefined) throw usageError(cmd, `Flag ${name} needs a value.`);
      setFlag(cmd, input, spec, value);
      continue;
    }
    if (!flagsDone && /^-[A-Za-z]+$/.test(word) && flags.some((f) => f.short)) {
      const letters = word.slice(1);
      for (let k = 0; k < letters.length; k++) {
        const spec = flags.find((f) => f.short === `-${letters[k]}`);
        if (!spec) throw usageError(cmd, `Unknown flag '-${letters[k]}' for ${cmd.name}.`);
        if (spec.kind === 'boolean') {
          input[flagKey(spec.name)] = true;
          continue;
        }
        if (k !== letters.length - 1) throw usageError(cmd, `Flag -${letters[k]} takes a value, so it must come last in '${word}'.`);
        const value = raw[++i];
        if (value === undefined) throw usageError(cmd, `Flag -${letters[k]} needs a value.`);
        setFlag(cmd, input, spec, value);
      }
      continue;
    }
    positional.push(word);
  }

  const specs = cmd.args ?? [];
  let p = 0;
  for (const a of specs) {
    if (a.kind === 'rest' || a.kind === 'paths') {
      const rest = positional.slice(p);
      p = positional.length;
      if (rest.length) input[a.name] = a.kind === 'paths' ? rest : rest.join(' ');
    } else if (p < positional.length) {
      input[a.name] = a.kind === 'int' ? toInt(cmd, a.name, positional[p]) : positional[p];
      p++;
    }
    const v = input[a.name];
    // A quoted empty word is a real value for a `rest` argument (`fill @e2 ''` clears a field).
    if (v === undefined || (v === '' && a.kind !== 'rest')) {
      if (a.required) throw usageError(cmd, `Missing <${a.display ?? a.name}>.`);
      continue;
    }
    if (a.choices && !a.choices.includes(String(v))) {
      throw usageError(cmd, `'${v}' is not one of ${a.choices.join(', ')}.`);
    }
  }
  if (p < positional.length) {
    throw usageError(cmd, `Unexpected argument '${positional[p]}'.`);
  }
  return input;
}

function setFlag(cmd: Command, input: Input, spec: FlagSpec, value: string): void {
  const key = flagKey(spec.name);
  if (spec.repeatable) input[key] = [...((input[key] as string[] | undefined) ?? []), value];
  else input[key] = spec.kind === 'int' ? toInt(cmd, spec.name, value) : value;
}

function toInt(cmd: Command, name: string, value: string): number {
  if (!/^-?\d+$/.test(value)) throw usageError(cmd, `${name} must be a whole number, got '${value}'.`);
  return Number(value);
}

/** Edit distance for "Did you mean …?" suggestions. */
export function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0];
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = row[j];
      row[j] = Math.min(row[j] + 1, row[j - 1] + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = tmp;
    }
  }
  return row[b.length];
}
