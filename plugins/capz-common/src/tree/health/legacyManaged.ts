/** Health of the deprecated AzureManaged* kinds (docs/capz-aso-facts.md#legacy-api). */
import { findCondition, str } from '../../objects/read';
import type { ObservedObject } from '../../objects/types';
import type { HealthResult } from '../types';
import {
  type CapzHealthContext,
  compact,
  deletingOrPaused,
  describe,
  fromCondition,
  notObserved,
  notTrue,
} from './verdict';

/**
 * Health of a legacy AzureManagedCluster, AzureManagedControlPlane or AzureManagedMachinePool: v1beta1-style
 * `status.conditions[type=Ready]` with severity (docs/capz-aso-facts.md#legacy-api), plus `status.ready`:
 * - deleting, paused as for the ASO-managed kinds;
 * - `status.errorReason`/`errorMessage` (terminal, AzureManagedMachinePool) → `failed`;
 * - Ready True → `healthy` (`progressing` `NotReady` while `status.ready` is still false);
 * - Ready not True → by severity, as for ASO conditions (the legacy controllers copy the ASO reason);
 * - no Ready condition (AzureManagedCluster has none) → `status.ready`; no status → as for a new object.
 * @public
 */
export function legacyManagedHealth(
  o: ObservedObject,
  ctx: CapzHealthContext = {},
): HealthResult {
  const ready = findCondition(o, 'Ready');
  const stopped = deletingOrPaused(o, ctx, ready);
  if (stopped) return stopped;
  const errorReason =
    str(o.status?.errorReason) ?? str(o.status?.failureReason);
  if (errorReason) {
    return compact({
      health: 'failed',
      reason: errorReason,
      message: str(o.status?.errorMessage) ?? str(o.status?.failureMessage),
      severity: 'Error',
    });
  }
  if (ready) {
    if (ready.status === 'True') {
      if (o.status?.ready === false) {
        return {
          health: 'progressing',
          reason: 'NotReady',
          message: `${describe(o)} reports Ready but status.ready is false`,
        };
      }
      return fromCondition('healthy', ready);
    }
    return fromCondition(notTrue(ready), ready);
  }
  const status = o.status;
  if (!status || !Object.keys(status).length)
    return notObserved(o, ctx, 'status');
  if (status.ready === true) return { health: 'healthy' };
  return {
    health: 'progressing',
    reason: 'NotReady',
    message: `${describe(o)} is not ready yet`,
  };
}
