/**
 * The resource-group half of the `sole-manager` condition (one owner per AKS cluster), as a pure rule over
 * ResourceGroup objects, so that the job's live check right before its first write (backend StepRunner, objects read
 * from every management cluster's API server) and the adoption preview (the same objects from the watch cache) give
 * the same refusal in the same words.
 */
import type { ManagedFromPlace } from '../api';
import type { ObservedObject } from '../objects/types';
import { JOB_ANNOTATION, RECONCILE_POLICY_ANNOTATION } from '../vocabulary';
import type {
  AzureClusterKey,
  ObjectRef,
  PlannedCondition,
  PreflightCheck,
  StepPlan,
} from './types';

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

/** The plan's live one-owner condition (the job's first write), when the plan has one. @public */
export function soleManagerCondition(
  plan: readonly StepPlan[],
): Extract<PlannedCondition, { type: 'sole-manager' }> | undefined {
  return plan
    .flatMap(s => s.preconditions)
    .find(
      (x): x is Extract<PlannedCondition, { type: 'sole-manager' }> =>
        x.type === 'sole-manager',
    );
}

/**
 * The preview's `group-not-managed` check: {@link groupDeleters} over the ResourceGroup objects of every management
 * cluster (the watch cache's), with the plan's own exceptions, in the words of the refusal of the job's first write.
 * `excepted` says why the excepted groups do not count (adoption reuses one; a migration disarms the old ones first).
 * @public
 */
export function groupNotManagedCheck(o: {
  azure: AzureClusterKey;
  except: readonly ObjectRef[];
  managementCluster: string;
  managementClusters: readonly string[];
  groups: readonly ObjectOnCluster[];
  excepted: string;
}): PreflightCheck {
  const found = groupDeleters(o.azure, o.groups, {
    managementCluster: o.managementCluster,
    except: o.except,
  });
  const title = 'No other ResourceGroup object can delete its resource group';
  if (found.length)
    return {
      id: 'group-not-managed',
      title,
      status: 'fail',
      message: `The job's first write would be refused: ${found.join('; ')}.`,
      fix: `An Azure resource group is managed from one place only. If that object should not delete ${o.azure.resourceGroup}, set serviceoperator.azure.com/reconcile-policy: skip (or detach-on-delete) on it; or adopt into the namespace of that object, where it is reused (on the same management cluster).`,
    };
  const exceptedGroups = o.except
    .filter(x => x.kind === 'ResourceGroup')
    .map(x => x.name);
  return {
    id: 'group-not-managed',
    title,
    status: 'pass',
    message: `No ResourceGroup object with reconcile-policy manage on ${o.managementClusters.join(
      ', ',
    )} points at ${o.azure.resourceGroup}${
      exceptedGroups.length
        ? ` besides ${exceptedGroups.join(', ')}, ${o.excepted}`
        : ''
    }.`,
  };
}

/**
 * The preview's `not-managed-elsewhere` check, the ManagedCluster half of the `sole-manager` condition: `owners` (the
 * ManagedClusters of every management cluster that point at the AKS cluster, from the watch cache) besides the plan's
 * own exceptions (a migration's old objects, which it disarms first) refuse the job's first write, as the live check
 * does. `unread` are management clusters whose cache is not synced yet: a warning, since the live check reads them.
 * @public
 */
export function clusterNotManagedCheck(o: {
  azure: AzureClusterKey;
  except: readonly ObjectRef[];
  managementCluster: string;
  managementClusters: readonly string[];
  owners: readonly ManagedFromPlace[];
  unread: readonly string[];
  excepted: string;
}): PreflightCheck {
  const { azure } = o;
  const title = 'Nothing else manages the AKS cluster';
  const place = (x: ManagedFromPlace) =>
    `${x.managementCluster}/${x.namespace}/${x.name}`;
  const others = o.owners.filter(
    x =>
      !(
        x.managementCluster === o.managementCluster &&
        o.except.some(
          r =>
            r.kind === 'ManagedCluster' &&
            r.namespace === x.namespace &&
            r.name === x.name,
        )
      ),
  );
  if (others.length)
    return {
      id: 'not-managed-elsewhere',
      title,
      status: 'fail',
      message: `The job's first write would be refused: ${others
        .map(
          x =>
            `ManagedCluster ${place(x)}${
              x.cluster ? ` (Cluster ${x.cluster})` : ''
            } already manages AKS cluster ${azure.resourceGroup}/${azure.name}`,
        )
        .join('; ')}.`,
      fix: 'An AKS cluster is managed from one place only: delete the other ManagedCluster with reconcile-policy skip first (Azure is then left as it is), or move that one instead.',
    };
  if (o.unread.length)
    return {
      id: 'not-managed-elsewhere',
      title,
      status: 'warn',
      message: `No other ManagedCluster points at it on ${
        o.managementClusters.filter(n => !o.unread.includes(n)).join(', ') ||
        'any management cluster'
      }, but ${o.unread.join(', ')} ${
        o.unread.length > 1 ? 'are' : 'is'
      } not read yet.`,
      fix: 'The job checks every management cluster live before its first write and stops if one cannot be read.',
    };
  return {
    id: 'not-managed-elsewhere',
    title,
    status: 'pass',
    message: `No ManagedCluster on ${o.managementClusters.join(
      ', ',
    )} points at AKS cluster ${azure.resourceGroup}/${azure.name}${
      o.except.some(x => x.kind === 'ManagedCluster')
        ? ` besides ${o.except
            .filter(x => x.kind === 'ManagedCluster')
            .map(x => x.name)
            .join(', ')}, ${o.excepted}`
        : ''
    }.`,
  };
}
