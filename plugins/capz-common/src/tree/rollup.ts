/**
 * Rollup: a node's health as the worst of its own and its subtree's, with the deciding node named. Unlike CAPI's
 * own Cluster `Available`, which ignores MachinePools (docs/capz-aso-facts.md#cluster-available), every node of the
 * tree counts.
 */
import { compareHealth } from './health/order';
import type { Health, HealthResult, TreeNode } from './types';

/**
 * The health a node contributes to its ancestors. A child being deleted means the ancestor is changing
 * (`progressing`), unless the deletion is stuck: a Warning or Error on a deleting object (e.g. ASO cannot reach Azure
 * to delete) counts as `degraded` or `failed`.
 */
function contributed(n: TreeNode): Health {
  if (n.health !== 'deleting') return n.health;
  if (n.severity === 'Error') return 'failed';
  return n.severity === 'Warning' ? 'degraded' : 'progressing';
}

/** The worst node of a subtree, with the health it contributes. On ties the deeper node wins (it names the cause),
 * and among siblings the first one. @public */
export function worstInSubtree(node: TreeNode): {
  health: Health;
  node: TreeNode;
} {
  let childBest: { health: Health; node: TreeNode } | undefined;
  for (const child of node.children) {
    const r = worstInSubtree(child);
    if (!childBest || compareHealth(r.health, childBest.health) > 0)
      childBest = r;
  }
  const self = { health: contributed(node), node };
  return childBest && compareHealth(childBest.health, self.health) >= 0
    ? childBest
    : self;
}

const prefix = (n: TreeNode, text: string) => `${n.kind} ${n.name}: ${text}`;

function capitalised(h: Health): string {
  return h.charAt(0).toUpperCase() + h.slice(1);
}

/**
 * Combines a node's own verdict with its descendants' (not the node itself):
 * - the worst descendant wins when it is at least as bad as the node's own health (ties go to the descendant,
 *   whose reason is the more specific), with its reason and message prefixed by `Kind name: `, its severity and
 *   since, and `source` naming it;
 * - descendants being deleted count as `progressing`, or as `degraded`/`failed` when the deletion is stuck (a
 *   Warning/Error severity);
 * - a node that is itself `deleting` stays `deleting`; a degraded or failed descendant then explains why;
 * - a node that is itself `paused` stays `paused` unless a descendant is degraded or failed (pausing stops
 *   reconciliation, it does not make a broken Azure resource fine);
 * - healthy descendants never replace the node's own reason.
 * @public
 */
export function rollupHealth(own: HealthResult, node: TreeNode): HealthResult {
  let best: { health: Health; node: TreeNode } | undefined;
  for (const child of node.children) {
    const r = worstInSubtree(child);
    if (!best || compareHealth(r.health, best.health) > 0) best = r;
  }
  if (!best || best.health === 'healthy') return own;
  const d = best.node;
  const fromDescendant = (health: Health): HealthResult => {
    const r: HealthResult = {
      health,
      reason: prefix(d, d.reason ?? capitalised(d.health)),
      source: { id: d.id, kind: d.kind, name: d.name },
    };
    if (d.message) r.message = prefix(d, d.message);
    if (d.severity) r.severity = d.severity;
    if (d.since) r.since = d.since;
    return r;
  };
  const serious = best.health === 'degraded' || best.health === 'failed';
  if (own.health === 'deleting')
    return serious ? fromDescendant('deleting') : own;
  if (own.health === 'paused')
    return serious ? fromDescendant(best.health) : own;
  return compareHealth(best.health, own.health) >= 0
    ? fromDescendant(best.health)
    : own;
}
