/**
 * Health of the AzureASOManaged* kinds, which have no conditions: their own status and the Ready conditions of the
 * ASO objects they embed (docs/capz-aso-facts.md#aso-managed-status).
 */
import { findCondition, kindOf } from '../../objects/read';
import type { ObservedObject } from '../../objects/types';
import type { HealthOptions, HealthResult, NodeRef } from '../types';
import { asoObjectHealth, asoOwnerFound } from './aso';
import { compareHealth } from './order';
import { resolveResources, type ResolvedResource } from './resources';
import {
  type CapzHealthContext,
  compact,
  deletingOrPaused,
  describe,
  notObserved,
  refOf,
} from './verdict';

/** Health of a referenced resource: the live object's, or `unknown` when it is missing or not watched. @public */
export function resolvedResourceHealth(
  r: ResolvedResource,
  objects: readonly ObservedObject[],
  opts: HealthOptions = {},
): HealthResult {
  if (r.object)
    return asoObjectHealth(r.object, {
      ...opts,
      ownerFound: asoOwnerFound(r.object, objects),
    });
  if (!r.watched) {
    // Not watched: all we know is what CAPZ reports in status.resources.
    return r.readyInStatus
      ? { health: 'healthy' }
      : compact({
          health: 'unknown',
          reason: 'NotWatched',
          message: `${r.ref.kind} ${r.ref.name} (${
            r.ref.group
          }) is not watched; CAPZ reports it ${
            r.readyInStatus === false ? 'not ready' : 'without status'
          }`,
        });
  }
  return {
    health: 'unknown',
    reason: 'NotFound',
    message: `${r.ref.kind} ${r.ref.name} was not found`,
  };
}

/**
 * Health of an AzureASOManagedCluster, AzureASOManagedControlPlane or AzureASOManagedMachinePool. These have no
 * conditions (docs/capz-aso-facts.md#aso-managed-status): health comes from `status.ready` (and `initialized` for the
 * control plane) and `status.resources[]`, and the *why* from the embedded ASO objects' Ready conditions.
 * - deleting → `deleting`; `cluster.x-k8s.io/paused` or a paused Cluster → `paused`;
 * - any embedded ASO object not healthy → the worst one decides (reason, message, severity, since; `source` names
 *   it), even when `status.ready` is still true (CAPZ may not have caught up);
 * - otherwise ready (and initialized) → `healthy`; not ready → `progressing` (`NotReady`/`NotInitialized`), CAPZ
 *   is finishing its own part (endpoint, kubeconfig, node lookup);
 * - no status at all → `progressing`/`unknown` as for a new object.
 * `objects` are the candidates for the embedded objects (typically every watched object of the namespace).
 * @public
 */
export function asoManagedHealth(
  o: ObservedObject,
  objects: readonly ObservedObject[],
  ctx: CapzHealthContext = {},
): HealthResult {
  const stopped = deletingOrPaused(o, ctx);
  if (stopped) return stopped;

  const resources = resolveResources(o, objects);
  let decided: { r: ResolvedResource; h: HealthResult } | undefined;
  for (const r of resources) {
    const h = resolvedResourceHealth(r, objects, ctx);
    if (
      h.health !== 'healthy' &&
      (!decided || compareHealth(h.health, decided.h.health) > 0)
    )
      decided = { r, h };
  }
  if (decided) {
    const source: NodeRef = decided.r.object
      ? refOf(decided.r.object)
      : {
          id: `missing:${refOf(o).id}:${decided.r.ref.kind}:${
            decided.r.ref.name
          }`,
          kind: decided.r.ref.kind,
          name: decided.r.ref.name,
        };
    return compact({ ...decided.h, source });
  }
  const status = o.status;
  if (!status || !Object.keys(status).length)
    return notObserved(o, ctx, 'status');
  const ready = status.ready === true;
  const isControlPlane = kindOf(o) === 'AzureASOManagedControlPlane';
  if (ready && isControlPlane && status.initialized === false) {
    return {
      health: 'progressing',
      reason: 'NotInitialized',
      message: `${describe(o)} is ready but not initialized`,
    };
  }
  if (ready) {
    // Healthy since the last embedded object became ready, the best estimate there is.
    const since = resources
      .map(r =>
        r.object
          ? findCondition(r.object, 'Ready')?.lastTransitionTime
          : undefined,
      )
      .filter((t): t is string => !!t)
      .sort()
      .pop();
    return compact({ health: 'healthy', since });
  }
  const waitingFor: Record<string, string> = {
    AzureASOManagedCluster:
      'its Azure resources are ready; waiting for the control plane endpoint',
    AzureASOManagedControlPlane:
      'its ManagedCluster is ready; CAPZ is writing the endpoint and kubeconfig',
    AzureASOManagedMachinePool:
      'its agent pool is ready; CAPZ is matching the pool to its Nodes',
  };
  return {
    health: 'progressing',
    reason: 'NotReady',
    message: `${describe(o)} is not ready yet: ${
      waitingFor[kindOf(o)] ?? 'waiting for CAPZ'
    }`,
  };
}
