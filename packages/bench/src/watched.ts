import { K } from '@internal/capz-sim';

/**
 * Every kind the CAPZ backend lists and watches, at the version it prefers (mirrors
 * plugins/capz-backend/src/cluster/watchedKinds.ts, which cannot be imported outside the Backstage build; the run
 * compares this list with the kinds the backend reports served and warns on a difference). Flux's Kustomization and
 * GitRepository are left out: the bench's management cluster has no Flux, and the backend skips kinds not served.
 */
export type WatchedKind = (typeof K)[keyof typeof K];

export const WATCHED: WatchedKind[] = [
  K.Cluster,
  K.MachinePool,
  K.AzureASOManagedCluster,
  K.AzureASOManagedControlPlane,
  K.AzureASOManagedMachinePool,
  K.AzureManagedCluster,
  K.AzureManagedControlPlane,
  K.AzureManagedMachinePool,
  K.ResourceGroup,
  K.ManagedCluster,
  K.ManagedClustersAgentPool,
  K.VirtualNetwork,
  K.VirtualNetworksSubnet,
  K.Event,
];

export const listPath = (k: WatchedKind) =>
  k.group
    ? `/apis/${k.group}/${k.version}/${k.plural}`
    : `/api/${k.version}/${k.plural}`;
