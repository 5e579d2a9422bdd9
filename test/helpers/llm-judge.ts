// Tier-3 evals: an LLM reads one section of a skill doc, as the agent that must follow it would, and
// scores it 1–5 on clarity, completeness and actionability. Parsing and section extraction are pure.
import Anthropic from '@anthropic-ai/sdk';

export const CRITERIA = ['clarity', 'completeness', 'actionability'] as const;
export type Criterion = (typeof CRITERIA)[number];

/** A section passes when every criterion reaches its minimum. */
export const JUDGE_PASS_MIN: Readonly<Record<Criterion, number>> = { clarity: 4, completeness: 4, actionability: 4 };
export const DEFAULT_JUDGE_MODEL = 'claude-sonnet-5-5';
const MAX_REPLY_TOKENS = 1024;

/**
 * Approximate list prices in USD per million tokens (Anthropic's published standard rates, late 2026), to put
 * a cost on a judge call; not a bill: no batch or cache rates (the judge uses neither). Update when a price
 * or the default model changes. Dated ids (`…-20251001`) use their alias's price.
 */
export const JUDGE_PRICES_USD_PER_MTOK: Readonly<Record<string, { input: number; output: number }>> = {
  'claude-sonnet-5-5': { input: 2, output: 10 },
  'claude-sonnet-5': { input: 2, output: 10 },
  'claude-opus-5-5': { input: 4, output: 20 },
  'claude-opus-5': { input: 5, output: 25 },
  'claude-sonnet-4-6': { input: 3, output: 15 },
  'claude-sonnet-4-5': { input: 3, output: 15 },
  'claude-haiku-4-5': { input: 1, output: 5 },
};

/** The approximate cost of one call from its token counts; 0 with a note for a model not in the price table. */
export function judgeCostUsd(model: string, inputTokens: number, outputTokens: number): { costUsd: number; note: string | null } {
  const price = JUDGE_PRICES_USD_PER_MTOK[model.replace(/-\d{8}$/, '')];
  if (price === undefined) return { costUsd: 0, note: `no price on file for ${model}: cost recorded as $0 (add it to JUDGE_PRICES_USD_PER_MTOK)` };
  const usd = (inputTokens * price.input + outputTokens * price.output) / 1_000_000;
  return { costUsd: Math.round(usd * 1e6) / 1e6, note: null };
}

export interface JudgeScore {
  score: number;
  reason: string;
}
export type JudgeScores = Record<Criterion, JudgeScore>;

export interface DocSection {
  /** What the section is, e.g. "browse SKILL.md: command reference". */
  title: string;
  content: string;
  /** Who reads it and what for; tells the judge what "complete" means here. */
  context: string;
}

export interface JudgeVerdict {
  scores: JudgeScores;
  passed: boolean;
  model: string;
  inputTokens: number;
  outputTokens: number;
  /** Approximate, from the token counts and JUDGE_PRICES_USD_PER_MTOK; 0 when the model has no price (see costNote). */
  costUsd: number;
  costNote: string | null;
  durationMs: number;
  raw: string;
}

export function judgeModel(env: Record<string, string | undefined> = process.env): string {
  return env.EVALS_JUDGE_MODEL || DEFAULT_JUDGE_MODEL;
}

export function judgePassed(scores: JudgeScores, min: Readonly<Record<Criterion, number>> = JUDGE_PASS_MIN): boolean {
  return CRITERIA.every((c) => scores[c].score >= min[c]);
}

export const JUDGE_SYSTEM = [
  'You review documentation that an AI coding agent reads and then follows literally, with no human to ask.',
  'Score the section you are given on three criteria, each an integer from 1 to 5:',
  '- clarity: can the agent tell exactly what each instruction means? (1 = confusing or contradictory, 3 = understandable with guesswork, 5 = unambiguous)',
  '- completeness: does it cover what the agent needs for the stated purpose, including failure cases? (1 = major gaps, 3 = the common path only, 5 = nothing missing)',
  '- actionability: can the agent act on it directly: exact commands, arguments, order of steps, what to check? (1 = vague advice, 3 = some concrete steps, 5 = copy-and-run)',
  'Judge only the section shown, against its stated purpose. Be strict: 5 is rare.',
  'Reply with only this JSON object and nothing else:',
  '{"clarity":{"score":<1-5>,"reason":"<one line>"},"completeness":{"score":<1-5>,"reason":"<one line>"},"actionability":{"score":<1-5>,"reason":"<one line>"}}',
].join('\n');

export function judgePrompt(section: DocSection): string {
  return `Section: ${section.title}\nPurpose and reader: ${section.context}\n\n<section>\n${section.content}\n</section>`;
}

/** Top-level `{…}` spans of text, found by brace depth outside JSON strings. */
function objectSpans(text: string): string[] {
  const spans: string[] = [];
  let depth = 0;
  let start = -1;
  let inString = false;
  let escaped = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (inString) {
      if (escaped) escaped = false;
      else if (ch === '\\') escaped = true;
      else if (ch === '"') inString = false;
    } else if (ch === '"' && depth > 0) {
      inString = true;
    } else if (ch === '{') {
      if (depth === 0) start = i;
      depth++;
    } else if (ch === '}' && depth > 0) {
      depth--;
      if (depth === 0) spans.push(text.slice(start, i + 1));
    }
  }
  return spans;
}

function scoreValue(v: unknown): number | null {
  const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : v;
  return typeof n === 'number' && Number.isFinite(n) && n >= 1 && n <= 5 ? n : null;
}

/** {clarity:{score,reason}} or {clarity:4, clarity_reason:"…"}, optionally under `scores`; keys in any case. */
function scoresOf(value: unknown): JudgeScores | null {
  if (value === null || typeof value !== 'object') return null;
  const lower = Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([k, v]) => [k.toLowerCase(), v]));
  if (lower.scores && typeof lower.scores === 'object') return scoresOf(lower.scores);
  const out: Partial<JudgeScores> = {};
  for (const c of CRITERIA) {
    const entry = lower[c];
    const nested = entry !== null && typeof entry === 'object' ? (entry as Record<string, unknown>) : null;
    const score = scoreValue(nested ? nested.score : entry);
    if (score === null) return null;
    const reason = nested ? nested.reason : lower[`${c}_reason`];
    out[c] = { score, reason: typeof reason === 'string' ? reason.trim() : '' };
  }
  return out as JudgeScores;
}

/** The judge's reply → scores. Tolerates code fences and prose around the JSON; throws when no valid scores are found. */
export function parseJudgeJSON(text: string): JudgeScores {
  const fenced = [...text.matchAll(/```(?:json)?\s*([\s\S]*?)```/gi)].map((m) => m[1]);
  for (const candidate of [text.trim(), ...fenced, ...objectSpans(text)]) {
    let value: unknown;
    try {
      value = JSON.parse(candidate);
    } catch {
      continue;
    }
    const scores = scoresOf(value);
    if (scores) return scores;
  }
  throw new Error(`judge reply holds no JSON with ${CRITERIA.join(', ')} scores of 1–5: ${JSON.stringify(text.slice(0, 300))}`);
}

/** The doc without its YAML front matter. */
export function stripFrontmatter(md: string): string {
  return md.replace(/^---\n[\s\S]*?\n---\n/, '');
}

/** The first section whose heading matches, down to the next heading of the same or a higher level; null if none. */
export function markdownSection(md: string, heading: RegExp): string | null {
  const lines = md.split('\n');
  let inFence = false;
  let level = 0;
  let start = -1;
  for (let i = 0; i < lines.length; i++) {
    if (/^\s*(```|~~~)/.test(lines[i])) inFence = !inFence;
    const m = inFence ? null : /^(#{1,6})\s+(.*)$/.exec(lines[i]);
    if (!m) continue;
    if (start === -1) {
      if (heading.test(m[2])) {
        start = i;
        level = m[1].length;
      }
    } else if (m[1].length <= level) {
      return lines.slice(start, i).join('\n').trim();
    }
  }
  return start === -1 ? null : lines.slice(start).join('\n').trim();
}

/** Sends one section to the judge model and returns its scores. Needs ANTHROPIC_API_KEY. */
export async function judgeSection(section: DocSection, opts: { model?: string; client?: Anthropic } = {}): Promise<JudgeVerdict> {
  const model = opts.model ?? judgeModel();
  const client = opts.client ?? new Anthropic();
  const started = performance.now();
  const reply = await client.messages.create({
    model,
    max_tokens: MAX_REPLY_TOKENS,
    system: JUDGE_SYSTEM,
    messages: [{ role: 'user', content: judgePrompt(section) }],
  });
  const raw = reply.content.map((b) => (b.type === 'text' ? b.text : '')).join('');
  const scores = parseJudgeJSON(raw);
  const { input_tokens: inputTokens, output_tokens: outputTokens } = reply.usage;
  const cost = judgeCostUsd(model, inputTokens, outputTokens);
  return {
    scores,
    passed: judgePassed(scores),
    model,
    inputTokens,
    outputTokens,
    costUsd: cost.costUsd,
    costNote: cost.note,
    durationMs: Math.round(performance.now() - started),
    raw,
  };
}
