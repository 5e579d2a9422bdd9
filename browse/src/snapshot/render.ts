// Turns the parsed tree into the lines an agent reads, deciding which nodes get @e refs. Pure.
import type { AriaNode } from './parse';

export interface RenderOptions {
  interactive?: boolean;
  compact?: boolean;
  depth?: number;
}

export interface RenderedRef {
  ref: string; // e1, e2, … (printed as @e1)
  node: AriaNode;
  /** Index path of iframe ancestors' refs, innermost last: which frame the node lives in. */
  frames: AriaNode[];
}

export const INTERACTIVE_ROLES = new Set([
  'button', 'link', 'textbox', 'searchbox', 'checkbox', 'radio', 'combobox', 'listbox', 'menuitem',
  'menuitemcheckbox', 'menuitemradio', 'tab', 'switch', 'slider', 'spinbutton', 'treeitem', 'option',
]);

const MAX_NAME = 100;
const clip = (s: string) => (s.length > MAX_NAME ? `${s.slice(0, MAX_NAME - 1)}…` : s);
const oneLine = (s: string) => s.replace(/\s+/g, ' ').trim();

function isInteractive(node: AriaNode, parent: AriaNode | undefined): boolean {
  if (!INTERACTIVE_ROLES.has(node.role)) return false;
  // <select> options are chosen with `select`, not clicked: list them only for custom listboxes.
  return node.role !== 'option' || parent?.role === 'listbox';
}

/** Unnamed wrappers say nothing: `generic` always goes, other unnamed structure goes with -c. */
function isDroppable(node: AriaNode, compact: boolean): boolean {
  if (node.name || node.text !== undefined || node.role === 'iframe' || INTERACTIVE_ROLES.has(node.role)) return false;
  return node.role === 'generic' || node.role === 'none' || node.role === 'presentation' || compact;
}

function describe(node: AriaNode, interactive: boolean): string {
  let line = `[${node.role}]`;
  if (node.name) line += ` ${JSON.stringify(clip(oneLine(node.name)))}`;
  for (const s of node.states) line += ` [${s}]`;
  if (node.text !== undefined && node.text !== '' && !interactive) line += `: ${clip(oneLine(node.text))}`;
  if (!interactive && node.props.url) line += ` → ${clip(node.props.url)}`;
  return line;
}

/**
 * `refFor` names each printed node (capture keeps one name per element for the whole document); without it
 * refs are numbered e1, e2, … in print order.
 */
export function renderSnapshot(roots: AriaNode[], opts: RenderOptions = {}, refFor?: (node: AriaNode) => string): { lines: string[]; refs: RenderedRef[] } {
  const lines: string[] = [];
  const refs: RenderedRef[] = [];
  const maxDepth = opts.depth ?? Infinity;

  const visit = (node: AriaNode, parent: AriaNode | undefined, depth: number, frames: AriaNode[]) => {
    const inner = node.role === 'iframe' ? [...frames, node] : frames;
    if (node.role === 'text') {
      if (!opts.interactive && depth <= maxDepth && node.text) lines.push(`${'  '.repeat(depth)}${JSON.stringify(clip(oneLine(node.text)))}`);
      return;
    }
    const shown = opts.interactive ? isInteractive(node, parent) || (node.role === 'iframe' && hasInteractive(node)) : !isDroppable(node, Boolean(opts.compact));
    let childDepth = depth;
    if (shown) {
      if (depth > maxDepth) return;
      const ref = refFor ? refFor(node) : `e${refs.length + 1}`;
      refs.push({ ref, node, frames });
      lines.push(`${'  '.repeat(depth)}@${ref} ${describe(node, Boolean(opts.interactive))}`);
      childDepth = depth + 1;
    }
    // -i lists interactive elements flat, but keeps iframe contents under their iframe.
    const nextDepth = opts.interactive && node.role !== 'iframe' ? depth : childDepth;
    for (const c of node.children) visit(c, node, nextDepth, inner);
  };
  for (const r of roots) visit(r, undefined, 0, []);
  return { lines, refs };
}

function hasInteractive(node: AriaNode): boolean {
  return node.children.some((c) => INTERACTIVE_ROLES.has(c.role) || hasInteractive(c));
}
