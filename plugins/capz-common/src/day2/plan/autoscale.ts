/** Turning AKS's cluster autoscaler on or off for a pool, or changing its bounds, on either API. */
import { MAX_POOL_NODES } from '../../manifests/clusterRules';
import { isObj } from '../../objects/read';
import { REPLICAS_MANAGED_BY_ANNOTATION } from '../../vocabulary';
import type { Day2Action } from '../api';
import type { Day2Cluster } from '../snapshot';
import {
  applyTo,
  change,
  conflict,
  field,
  input,
  isProblem,
  mpName,
  pausedWarning,
  poolLabel,
  poolOrProblem,
  target,
} from './shared';
import type { Day2PlanResult, Day2Problem } from './types';

export function planAutoscale(
  c: Day2Cluster,
  a: Extract<Day2Action, { action: 'autoscale' }>,
): Day2PlanResult {
  const pool = poolOrProblem(c, a.pool);
  if (isProblem(pool)) return { ok: false, problems: [pool] };
  if (!pool.infra)
    return {
      ok: false,
      problems: [
        conflict(
          'pool-infrastructure',
          `${poolLabel(pool)}: its infrastructure object (${
            pool.machinePool.spec?.template
              ? 'spec.template.spec.infrastructureRef'
              : 'reference'
          }) was not found`,
        ),
      ],
    };
  const problems: Day2Problem[] = [];
  const min = pool.mode === 'System' ? 1 : 0;
  if (a.enabled) {
    const { minCount, maxCount } = a;
    if (!Number.isInteger(minCount) || (minCount as number) < min)
      problems.push(
        input(
          'autoscaler-min',
          `the autoscaler minimum must be a whole number of at least ${min}${
            min ? ` (${poolLabel(pool)} is a System pool)` : ''
          }`,
        ),
      );
    else if (
      !Number.isInteger(maxCount) ||
      (maxCount as number) < (minCount as number) ||
      (maxCount as number) > MAX_POOL_NODES
    )
      problems.push(
        input(
          'autoscaler-max',
          `the autoscaler maximum must be a whole number from the minimum (${minCount}) to ${MAX_POOL_NODES}`,
        ),
      );
    else if (
      pool.replicas !== undefined &&
      (pool.replicas < (minCount as number) ||
        pool.replicas > (maxCount as number))
    )
      problems.push(
        input(
          'count-within-bounds',
          `${poolLabel(pool)} has ${
            pool.replicas
          } nodes, outside ${minCount} to ${maxCount}: AKS needs minimum <= count <= maximum, so widen the bounds${
            pool.replicasManagedBy ? '' : ' or scale the pool first'
          }`,
        ),
      );
    if (
      c.api === 'aso' &&
      pool.replicasManagedBy &&
      pool.replicasManagedBy !== 'aks'
    )
      problems.push(
        input(
          'replicas-managed-by',
          `${poolLabel(pool)}: its node count is managed by "${
            pool.replicasManagedBy
          }" (annotation ${REPLICAS_MANAGED_BY_ANNOTATION} on ${mpName(
            c,
            pool,
          )}); CAPZ refuses to turn AKS's autoscaler on while another controller owns the count`,
        ),
      );
  } else if (a.minCount !== undefined || a.maxCount !== undefined) {
    problems.push(
      input(
        'autoscaler-off',
        'turning autoscaling off takes no minimum or maximum',
      ),
    );
  }
  if (problems.length) return { ok: false, problems };

  const before = pool.autoscaling;
  const wanted = a.enabled
    ? { minCount: a.minCount as number, maxCount: a.maxCount as number }
    : undefined;
  if (
    (!before && !wanted) ||
    (before &&
      wanted &&
      before.minCount === wanted.minCount &&
      before.maxCount === wanted.maxCount)
  )
    return { ok: true, writes: [], changes: [], warnings: [] };

  const warnings = pausedWarning(c);
  const notes = [
    wanted
      ? `AKS's cluster autoscaler then owns the node count of ${poolLabel(
          pool,
        )}: CAPZ marks ${mpName(
          c,
          pool,
        )} with ${REPLICAS_MANAGED_BY_ANNOTATION} and copies AKS's count into its spec.replicas.`
      : `${poolLabel(pool)} keeps the node count AKS last set (${
          pool.replicas ?? 'unknown'
        }); scale it afterwards if needed.`,
  ];

  if (c.api === 'aso') {
    const index = pool.agentPoolIndex;
    if (index === undefined)
      return {
        ok: false,
        problems: [
          conflict(
            'pool-infrastructure',
            `${pool.infra.kind} ${c.namespace}/${pool.infra.metadata?.name} embeds no ManagedClustersAgentPool in spec.resources`,
          ),
        ],
      };
    const resources = (pool.infra.spec?.resources as unknown[]).map((r, i) => {
      if (i !== index || !isObj(r)) return r;
      const spec = { ...((r.spec as Record<string, unknown>) ?? {}) };
      if (wanted) {
        spec.enableAutoScaling = true;
        spec.minCount = wanted.minCount;
        spec.maxCount = wanted.maxCount;
      } else {
        spec.enableAutoScaling = false;
        delete spec.minCount;
        delete spec.maxCount;
      }
      return { ...r, spec };
    });
    const p = `spec.resources[${index}].spec`;
    return {
      ok: true,
      // spec.resources is an atomic list: the whole list is applied, as read, with only these fields changed.
      writes: [applyTo(pool.infra, c.namespace, { resources })],
      changes: [
        change(pool.infra, c.namespace, 'update', [
          field(`${p}.enableAutoScaling`, before ? true : undefined, !!wanted),
          field(`${p}.minCount`, before?.minCount, wanted?.minCount),
          field(`${p}.maxCount`, before?.maxCount, wanted?.maxCount),
        ]),
      ],
      warnings,
      notes,
    };
  }
  // Legacy AzureManagedMachinePool: spec.scaling {minSize, maxSize} (docs/capz-aso-facts.md#day2-legacy-autoscale).
  const fields = [
    field('spec.scaling.minSize', before?.minCount, wanted?.minCount),
    field('spec.scaling.maxSize', before?.maxCount, wanted?.maxCount),
  ];
  const t = target(pool.infra, c.namespace);
  return {
    ok: true,
    writes: [
      wanted
        ? applyTo(pool.infra, c.namespace, {
            scaling: { minSize: wanted.minCount, maxSize: wanted.maxCount },
          })
        : {
            type: 'merge',
            target: t,
            patch: { spec: { scaling: null } },
            resourceVersion: pool.infra.metadata?.resourceVersion,
          },
    ],
    changes: [change(pool.infra, c.namespace, 'update', fields)],
    warnings,
    notes,
  };
}
