// Parses Playwright's aria snapshot text (mode "ai") into a tree. Pure: no browser, unit-tested.

export interface AriaNode {
  role: string; // ARIA role, or 'text' for a bare text run
  name: string;
  /** Text written after the colon: `- paragraph: Hello`, `- text: Hello`. */
  text?: string;
  /** [checked], [level=2], … as written, without ref/cursor/active. */
  states: string[];
  /** Playwright's own per-snapshot ref (e5, f1e2), used only while capturing. */
  ariaRef?: string;
  cursorPointer: boolean;
  /** Viewport box [x, y, width, height] when captured with boxes. */
  box?: [number, number, number, number];
  /** /url and similar property lines. */
  props: Record<string, string>;
  children: AriaNode[];
}

const unquote = (s: string): string => {
  const t = s.trim();
  if (t.startsWith('"')) {
    try {
      return JSON.parse(t) as string;
    } catch {
      return t.slice(1, -1);
    }
  }
  return t;
};

const LINE = /^(\s*)- (.*)$/;
const HEAD = /^([a-z][\w-]*)(?: "((?:[^"\\]|\\.)*)")?((?: \[[^\]]*\])*)(:?)(?: (.*))?$/;

export function parseAriaSnapshot(text: string): AriaNode[] {
  const root: AriaNode = { role: 'root', name: '', states: [], cursorPointer: false, props: {}, children: [] };
  const stack: { indent: number; node: AriaNode }[] = [{ indent: -1, node: root }];
  for (const raw of text.split('\n')) {
    const m = raw.match(LINE);
    if (!m) continue;
    const indent = m[1].length;
    const body = m[2];
    while (stack.length > 1 && stack[stack.length - 1].indent >= indent) stack.pop();
    const parent = stack[stack.length - 1].node;
    const prop = body.match(/^\/([\w-]+): ?(.*)$/);
    if (prop) {
      parent.props[prop[1]] = unquote(prop[2]);
      continue;
    }
    let node: AriaNode;
    const head = body.match(HEAD);
    if (body.startsWith('text: ') || !head) {
      node = { role: 'text', name: '', text: unquote(body.replace(/^text: /, '')), states: [], cursorPointer: false, props: {}, children: [] };
    } else {
      const states: string[] = [];
      let ariaRef: string | undefined;
      let cursorPointer = false;
      let box: AriaNode['box'];
      for (const a of head[3].matchAll(/\[([^\]]*)\]/g)) {
        const attr = a[1];
        if (attr.startsWith('ref=')) ariaRef = attr.slice(4);
        else if (attr.startsWith('box=')) box = attr.slice(4).split(',').map(Number) as AriaNode['box'];
        else if (attr === 'cursor=pointer') cursorPointer = true;
        else if (attr !== 'active') states.push(attr);
      }
      node = {
        role: head[1],
        name: head[2] === undefined ? '' : unquote(`"${head[2]}"`),
        text: head[5] !== undefined && head[5] !== '' ? unquote(head[5]) : undefined,
        states,
        ariaRef,
        cursorPointer,
        box,
        props: {},
        children: [],
      };
    }
    parent.children.push(node);
    stack.push({ indent, node });
  }
  return root.children;
}
