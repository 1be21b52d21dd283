/** Scaling a pool: the MachinePool's replicas, unless something else owns the count. */
import { MAX_POOL_NODES } from '../../manifests/clusterRules';
import { REPLICAS_MANAGED_BY_ANNOTATION } from '../../vocabulary';
import type { Day2Action } from '../api';
import type { Day2Cluster, Day2Pool } from '../snapshot';
import {
  applyTo,
  change,
  field,
  input,
  isProblem,
  mpName,
  pausedWarning,
  poolLabel,
  poolOrProblem,
  removePinFix,
} from './shared';
import type { Day2PlanResult, Day2Problem } from './types';

/** Who owns a pool's count instead of its MachinePool, if anyone: the annotation, or autoscaling asked in the spec. */
function countOwner(c: Day2Cluster, p: Day2Pool): string | undefined {
  if (p.replicasManagedBy)
    return `its node count is managed by "${
      p.replicasManagedBy
    }" (annotation ${REPLICAS_MANAGED_BY_ANNOTATION} on ${mpName(c, p)})`;
  if (p.autoscaling)
    return `its node count is managed by AKS's cluster autoscaler (${
      p.autoscaling.minCount ?? '?'
    } to ${p.autoscaling.maxCount ?? '?'} nodes, set on ${p.infra?.kind} ${
      c.namespace
    }/${p.infra?.metadata?.name})`;
  return undefined;
}

export function planScale(
  c: Day2Cluster,
  a: Extract<Day2Action, { action: 'scale' }>,
): Day2PlanResult {
  const pool = poolOrProblem(c, a.pool);
  if (isProblem(pool)) return { ok: false, problems: [pool] };
  const problems: Day2Problem[] = [];
  const min = pool.mode === 'System' ? 1 : 0;
  if (
    !Number.isInteger(a.replicas) ||
    a.replicas < 0 ||
    a.replicas > MAX_POOL_NODES
  )
    problems.push(
      input(
        'replicas-range',
        `the node count must be a whole number from ${min} to ${MAX_POOL_NODES}`,
      ),
    );
  else if (a.replicas < min)
    problems.push(
      input(
        'system-pool-min',
        `${poolLabel(pool)} is a System pool: it keeps at least 1 node`,
      ),
    );
  const owner = countOwner(c, pool);
  if (owner)
    problems.push(
      input(
        'replicas-managed-by',
        `${poolLabel(
          pool,
        )}: ${owner}; change the autoscaler's minimum and maximum instead, or turn autoscaling off first`,
      ),
    );
  if (
    pool.pinnedCount !== undefined &&
    pool.pinnedCount !== a.replicas &&
    pool.infra &&
    pool.agentPoolIndex !== undefined
  )
    problems.push(
      input(
        'pinned-count',
        `${poolLabel(pool)}: spec.resources[${
          pool.agentPoolIndex
        }].spec.count is pinned to ${pool.pinnedCount} on ${pool.infra.kind} ${
          c.namespace
        }/${
          pool.infra.metadata?.name
        }, and CAPZ refuses a count that differs from the MachinePool's replicas; remove it: ${removePinFix(
          pool.infra,
          c.namespace,
          pool.agentPoolIndex,
          'count',
        )}`,
      ),
    );
  if (problems.length) return { ok: false, problems };
  if (pool.replicas === a.replicas)
    return { ok: true, writes: [], changes: [], warnings: [] };
  return {
    ok: true,
    writes: [applyTo(pool.machinePool, c.namespace, { replicas: a.replicas })],
    changes: [
      change(pool.machinePool, c.namespace, 'update', [
        field('spec.replicas', pool.replicas, a.replicas),
      ]),
    ],
    warnings: pausedWarning(c),
  };
}
