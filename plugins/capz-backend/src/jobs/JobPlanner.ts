import { InputError, NotFoundError } from '@backstage/errors';
import {
  CLUSTER_NAME_LABEL,
  CREDENTIAL_FROM_ANNOTATION,
  FLUX_KUSTOMIZATION_NAME_LABEL,
  FLUX_KUSTOMIZATION_NAMESPACE_LABEL,
  clusterNotManagedCheck,
  groupNotManagedCheck,
  JOB_ANNOTATION,
  planAdoption,
  planApiVersionUpgrade,
  planMigration,
  requiredAccess,
  soleManagerCondition,
  type AzureClusterKey,
  type JobPlanResult,
  type JobRequest,
  type ObjectRef,
  type ObservedObject,
  type PreflightCheck,
  type StepPlan,
} from '@capz-backstage/plugin-capz-common';
import { aksOwners, describePlace, ownersOf } from '../cluster/owners';
import type { WatchCache } from '../cluster/WatchCache';
import { CLUSTER_KINDS, EVENT_KIND } from '../cluster/watchedKinds';
import type { ManagementClusterConfig } from '../config/managementClusters';
import type { JobClient } from '../cluster/clientViews';

/** The Azure side of adoption (AksDiscovery.listClusters, AksDiscovery.resourceGroup). */
export interface AksLister {
  listClusters(q: {
    managementCluster: string;
    namespace: string;
    credentialSecret: string;
  }): Promise<{
    subscriptionId: string;
    items: import('@capz-backstage/plugin-capz-common').DiscoveredAksCluster[];
  }>;
  /** The resource group's location and ARM tags; undefined when the group does not exist. */
  resourceGroup(q: {
    managementCluster: string;
    namespace: string;
    credentialSecret: string;
    subscriptionId: string;
    resourceGroup: string;
  }): Promise<{ location: string; tags: Record<string, string> } | undefined>;
}

/**
 * Builds a job's preflight and plan from what is there now: the watch cache for the cluster's objects, live reads
 * for what must be exact (does the target namespace exist, does the Secret, what may the backend do), ARM for
 * adoption. The planners themselves are pure (capz-common/jobs).
 */
export class JobPlanner {
  constructor(
    private readonly o: {
      managementClusters: ManagementClusterConfig[];
      cache: Pick<WatchCache, 'list'> & Partial<Pick<WatchCache, 'status'>>;
      client: (managementCluster: string) => Promise<JobClient>;
      aks?: AksLister;
    },
  ) {}

  async preview(request: JobRequest): Promise<JobPlanResult> {
    const mc = request.params.managementCluster;
    if (!this.o.managementClusters.some(c => c.name === mc))
      throw new NotFoundError(`No management cluster named "${mc}"`);
    const client = await this.o.client(mc);
    const access = await Promise.all(
      requiredAccess(request.type, request.params as never).map(async a => ({
        ...a,
        allowed: await client.canI(a),
      })),
    );
    const namespaceExists = async (name: string) =>
      !!(await client.get({ apiVersion: 'v1', kind: 'Namespace', name }));
    const secretExists = async (namespace: string, name: string | undefined) =>
      !!name &&
      !!(await client.get({
        apiVersion: 'v1',
        kind: 'Secret',
        namespace,
        name,
      }));

    switch (request.type) {
      case 'migrate': {
        const p = request.params;
        const objects = this.objectsIn(mc, p.namespace);
        const cluster = objects.find(
          o => o.kind === 'Cluster' && o.metadata?.name === p.name,
        );
        const credentialSecret = objects.find(
          o =>
            o.kind === 'ManagedCluster' &&
            o.metadata?.annotations?.[CREDENTIAL_FROM_ANNOTATION],
        )?.metadata?.annotations?.[CREDENTIAL_FROM_ANNOTATION];
        const planned = planMigration(p, {
          cluster,
          objects,
          targetNamespaceExists: await namespaceExists(p.targetNamespace),
          credentialSecretExists: await secretExists(
            p.namespace,
            this.credentialOf(objects, p.name) ?? credentialSecret,
          ),
          access,
          kustomizations: this.kustomizationsNamedBy(mc, objects),
        });
        // The pause step's live one-owner check, previewed on the watch cache: the old cluster's own groups are
        // disarmed by the migration; any other `manage` ResourceGroup for the group refuses its first write.
        const condition = soleManagerCondition(planned.plan);
        if (!condition) return planned;
        return {
          ...planned,
          preflight: [
            ...planned.preflight,
            this.clusterNotManagedElsewhere(condition, mc),
            this.groupNotDeletedElsewhere(
              condition,
              mc,
              'which the migration disarms first',
            ),
          ],
        };
      }
      case 'adopt': {
        const p = request.params;
        const nsExists = await namespaceExists(p.namespace);
        const hasSecret =
          nsExists && (await secretExists(p.namespace, p.credentialSecret));
        let aks;
        let group:
          | { location: string; tags: Record<string, string> }
          | undefined;
        if (hasSecret) {
          if (!this.o.aks)
            throw new InputError(
              'Azure discovery is not configured on this backend (capz.azureDiscovery)',
            );
          const found = await this.o.aks.listClusters({
            managementCluster: mc,
            namespace: p.namespace,
            credentialSecret: p.credentialSecret,
          });
          aks = found.items.find(
            c =>
              c.name.toLowerCase() === p.clusterName.toLowerCase() &&
              c.resourceGroup.toLowerCase() === p.resourceGroup.toLowerCase(),
          );
          if (aks) {
            // The ASO ResourceGroup is written with the group's own location, which may differ from the cluster's,
            // and its tags (ARM replaces them on ASO's PUT). A credential that may read the cluster but not its
            // group (a role scoped to the cluster) still gets a preview: location and tags stay unknown, the planner
            // warns, and AksDiscovery has logged ARM's answer.
            group = await this.o.aks
              .resourceGroup({
                managementCluster: mc,
                namespace: p.namespace,
                credentialSecret: p.credentialSecret,
                subscriptionId: aks.subscriptionId,
                resourceGroup: aks.resourceGroup,
              })
              .catch(() => undefined);
          }
        }
        const objects = nsExists ? this.objectsIn(mc, p.namespace) : [];
        const planned = planAdoption(p, {
          aks,
          resourceGroupLocation: group?.location,
          resourceGroupTags: group?.tags,
          namespaceExists: nsExists,
          credentialSecretExists: hasSecret,
          objects,
          access,
          kustomizations: this.kustomizationsNamedBy(mc, objects),
        });
        if (!aks) return planned;
        const preflight: PreflightCheck[] = [];
        for (const c of planned.preflight) {
          if (c.id !== 'not-managed') {
            preflight.push(c);
            continue;
          }
          preflight.push(
            this.notManagedAnywhere(aks),
            this.groupNotDeletedElsewhere(
              soleManagerCondition(planned.plan) ??
                this.adoptionCondition({
                  managementCluster: mc,
                  namespace: p.namespace,
                  azure: {
                    subscriptionId: p.subscriptionId,
                    resourceGroup: p.resourceGroup,
                    name: aks.name,
                  },
                }),
              mc,
              'which is reused',
            ),
          );
        }
        return { ...planned, preflight };
      }
      case 'upgrade-api-version': {
        const p = request.params;
        const cached = this.objectsIn(mc, p.namespace);
        // The cache keeps only who wrote an object at which version; rewriting managedFields needs them whole.
        const objects = await Promise.all(
          cached.map(async o =>
            o.kind?.startsWith('AzureASOManaged')
              ? ((await client.get({
                  apiVersion: `infrastructure.cluster.x-k8s.io/v1beta1`,
                  kind: o.kind!,
                  namespace: p.namespace,
                  name: o.metadata!.name!,
                })) as ObservedObject | undefined) ?? o
              : o,
          ),
        );
        const cluster = objects.find(
          o => o.kind === 'Cluster' && o.metadata?.name === p.name,
        );
        const clusterAtV1beta1 = await client
          .get({
            apiVersion: 'cluster.x-k8s.io/v1beta1',
            kind: 'Cluster',
            namespace: p.namespace,
            name: p.name,
          })
          .catch(() => undefined);
        return planApiVersionUpgrade(p, {
          cluster,
          clusterAtV1beta1: clusterAtV1beta1 as ObservedObject | undefined,
          objects,
          access,
        });
      }
      default:
        throw new InputError(
          `unknown job type ${(request as { type: string }).type}`,
        );
    }
  }

  /**
   * Adoption's "nothing manages it yet" over every configured management cluster's watch cache, not only the one
   * adopting: a ManagedCluster anywhere that points at the AKS cluster fails it, named
   * `<management cluster>/<namespace>/<name>`. A management cluster whose cache is not synced cannot tell: a warning
   * (the job's live one-owner check before its first write reads it again, and fails if it cannot).
   */
  private notManagedAnywhere(aks: {
    subscriptionId: string;
    resourceGroup: string;
    name: string;
  }): PreflightCheck {
    const names = this.o.managementClusters.map(c => c.name);
    const title = 'Nothing manages it yet';
    const owners = ownersOf(aks, aksOwners(this.o.cache, names), {
      strict: false,
    });
    if (owners.length) {
      const where = owners
        .map(
          o =>
            `ManagedCluster ${describePlace(o)}${
              o.cluster ? ` (Cluster ${o.cluster})` : ''
            }`,
        )
        .join(', ');
      return {
        id: 'not-managed',
        title,
        status: 'fail',
        message: `${where} already ${
          owners.length > 1 ? 'point' : 'points'
        } at AKS cluster ${aks.resourceGroup}/${aks.name}.`,
        fix: 'A cluster can be managed from one place only; use the existing Cluster (or remove the other ManagedCluster with reconcile-policy skip first).',
      };
    }
    const blind = names.filter(
      n => this.o.cache.status && !this.o.cache.status(n).synced,
    );
    if (blind.length) {
      return {
        id: 'not-managed',
        title,
        status: 'warn',
        message: `No ASO ManagedCluster on ${
          names.filter(n => !blind.includes(n)).join(', ') ||
          'any management cluster'
        } points at it, but ${blind.join(', ')} ${
          blind.length > 1 ? 'are' : 'is'
        } not read yet.`,
        fix: 'The job checks every management cluster live before its first write and stops if one cannot be read.',
      };
    }
    return {
      id: 'not-managed',
      title,
      status: 'pass',
      message: `No ASO ManagedCluster on ${
        names.length > 1
          ? `any of the ${names.length} management clusters (${names.join(
              ', ',
            )})`
          : names[0]
      } points at it.`,
    };
  }

  /**
   * The ManagedCluster half of the job's live one-owner check, for a migration's preview (capz-common
   * clusterNotManagedCheck): the owners on every configured management cluster's watch cache, matched as adoption's
   * "nothing manages it yet" matches them (`ownersOf`, not strict: it can only over-refuse).
   */
  private clusterNotManagedElsewhere(
    condition: { azure: AzureClusterKey; except: readonly ObjectRef[] },
    managementCluster: string,
  ): PreflightCheck {
    const names = this.o.managementClusters.map(c => c.name);
    return clusterNotManagedCheck({
      azure: condition.azure,
      except: condition.except,
      managementCluster,
      managementClusters: names,
      owners: ownersOf(condition.azure, aksOwners(this.o.cache, names), {
        strict: false,
      }),
      unread: names.filter(
        n => this.o.cache.status && !this.o.cache.status(n).synced,
      ),
      excepted: 'which the migration disarms first',
    });
  }

  /**
   * The resource-group half of the job's live one-owner check, on the watch cache of every configured management
   * cluster: the same rule and words as the refusal of the job's first write (capz-common groupNotManagedCheck), with
   * the same exceptions (the plan's own `sole-manager` condition). No Kubernetes call: the cache already holds every
   * ResourceGroup.
   */
  private groupNotDeletedElsewhere(
    condition: { azure: AzureClusterKey; except: readonly ObjectRef[] },
    managementCluster: string,
    excepted: string,
  ): PreflightCheck {
    const names = this.o.managementClusters.map(c => c.name);
    return groupNotManagedCheck({
      azure: condition.azure,
      except: condition.except,
      managementCluster,
      managementClusters: names,
      groups: names.flatMap(mc =>
        this.groupsOf(mc).map(object => ({
          managementCluster: mc,
          object: { ...object, kind: object.kind ?? 'ResourceGroup' },
        })),
      ),
      excepted,
    });
  }

  /**
   * Adoption's exception when no plan could be built (another check failed): a ResourceGroup object for this group in
   * the namespace, which adoption reuses (capz-common adoptionPreflight).
   */
  private adoptionCondition(o: {
    managementCluster: string;
    namespace: string;
    azure: AzureClusterKey;
  }): { azure: AzureClusterKey; except: ObjectRef[] } {
    const reused = this.groupsOf(o.managementCluster).find(
      g =>
        g.metadata?.namespace === o.namespace &&
        (
          ((g.spec as { azureName?: string } | undefined)?.azureName ||
            g.metadata?.name) ??
          ''
        ).toLowerCase() === o.azure.resourceGroup.toLowerCase(),
    );
    return {
      azure: o.azure,
      except: reused
        ? [
            {
              apiVersion: reused.apiVersion ?? '',
              kind: 'ResourceGroup',
              namespace: o.namespace,
              name: reused.metadata!.name!,
            },
          ]
        : [],
    };
  }

  private groupsOf(mc: string): ObservedObject[] {
    return this.o.cache.list(
      mc,
      'ResourceGroup',
    ) as unknown as ObservedObject[];
  }

  /** The Secret the old ManagedCluster of this cluster reads its credential from. */
  private credentialOf(
    objects: ObservedObject[],
    clusterName: string,
  ): string | undefined {
    const mc = objects.find(
      o =>
        o.kind === 'ManagedCluster' &&
        o.metadata?.labels?.[CLUSTER_NAME_LABEL] === clusterName,
    );
    return mc?.metadata?.annotations?.[CREDENTIAL_FROM_ANNOTATION];
  }

  /** The cached Flux Kustomizations the objects' labels name (a few lists of one namespace each). */
  private kustomizationsNamedBy(
    mc: string,
    objects: readonly ObservedObject[],
  ): ObservedObject[] {
    const named = new Set<string>();
    for (const o of objects) {
      const l = o.metadata?.labels;
      const name = l?.[FLUX_KUSTOMIZATION_NAME_LABEL];
      const ns = l?.[FLUX_KUSTOMIZATION_NAMESPACE_LABEL];
      if (name && ns) named.add(`${ns}/${name}`);
    }
    const namespaces = new Set([...named].map(k => k.split('/')[0]));
    return [...namespaces].flatMap(ns =>
      (
        this.o.cache.list(
          mc,
          'Kustomization',
          ns,
        ) as unknown as ObservedObject[]
      ).filter(k => named.has(`${ns}/${k.metadata?.name}`)),
    );
  }

  private objectsIn(mc: string, namespace: string): ObservedObject[] {
    // The clusters' objects and Events; Flux's objects are no part of a plan's snapshot.
    return [...CLUSTER_KINDS, EVENT_KIND].flatMap(
      k =>
        this.o.cache.list(mc, k.name, namespace) as unknown as ObservedObject[],
    );
  }
}

/** Puts the job's id into the plan's objects (the planners write a placeholder; see capz-common/jobs). */
export function bindPlanToJob(plan: StepPlan[], jobId: string): StepPlan[] {
  return JSON.parse(
    JSON.stringify(plan).split('${JOB_ID}').join(jobId),
  ) as StepPlan[];
}

export { JOB_ANNOTATION };
