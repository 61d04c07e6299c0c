// A unified diff of two texts, line by line (diff -u's format with 3 lines of context), for showing a person
// what an edit will change.
type Op = { op: " " | "-" | "+"; text: string };

function splitLines(text: string): string[] {
  if (text === "") return [];
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  return lines;
}

/** Line operations turning `a` into `b`: common ends trimmed, then a longest common subsequence. */
function diffLines(a: string[], b: string[]): Op[] {
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (
    tail < a.length - head &&
    tail < b.length - head &&
    a[a.length - 1 - tail] === b[b.length - 1 - tail]
  )
    tail++;
  const am = a.slice(head, a.length - tail);
  const bm = b.slice(head, b.length - tail);
  const middle: Op[] = [];
  const n = am.length;
  const m = bm.length;
  if (n * m > 4_000_000) {
    // Too large to align line by line: shown as one replaced block.
    for (const text of am) middle.push({ op: "-", text });
    for (const text of bm) middle.push({ op: "+", text });
  } else {
    const lcs = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
    for (let i = n - 1; i >= 0; i--) {
      for (let j = m - 1; j >= 0; j--) {
        lcs[i][j] = am[i] === bm[j] ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
      }
    }
    let i = 0;
    let j = 0;
    while (i < n || j < m) {
      if (i < n && j < m && am[i] === bm[j]) {
        middle.push({ op: " ", text: am[i] });
        i++;
        j++;
      } else if (i < n && (j === m || lcs[i + 1][j] >= lcs[i][j + 1])) {
        // Removals before additions, as diff(1) shows a replaced line.
        middle.push({ op: "-", text: am[i++] });
      } else {
        middle.push({ op: "+", text: bm[j++] });
      }
    }
  }
  return [
    ...a.slice(0, head).map((text): Op => ({ op: " ", text })),
    ...middle,
    ...a.slice(a.length - tail).map((text): Op => ({ op: " ", text })),
  ];
}

/** A unified diff (3 lines of context) of two LF texts; `""` when their lines are the same. */
export function unifiedDiff(a: string, b: string, name: string, context = 3): string {
  if (a === b) return "";
  const ops = diffLines(splitLines(a), splitLines(b));
  const changed = ops.map((o, k) => (o.op === " " ? -1 : k)).filter((k) => k >= 0);
  if (changed.length === 0) return "";
  // Group changes whose context would touch into one hunk.
  const groups: [number, number][] = [];
  for (const k of changed) {
    const last = groups[groups.length - 1];
    if (last && k - last[1] <= 2 * context + 1) last[1] = k;
    else groups.push([k, k]);
  }
  const out = [`--- a/${name}`, `+++ b/${name}`];
  // Line numbers (1-based) in a and b before each op.
  const aAt: number[] = [];
  const bAt: number[] = [];
  let ai = 1;
  let bi = 1;
  for (const o of ops) {
    aAt.push(ai);
    bAt.push(bi);
    if (o.op !== "+") ai++;
    if (o.op !== "-") bi++;
  }
  for (const [first, last] of groups) {
    const from = Math.max(0, first - context);
    const to = Math.min(ops.length - 1, last + context);
    const slice = ops.slice(from, to + 1);
    const aCount = slice.filter((o) => o.op !== "+").length;
    const bCount = slice.filter((o) => o.op !== "-").length;
    const aStart = aCount === 0 ? aAt[from] - 1 : aAt[from];
    const bStart = bCount === 0 ? bAt[from] - 1 : bAt[from];
    out.push(`@@ -${range(aStart, aCount)} +${range(bStart, bCount)} @@`);
    for (const o of slice) out.push(`${o.op}${o.text}`);
  }
  return `${out.join("\n")}\n`;
}

const range = (start: number, count: number) => (count === 1 ? `${start}` : `${start},${count}`);
