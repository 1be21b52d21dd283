/**
 * What a planned day-2 action does in Azure, in Azure's words (agent pools, VMs, versions), and what the live state
 * says about carrying it out now. Derived from the plan the planner made, never planned a second time.
 */
import { findCondition } from '../../objects/read';
import type { ObservedObject } from '../../objects/types';
import type { Day2Action, ObjectChange } from '../api';
import { findDay2Pool, type Day2Cluster, type Day2Pool } from '../snapshot';
import { displayKubernetesVersion } from '../versions';

/** A version as the pages show it (`v1.33.2`, whether read from CAPI or AKS): one form on both sides of an arrow. */
const aks = (v: string | undefined) =>
  v === undefined ? undefined : displayKubernetesVersion(v);

const vms = (n: number) => `${n} VM${n === 1 ? '' : 's'}`;

/** The AKS cluster as Azure names it. */
const aksName = (c: Day2Cluster) => `AKS cluster ${c.azureName ?? c.name}`;

/** `agent pool system of AKS cluster payments-prod`. */
const agentPool = (c: Day2Cluster, p: Day2Pool) =>
  `agent pool ${p.name} of ${aksName(c)}`;

/**
 * The Azure effects of a plan's changes: one line per AKS resource it changes. Scale, autoscale and upgrade; the
 * other actions say theirs in their warnings (add and remove a pool, pause, resume).
 * Facts: docs/azure-facts.md#aks-effects.
 * @public
 */
export function day2AzureEffects(
  c: Day2Cluster,
  action: Day2Action,
  changes: readonly ObjectChange[],
): string[] {
  if (!changes.length) return [];
  switch (action.action) {
    case 'scale': {
      const p = findDay2Pool(c, action.pool);
      if (!p || p.replicas === undefined) return [];
      const d = action.replicas - p.replicas;
      return [
        `AKS ${agentPool(c, p)}: ${p.replicas} → ${vms(action.replicas)}${
          d > 0
            ? ` (AKS adds ${vms(d)} of ${p.vmSize ?? "the pool's size"})`
            : ` (AKS deletes ${vms(-d)}; the pods on ${
                d === -1 ? 'it' : 'them'
              } are evicted and rescheduled on the pool's other nodes)`
        }.`,
      ];
    }
    case 'autoscale': {
      const p = findDay2Pool(c, action.pool);
      if (!p) return [];
      return [
        action.enabled
          ? `AKS ${agentPool(
              c,
              p,
            )}: AKS's cluster autoscaler sets the VM count, between ${
              action.minCount
            } and ${action.maxCount}, from the pods waiting to be scheduled.`
          : `AKS ${agentPool(
              c,
              p,
            )}: the cluster autoscaler stops; the pool keeps ${
              p.replicas === undefined
                ? 'its current VM count'
                : vms(p.replicas)
            }.`,
      ];
    }
    case 'upgrade': {
      if (action.target === 'controlPlane')
        return [
          `${aksName(
            c,
          )}: AKS upgrades the control plane (the API server) from ${
            aks(c.version) ?? 'its version'
          } to ${aks(action.version)}; the agent pools' VMs are not touched.`,
        ];
      return action.target.pools.flatMap(name => {
        const p = findDay2Pool(c, name);
        if (!p || p.version === action.version) return [];
        const n = p.replicas;
        return [
          `AKS ${agentPool(c, p)}: ${aks(p.version) ?? 'its version'} → ${aks(
            action.version,
          )}${
            n === undefined ? '' : ` on each of its ${vms(n)}`
          }: AKS adds surge VMs (max surge, 10% by default), then cordons, drains and reimages the old nodes a batch at a time, evicting their pods.`,
        ];
      });
    }
    default:
      return [];
  }
}

/** Terminal provisioning states: AKS runs no operation on the resource (docs/azure-facts.md#aks-effects). */
const SETTLED = new Set(['Succeeded', 'Failed', 'Canceled']);

/** Why ASO will not send a change to this resource now, from its live status; undefined when nothing holds it. */
function busy(o: ObservedObject | undefined, what: string): string | undefined {
  if (!o) return undefined;
  const state = o.status?.provisioningState;
  const ready = findCondition(o, 'Ready');
  const blocked =
    ready?.status === 'False' && ready.reason === 'ReconciliationBlocked';
  if (!blocked && (typeof state !== 'string' || SETTLED.has(state)))
    return undefined;
  return `${what} is busy (provisioning state ${
    typeof state === 'string' ? `'${state}'` : 'unknown'
  }${
    blocked ? ', ASO: ReconciliationBlocked' : ''
  }): ASO sends this change only once AKS's current operation ends, so it may take longer; it keeps retrying.`;
}

/** The pools an action changes, by name. */
function poolsOf(action: Day2Action): string[] {
  if (action.action === 'upgrade')
    return action.target === 'controlPlane' ? [] : action.target.pools;
  if ('pool' in action && typeof action.pool === 'string') return [action.pool];
  return [];
}

/**
 * What the live state says about carrying out the plan now: AKS busy with another operation on the cluster or a pool
 * the plan changes (ASO holds the change back until it ends). Read from status, so not part of the plan's digest.
 * @public
 */
export function day2LiveCautions(
  c: Day2Cluster,
  action: Day2Action,
  changes: readonly ObjectChange[],
): string[] {
  if (!changes.length || action.action === 'pause') return [];
  const out: string[] = [];
  const cluster = busy(c.managedCluster, aksName(c));
  if (cluster) out.push(cluster);
  for (const name of poolsOf(action)) {
    const p = findDay2Pool(c, name);
    const b = p && busy(p.agentPool, `AKS ${agentPool(c, p)}`);
    if (b) out.push(b);
  }
  return out;
}
