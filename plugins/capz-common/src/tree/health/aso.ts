/** Health of an ASO object from its Ready condition (docs/capz-aso-facts.md#aso-conditions). */
import {
  at,
  findCondition,
  isDeleting,
  kindOf,
  nameOf,
  str,
} from '../../objects/read';
import type { ObservedObject } from '../../objects/types';
import type { HealthOptions, HealthResult } from '../types';
import {
  compact,
  deleting,
  fromCondition,
  notObserved,
  notTrue,
} from './verdict';

/** Extra context for {@link asoObjectHealth}. @public */
export interface AsoHealthContext extends HealthOptions {
  /** Whether the object's `spec.owner` exists (ResourceGroup for a ManagedCluster, ManagedCluster for a pool). */
  ownerFound?: boolean;
}

/**
 * Health of an ASO object (ResourceGroup, ManagedCluster, ManagedClustersAgentPool) from its
 * `status.conditions[type=Ready]` (docs/capz-aso-facts.md#aso-conditions; the ready test is CAPZ's `readyStatus`,
 * docs/capz-aso-facts.md#aso-managed-status):
 * - deleting (`metadata.deletionTimestamp`) → `deleting`, with the Ready reason when the deletion is stuck;
 * - Ready True and `observedGeneration >= metadata.generation` → `healthy`; True for an older generation →
 *   `progressing` (`GenerationNotObserved`);
 * - not True: see the severity rules above; an Error for an older generation is `progressing`, since ASO retries
 *   a terminal error once the spec changes;
 * - no Ready condition → `progressing` (`NotReconciledYet`) while the object is new, `unknown` (`NotReconciled`)
 *   after the grace period.
 * @public
 */
export function asoObjectHealth(
  o: ObservedObject,
  ctx: AsoHealthContext = {},
): HealthResult {
  const ready = findCondition(o, 'Ready');
  if (isDeleting(o)) return deleting(o, ready, false);
  if (!ready) return notObserved(o, ctx, 'Ready condition');
  const generation = o.metadata?.generation;
  const stale =
    generation !== undefined && (ready.observedGeneration ?? 0) < generation;
  if (ready.status === 'True') {
    if (stale) {
      return compact({
        health: 'progressing',
        reason: 'GenerationNotObserved',
        message: `ASO has not processed generation ${generation} yet (Ready is for generation ${
          ready.observedGeneration ?? 'none'
        })`,
      });
    }
    return fromCondition('healthy', ready);
  }
  const health = notTrue(ready, ctx.ownerFound);
  if (health === 'failed' && stale) {
    return compact({
      health: 'progressing',
      reason: 'GenerationNotObserved',
      message: `ASO has not processed generation ${generation} yet; generation ${
        ready.observedGeneration ?? 'none'
      } failed with ${ready.reason ?? 'an error'}${
        ready.message ? `: ${ready.message}` : ''
      }`,
      severity: 'Info',
    });
  }
  return fromCondition(health, ready);
}

/** Whether an ASO object's `spec.owner` exists among `objects`; undefined when it has no owner by name. @public */
export function asoOwnerFound(
  o: ObservedObject,
  objects: readonly ObservedObject[],
): boolean | undefined {
  const ownerName = str(at(o.spec, 'owner', 'name'));
  const ownerKinds = new Map([
    ['ManagedCluster', 'ResourceGroup'],
    ['ManagedClustersAgentPool', 'ManagedCluster'],
    // ASO v2.18.0 api/network/v1api20201101 virtual_network_types_gen.go line 293, virtual_networks_subnet_types_gen.go
    // line 286: a VirtualNetwork is owned by a ResourceGroup, a subnet by its VirtualNetwork.
    ['VirtualNetwork', 'ResourceGroup'],
    ['VirtualNetworksSubnet', 'VirtualNetwork'],
  ]);
  const ownerKind = ownerKinds.get(kindOf(o));
  if (!ownerName || !ownerKind) return undefined;
  const ns = o.metadata?.namespace;
  return objects.some(
    x =>
      kindOf(x) === ownerKind &&
      nameOf(x) === ownerName &&
      (!ns || !x.metadata?.namespace || x.metadata.namespace === ns),
  );
}
