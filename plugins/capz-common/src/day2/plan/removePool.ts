/** Removing a pool: its MachinePool is deleted, and the agent pool in Azure with it unless ASO's policy keeps it. */
import { reconcilePolicyOf } from '../../objects/read';
import type { Day2Action } from '../api';
import type { Day2Cluster } from '../snapshot';
import {
  change,
  input,
  isProblem,
  pausedWarning,
  poolLabel,
  poolOrProblem,
  target,
} from './shared';
import type { Day2PlanResult } from './types';

export function planRemovePool(
  c: Day2Cluster,
  a: Extract<Day2Action, { action: 'removePool' }>,
): Day2PlanResult {
  const pool = poolOrProblem(c, a.pool);
  if (isProblem(pool)) return { ok: false, problems: [pool] };
  if (
    pool.mode === 'System' &&
    !c.pools.some(p => p !== pool && p.mode === 'System' && !p.deleting)
  )
    return {
      ok: false,
      problems: [
        input(
          'last-system-pool',
          `${poolLabel(pool)} is the last System pool of cluster ${
            c.name
          }: AKS needs one; add another System pool first`,
        ),
      ],
    };
  const policy = reconcilePolicyOf(pool.agentPool);
  const apRef = pool.agentPool
    ? `ManagedClustersAgentPool ${c.namespace}/${pool.agentPool.metadata?.name}`
    : 'its ASO agent pool';
  const warnings = [
    ...pausedWarning(c),
    policy === 'manage'
      ? `Azure: agent pool ${pool.name} of AKS cluster ${
          c.azureName ?? c.name
        } is deleted with its nodes (${apRef}, reconcile-policy manage).`
      : `Azure: agent pool ${pool.name} is kept (${apRef}, reconcile-policy ${policy}): its nodes keep running, no longer managed from here.`,
  ];
  return {
    ok: true,
    writes: [
      {
        type: 'delete',
        target: target(pool.machinePool, c.namespace),
        uid: pool.machinePool.metadata?.uid,
      },
    ],
    changes: [
      change(pool.machinePool, c.namespace, 'delete', []),
      ...(pool.infra ? [change(pool.infra, c.namespace, 'delete', [])] : []),
      ...(pool.agentPool
        ? [change(pool.agentPool, c.namespace, 'delete', [])]
        : []),
    ],
    warnings,
  };
}
