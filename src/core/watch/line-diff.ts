// A unified line diff of two texts, for `agent-teams changes --diff` (VS Code has its own
// diff editor). Common head and tail lines are trimmed first, so the usual local edit costs
// little; a middle too large to compare line by line is shown as removed and added whole.
const MAX_CELLS = 4_000_000;
const CONTEXT = 3;

type Op = { t: ' ' | '-' | '+'; line: string };

function middleOps(a: string[], b: string[]): Op[] {
  const n = a.length;
  const m = b.length;
  if (n * m > MAX_CELLS) return [...a.map((line) => ({ t: '-' as const, line })), ...b.map((line) => ({ t: '+' as const, line }))];
  // Longest common subsequence lengths from the end, then walk forward.
  const w = m + 1;
  const L = new Uint32Array((n + 1) * w);
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      L[i * w + j] = a[i] === b[j] ? L[(i + 1) * w + j + 1]! + 1 : Math.max(L[(i + 1) * w + j]!, L[i * w + j + 1]!);
    }
  }
  const ops: Op[] = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (a[i] === b[j]) {
      ops.push({ t: ' ', line: a[i]! });
      i++;
      j++;
    } else if (L[(i + 1) * w + j]! >= L[i * w + j + 1]!) ops.push({ t: '-', line: a[i++]! });
    else ops.push({ t: '+', line: b[j++]! });
  }
  while (i < n) ops.push({ t: '-', line: a[i++]! });
  while (j < m) ops.push({ t: '+', line: b[j++]! });
  return ops;
}

function splitLines(s: string): string[] {
  if (s === '') return [];
  const lines = s.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** `---`/`+++` headers and `@@` hunks; empty when the texts are equal. */
export function unifiedDiff(before: string, after: string, nameA: string, nameB: string): string {
  const a = splitLines(before);
  const b = splitLines(after);
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  if (head === a.length && head === b.length) return '';
  const ops: Op[] = [
    ...a.slice(0, head).map((line) => ({ t: ' ' as const, line })),
    ...middleOps(a.slice(head, a.length - tail), b.slice(head, b.length - tail)),
    ...a.slice(a.length - tail).map((line) => ({ t: ' ' as const, line })),
  ];
  const out = [`--- ${nameA}`, `+++ ${nameB}`];
  let k = 0;
  let ai = 0;
  let bi = 0;
  while (k < ops.length) {
    // Find the next change, then take context around every change within reach.
    while (k < ops.length && ops[k]!.t === ' ') {
      k++;
      ai++;
      bi++;
    }
    if (k >= ops.length) break;
    const start = Math.max(0, k - CONTEXT);
    let end = k;
    let lastChange = k;
    while (end < ops.length && (ops[end]!.t !== ' ' || end - lastChange <= CONTEXT * 2)) {
      if (ops[end]!.t !== ' ') lastChange = end;
      end++;
    }
    end = Math.min(ops.length, lastChange + CONTEXT + 1);
    const back = k - start;
    const aStart = ai - back;
    const bStart = bi - back;
    const hunk = ops.slice(start, end);
    const aLen = hunk.filter((o) => o.t !== '+').length;
    const bLen = hunk.filter((o) => o.t !== '-').length;
    out.push(`@@ -${aLen ? aStart + 1 : aStart},${aLen} +${bLen ? bStart + 1 : bStart},${bLen} @@`);
    for (const o of hunk) out.push(o.t + o.line);
    for (let x = k; x < end; x++) {
      if (ops[x]!.t !== '+') ai++;
      if (ops[x]!.t !== '-') bi++;
    }
    k = end;
  }
  return out.join('\n');
}
