/**
 * Health of one object, per family (docs/capz-aso-facts.md#aso-managed-status, docs/capz-aso-facts.md#legacy-api,
 * docs/capz-aso-facts.md#cluster-available, docs/architecture.md#health-model; docs/capz-aso-facts.md#aso-conditions).
 * Every function takes plain JSON and never throws.
 */
import { conditionsOf, isDeleting, isObj, kindOf } from '../../objects/read';
import type { ObservedObject } from '../../objects/types';
import type { HealthResult } from '../types';
import { asoObjectHealth, asoOwnerFound } from './aso';
import { asoManagedHealth } from './asoManaged';
import { clusterHealth, machinePoolHealth } from './capi';
import { legacyManagedHealth } from './legacyManaged';
import { type CapzHealthContext, notObserved } from './verdict';
import { watchedAsoGroup } from './watchedKinds';

/** The families {@link objectHealth} dispatches on. @public */
export type ObjectFamily =
  | 'cluster'
  | 'machinePool'
  | 'asoManaged'
  | 'legacyManaged'
  | 'aso'
  | 'other';

/** Which health family an object belongs to, by kind. @public */
export function familyOf(o: ObservedObject): ObjectFamily {
  const kind = kindOf(o);
  if (kind === 'Cluster') return 'cluster';
  if (kind === 'MachinePool') return 'machinePool';
  if (kind.startsWith('AzureASOManaged')) return 'asoManaged';
  if (kind.startsWith('AzureManaged')) return 'legacyManaged';
  if (watchedAsoGroup(kind) !== undefined) return 'aso';
  return 'other';
}

/**
 * Health of any watched object, by family. `objects` resolves the embedded ASO objects of AzureASOManaged* kinds
 * and ASO owners; unknown kinds with a Ready condition are read like ASO objects.
 * @public
 */
export function objectHealth(
  o: ObservedObject,
  objects: readonly ObservedObject[] = [],
  ctx: CapzHealthContext = {},
): HealthResult {
  switch (familyOf(o)) {
    case 'cluster':
      return clusterHealth(o, ctx);
    case 'machinePool':
      return machinePoolHealth(o, ctx);
    case 'asoManaged':
      return asoManagedHealth(o, objects, ctx);
    case 'legacyManaged':
      return legacyManagedHealth(o, ctx);
    case 'aso':
      return asoObjectHealth(o, {
        ...ctx,
        ownerFound: asoOwnerFound(o, objects),
      });
    default:
      return conditionsOf(o).length || isDeleting(o) || isObj(o.status)
        ? asoObjectHealth(o, ctx)
        : notObserved(o, ctx, 'status');
  }
}
