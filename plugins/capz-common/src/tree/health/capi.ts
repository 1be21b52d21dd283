/** Health of the CAPI Cluster and MachinePool, from their own conditions and status (docs/capz-aso-facts.md#cluster-available). */
import { PAUSED_ANNOTATION } from '../../vocabulary';
import {
  ann,
  at,
  findCondition,
  isDeleting,
  nameOf,
  num,
  str,
} from '../../objects/read';
import type { ConditionView, ObservedObject } from '../../objects/types';
import type { HealthOptions, HealthResult } from '../types';
import {
  type CapzHealthContext,
  compact,
  deleting,
  describe,
  fromCondition,
  notObserved,
  notTrue,
  pausedResult,
} from './verdict';

/** MachinePool/Cluster phases during which "not available" is expected. */
const PROVISIONING_PHASES = new Set([
  'Pending',
  'Provisioning',
  'Provisioned',
  'ScalingUp',
  'ScalingDown',
  'Scaling',
]);

/** Whether a CAPI Cluster is paused: `spec.paused`, the pause annotation, or its Paused condition. @public */
export function isClusterPaused(cluster: ObservedObject | undefined): boolean {
  if (!cluster) return false;
  return (
    cluster.spec?.paused === true ||
    ann(cluster, PAUSED_ANNOTATION) !== undefined ||
    findCondition(cluster, 'Paused')?.status === 'True'
  );
}

function staleGeneration(
  o: ObservedObject,
  c?: ConditionView,
): number | undefined {
  const generation = o.metadata?.generation;
  if (generation === undefined) return undefined;
  const observed = c?.observedGeneration ?? num(o.status?.observedGeneration);
  return observed !== undefined && observed < generation
    ? generation
    : undefined;
}

/**
 * Health of a CAPI Cluster from its own conditions only (docs/capz-aso-facts.md#cluster-available): v1beta2 `Available`
 * on top.
 * - deleting → `deleting`; `spec.paused`, the pause annotation or Paused=True → `paused`;
 * - Available True → `healthy` (`progressing` while its observedGeneration is behind `metadata.generation`);
 * - Available not True → `progressing` while `status.phase` is Pending/Provisioning, `degraded` otherwise;
 * - no Available: a v1beta1-style Ready condition by severity, else `status.phase`.
 * It ignores MachinePools, as CAPI's Available does: {@link buildClusterTree}'s rollup closes that gap.
 * @public
 */
export function clusterHealth(
  cluster: ObservedObject,
  opts: HealthOptions = {},
): HealthResult {
  const paused = isClusterPaused(cluster);
  if (isDeleting(cluster)) return deleting(cluster, undefined, paused);
  if (paused) {
    const c = findCondition(cluster, 'Paused');
    return pausedResult(
      `Cluster ${nameOf(cluster)} is paused: CAPI and CAPZ do not reconcile it`,
      c?.status === 'True' ? c : undefined,
    );
  }
  const phase = str(cluster.status?.phase);
  const available = findCondition(cluster, 'Available');
  if (available) {
    if (available.status === 'True') {
      const gen = staleGeneration(cluster, available);
      if (gen !== undefined) {
        return {
          health: 'progressing',
          reason: 'GenerationNotObserved',
          message: `CAPI has not processed generation ${gen} of Cluster ${nameOf(
            cluster,
          )} yet`,
        };
      }
      return fromCondition('healthy', available);
    }
    return fromCondition(
      phase === 'Pending' || phase === 'Provisioning'
        ? 'progressing'
        : 'degraded',
      available,
    );
  }
  const ready = findCondition(cluster, 'Ready');
  if (ready)
    return fromCondition(
      ready.status === 'True' ? 'healthy' : notTrue(ready),
      ready,
    );
  if (phase === 'Provisioned')
    return { health: 'healthy', reason: 'Provisioned' };
  if (phase === 'Pending' || phase === 'Provisioning')
    return { health: 'progressing', reason: phase };
  if (phase === 'Failed')
    return {
      health: 'failed',
      reason: 'Failed',
      message: str(cluster.status?.failureMessage),
    };
  return notObserved(cluster, opts, 'status');
}

/**
 * Health of a CAPI MachinePool: `Available` (and `InfrastructureReady`) conditions, `status.phase`, and
 * `status.readyReplicas` against `spec.replicas`.
 * - deleting, paused (paused Cluster, the pause annotation or Paused=True) as usual; phase Failed → `failed`;
 * - `status.observedGeneration` behind `metadata.generation` → `progressing`;
 * - Available True → `healthy`; not True → `progressing` while the phase is Pending/Provisioning/Provisioned/
 *   Scaling*, `degraded` otherwise (e.g. Running but short of replicas);
 * - no Available: InfrastructureReady False as above; else replicas: ready ≥ desired → `healthy`, fewer →
 *   `progressing` (`WaitingForReplicas`); no status → as for a new object.
 * @public
 */
export function machinePoolHealth(
  mp: ObservedObject,
  ctx: CapzHealthContext = {},
): HealthResult {
  const pausedCond = findCondition(mp, 'Paused');
  const paused =
    ctx.clusterPaused ||
    ann(mp, PAUSED_ANNOTATION) !== undefined ||
    pausedCond?.status === 'True';
  if (isDeleting(mp)) return deleting(mp, undefined, !!paused);
  if (paused) {
    return pausedResult(
      ctx.clusterPaused ? 'The Cluster is paused' : `${describe(mp)} is paused`,
      pausedCond?.status === 'True' ? pausedCond : undefined,
    );
  }
  const phase = str(mp.status?.phase);
  if (phase === 'Failed') {
    return compact({
      health: 'failed',
      reason:
        str(mp.status?.failureReason) ??
        str(at(mp.status, 'deprecated', 'v1beta1', 'failureReason')) ??
        'Failed',
      message:
        str(mp.status?.failureMessage) ??
        str(at(mp.status, 'deprecated', 'v1beta1', 'failureMessage')),
      severity: 'Error',
    });
  }
  const gen = staleGeneration(mp);
  if (gen !== undefined) {
    return {
      health: 'progressing',
      reason: 'GenerationNotObserved',
      message: `CAPI has not processed generation ${gen} of MachinePool ${nameOf(
        mp,
      )} yet`,
    };
  }
  const expectedNotAvailable =
    phase !== undefined && PROVISIONING_PHASES.has(phase);
  const available = findCondition(mp, 'Available');
  if (available) {
    if (available.status === 'True') return fromCondition('healthy', available);
    return fromCondition(
      expectedNotAvailable ? 'progressing' : 'degraded',
      available,
    );
  }
  const infra = findCondition(mp, 'InfrastructureReady');
  if (infra && infra.status !== 'True')
    return fromCondition(
      expectedNotAvailable ? 'progressing' : 'degraded',
      infra,
    );
  const desired = num(mp.spec?.replicas);
  const readyReplicas = num(mp.status?.readyReplicas);
  if (readyReplicas !== undefined) {
    if (desired === undefined || readyReplicas >= desired)
      return { health: 'healthy' };
    return {
      health: 'progressing',
      reason: 'WaitingForReplicas',
      message: `${readyReplicas} of ${desired} replicas are ready`,
    };
  }
  return notObserved(mp, ctx, 'status');
}
