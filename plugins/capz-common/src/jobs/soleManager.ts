/**
 * The resource-group half of the `sole-manager` condition (one owner per AKS cluster, issue 16), as a pure rule over
 * ResourceGroup objects, so that the job's live check right before its first write (backend StepRunner, objects read
 * from every management cluster's API server) and the adoption preview (the same objects from the watch cache) give
 * the same refusal in the same words.
 */
import type { ObservedObject } from '../tree/types';
import { RECONCILE_POLICY_ANNOTATION } from '../tree/facts';
import { JOB_ANNOTATION, type AzureClusterKey, type ObjectRef } from './types';

/** A ResourceGroup object and the management cluster it is on. @public */
export interface ObjectOnCluster {
  managementCluster: string;
  object: ObservedObject;
}

const lower = (v: unknown) =>
  typeof v === 'string' ? v.toLowerCase() : undefined;

/**
 * Every ResourceGroup object that would delete the AKS cluster's resource group: its reconcile policy lets ASO delete
 * the group (`manage`, which is also ASO's default when the annotation is absent; `skip` and `detach-on-delete` do not,
 * docs/capz-aso-facts.md#reconcile-policy) and it points at the group: by the ARM id ASO recorded (`status.id`,
 * subscription included), else by its Azure name (`spec.azureName`, else its name) in any subscription, which can only
 * over-refuse. Not counted: the job's own objects (`capz.io/job` = `jobId`) and, on the job's own management cluster,
 * the objects of `except` (a ResourceGroup object the job reuses). One sentence per object, naming it as
 * `ResourceGroup <management cluster>/<namespace>/<name>`.
 * @public
 */
export function groupDeleters(
  azure: AzureClusterKey,
  groups: readonly ObjectOnCluster[],
  o: {
    managementCluster: string;
    except: readonly ObjectRef[];
    jobId?: string;
  },
): string[] {
  const groupId =
    `/subscriptions/${azure.subscriptionId}/resourcegroups/${azure.resourceGroup}`.toLowerCase();
  const found: string[] = [];
  for (const { managementCluster, object: g } of groups) {
    const meta = g.metadata ?? {};
    if (o.jobId && meta.annotations?.[JOB_ANNOTATION] === o.jobId) continue;
    if (
      managementCluster === o.managementCluster &&
      o.except.some(
        r =>
          r.kind === 'ResourceGroup' &&
          r.namespace === meta.namespace &&
          r.name === meta.name,
      )
    )
      continue;
    const policy = meta.annotations?.[RECONCILE_POLICY_ANNOTATION];
    if (policy === 'skip' || policy === 'detach-on-delete') continue;
    const id = lower((g.status as { id?: unknown } | undefined)?.id);
    const azureName =
      (g.spec as { azureName?: string } | undefined)?.azureName || meta.name;
    const points = id
      ? id === groupId
      : lower(azureName) === azure.resourceGroup.toLowerCase();
    if (points)
      found.push(
        `ResourceGroup ${managementCluster}/${meta.namespace}/${meta.name} (reconcile-policy manage) would delete its resource group ${azure.resourceGroup}`,
      );
  }
  return found;
}
