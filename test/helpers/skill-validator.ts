// Checks every `$B …` invocation inside the bash blocks of the skill docs against the command registry: the
// command exists and its words parse with the same parser the daemon uses (arity, flags, choices, snapshot
// flags); chain steps are checked one by one.
import { findCommand, unknownCommand } from '../../browse/src/commands/index';
import { GLOBAL_FLAGS, parseInput } from '../../browse/src/commands/define';
import { parseSteps } from '../../browse/src/commands/meta';

export interface Problem {
  line: number;
  text: string;
  problem: string;
}

/** One `$B` call: its words, and whether its stdin is fed (`… | $B chain`, `$B chain <<EOF`). */
export interface Invocation {
  words: string[];
  stdin: boolean;
}

const BASH_FENCE = /^\s*(```|~~~)\s*(bash|sh|shell|zsh)\b/i;
const GLOBAL = new Map(GLOBAL_FLAGS.map((f) => [f.name as string, f]));
const B_WORD = new Set(['$B', '${B}']);
/** Words after which a new simple command starts (shell keywords and operators). */
const COMMAND_START = new Set(['&&', '||', '|', ';', '&', '(', 'do', 'then', 'else', 'elif', 'if', 'while', 'until', '!', '{']);
/** Words that run the command after them (`timeout` also takes a duration first). */
const WRAPPERS = new Set(['time', 'nohup', 'command', 'exec', 'env']);
/** A redirection operator whose target is the next word (`> file`); `2>&1` and `>file` carry their own. */
const REDIRECT = /^(\d*>>?|\d*>&|<|<<<?|&>>?)$/;

/** Bash code blocks of a markdown text, as lines with their 1-based line numbers (continuations joined). */
export function bashLines(markdown: string): { line: number; text: string }[] {
  const out: { line: number; text: string }[] = [];
  let inBash = false;
  let inOther = false;
  let pending: { line: number; text: string } | null = null;
  let fence = '';
  markdown.split('\n').forEach((raw, i) => {
    const marker = raw.trim().slice(0, 3);
    const isFence = marker === '```' || marker === '~~~';
    if (!inBash && !inOther && isFence) {
      fence = marker;
      if (BASH_FENCE.test(raw)) inBash = true;
      else inOther = true;
      return;
    }
    if (isFence && marker === fence && raw.trim() === marker) {
      inBash = inOther = false;
      return;
    }
    if (!inBash) return;
    const continued = raw.endsWith('\\');
    const text = continued ? raw.slice(0, -1) : raw;
    pending = pending ? { line: pending.line, text: `${pending.text} ${text}` } : { line: i + 1, text };
    if (!continued) {
      out.push(pending);
      pending = null;
    }
  });
  return out;
}

/** Shell words and operators of one line; quotes removed, `$VAR` left as written, comments dropped. */
export function shellWords(line: string): string[] {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  let quote: '"' | "'" | null = null;
  const end = () => {
    if (inWord) words.push(word);
    word = '';
    inWord = false;
  };
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quote) {
      if (c === quote) quote = null;
      else if (c === '\\' && quote === '"' && i + 1 < line.length) word += line[++i];
      else word += c;
      continue;
    }
    if (c === '"' || c === "'") {
      quote = c;
      inWord = true;
    } else if (c === '\\' && i + 1 < line.length) {
      word += line[++i];
      inWord = true;
    } else if (/\s/.test(c)) end();
    else if (c === '#' && !inWord) break;
    else if ('|&;()'.includes(c)) {
      const two = line.slice(i, i + 2);
      if (c === '&' && (word.endsWith('>') || /^\d*>$/.test(word))) {
        word += c; // 2>&1
        inWord = true;
        continue;
      }
      end();
      if (two === '&&' || two === '||') {
        words.push(two);
        i++;
      } else words.push(c);
    } else {
      word += c;
      inWord = true;
    }
  }
  end();
  return words;
}

/** Every `$B …` command in the words of one line, and any `$B` where a command cannot start (unchecked). */
function invocations(words: string[]): { calls: Invocation[]; misplaced: number } {
  const calls: Invocation[] = [];
  let misplaced = 0;
  let atStart = true;
  for (let i = 0; i < words.length; i++) {
    const w = words[i];
    if (COMMAND_START.has(w)) {
      atStart = true;
      continue;
    }
    if (atStart && (/^[A-Za-z_][A-Za-z0-9_]*=/.test(w) || WRAPPERS.has(w))) continue; // VAR=value, time …
    if (atStart && w === 'timeout') {
      i++; // its duration
      continue;
    }
    if (atStart && B_WORD.has(w)) {
      const words_: string[] = [];
      let stdin = words[i - 1] === '|';
      for (i++; i < words.length && !COMMAND_START.has(words[i]) && words[i] !== ')'; i++) {
        if (/^(\d*<|<)/.test(words[i])) stdin = true;
        if (REDIRECT.test(words[i])) i++;
        else if (!/^(\d*>|<|&>)/.test(words[i])) words_.push(words[i]);
      }
      calls.push({ words: words_, stdin });
      i--;
    } else if (B_WORD.has(w)) misplaced++;
    atStart = false;
  }
  return { calls, misplaced };
}

/** The line with each `$( … )` and backquoted command cut out (nesting and quotes respected), and those commands. */
export function splitSubstitutions(line: string): { outer: string; inner: string[] } {
  const inner: string[] = [];
  let outer = '';
  let quote: '"' | "'" | null = null;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quote === "'") {
      if (c === "'") quote = null;
    } else if (c === '\\') {
      outer += c + (line[i + 1] ?? '');
      i++;
      continue;
    } else if (c === '$' && line[i + 1] === '(') {
      const end = closingParen(line, i + 2);
      inner.push(line.slice(i + 2, end));
      outer += 'SUBST';
      i = end;
      continue;
    } else if (c === '`') {
      const end = line.indexOf('`', i + 1) < 0 ? line.length : line.indexOf('`', i + 1);
      inner.push(line.slice(i + 1, end));
      outer += 'SUBST';
      i = end;
      continue;
    } else if (c === '"') quote = quote ? null : '"';
    else if (c === "'" && !quote) quote = "'";
    outer += c;
  }
  return { outer, inner };
}

/** Index of the `)` closing a `$(` whose body starts at `from`; quotes inside the body are skipped. */
function closingParen(line: string, from: number): number {
  let depth = 1;
  let quote: string | null = null;
  for (let i = from; i < line.length; i++) {
    const c = line[i];
    if (quote) {
      if (c === quote) quote = null;
      else if (c === '\\' && quote === '"') i++;
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '(') depth++;
    else if (c === ')' && --depth === 0) return i;
  }
  return line.length;
}

/** Every `$B …` command of one shell line, including those inside `$( … )` and backquotes. */
export function invocationsIn(line: string): { calls: Invocation[]; misplaced: number } {
  const { outer, inner } = splitSubstitutions(line);
  const parts = [invocations(shellWords(outer)), ...inner.map(invocationsIn)];
  return { calls: parts.flatMap((p) => p.calls), misplaced: parts.reduce((n, p) => n + p.misplaced, 0) };
}

/** The problem with one `$B` invocation, or null when the registry accepts it. */
export function checkInvocation(words: string[], stdin = false): string | null {
  const rest = [...words];
  while (rest[0]?.startsWith('--')) {
    const flag = rest.shift()!;
    if (!GLOBAL.has(flag)) return `unknown global flag ${flag} (global flags: ${[...GLOBAL.keys()].join(', ')})`;
    if (GLOBAL.get(flag)!.value && rest.shift() === undefined) return `${flag} needs a value`;
    if (flag === '--version' || flag === '--help') return rest.length ? `${flag} takes no command after it` : null;
  }
  const [name, ...args] = rest;
  if (!name) return 'no command after $B';
  const cmd = findCommand(name);
  if (!cmd) return unknownCommand(name).message;
  // Piped or redirected input stands in for the one argument of a stdin command; its content is not seen here.
  const fedByStdin = Boolean(cmd.stdin) && stdin && args.every((a) => a.startsWith('--'));
  try {
    const input = parseInput(cmd, fedByStdin ? [...args, '(stdin)'] : args);
    if (cmd.name === 'help' && input.command !== undefined && !findCommand(String(input.command))) return unknownCommand(String(input.command)).message;
    if (cmd.name === 'chain' && !fedByStdin) {
      for (const [i, step] of parseSteps(String(input.steps)).entries()) {
        const problem = checkInvocation(step);
        if (problem) return `chain step ${i + 1} (${step.join(' ')}): ${problem}`;
      }
    }
  } catch (e) {
    return (e as Error).message;
  }
  return null;
}

/** Every `$B` invocation in a markdown text, with the problems the registry finds. */
export function validateMarkdown(markdown: string): { count: number; problems: Problem[] } {
  const problems: Problem[] = [];
  let count = 0;
  for (const { line, text } of bashLines(markdown)) {
    const { calls, misplaced } = invocationsIn(text);
    if (misplaced) problems.push({ line, text: text.trim(), problem: 'a `$B` the validator cannot check: start the command with `$B` (after `|`, `&&`, `;`, `do`, `then`, `$(`…)' });
    for (const { words, stdin } of calls) {
      count++;
      const problem = checkInvocation(words, stdin);
      if (problem) problems.push({ line, text: text.trim(), problem });
    }
  }
  return { count, problems };
}
