import { kinds as capzKinds } from '@capz-backstage/plugin-capz-common';

/** A kind the backend lists and watches; `versions` in order of preference (the first the server serves wins). */
export interface WatchedKind {
  name: string;
  group: string;
  versions: string[];
  plural: string;
}

const w = (
  name: keyof typeof capzKinds,
  extraVersions: string[] = [],
): WatchedKind => ({
  name,
  group: capzKinds[name].group,
  versions: [capzKinds[name].version, ...extraVersions],
  plural: capzKinds[name].plural,
});

/**
 * The kinds a cluster's objects are of (docs/architecture.md#flow-watch-cache): CAPI, the ASO-managed kinds (v1beta1,
 * else the deprecated v1alpha1 on older CAPZ), the legacy AzureManaged* kinds and the ASO objects (the legacy control
 * plane's VNet and subnet included). Its trees, summaries, history, jobs and day-2 actions read these, per namespace.
 */
export const CLUSTER_KINDS: WatchedKind[] = [
  w('Cluster'),
  w('MachinePool'),
  w('AzureASOManagedCluster', ['v1alpha1']),
  w('AzureASOManagedControlPlane', ['v1alpha1']),
  w('AzureASOManagedMachinePool', ['v1alpha1']),
  w('AzureManagedCluster'),
  w('AzureManagedControlPlane'),
  w('AzureManagedMachinePool'),
  w('ResourceGroup'),
  w('ManagedCluster'),
  w('ManagedClustersAgentPool'),
  // Only the legacy control plane's VNet and subnet (docs/real-controllers.md finding 10); a management cluster
  // without ASO's network CRDs serves neither, and ClusterWatch then skips them (servedVersion: 404, synced).
  w('VirtualNetwork'),
  w('VirtualNetworksSubnet'),
];

/**
 * Flux's Kustomization and GitRepository: where a cluster applied from Git comes from and whether Flux is in sync
 * (docs/flux-facts.md#flux-source-ref, docs/flux-facts.md#flux-status), looked up by namespace and name, never part
 * of a cluster's tree, history or jobs. A management cluster without Flux serves neither, and ClusterWatch skips them
 * as it skips any kind the server does not serve.
 */
export const FLUX_KINDS: WatchedKind[] = [
  w('Kustomization'),
  w('GitRepository'),
];

/** Core Events, about the clusters' objects (the timeline). */
export const EVENT_KIND: WatchedKind = {
  name: 'Event',
  group: '',
  versions: ['v1'],
  plural: 'events',
};

/**
 * What the read path lists and watches: the clusters' kinds, Flux's two and Events. Secrets are not cached: their
 * values must never reach the browser, and the jobs read the ones they copy when they need them.
 */
export const WATCHED_KINDS: WatchedKind[] = [
  ...CLUSTER_KINDS,
  ...FLUX_KINDS,
  EVENT_KIND,
];
