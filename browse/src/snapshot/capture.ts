// Takes a snapshot of a frame: Playwright's aria tree (iframes and open shadow roots included), our
// rendering, and for every printed ref a role+name locator scoped to the frame the element lives in.
import type { Frame, FrameLocator, Locator } from 'playwright';
import { BrowseError } from '../errors';
import { labelOf, nextRefNumber, pwKey, pwLocator, type RefEntry, type RefMap } from '../refs';
import { parseAriaSnapshot, type AriaNode } from './parse';
import { renderSnapshot, type RenderOptions } from './render';

export interface CaptureOptions extends RenderOptions {
  selector?: string;
  cursor?: boolean;
  boxes?: boolean;
}

export interface Mark {
  ref: string;
  box: [number, number, number, number];
}

export interface Capture {
  lines: string[];
  refs: RefMap;
  /** Viewport boxes of the printed refs (with `boxes`), for overlays. */
  marks: Mark[];
}

type Scope = Frame | Locator | FrameLocator;

interface IframeScope {
  element: Locator;
  group: Locator;
  total: number;
  inner: FrameLocator;
}

const SNAPSHOT_TIMEOUT_MS = 10_000;

/**
 * `known` is the tab's ref map for this document: an element it already names keeps its ref, whatever the
 * flags; new elements get the next numbers. Returns the map with this snapshot's refs added.
 */
export async function captureSnapshot(frame: Frame, opts: CaptureOptions, known: RefMap = new Map()): Promise<Capture> {
  let scope: Frame | Locator = frame;
  let root = frame.locator('body');
  if (opts.selector) {
    const loc = frame.locator(opts.selector);
    const n = await loc.count();
    if (n === 0) throw new BrowseError(`Selector '${opts.selector}' matched nothing, so there is nothing to snapshot.`, 'Check it with `html` or run `snapshot` without -s.');
    if (n > 1) throw new BrowseError(`Selector '${opts.selector}' matched ${n} elements; -s needs one.`, 'Use a more specific selector, e.g. with an id.');
    scope = root = loc;
  }
  const text = await root.ariaSnapshot({ mode: 'ai', boxes: opts.boxes, timeout: SNAPSHOT_TIMEOUT_MS });
  const tree = parseAriaSnapshot(text);
  await maskPasswords(frame, tree);
  const main = frame.page().mainFrame();

  // Position of each node among same role+name nodes of its frame, over the whole tree (not only
  // what is printed), so .nth(i) counts exactly what getByRole will see.
  const nth = new Map<AriaNode, number>();
  const totals = new Map<string, number>();
  const keyOf = new Map<AriaNode, string>();
  let frameSeq = 0;
  const walk = (nodes: AriaNode[], frameKey: string) => {
    for (const n of nodes) {
      if (n.role !== 'text' && n.role !== 'iframe') {
        const key = `${frameKey}\u0000${n.role}\u0000${n.name}`;
        nth.set(n, totals.get(key) ?? 0);
        totals.set(key, (totals.get(key) ?? 0) + 1);
        keyOf.set(n, key);
      }
      walk(n.children, n.role === 'iframe' ? (n.ariaRef ?? `f${++frameSeq}`) : frameKey);
    }
  };
  walk(tree, 'top');

  // One name per element for the document: Playwright's ref (kept on the DOM node while role and name stay),
  // else role+name+nth in its frame and -s scope.
  const identity = (node: AriaNode) =>
    node.ariaRef ? pwKey(node.ariaRef, node.role, node.name) : `rn\u0000${opts.selector ?? ''}\u0000${keyOf.get(node) ?? node.ariaRef}\u0000${nth.get(node)}`;
  const byKey = new Map<string, string>();
  for (const e of known.values()) if (e.ref[0] === 'e') byKey.set(e.key, e.ref);
  let next = nextRefNumber(known);
  const taken = new Set<string>();
  const refFor = (node: AriaNode) => {
    let ref = byKey.get(identity(node));
    if (!ref || taken.has(ref)) ref = `e${next++}`;
    taken.add(ref);
    return ref;
  };
  const { lines, refs: rendered } = renderSnapshot(tree, opts, refFor);

  const iframes = new Map<AriaNode, Promise<IframeScope>>();
  const iframeScope = (node: AriaNode, parent: Scope): Promise<IframeScope> => {
    let p = iframes.get(node);
    if (!p) {
      p = (async () => {
        const handle = await frame.locator(`aria-ref=${node.ariaRef}`).elementHandle({ timeout: 2000 });
        const group = parent.locator('iframe');
        const [k, total] = await group.evaluateAll((els, target) => [els.indexOf(target as unknown as HTMLElement), els.length], handle);
        await handle.dispose();
        const element = group.nth(k);
        return { element, group, total, inner: element.contentFrame() };
      })();
      iframes.set(node, p);
    }
    return p;
  };
  /** The frame a node lives in (iframe refs are indexes among the frame's iframes, not the -s scope's). */
  const scopeOf = async (chain: AriaNode[]): Promise<Scope> => {
    let s: Scope = frame;
    for (const f of chain) s = (await iframeScope(f, s)).inner;
    return s;
  };

  const refs: RefMap = known;
  for (const k of [...refs.keys()]) if (k[0] === 'c') refs.delete(k); // @c refs belong to the last -C scan only
  const marks: Mark[] = [];
  await Promise.all(
    rendered.map(async ({ ref, node, frames }) => {
      const label = labelOf(node.role, node.name);
      const total = totals.get(keyOf.get(node)!) ?? 1;
      const base = { ref, label, role: node.role, name: node.name, key: identity(node), total };
      let entry: RefEntry;
      const s = frames.length ? await scopeOf(frames) : node.ariaRef ? frame : scope;
      if (node.role === 'iframe') {
        const info = await iframeScope(node, s);
        entry = { ...base, pwRef: node.ariaRef, pw: pwLocator(main, node.ariaRef!), locator: info.element, group: info.group, total: info.total };
      } else {
        const group = s.getByRole(node.role as Parameters<Frame['getByRole']>[0], { name: node.name, exact: true });
        const locator = total > 1 ? group.nth(nth.get(node)!) : group;
        entry = node.ariaRef ? { ...base, pwRef: node.ariaRef, pw: pwLocator(main, node.ariaRef), locator, group } : { ...base, locator, group };
      }
      refs.set(ref, entry);
      if (node.box) {
        const offset = frames.reduce<[number, number]>((o, f) => (f.box ? [o[0] + f.box[0], o[1] + f.box[1]] : o), [0, 0]);
        marks.push({ ref, box: [node.box[0] + offset[0], node.box[1] + offset[1], node.box[2], node.box[3]] });
      }
    }),
  );

  if (opts.cursor) {
    const found = await scanCursorInteractive(frame, opts.selector);
    if (found.length) {
      lines.push('', 'Cursor-interactive, not in the accessibility tree:');
      found.forEach((c, i) => {
        const ref = `c${i + 1}`;
        const loc = frame.locator(c.selector);
        refs.set(ref, { ref, label: `${c.tag} ${JSON.stringify(c.text)}`, role: c.tag, name: c.text, key: `c\u0000${c.selector}`, locator: loc, group: loc, total: 1 });
        lines.push(`@${ref} [${c.tag}] ${JSON.stringify(c.text)} (${c.reasons.join(', ')}) → ${c.selector}`);
        marks.push({ ref, box: c.box });
      });
    }
  }
  return { lines, refs, marks };
}

/**
 * The aria tree shows what is typed into a textbox, password fields included. A textbox whose value is the
 * value of a password input in this frame or one below it prints its length instead (a look-alike value in
 * another field is masked too: the safe side).
 */
async function maskPasswords(frame: Frame, tree: AriaNode[]): Promise<void> {
  const typed: AriaNode[] = [];
  const walk = (nodes: AriaNode[]) => nodes.forEach((n) => (n.role === 'textbox' && n.text ? typed.push(n) : walk(n.children)));
  walk(tree);
  if (!typed.length) return;
  const frames = [frame, ...frame.childFrames().flatMap(function all(f: Frame): Frame[] { return [f, ...f.childFrames().flatMap(all)]; })];
  const values = await Promise.all(
    frames.map((f) =>
      f.evaluate(() => [...document.querySelectorAll('input[type=password]')].map((i) => (i as HTMLInputElement).value).filter(Boolean)).catch(() => [] as string[]),
    ),
  );
  const secrets = new Set(values.flat());
  for (const n of typed) if (secrets.has(n.text!)) n.text = `[REDACTED — ${n.text!.length} chars]`;
}

interface CursorHit {
  selector: string;
  tag: string;
  text: string;
  reasons: string[];
  box: [number, number, number, number];
}

const MAX_CURSOR_HITS = 100;

/** Elements that act clickable (cursor:pointer, onclick, tabindex ≥ 0) but are not real controls. */
function scanCursorInteractive(frame: Frame, scopeSelector?: string): Promise<CursorHit[]> {
  return frame.evaluate(
    ({ max, scopeSelector }) => {
      const CONTROLS =
        'a[href],button,input,select,textarea,summary,label,[contenteditable=""],[contenteditable="true"],[role=button],[role=link],[role=checkbox],[role=radio],[role=tab],[role=menuitem],[role=option],[role=switch],[role=textbox],[role=combobox],[role=slider]';
      const cssPath = (el: Element): string => {
        if (el.id && document.querySelectorAll(`#${CSS.escape(el.id)}`).length === 1) return `#${CSS.escape(el.id)}`;
        const parts: string[] = [];
        let cur: Element | null = el;
        while (cur && cur !== document.documentElement) {
          if (cur.id && document.querySelectorAll(`#${CSS.escape(cur.id)}`).length === 1) {
            parts.unshift(`#${CSS.escape(cur.id)}`);
            break;
          }
          const tag = cur.tagName.toLowerCase();
          const same = cur.parentElement ? Array.from(cur.parentElement.children).filter((c) => c.tagName === cur!.tagName) : [cur];
          parts.unshift(same.length > 1 ? `${tag}:nth-of-type(${same.indexOf(cur) + 1})` : tag);
          cur = cur.parentElement;
        }
        return parts.join(' > ');
      };
      const scope = scopeSelector ? document.querySelector(scopeSelector) : document.body;
      if (!scope) return [];
      const hits: CursorHit[] = [];
      for (const el of Array.from(scope.querySelectorAll('*'))) {
        if (hits.length >= max) break;
        if (el.closest(CONTROLS)) continue;
        const style = getComputedStyle(el);
        const reasons: string[] = [];
        const parentCursor = el.parentElement ? getComputedStyle(el.parentElement).cursor : '';
        if (style.cursor === 'pointer' && parentCursor !== 'pointer') reasons.push('cursor:pointer');
        if (el.hasAttribute('onclick')) reasons.push('onclick');
        const tabindex = el.getAttribute('tabindex');
        if (tabindex !== null && Number(tabindex) >= 0) reasons.push(`tabindex=${tabindex}`);
        if (!reasons.length) continue;
        const r = el.getBoundingClientRect();
        if (r.width === 0 || r.height === 0 || style.visibility === 'hidden') continue;
        const text = ((el as HTMLElement).innerText || el.getAttribute('aria-label') || '').replace(/\s+/g, ' ').trim();
        hits.push({ selector: cssPath(el), tag: el.tagName.toLowerCase(), text: text.length > 80 ? `${text.slice(0, 79)}…` : text, reasons, box: [r.x, r.y, r.width, r.height] });
      }
      return hits;
    },
    { max: MAX_CURSOR_HITS, scopeSelector },
  );
}
