/**
 * A compact text projection of a tree, one line per node (`Kind/name health reason`), indented two spaces per level.
 * For logs, CLIs and tests; the UI renders the tree itself.
 */
import type { TreeNode } from './types';

/** One line per node: `Kind/name health [reason]`, groups with their count and first names. @public */
export function treeToLines(node: TreeNode, depth = 0): string[] {
  const group = node.group
    ? ` [${node.group.count}: ${node.group.names.slice(0, 3).join(', ')}${
        node.group.count > 3 ? ', …' : ''
      }]`
    : '';
  const line = `${'  '.repeat(depth)}${node.kind}/${node.name} ${node.health}${
    node.reason ? ` ${node.reason}` : ''
  }${group}`;
  return [line, ...node.children.flatMap(c => treeToLines(c, depth + 1))];
}
