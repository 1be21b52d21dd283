/**
 * Summarizes a V8 .heapsnapshot (as written by `yarn bench --heap-snapshot`, or Chrome DevTools) without DevTools:
 * `node packages/bench/src/heapSummary.ts <file> [--top 30] [--min-mib 2] [--depth 14]`. Prints
 * - self size per node type (objects, strings, arrays, code, ...);
 * - per constructor: count, self size and retained size (an instance nested inside another of the same constructor
 *   is not counted twice);
 * - the ownership tree: the dominator tree from the root, every owner that retains at least --min-mib, with the edge
 *   that holds it (what would be freed if that owner went);
 * - duplicated strings: the same text stored more than once, and the bytes the copies cost;
 * - with --owners A,B,...: what the instances of each constructor reach through data (objects, arrays, strings; not
 *   through functions, contexts, hidden classes or another listed owner's instances), and how much of it no other
 *   listed owner reaches: objects held by
 *   two structures (a cache and an index) have neither as dominator, so the ownership tree cannot show them.
 * Retained sizes come from the dominator tree (Cooper, Harvey and Kennedy's iterative algorithm on the graph without
 * weak edges), as DevTools computes them; the file is read in one buffer and parsed by hand (a large snapshot is
 * beyond JSON.parse's string limit).
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

const { values: opts, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    top: { type: 'string', default: '30' },
    'min-mib': { type: 'string', default: '2' },
    depth: { type: 'string', default: '14' },
    owners: { type: 'string' },
  },
});
if (positionals.length !== 1) {
  process.stderr.write(
    'usage: node packages/bench/src/heapSummary.ts <file.heapsnapshot> [--top 30] [--min-mib 2] [--depth 14] [--owners A,B]\n',
  );
  process.exit(2);
}
const TOP = Number(opts.top);
const MIN = Number(opts['min-mib']) * 1048576;
const DEPTH = Number(opts.depth);

const buf = readFileSync(positionals[0]);
let pos = 0;

function indexOf(s: string, from = pos): number {
  const i = buf.indexOf(s, from, 'latin1');
  if (i < 0) throw new Error(`${s} not found in the snapshot`);
  return i;
}

const nodesAt = indexOf('"nodes":[');
const header = JSON.parse(
  `${buf.toString('utf8', 0, nodesAt).trim().replace(/,$/, '')}}`,
).snapshot as {
  meta: {
    node_fields: string[];
    node_types: [string[]];
    edge_fields: string[];
    edge_types: [string[]];
  };
  node_count: number;
  edge_count: number;
};

function readInts(key: string, count: number): Uint32Array {
  pos = indexOf(`"${key}":[`) + key.length + 4;
  const out = new Uint32Array(count);
  let n = 0;
  let v = 0;
  let inNumber = false;
  for (;;) {
    const c = buf[pos++];
    if (c >= 48 && c <= 57) {
      v = v * 10 + (c - 48);
      inNumber = true;
    } else {
      if (inNumber) {
        out[n++] = v;
        v = 0;
        inNumber = false;
      }
      if (c === 93) break; // ]
    }
  }
  if (n !== count) throw new Error(`${key}: ${n} numbers, ${count} expected`);
  return out;
}

const { meta } = header;
const NF = meta.node_fields.length;
const EF = meta.edge_fields.length;
const nodes = readInts('nodes', header.node_count * NF);
const edges = readInts('edges', header.edge_count * EF);

// Strings: JSON strings one after another; decoded by JSON.parse only when they hold an escape.
const strings: string[] = [];
pos = indexOf('"strings":[') + 11;
for (;;) {
  while (buf[pos] !== 34 && buf[pos] !== 93) pos++;
  if (buf[pos] === 93) break;
  const start = pos++;
  let escaped = false;
  while (buf[pos] !== 34) {
    if (buf[pos] === 92) {
      escaped = true;
      pos++;
    }
    pos++;
  }
  pos++;
  strings.push(
    escaped
      ? JSON.parse(buf.toString('utf8', start, pos))
      : buf.toString('utf8', start + 1, pos - 1),
  );
}

const N = header.node_count;
const nType = meta.node_fields.indexOf('type');
const nName = meta.node_fields.indexOf('name');
const nSelf = meta.node_fields.indexOf('self_size');
const nEdges = meta.node_fields.indexOf('edge_count');
const eType = meta.edge_fields.indexOf('type');
const eName = meta.edge_fields.indexOf('name_or_index');
const eTo = meta.edge_fields.indexOf('to_node');
const nodeTypes = meta.node_types[0];
const edgeTypes = meta.edge_types[0];
const WEAK = edgeTypes.indexOf('weak');
const SHORTCUT = edgeTypes.indexOf('shortcut');
const T = (name: string) => nodeTypes.indexOf(name);
const [T_HIDDEN, T_OBJECT, T_STRING, T_CONCAT, T_SLICED, T_NATIVE] = [
  T('hidden'),
  T('object'),
  T('string'),
  T('concatenated string'),
  T('sliced string'),
  T('native'),
];

const firstEdge = new Uint32Array(N + 1);
for (let i = 0, e = 0; i < N; i++) {
  firstEdge[i] = e;
  e += nodes[i * NF + nEdges];
  firstEdge[i + 1] = e;
}
const selfSize = (i: number) => nodes[i * NF + nSelf];
const typeOf = (i: number) => nodes[i * NF + nType];
const nameOf = (i: number) => strings[nodes[i * NF + nName]];
const essential = (e: number) => {
  const t = edges[e * EF + eType];
  return t !== WEAK && t !== SHORTCUT;
};
const target = (e: number) => edges[e * EF + eTo] / NF;
const edgeLabel = (e: number) => {
  const t = edgeTypes[edges[e * EF + eType]];
  const n = edges[e * EF + eName];
  return t === 'element' || t === 'hidden' ? `[${n}]` : String(strings[n]);
};

// Postorder from the root (node 0) over essential edges, iteratively.
const postIndex = new Uint32Array(N).fill(0xffffffff);
const postOrder = new Uint32Array(N);
let reached = 0;
{
  const stackNode = new Uint32Array(N);
  const stackEdge = new Uint32Array(N);
  const visited = new Uint8Array(N);
  let sp = 0;
  stackNode[0] = 0;
  stackEdge[0] = firstEdge[0];
  visited[0] = 1;
  while (sp >= 0) {
    const n = stackNode[sp];
    if (stackEdge[sp] < firstEdge[n + 1]) {
      const e = stackEdge[sp]++;
      if (!essential(e)) continue;
      const t = target(e);
      if (visited[t]) continue;
      visited[t] = 1;
      sp++;
      stackNode[sp] = t;
      stackEdge[sp] = firstEdge[t];
    } else {
      postIndex[n] = reached;
      postOrder[reached++] = n;
      sp--;
    }
  }
}

// Retainers (reverse essential edges) of reachable nodes.
const retainerCount = new Uint32Array(N + 1);
for (let n = 0; n < N; n++) {
  if (postIndex[n] === 0xffffffff) continue;
  for (let e = firstEdge[n]; e < firstEdge[n + 1]; e++)
    if (essential(e)) retainerCount[target(e)]++;
}
const firstRetainer = new Uint32Array(N + 1);
for (let n = 0; n < N; n++)
  firstRetainer[n + 1] = firstRetainer[n] + retainerCount[n];
const retainers = new Uint32Array(firstRetainer[N]);
{
  const fill = firstRetainer.slice(0, N);
  for (let n = 0; n < N; n++) {
    if (postIndex[n] === 0xffffffff) continue;
    for (let e = firstEdge[n]; e < firstEdge[n + 1]; e++)
      if (essential(e)) retainers[fill[target(e)]++] = n;
  }
}

// Immediate dominators, by postorder index (Cooper, Harvey, Kennedy: "A Simple, Fast Dominance Algorithm").
const UNDEF = 0xffffffff;
const rootPost = reached - 1;
const domPost = new Uint32Array(reached).fill(UNDEF);
domPost[rootPost] = rootPost;
for (let changed = true; changed; ) {
  changed = false;
  for (let p = rootPost - 1; p >= 0; p--) {
    const n = postOrder[p];
    let idom = UNDEF;
    for (let r = firstRetainer[n]; r < firstRetainer[n + 1]; r++) {
      let q = postIndex[retainers[r]];
      if (q === UNDEF || domPost[q] === UNDEF) continue;
      if (idom === UNDEF) {
        idom = q;
        continue;
      }
      let a = q;
      let b = idom;
      while (a !== b) {
        while (a < b) a = domPost[a];
        while (b < a) b = domPost[b];
      }
      idom = a;
    }
    if (idom !== UNDEF && domPost[p] !== idom) {
      domPost[p] = idom;
      changed = true;
    }
  }
}

// Retained sizes: children before their dominators in postorder.
const retained = new Float64Array(N);
for (let p = 0; p < reached; p++)
  retained[postOrder[p]] += selfSize(postOrder[p]);
for (let p = 0; p < rootPost; p++) {
  const n = postOrder[p];
  if (domPost[p] !== UNDEF) retained[postOrder[domPost[p]]] += retained[n];
}

const MiB = (b: number) => `${(b / 1048576).toFixed(1)} MiB`;
const out: string[] = [];
let total = 0;
for (let n = 0; n < N; n++) total += selfSize(n);
out.push(
  `# ${positionals[0]}`,
  '',
  `${N.toLocaleString('en')} nodes, ${header.edge_count.toLocaleString(
    'en',
  )} edges, ${MiB(total)} in all (${MiB(
    retained[0],
  )} reachable from the root; ${N - reached} nodes unreachable)`,
  '',
  '## Self size per node type',
  '',
);
{
  const byType = new Map<string, { count: number; size: number }>();
  for (let n = 0; n < N; n++) {
    const t = nodeTypes[typeOf(n)];
    const g = byType.get(t) ?? { count: 0, size: 0 };
    g.count++;
    g.size += selfSize(n);
    byType.set(t, g);
  }
  for (const [t, g] of [...byType].sort((a, b) => b[1].size - a[1].size))
    out.push(`- ${t}: ${MiB(g.size)} (${g.count.toLocaleString('en')})`);
}

// Per constructor (objects by constructor name, the others by node type and name for natives/hidden/closures).
const groupName = (n: number) => {
  const t = typeOf(n);
  if (t === T_OBJECT || t === T_NATIVE) return nameOf(n);
  if (t === T_STRING || t === T_CONCAT || t === T_SLICED) return '(string)';
  if (t === T_HIDDEN) return `(hidden) ${nameOf(n)}`.slice(0, 60);
  return `(${nodeTypes[t]})`;
};
const groups = new Map<string, number>();
const groupOf = new Uint32Array(N);
const groupNames: string[] = [];
for (let n = 0; n < N; n++) {
  const g = groupName(n);
  let id = groups.get(g);
  if (id === undefined) {
    id = groupNames.length;
    groups.set(g, id);
    groupNames.push(g);
  }
  groupOf[n] = id;
}
const gCount = new Float64Array(groupNames.length);
const gSelf = new Float64Array(groupNames.length);
const gRetained = new Float64Array(groupNames.length);
for (let n = 0; n < N; n++) {
  gCount[groupOf[n]]++;
  gSelf[groupOf[n]] += selfSize(n);
}
// Outermost instances only: walk the dominator tree depth first with a count of open instances per group.
const children = new Uint32Array(reached);
const firstChild = new Uint32Array(N + 1);
{
  const count = new Uint32Array(N + 1);
  for (let p = 0; p < rootPost; p++)
    if (domPost[p] !== UNDEF) count[postOrder[domPost[p]]]++;
  for (let n = 0; n < N; n++) firstChild[n + 1] = firstChild[n] + count[n];
  const fill = firstChild.slice(0, N);
  for (let p = 0; p < rootPost; p++)
    if (domPost[p] !== UNDEF)
      children[fill[postOrder[domPost[p]]]++] = postOrder[p];
  const open = new Uint32Array(groupNames.length);
  const stack: Array<[number, number]> = [[0, firstChild[0]]];
  open[groupOf[0]]++;
  gRetained[groupOf[0]] += retained[0];
  while (stack.length) {
    const top = stack[stack.length - 1];
    const [n, next] = top;
    if (next < firstChild[n + 1]) {
      top[1]++;
      const c = children[next];
      if (open[groupOf[c]] === 0) gRetained[groupOf[c]] += retained[c];
      open[groupOf[c]]++;
      stack.push([c, firstChild[c]]);
    } else {
      open[groupOf[n]]--;
      stack.pop();
    }
  }
}
const order = [...groupNames.keys()];
out.push(
  '',
  `## Top ${TOP} by retained size (outermost instances), with count and self size`,
  '',
  '| constructor | count | self | retained |',
  '|---|---|---|---|',
);
for (const g of order.sort((a, b) => gRetained[b] - gRetained[a]).slice(0, TOP))
  out.push(
    `| ${groupNames[g].replace(/\|/g, '\\|')} | ${gCount[g].toLocaleString(
      'en',
    )} | ${MiB(gSelf[g])} | ${MiB(gRetained[g])} |`,
  );
out.push(
  '',
  `## Top ${TOP} by self size`,
  '',
  '| constructor | count | self |',
  '|---|---|---|',
);
for (const g of order.sort((a, b) => gSelf[b] - gSelf[a]).slice(0, TOP))
  out.push(
    `| ${groupNames[g].replace(/\|/g, '\\|')} | ${gCount[g].toLocaleString(
      'en',
    )} | ${MiB(gSelf[g])} |`,
  );

// The ownership tree.
const label = (n: number) => {
  const t = nodeTypes[typeOf(n)];
  const name = nameOf(n) ?? '';
  const shown = t === 'object' || t === 'native' ? name : `(${t}) ${name}`;
  return shown.replace(/\s+/g, ' ').slice(0, 70);
};
const via = (d: number, n: number) => {
  for (let e = firstEdge[d]; e < firstEdge[d + 1]; e++)
    if (target(e) === n) return `.${edgeLabel(e)}`.slice(0, 50);
  for (let r = firstRetainer[n]; r < firstRetainer[n + 1]; r++) {
    const p = retainers[r];
    for (let e = firstEdge[p]; e < firstEdge[p + 1]; e++)
      if (target(e) === n)
        return `~ ${label(p).slice(0, 30)}.${edgeLabel(e)}`.slice(0, 60);
  }
  return '';
};
out.push(
  '',
  `## Ownership tree (dominators retaining ≥ ${MiB(MIN)}, depth ≤ ${DEPTH})`,
  '',
);
const walk = (n: number, depth: number) => {
  const kids = [...children.subarray(firstChild[n], firstChild[n + 1])]
    .filter(c => retained[c] >= MIN)
    .sort((a, b) => retained[b] - retained[a]);
  for (const c of kids) {
    const rest = children.subarray(firstChild[c], firstChild[c + 1]);
    out.push(
      `${'  '.repeat(depth)}- ${MiB(retained[c])} ${label(c)} ${via(n, c)}${
        rest.length > 20 ? ` (${rest.length.toLocaleString('en')} owned)` : ''
      }`,
    );
    if (depth < DEPTH) walk(c, depth + 1);
  }
};
walk(0, 0);

// Duplicated strings.
{
  const byText = new Map<
    string,
    { count: number; size: number; max: number }
  >();
  let stringBytes = 0;
  let stringCount = 0;
  for (let n = 0; n < N; n++) {
    if (typeOf(n) !== T_STRING) continue;
    stringBytes += selfSize(n);
    stringCount++;
    const text = nameOf(n);
    const g = byText.get(text) ?? { count: 0, size: 0, max: 0 };
    g.count++;
    g.size += selfSize(n);
    g.max = Math.max(g.max, selfSize(n));
    byText.set(text, g);
  }
  let waste = 0;
  for (const g of byText.values()) waste += g.size - g.max;
  out.push(
    '',
    '## Strings',
    '',
    `${stringCount.toLocaleString('en')} flat strings, ${MiB(
      stringBytes,
    )}; ${byText.size.toLocaleString(
      'en',
    )} distinct texts; copies of a text stored more than once cost ${MiB(
      waste,
    )}. Most costly duplicates:`,
    '',
  );
  for (const [text, g] of [...byText]
    .sort((a, b) => b[1].size - b[1].max - (a[1].size - a[1].max))
    .slice(0, TOP))
    out.push(
      `- ${MiB(g.size - g.max)}: ${g.count.toLocaleString(
        'en',
      )} × ${JSON.stringify(text.slice(0, 80))}`,
    );
}
// Data reached per owner constructor.
if (opts.owners) {
  const owners = opts.owners.split(',').filter(Boolean).slice(0, 16);
  const ownerSet = new Set(owners);
  const mark = new Uint16Array(N);
  const DATA = new Set(
    [
      'object',
      'array',
      'string',
      'concatenated string',
      'sliced string',
      'number',
      'hidden',
    ].map(t => nodeTypes.indexOf(t)),
  );
  const SKIP_NAMES = /^system \/ (Context|NativeContext)$/;
  const SKIP_EDGES = new Set(['__proto__', 'map', 'constructor', 'prototype']);
  owners.forEach((owner, bit) => {
    const stack: number[] = [];
    for (let n = 0; n < N; n++)
      if (typeOf(n) === T_OBJECT && nameOf(n) === owner) {
        mark[n] |= 1 << bit;
        stack.push(n);
      }
    while (stack.length) {
      const n = stack.pop()!;
      for (let e = firstEdge[n]; e < firstEdge[n + 1]; e++) {
        if (!essential(e)) continue;
        const t = target(e);
        if (mark[t] & (1 << bit) || !DATA.has(typeOf(t))) continue;
        const et = edgeTypes[edges[e * EF + eType]];
        if (et !== 'element' && et !== 'hidden' && SKIP_EDGES.has(edgeLabel(e)))
          continue;
        if (SKIP_NAMES.test(nameOf(t))) continue;
        if (typeOf(t) === T_OBJECT && ownerSet.has(nameOf(t))) continue; // another owner's own
        mark[t] |= 1 << bit;
        stack.push(t);
      }
    }
  });
  out.push(
    '',
    `## Data reached per owner (${owners.join(', ')})`,
    '',
    '| owner | instances | reached | heap objects reached | reached by no other listed owner | its heap objects |',
    '|---|---|---|---|---|---|',
  );
  owners.forEach((owner, bit) => {
    let reachedBytes = 0;
    let exclusive = 0;
    let instances = 0;
    let reachedNodes = 0;
    let exclusiveNodes = 0;
    for (let n = 0; n < N; n++) {
      if (!(mark[n] & (1 << bit))) continue;
      reachedBytes += selfSize(n);
      reachedNodes++;
      if (mark[n] === 1 << bit) {
        exclusive += selfSize(n);
        exclusiveNodes++;
      }
      if (typeOf(n) === T_OBJECT && nameOf(n) === owner) instances++;
    }
    out.push(
      `| ${owner} | ${instances} | ${MiB(
        reachedBytes,
      )} | ${reachedNodes.toLocaleString('en')} | ${MiB(
        exclusive,
      )} | ${exclusiveNodes.toLocaleString('en')} |`,
    );
  });
  let any = 0;
  let anyNodes = 0;
  for (let n = 0; n < N; n++)
    if (mark[n]) {
      any += selfSize(n);
      anyNodes++;
    }
  out.push(
    '',
    `Reached by any of them: ${MiB(any)}, ${anyNodes.toLocaleString(
      'en',
    )} heap objects (of ${N.toLocaleString(
      'en',
    )} in the snapshot: what a major collection marks).`,
  );
}
process.stdout.write(`${out.join('\n')}\n`);
