/** A unified diff of two texts (`diff -u` style, 3 lines of context), for a change shown before it is proposed. */

type Op = { t: ' ' | '-' | '+'; line: string };

const splitLines = (s: string) => {
  if (s === '') return [];
  const lines = s.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
};

/** The line edit script by longest common subsequence; manifests are small, and the common prefix and suffix are cut first. */
function editScript(a: string[], b: string[]): Op[] {
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  const x = a.slice(start, endA);
  const y = b.slice(start, endB);
  const middle: Op[] = [];
  if (x.length * y.length > 4_000_000) {
    // Too large to align: all removed, all added (still a correct diff).
    x.forEach(line => middle.push({ t: '-', line }));
    y.forEach(line => middle.push({ t: '+', line }));
  } else {
    const w = y.length + 1;
    const lcs = new Uint32Array((x.length + 1) * w);
    for (let i = x.length - 1; i >= 0; i--)
      for (let j = y.length - 1; j >= 0; j--)
        lcs[i * w + j] =
          x[i] === y[j]
            ? lcs[(i + 1) * w + j + 1] + 1
            : Math.max(lcs[(i + 1) * w + j], lcs[i * w + j + 1]);
    let i = 0;
    let j = 0;
    while (i < x.length || j < y.length) {
      if (i < x.length && j < y.length && x[i] === y[j]) {
        middle.push({ t: ' ', line: x[i] });
        i++;
        j++;
      } else if (
        j < y.length &&
        (i === x.length || lcs[i * w + j + 1] > lcs[(i + 1) * w + j])
      ) {
        middle.push({ t: '+', line: y[j++] });
      } else {
        middle.push({ t: '-', line: x[i++] });
      }
    }
  }
  return [
    ...a.slice(0, start).map(line => ({ t: ' ' as const, line })),
    ...middle,
    ...a.slice(endA).map(line => ({ t: ' ' as const, line })),
  ];
}

/**
 * `--- a/<path>` / `+++ b/<path>` and the hunks; `''` when the texts are equal. `before` undefined: a new file
 * (`/dev/null`); `after` undefined: a removed file.
 * @public
 */
export function unifiedDiff(
  path: string,
  before: string | undefined,
  after: string | undefined,
  context = 3,
): string {
  if (before === after) return '';
  const ops = editScript(splitLines(before ?? ''), splitLines(after ?? ''));
  const out = [
    `--- ${before === undefined ? '/dev/null' : `a/${path}`}`,
    `+++ ${after === undefined ? '/dev/null' : `b/${path}`}`,
  ];
  const changed = ops.map((o, k) => (o.t !== ' ' ? k : -1)).filter(k => k >= 0);
  let k = 0;
  while (k < changed.length) {
    // A hunk: changes whose context windows touch.
    let last = k;
    while (
      last + 1 < changed.length &&
      changed[last + 1] - changed[last] <= 2 * context
    )
      last++;
    const from = Math.max(0, changed[k] - context);
    const to = Math.min(ops.length, changed[last] + context + 1);
    let lineA = 1;
    let lineB = 1;
    for (let n = 0; n < from; n++) {
      if (ops[n].t !== '+') lineA++;
      if (ops[n].t !== '-') lineB++;
    }
    const slice = ops.slice(from, to);
    const countA = slice.filter(o => o.t !== '+').length;
    const countB = slice.filter(o => o.t !== '-').length;
    out.push(
      `@@ -${countA ? lineA : lineA - 1},${countA} +${
        countB ? lineB : lineB - 1
      },${countB} @@`,
      ...slice.map(o => `${o.t}${o.line}`),
    );
    k = last + 1;
  }
  return `${out.join('\n')}\n`;
}
