// @e / @c refs: what a snapshot handed out, and the honest check made before each use.
import type { Frame, Locator } from 'playwright';
import { BrowseError } from './errors';

export interface RefEntry {
  /** e7 or c2 (printed with @). */
  ref: string;
  /** For messages: `button "Save"`. */
  label: string;
  /** The exact element: getByRole(role, {name, exact}).nth(i), scoped to its frame. */
  locator: Locator;
  /** All elements sharing the role and name, in the same scope. */
  group: Locator;
  /** How many the group held at snapshot time: if that changes, nth(i) may point elsewhere. */
  total: number;
}

export type RefMap = Map<string, RefEntry>;

const REF = /^@([ec]\d+)$/;

export const isRef = (target: string) => REF.test(target);

/** How an action names its target: the CSS as given, or `@e5 (button "Save")`. */
export function describeTarget(refs: RefMap, target: string): string {
  const entry = refs.get(target.slice(1));
  return isRef(target) && entry ? `${target} (${entry.label})` : target;
}

/** CSS selector in the current frame, or a ref checked to still mean what the snapshot meant. */
export async function resolveTarget(refs: RefMap, frame: Frame, target: string): Promise<Locator> {
  const m = target.match(REF);
  if (!m) return frame.locator(target);
  const entry = refs.get(m[1]);
  if (!entry) {
    if (refs.size === 0) throw new BrowseError(`Ref ${target} does not exist: this tab has no refs (they clear on navigation).`, 'Run `snapshot` (or `snapshot -i`) for fresh refs.');
    const have = [...refs.keys()].filter((k) => k[0] === m[1][0]);
    const range = have.length ? `@${have[0]}–@${have[have.length - 1]}` : 'none of that kind';
    throw new BrowseError(`Ref ${target} does not exist; the last snapshot has ${range}.`, 'Run `snapshot` for fresh refs.');
  }
  const count = await entry.group.count();
  if (count === 0) throw new BrowseError(`Ref ${target} (${entry.label}) is stale — the element is gone.`, 'Run `snapshot` for fresh refs.');
  if (count !== entry.total) {
    throw new BrowseError(
      `Ref ${target} (${entry.label}) is ambiguous now: ${count} elements match where the snapshot saw ${entry.total}.`,
      'The page changed; run `snapshot` for fresh refs.',
    );
  }
  return entry.locator;
}
