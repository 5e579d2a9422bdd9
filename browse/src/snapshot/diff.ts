// Unified diff of two snapshots. Refs renumber when elements come and go, so lines are compared without
// their @eN and printed with the new refs. Pure.

const stripRef = (line: string) => line.replace(/@[ec]\d+ /, '');

/** Longest-common-subsequence edit script on the middle part (common prefix/suffix trimmed first). */
function editScript(a: string[], b: string[]): ('=' | '-' | '+')[] {
  let pre = 0;
  while (pre < a.length && pre < b.length && a[pre] === b[pre]) pre++;
  let suf = 0;
  while (suf < a.length - pre && suf < b.length - pre && a[a.length - 1 - suf] === b[b.length - 1 - suf]) suf++;
  const am = a.slice(pre, a.length - suf);
  const bm = b.slice(pre, b.length - suf);
  // Past this size an LCS table is too big: treat the middle as replaced.
  if (am.length * bm.length > 4_000_000) {
    return [...Array(pre).fill('='), ...Array(am.length).fill('-'), ...Array(bm.length).fill('+'), ...Array(suf).fill('=')];
  }
  const w = bm.length + 1;
  const lcs = new Uint32Array((am.length + 1) * w);
  for (let i = am.length - 1; i >= 0; i--) {
    for (let j = bm.length - 1; j >= 0; j--) {
      lcs[i * w + j] = am[i] === bm[j] ? lcs[(i + 1) * w + j + 1] + 1 : Math.max(lcs[(i + 1) * w + j], lcs[i * w + j + 1]);
    }
  }
  const ops: ('=' | '-' | '+')[] = Array(pre).fill('=');
  let i = 0;
  let j = 0;
  while (i < am.length || j < bm.length) {
    if (i < am.length && j < bm.length && am[i] === bm[j]) {
      ops.push('=');
      i++;
      j++;
    } else if (i < am.length && (j === bm.length || lcs[(i + 1) * w + j] >= lcs[i * w + j + 1])) {
      ops.push('-'); // removals before additions, as in a unified diff
      i++;
    } else {
      ops.push('+');
      j++;
    }
  }
  for (let k = 0; k < suf; k++) ops.push('=');
  return ops;
}

/** Changed lines with one line of context around each change, hunks separated by `@@`. */
export function diffSnapshots(before: string[], after: string[], context = 1): string[] {
  const ops = editScript(before.map(stripRef), after.map(stripRef));
  const rows: { op: '=' | '-' | '+'; text: string }[] = [];
  let i = 0;
  let j = 0;
  for (const op of ops) {
    if (op === '=') {
      rows.push({ op, text: after[j++] });
      i++;
    } else if (op === '-') rows.push({ op, text: before[i++] });
    else rows.push({ op, text: after[j++] });
  }
  const keep = rows.map(() => false);
  rows.forEach((r, k) => {
    if (r.op === '=') return;
    for (let c = Math.max(0, k - context); c <= Math.min(rows.length - 1, k + context); c++) keep[c] = true;
  });
  const out: string[] = [];
  let gap = false;
  rows.forEach((r, k) => {
    if (!keep[k]) {
      gap = true;
      return;
    }
    if (gap || out.length === 0) out.push('@@');
    gap = false;
    out.push(`${r.op === '=' ? ' ' : r.op} ${r.text}`);
  });
  return out;
}
