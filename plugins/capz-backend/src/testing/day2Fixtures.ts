/**
 * What the day-2 tests against the simulated managers (day2.integration.test.ts) and against the real ones
 * (day2.real-controllers.test.ts) share: a cluster as a user writes it, and the delete's end state in Kubernetes and
 * in the simulated Azure.
 */
import {
  generateAksAsoClusterManifests,
  RECONCILE_POLICY_ANNOTATION,
  type DeletePreview,
  type ObservedObject,
} from '@capz-backstage/plugin-capz-common';
import type { AzureState } from './jobFixtures';
import type { JobsWorld } from './jobsWorld';
import { createObjects, until } from './realCluster';

/** A cluster as a user would have written it (client-side apply): pools system (1) and user; `rgPolicy` on its group. */
export async function createDay2Cluster(
  w: JobsWorld,
  o: {
    namespace: string;
    name: string;
    kubernetesVersion: string;
    userReplicas: number;
    rgPolicy?: string;
    /** The Cluster's capz.io/owner (a catalog entity ref); the default owner without it. */
    owner?: string;
  },
): Promise<void> {
  const objects = generateAksAsoClusterManifests({
    name: o.name,
    namespace: o.namespace,
    location: 'westeurope',
    kubernetesVersion: o.kubernetesVersion,
    credentialSecretName: 'aso-credential',
    owner: o.owner,
    pools: [
      {
        name: 'system',
        mode: 'System',
        vmSize: 'Standard_D2s_v3',
        replicas: 1,
      },
      {
        name: 'user',
        mode: 'User',
        vmSize: 'Standard_D2s_v3',
        replicas: o.userReplicas,
      },
    ],
  });
  if (o.rgPolicy) {
    const infra = objects.find(x => x.kind === 'AzureASOManagedCluster')!;
    const rg = (infra.spec!.resources as ObservedObject[])[0];
    rg.metadata!.annotations = {
      ...rg.metadata!.annotations,
      [RECONCILE_POLICY_ANNOTATION]: o.rgPolicy,
    };
  }
  await createObjects(
    w.info,
    o.namespace,
    objects,
    'kubectl-client-side-apply',
  );
}

/** The delete preview's Azure deletions counted as the simulated Azure counts them. */
export const deletesByType = (p: DeletePreview['deletes']) => {
  const count = (suffix: string) =>
    p.filter(x => x.azureType.endsWith(suffix)).length;
  return {
    resourceGroups: count('/resourceGroups'),
    managedClusters: count('/managedClusters'),
    agentPools: count('/agentPools'),
  };
};

/** True once the Cluster and the ASO objects named after it are gone from the namespace, else what is left. */
export async function clusterObjectsGone(
  w: JobsWorld,
  namespace: string,
  name: string,
): Promise<true | string> {
  const left = (
    await Promise.all(
      (
        [
          'Cluster',
          'ResourceGroup',
          'ManagedCluster',
          'ManagedClustersAgentPool',
        ] as const
      ).map(k => w.c.list(k, namespace)),
    )
  )
    .flat()
    .filter(
      o => o.metadata.name === name || o.metadata.name.startsWith(`${name}-`),
    );
  return left.length
    ? `left: ${left.map(o => `${o.kind}/${o.metadata.name}`).join(', ')}`
    : true;
}

/**
 * What the simulated Azure deleted since `before`, once its counters have not moved for `stableMs` (the simulator
 * persists its state 200 ms after a change).
 */
export async function azureDeletedSince(
  w: JobsWorld,
  before: AzureState['counters']['deleted'],
  stableMs: number,
  timeoutMs: number,
): Promise<Record<string, number>> {
  let last = '';
  let stableSince = Date.now();
  await until(
    'the simulated Azure to settle',
    () => {
      const now = JSON.stringify(w.azure().counters);
      if (now !== last) {
        last = now;
        stableSince = Date.now();
      }
      return Date.now() - stableSince > stableMs;
    },
    timeoutMs,
  );
  const after = w.azure().counters.deleted;
  return Object.fromEntries(
    Object.entries(after).map(([k, v]) => [
      k,
      v - before[k as keyof typeof before],
    ]),
  );
}
