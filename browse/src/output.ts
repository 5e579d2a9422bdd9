// Output budgets: no reply can flood an agent's context. A cut reply ends with a line that says what was cut
// and how to get the rest. `bound` is pure.
import { writeFileSync } from 'node:fs';
import type { Command, Input } from './commands/define';
import { DEFAULTS } from './config';
import { BrowseError } from './errors';
import { validateOutputPath } from './policy';

export interface Bounded {
  body: string;
  /** '' or a line (starting with a newline) that goes after the body, outside any untrusted envelope. */
  note: string;
}

const n = (x: number) => x.toLocaleString('en-US');

/** How to ask for less of this command's output, when it has a way. */
function narrowing(cmd: Pick<Command, 'name' | 'flags' | 'args'>): string | undefined {
  if (cmd.flags?.some((f) => f.short === '-s')) return `narrow it: ${cmd.name} -s <selector> (or -i, -d <N>)`;
  if (cmd.args?.some((a) => a.kind === 'selector' && !a.required)) return `narrow it: ${cmd.name} <selector>`;
  if (cmd.flags?.some((f) => f.name === '--errors')) return `narrow it: ${cmd.name} --errors`;
  return undefined;
}

/** The part of `text` from `offset` that fits `budget` characters (0: all), cut at a line end when one is near. */
export function bound(text: string, cmd: Pick<Command, 'name' | 'flags' | 'args' | 'unbudgeted'>, offset = 0, budget?: number): Bounded {
  const limit = budget ?? (cmd.unbudgeted ? 0 : DEFAULTS.outputBudget);
  if (offset < 0 || limit < 0) throw new BrowseError('--offset and --max-output take 0 or more.', 'Example: --offset 20000 --max-output 5000');
  if (offset > 0 && offset >= text.length) {
    return { body: '', note: `\n(--offset ${n(offset)} is past the end: the output has ${n(text.length)} characters)` };
  }
  const rest = text.slice(offset);
  if (limit === 0 || rest.length <= limit) {
    return { body: rest, note: offset > 0 ? `\n(characters ${n(offset)}–${n(text.length)} of ${n(text.length)})` : '' };
  }
  const lineEnd = rest.lastIndexOf('\n', limit);
  const cut = lineEnd > limit * 0.8 ? lineEnd : limit;
  const next = offset + cut + (cut === lineEnd ? 1 : 0);
  const ways = [`the rest: --offset ${next}`, narrowing(cmd), 'everything: --out <file> or --max-output 0'].filter(Boolean).join('; ');
  return { body: rest.slice(0, cut), note: `\n(cut: printed characters ${n(offset)}–${n(offset + cut)} of ${n(text.length)}. ${ways})` };
}

/** The pipeline's output step for one command's text: `--out` writes it all to a file, else the budget applies. */
export function shapeOutput(text: string, cmd: Pick<Command, 'name' | 'flags' | 'args' | 'unbudgeted'>, flags: Input, pathOf: (p: string) => string): Bounded {
  if (flags.out !== undefined) return writeOutput(pathOf(String(flags.out)), text);
  return bound(text, cmd, Number(flags.offset ?? 0), flags.maxOutput === undefined ? undefined : Number(flags.maxOutput));
}

/** Writes a command's output to a checked path, readable by the user only (it may hold page data); returns where. */
export function writeOutputFile(path: string, text: string): string {
  const target = validateOutputPath(path);
  writeFileSync(target, text, { mode: 0o600 });
  return target;
}

/** `--out`: the whole output goes to a file; the reply only says where. */
export function writeOutput(path: string, text: string): Bounded {
  return { body: `Wrote ${n(text.length)} characters to ${writeOutputFile(path, text)}`, note: '' };
}
