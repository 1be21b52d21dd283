import type { Health, TreeNode } from '../types';

/** A hand-made tree node for rollup and grouping tests. */
export function node(
  kind: string,
  name: string,
  health: Health,
  extra: Partial<TreeNode> = {},
): TreeNode {
  return {
    id: `${kind}/${name}`,
    kind,
    name,
    health,
    conditions: [],
    facts: {},
    children: [],
    ...extra,
  };
}
