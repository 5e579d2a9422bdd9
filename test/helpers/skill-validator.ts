// Checks every `$B …` invocation inside the bash blocks of the skill docs against the command registry: the
// command exists and its words parse with the same parser the daemon uses (arity, flags, choices, snapshot
// flags); chain steps are checked one by one.
import { findCommand, unknownCommand } from '../../browse/src/commands/index';
import { parseInput } from '../../browse/src/commands/define';
import { parseSteps } from '../../browse/src/commands/meta';

export interface Invocation {
  line: number;
  words: string[];
}

export interface Problem {
  line: number;
  text: string;
  problem: string;
}

const BASH_FENCE = /^(\s*)```(bash|sh|shell|zsh)\s*$/;
const GLOBAL_FLAGS = new Set(['--force-restart']);
/** Words after which a new simple command starts (shell keywords and operators). */
const COMMAND_START = new Set(['&&', '||', '|', ';', '&', '(', 'do', 'then', 'else', 'elif', 'if', 'while', 'until', '!', '{', 'time']);
/** A redirection operator whose target is the next word (`> file`); `2>&1` and `>file` carry their own. */
const REDIRECT = /^(\d*>>?|\d*>&|<|&>>?)$/;

/** Bash code blocks of a markdown text, as lines with their 1-based line numbers (continuations joined). */
export function bashLines(markdown: string): { line: number; text: string }[] {
  const out: { line: number; text: string }[] = [];
  let inBash = false;
  let inOther = false;
  let pending: { line: number; text: string } | null = null;
  markdown.split('\n').forEach((raw, i) => {
    const fence = raw.trim().startsWith('```');
    if (!inBash && !inOther && fence) {
      if (BASH_FENCE.test(raw)) inBash = true;
      else inOther = true;
      return;
    }
    if (fence && (inBash || inOther)) {
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

/** Every `$B …` command in the words of one line: its words up to the next operator, redirections left out. */
function invocations(words: string[]): string[][] {
  const found: string[][] = [];
  let atStart = true;
  for (let i = 0; i < words.length; i++) {
    const w = words[i];
    if (COMMAND_START.has(w)) {
      atStart = true;
      continue;
    }
    if (atStart && /^[A-Za-z_][A-Za-z0-9_]*=/.test(w)) continue; // VAR=value before a command
    if (atStart && (w === '$B' || w === '${B}')) {
      const args: string[] = [];
      for (i++; i < words.length && !COMMAND_START.has(words[i]) && words[i] !== ')'; i++) {
        if (REDIRECT.test(words[i])) i++;
        else if (!/^(\d*>|<|&>)/.test(words[i])) args.push(words[i]);
      }
      found.push(args);
      i--;
    }
    atStart = false;
  }
  return found;
}

/** Every `$B …` command of one shell line, including those inside `$( … )`, quoted or not. */
export function invocationsIn(line: string): string[][] {
  const inner: string[] = [];
  const outer = line.replace(/\$\(([^()]*)\)/g, (_, sub: string) => {
    inner.push(sub);
    return 'SUBST';
  });
  return [outer, ...inner].flatMap((part) => invocations(shellWords(part)));
}

/** The problem with one `$B` invocation's words, or null when the registry accepts it. */
export function checkInvocation(words: string[]): string | null {
  const rest = [...words];
  while (rest[0]?.startsWith('--')) {
    const flag = rest.shift()!;
    if (!GLOBAL_FLAGS.has(flag)) return `unknown global flag ${flag}`;
  }
  const [name, ...args] = rest;
  if (!name) return 'no command after $B';
  const cmd = findCommand(name);
  if (!cmd) return unknownCommand(name).message;
  try {
    const input = parseInput(cmd, args);
    if (cmd.name === 'chain') {
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
    for (const words of invocationsIn(text)) {
      count++;
      const problem = checkInvocation(words);
      if (problem) problems.push({ line, text: text.trim(), problem });
    }
  }
  return { count, problems };
}
