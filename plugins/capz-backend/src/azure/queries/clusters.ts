/** Which AKS clusters a credential sees (adoption's picker), and whether one with its pools exists (the jobs' checks). */
import type { ManagedCluster } from '@azure/arm-containerservice';
import type {
  DiscoveredAksClustersResponse,
  ObservedObject,
} from '@capz-backstage/plugin-capz-common';
import type { ArmAccess } from '../arm/ArmAccess';
import { asoTargets, findManagedBy, toDiscoveredCluster } from '../mapping';

/** Where the ASO objects of each management cluster point in Azure, from the watch cache. */
export interface AsoTargetSources {
  /** The ASO ManagedCluster objects of the management cluster's watch cache (all namespaces). */
  managedClusters: (managementCluster: string) => ObservedObject[];
  /** Its ASO ResourceGroup objects, to resolve a ManagedCluster's owner group by name (optional). */
  resourceGroups?: (managementCluster: string) => ObservedObject[];
  /** Every configured management cluster: an AKS cluster managed from any of them is marked (one owner per cluster). */
  managementClusters?: () => string[];
}

/** GET /azure/clusters: every AKS cluster of the Secret's subscription, marked when an ASO object already owns it. */
export async function listClusters(
  arm: ArmAccess,
  sources: AsoTargetSources,
  q: { managementCluster: string; namespace: string; credentialSecret: string },
): Promise<DiscoveredAksClustersResponse> {
  const resolved = await arm.resolve(
    q.managementCluster,
    q.namespace,
    q.credentialSecret,
  );
  const { credential, client } = resolved;
  const what = `listing AKS clusters in subscription ${
    credential.subscriptionId
  } with ${arm.describe(q.namespace, q.credentialSecret, credential)}`;
  const found: ManagedCluster[] = [];
  try {
    for await (const mc of client.managedClusters.list()) found.push(mc);
  } catch (e) {
    throw await arm.withVisibleSubscriptions(arm.fail(e, what), resolved);
  }
  // This management cluster first, so that a cluster managed here is named without a management cluster.
  const others = (sources.managementClusters?.() ?? []).filter(
    m => m !== q.managementCluster,
  );
  const targets = [q.managementCluster, ...others].map(m => ({
    managementCluster: m,
    targets: asoTargets(
      sources.managedClusters(m),
      sources.resourceGroups?.(m) ?? [],
    ),
  }));
  const items = found
    .map(mc => {
      const d = toDiscoveredCluster(mc, credential.subscriptionId);
      for (const t of targets) {
        const managedBy = findManagedBy(d, t.targets);
        if (managedBy)
          return {
            ...d,
            managedBy:
              t.managementCluster === q.managementCluster
                ? managedBy
                : { ...managedBy, managementCluster: t.managementCluster },
          };
      }
      return d;
    })
    .sort(
      (a, b) =>
        a.resourceGroup.localeCompare(b.resourceGroup) ||
        a.name.localeCompare(b.name),
    );
  return { subscriptionId: credential.subscriptionId, items };
}

export interface ClusterExistsQuery {
  managementCluster: string;
  credential: { namespace: string; name: string };
  subscriptionId: string;
  resourceGroup: string;
  name: string;
  agentPools?: string[];
}

export interface ClusterExistsResult {
  exists: boolean;
  /** Requested pools the cluster does not have (all of them when the cluster does not exist). */
  missingPools: string[];
  /** What ARM showed, in words. */
  observed: string;
}

const NOT_FOUND_CODES = new Set([
  'ResourceNotFound',
  'ResourceGroupNotFound',
  'NotFound',
]);

/**
 * Whether the AKS cluster (and these pools) exists, read with the job's credential Secret in the given subscription. A
 * missing cluster or group is an answer (exists: false); any other failure throws.
 */
export async function clusterExists(
  arm: ArmAccess,
  q: ClusterExistsQuery,
): Promise<ClusterExistsResult> {
  const { credential, client } = await arm.resolve(
    q.managementCluster,
    q.credential.namespace,
    q.credential.name,
    q.subscriptionId,
  );
  const where = `${q.resourceGroup}/${q.name} in subscription ${q.subscriptionId}`;
  let mc: ManagedCluster;
  try {
    mc = await client.managedClusters.get(q.resourceGroup, q.name);
  } catch (e) {
    const err = e as { statusCode?: number; code?: string };
    if (err.statusCode === 404 && NOT_FOUND_CODES.has(err.code ?? '')) {
      return {
        exists: false,
        missingPools: [...(q.agentPools ?? [])],
        observed: `AKS cluster ${where} does not exist (ARM: ${err.code})`,
      };
    }
    throw arm.fail(
      e,
      `reading AKS cluster ${where} with ${arm.describe(
        q.credential.namespace,
        q.credential.name,
        credential,
      )}`,
    );
  }
  const pools = (mc.agentPoolProfiles ?? []).map(p => p.name);
  const missingPools = (q.agentPools ?? []).filter(
    p => !pools.some(x => x.toLowerCase() === p.toLowerCase()),
  );
  const state = mc.provisioningState ? ` (${mc.provisioningState})` : '';
  const poolText = pools.length ? `pools ${pools.join(', ')}` : 'no pools';
  return {
    exists: true,
    missingPools,
    observed: missingPools.length
      ? `AKS cluster ${where} exists${state} with ${poolText}; missing pools: ${missingPools.join(
          ', ',
        )}`
      : `AKS cluster ${where} exists${state} with ${poolText}`,
  };
}
