/**
 * The client-side checks of the action dialogs: capz-common's `planDay2Action`, the planner the backend runs, over
 * the cluster capz-common reads from the page's tree (`day2ClusterFromTree`); the backend's preview still decides,
 * with the live objects (pinned values, names taken, the versions AKS offers).
 */
import {
  planDay2Action,
  type Day2Action,
  type Day2Cluster,
  type Day2PlanContext,
} from '@capz-backstage/plugin-capz-common';

/**
 * The rules the action breaks, in the planner's words; empty when the backend should be asked. Only `input`
 * problems: a `conflict` depends on live state the tree may show late, and the backend answers it with a 409.
 */
export function actionProblems(
  cluster: Day2Cluster | undefined,
  action: Day2Action | undefined,
  ctx?: Day2PlanContext,
): string[] {
  if (!cluster || !action) return [];
  const r = planDay2Action(cluster, action, ctx);
  return r.ok
    ? []
    : r.problems.filter(p => p.kind === 'input').map(p => p.message);
}
