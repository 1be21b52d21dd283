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
 * What the read path needs (docs/architecture.md#flow-watch-cache): CAPI, the ASO-managed kinds (v1beta1, else the
 * deprecated v1alpha1 on older CAPZ), the legacy AzureManaged* kinds, the ASO objects (the legacy control plane's VNet and subnet included), and core Events. Secrets are not
 * cached: their values must never reach the browser, and the jobs read the ones they copy when they need them.
 */
export const WATCHED_KINDS: WatchedKind[] = [
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
  { name: 'Event', group: '', versions: ['v1'], plural: 'events' },
];
