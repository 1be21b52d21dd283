/**
 * The day-2 actions' rules and plans, pure: from a cluster's objects and an action, either the rules it breaks (each
 * naming the rule, in the user's words) or the writes that carry it out and what they change, field by field.
 * The backend reads the objects live, runs this, validates the writes with `dryRun=All`, then applies them; the
 * frontend may run the same rules before it asks. Each fact relied on is in docs/capz-aso-facts.md#day2-actions.
 */
import { apiVersionOf, kinds } from '../../kinds';
import type { Day2Action } from '../api';
import type { Day2Cluster } from '../snapshot';
import { planAddPool } from './addPool';
import { planAutoscale } from './autoscale';
import { planPause } from './pause';
import { planRemovePool } from './removePool';
import { planScale } from './scale';
import { withGitOps } from './gitops';
import { day2AzureEffects, day2LiveCautions } from './effects';
import { conflict, input } from './shared';
import type { Day2PlanContext, Day2PlanResult } from './types';
import { planUpgrade } from './upgrade';

export * from './types';
export { day2AzureEffects, day2LiveCautions } from './effects';

/**
 * Plans one day-2 action on a cluster read with {@link readDay2Cluster}: the rules it breaks, or the writes and
 * changes, with who applies the objects it changes and the blockers (a GitOps controller applies one). A cluster
 * being deleted refuses every action. Deterministic and pure.
 * @public
 */
export function planDay2Action(
  c: Day2Cluster,
  action: Day2Action,
  ctx: Day2PlanContext = {},
): Day2PlanResult {
  if (c.deleting)
    return {
      ok: false,
      problems: [
        conflict('cluster-deleting', `cluster ${c.name} is being deleted`),
      ],
    };
  const planned = planAction(c, action, ctx);
  if (!planned.ok) return planned;
  const effects = day2AzureEffects(c, action, planned.changes);
  const cautions = day2LiveCautions(c, action, planned.changes);
  return withGitOps(c, {
    ...planned,
    ...(effects.length ? { effects } : {}),
    ...(cautions.length ? { cautions } : {}),
  });
}

function planAction(
  c: Day2Cluster,
  action: Day2Action,
  ctx: Day2PlanContext,
): Day2PlanResult {
  switch (action?.action) {
    case 'scale':
      return planScale(c, action);
    case 'autoscale':
      return planAutoscale(c, action);
    case 'upgrade':
      return planUpgrade(c, action, ctx);
    case 'addPool':
      return planAddPool(c, action, ctx);
    case 'removePool':
      return planRemovePool(c, action);
    case 'pause':
      return planPause(c, true);
    case 'resume':
      return planPause(c, false);
    default:
      return {
        ok: false,
        problems: [
          input(
            'action',
            `unknown action "${String(
              (action as { action?: unknown })?.action,
            )}"`,
          ),
        ],
      };
  }
}

/** The API versions day-2 writes use for new objects (CAPI's stored v1beta2, CAPZ's v1beta1). @public */
export const DAY2_API_VERSIONS = {
  Cluster: apiVersionOf(kinds.Cluster),
  MachinePool: apiVersionOf(kinds.MachinePool),
  AzureASOManagedMachinePool: apiVersionOf(kinds.AzureASOManagedMachinePool),
};
