// @e / @c refs: what snapshots handed out for the current document, and the honest check made before each use.
import type { Frame, Locator } from 'playwright';
import { BrowseError } from './errors';
import { parseAriaSnapshot, type AriaNode } from './snapshot/parse';

export interface RefEntry {
  /** e7 or c2 (printed with @). */
  ref: string;
  /** For messages: `button "Save"`. */
  label: string;
  role: string;
  name: string;
  /** What makes a later snapshot hand out the same ref: Playwright's element ref, or role+name+nth. */
  key: string;
  /**
   * Playwright's own ref of the element (e5, f2e5), kept by Playwright on the DOM node itself, so it names
   * this very element across snapshots; `pw` finds it, and its place in `group` proves it still has this role+name.
   */
  pwRef?: string;
  pw?: Locator;
  /** Without pwRef, the element: getByRole(role, {name, exact}).nth(i) in its frame (and -s scope). */
  locator: Locator;
  /** All elements sharing the role and name in its frame (with pwRef, the whole frame; else the -s scope). */
  group: Locator;
  /** How many elements of this role+name its frame (or -s scope) held at snapshot time. */
  total: number;
  /** What the last resolution had to do, for the reply: `re-bound: button "Save" was re-rendered`. */
  note?: string;
}

export type RefMap = Map<string, RefEntry>;

const REF = /^@([ec]\d+)$/;
const RECHECK_TIMEOUT_MS = 10_000;

export const isRef = (target: string) => REF.test(target);

export const labelOf = (role: string, name: string) => (name ? `${role} ${JSON.stringify(name.length > 60 ? `${name.slice(0, 59)}…` : name)}` : role);

/** Identity of a node Playwright gave a ref: the ref is only reused while role and name stay the same. */
export const pwKey = (pwRef: string, role: string, name: string) => `pw\u0000${pwRef}\u0000${role}\u0000${name}`;

/** The frame part of a Playwright ref: `f2` for f2e5, '' for the main frame's e5. */
const framePart = (pwRef: string) => pwRef.replace(/e\d+$/, '');

/** The element Playwright tagged `pwRef` (f2e5 jumps to its frame by itself); `inGroup` checks its role+name. */
export function pwLocator(main: Frame, pwRef: string): Locator {
  return main.locator(`aria-ref=${pwRef}`);
}

/** The next unused @e number in this map. */
export function nextRefNumber(refs: RefMap): number {
  let max = 0;
  for (const k of refs.keys()) if (k[0] === 'e') max = Math.max(max, Number(k.slice(1)));
  return max + 1;
}

/** How an action names its target: the CSS as given, `@e5 (button "Save")`, or what re-binding it took. */
export function describeTarget(refs: RefMap, target: string): string {
  const entry = isRef(target) ? refs.get(target.slice(1)) : undefined;
  if (!entry) return target;
  return `${target} (${entry.note ?? entry.label})`;
}

/** CSS selector in the current frame, or a ref checked to be the element the snapshot meant. */
export async function resolveTarget(refs: RefMap, frame: Frame, target: string): Promise<Locator> {
  const m = target.match(REF);
  if (!m) return frame.locator(target);
  const entry = refs.get(m[1]);
  if (!entry) {
    if (refs.size === 0) throw new BrowseError(`Ref ${target} does not exist: this tab has no refs (they clear on navigation).`, 'Run `snapshot` (or `snapshot -i`) for fresh refs.');
    const have = [...refs.keys()].filter((k) => k[0] === m[1][0]).sort((a, b) => Number(a.slice(1)) - Number(b.slice(1)));
    const range = have.length ? `@${have[0]}–@${have[have.length - 1]}` : 'none of that kind';
    throw new BrowseError(`Ref ${target} does not exist; the snapshots of this page have ${range}.`, 'Run `snapshot` for fresh refs.');
  }
  entry.note = undefined;
  if (entry.pwRef) return resolveByIdentity(refs, frame.page().mainFrame(), entry, target);
  // No element identity (Playwright gave the node no ref, e.g. it was not visible): role+name+nth, count-checked.
  const count = await entry.group.count();
  if (count === 0) throw gone(target, entry);
  if (count !== entry.total) {
    throw new BrowseError(
      `Ref ${target} (${entry.label}) is ambiguous now: ${count} elements match where the snapshot saw ${entry.total}.`,
      'The page changed; run `snapshot` for fresh refs.',
    );
  }
  return entry.locator;
}

const gone = (target: string, entry: RefEntry) => new BrowseError(`Ref ${target} (${entry.label}) is stale — the element is gone.`, 'Run `snapshot` for fresh refs.');

/** What tells look-alikes apart below `n`: its own name (`in row "Ada"`), else a named child (`near cell "Item 2"`). */
function contextOf(n: AriaNode, entry: RefEntry): string | undefined {
  if (n.role === 'text') return undefined;
  if (n.name) return `in ${labelOf(n.role, n.name)}`;
  const named = n.children.find((c) => c.role !== 'text' && c.name && !(c.role === entry.role && c.name === entry.name));
  if (named) return `near ${labelOf(named.role, named.name)}`;
  const text = n.children.find((c) => c.role === 'text' && c.text)?.text;
  return text ? `near ${JSON.stringify(text.length > 40 ? `${text.slice(0, 39)}…` : text)}` : undefined;
}

interface Candidate {
  node: AriaNode;
  /** Nearest named ancestor, e.g. `row "Ada"`: what tells look-alikes apart. */
  within?: string;
}

/**
 * Same element (one round trip), else one fresh aria snapshot of the page tells whether the element is still
 * there (Playwright only resolves refs of its last snapshot, which `-s` or `accessibility` may have replaced),
 * was replaced by exactly one look-alike (re-bound, and said so), is gone, or now has several look-alikes.
 */
async function resolveByIdentity(refs: RefMap, main: Frame, entry: RefEntry, target: string): Promise<Locator> {
  const hit = await inGroup(entry.pw!, entry.group);
  if (hit) return hit;
  const text = await main.locator('body').ariaSnapshot({ mode: 'ai', boxes: true, timeout: RECHECK_TIMEOUT_MS });
  const same: Candidate[] = [];
  const walk = (nodes: AriaNode[], within: string | undefined) => {
    for (const n of nodes) {
      if (n.ariaRef && n.role === entry.role && n.name === entry.name && framePart(n.ariaRef) === framePart(entry.pwRef!)) same.push({ node: n, within });
      walk(n.children, contextOf(n, entry) ?? within);
    }
  };
  walk(parseAriaSnapshot(text), undefined);
  if (same.some((c) => c.node.ariaRef === entry.pwRef)) {
    // Still there: Playwright's lookup had been replaced by a narrower snapshot (-s, accessibility).
    const again = await inGroup(entry.pw!, entry.group);
    if (again) return again;
    throw gone(target, entry);
  }
  if (same.length === 0) throw gone(target, entry);
  if (same.length === 1 && entry.total === 1) {
    const pwRef = same[0].node.ariaRef!;
    const pw = pwLocator(main, pwRef);
    const rebound = await inGroup(pw, entry.group);
    if (!rebound) throw gone(target, entry);
    Object.assign(entry, { pwRef, pw, key: pwKey(pwRef, entry.role, entry.name), note: `re-bound: ${entry.label} was re-rendered` });
    return rebound;
  }
  // Look-alikes: give each a ref (its own, if a snapshot already did) so the agent can pick one.
  const byKey = new Map([...refs.values()].map((e) => [e.key, e]));
  let next = nextRefNumber(refs);
  const listed = same.map((c, i) => {
    const key = pwKey(c.node.ariaRef!, entry.role, entry.name);
    let e = byKey.get(key);
    if (!e) {
      const pw = pwLocator(main, c.node.ariaRef!);
      e = { ref: `e${next++}`, label: entry.label, role: entry.role, name: entry.name, key, pwRef: c.node.ariaRef, pw, locator: entry.group, group: entry.group, total: same.length };
      refs.set(e.ref, e);
    }
    const hints = [`${i + 1} of ${same.length}`];
    if (c.within) hints.push(c.within);
    if (c.node.box) hints.push(`at x=${Math.round(c.node.box[0])} y=${Math.round(c.node.box[1])}`);
    return `  @${e.ref} ${entry.label} — ${hints.join(', ')}`;
  });
  const why =
    same.length === 1
      ? `is stale — the element is gone, and the one ${entry.label} left may be another (the snapshot saw ${entry.total})`
      : `is ambiguous now — the element is gone and ${same.length} look-alikes match (the snapshot saw ${entry.total})`;
  throw new BrowseError(`Ref ${target} (${entry.label}) ${why}. Not guessing: use the ref of the one you mean, or run \`snapshot\`.\n${listed.join('\n')}`);
}

/**
 * The element `pw` finds, as a place in its role+name group: Playwright resolves aria refs only in its own
 * isolated world, while actions such as dispatchEvent and evaluateAll run in the page's world.
 */
async function inGroup(pw: Locator, group: Locator): Promise<Locator | undefined> {
  const handles = await pw.elementHandles();
  if (handles.length !== 1) {
    for (const h of handles) void h.dispose();
    return undefined;
  }
  try {
    const [k, n] = await group.evaluateAll((els, target) => [els.indexOf(target as unknown as HTMLElement), els.length], handles[0]);
    if (k < 0) return undefined;
    return n === 1 ? group : group.nth(k);
  } finally {
    void handles[0].dispose();
  }
}
