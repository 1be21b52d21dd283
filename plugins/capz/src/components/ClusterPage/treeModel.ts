import { compareHealth, TreeNode } from '@capz-backstage/plugin-capz-common';

/** Every node by id, with its parent's id. */
export function indexTree(
  root: TreeNode,
): Map<string, { node: TreeNode; parent?: string }> {
  const index = new Map<string, { node: TreeNode; parent?: string }>();
  const walk = (n: TreeNode, parent?: string) => {
    index.set(n.id, { node: n, parent });
    n.children.forEach(c => walk(c, n.id));
  };
  walk(root);
  return index;
}

/** The ids from the root down to (not including) `id`. */
export function ancestorsOf(
  index: ReturnType<typeof indexTree>,
  id: string,
): string[] {
  const out: string[] = [];
  let cur = index.get(id)?.parent;
  while (cur) {
    out.unshift(cur);
    cur = index.get(cur)?.parent;
  }
  return out;
}

/**
 * The node that answers "why is this not ready": the root's `source` when the backend named one, otherwise the
 * deepest node that is as bad as the root. Undefined for a healthy tree.
 */
export function decidingNode(root: TreeNode): TreeNode | undefined {
  if (root.health === 'healthy') return undefined;
  const index = indexTree(root);
  if (root.source && index.has(root.source.id))
    return index.get(root.source.id)!.node;
  let best: { node: TreeNode; depth: number } | undefined;
  const walk = (n: TreeNode, depth: number) => {
    if (
      compareHealth(n.health, root.health) >= 0 &&
      (!best || depth > best.depth)
    )
      best = { node: n, depth };
    n.children.forEach(c => walk(c, depth + 1));
  };
  walk(root, 0);
  return best?.node ?? root;
}

/** Ids of nodes expanded at first: everything with children (trees are shallow; pools are grouped). */
export function initiallyExpanded(root: TreeNode): Set<string> {
  const out = new Set<string>();
  const walk = (n: TreeNode) => {
    if (n.children.length) out.add(n.id);
    n.children.forEach(walk);
  };
  walk(root);
  return out;
}

/** One shown row of the tree: its node, where it sits (ARIA level, position among its siblings) and its parent. */
export interface VisibleRow {
  node: TreeNode;
  level: number;
  posInSet: number;
  setSize: number;
  parent?: string;
}

/** The rows a person sees, top to bottom: every node whose ancestors are all expanded. */
export function visibleRows(
  root: TreeNode,
  expanded: Set<string>,
): VisibleRow[] {
  const out: VisibleRow[] = [];
  const walk = (
    n: TreeNode,
    level: number,
    posInSet: number,
    setSize: number,
    parent?: string,
  ) => {
    out.push({ node: n, level, posInSet, setSize, parent });
    if (!expanded.has(n.id)) return;
    n.children.forEach((c, i) =>
      walk(c, level + 1, i + 1, n.children.length, n.id),
    );
  };
  walk(root, 1, 1, 1);
  return out;
}
