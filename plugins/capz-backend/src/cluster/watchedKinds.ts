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
 * deprecated v1alpha1 on older CAPZ), the legacy AzureManaged* kinds, the ASO objects, and core Events. Secrets are not
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
  { name: 'Event', group: '', versions: ['v1'], plural: 'events' },
];
