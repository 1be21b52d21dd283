/**
 * Grouping, like `clusterctl describe` (docs/capz-aso-facts.md#clusterctl-conditions): siblings of the same kind in the
 * same state are merged into one group node, so fifty healthy pools read as one line and the failing one stands out.
 */
import { compareHealth } from './health/order';
import { worstInSubtree } from './rollup';
import type { Health, TreeNode } from './types';

/** Options of {@link groupTree}. @public */
export interface GroupingOptions {
  /** The fewest similar siblings that form a group. Defaults to 3; below 2 nothing is grouped. */
  threshold?: number;
}

/**
 * A sibling's state for grouping: the health of its whole subtree (a MachinePool whose agent pool fails is not
 * "like" the healthy ones even if its own conditions look fine) and the reason of the node that decides it.
 */
function stateOf(n: TreeNode): { health: Health; reason?: string } {
  const w = worstInSubtree(n);
  if (compareHealth(w.health, n.health) > 0)
    return { health: w.health, reason: w.node.reason };
  return { health: n.health, reason: n.reason };
}

function sum(members: TreeNode[], fact: string): number | undefined {
  const values = members
    .map(m => m.facts[fact])
    .filter((v): v is number => typeof v === 'number');
  return values.length ? values.reduce((a, b) => a + b, 0) : undefined;
}

function common<T>(values: T[]): T | undefined {
  return values.length && values.every(v => v === values[0])
    ? values[0]
    : undefined;
}

function groupNode(
  parent: TreeNode,
  members: TreeNode[],
  state: { health: Health; reason?: string },
): TreeNode {
  const kind = members[0].kind;
  const since = members
    .map(m => m.since)
    .filter((t): t is string => !!t)
    .sort()[0];
  const facts: TreeNode['facts'] = { count: members.length };
  for (const f of ['replicas', 'readyReplicas', 'availableReplicas']) {
    const total = sum(members, f);
    if (total !== undefined) facts[f] = total;
  }
  const node: TreeNode = {
    id: `group:${parent.id}:${kind}:${state.health}:${state.reason ?? ''}`,
    kind,
    name: `${members.length} ${kind}s`,
    health: state.health,
    conditions: [],
    facts,
    children: [],
    group: { kind, count: members.length, names: members.map(m => m.name) },
  };
  if (state.reason) node.reason = state.reason;
  const message = common(members.map(m => m.message));
  if (message) node.message = message;
  const severity = common(members.map(m => m.severity));
  if (severity) node.severity = severity;
  const apiVersion = common(members.map(m => m.apiVersion));
  if (apiVersion) node.apiVersion = apiVersion;
  const namespace = common(members.map(m => m.namespace));
  if (namespace) node.namespace = namespace;
  if (since) node.since = since;
  return node;
}

/**
 * Returns a copy of the tree in which, under every node, siblings of the same kind with the same (subtree) health
 * and reason are merged into one group node when there are at least `threshold` of them. The group keeps the
 * members' names, takes the earliest `since`, sums their replica facts, and has no children. Groups take the
 * place of their first member; everything else keeps its order. Already grouped nodes are left as they are.
 * @public
 */
export function groupTree(
  node: TreeNode,
  opts: GroupingOptions = {},
): TreeNode {
  const threshold = opts.threshold ?? 3;
  const children = node.children.map(c => groupTree(c, opts));
  if (threshold < 2 || children.length < threshold)
    return { ...node, children };

  const keyOf = (n: TreeNode) => {
    const s = stateOf(n);
    return JSON.stringify([n.kind, s.health, s.reason ?? '']);
  };
  const buckets = new Map<string, TreeNode[]>();
  for (const c of children) {
    if (c.group) continue;
    const k = keyOf(c);
    buckets.set(k, [...(buckets.get(k) ?? []), c]);
  }
  const out: TreeNode[] = [];
  const emitted = new Set<string>();
  for (const c of children) {
    const k = c.group ? undefined : keyOf(c);
    const members = k ? buckets.get(k) ?? [] : [];
    if (!k || members.length < threshold) {
      out.push(c);
    } else if (!emitted.has(k)) {
      emitted.add(k);
      out.push(groupNode(node, members, stateOf(members[0])));
    }
  }
  return { ...node, children: out };
}
