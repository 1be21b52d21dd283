/** The catalogue of ASO kinds the backend watches: the tree resolves and judges only these. */
import { kinds } from '../../kinds';

/** The ASO kinds the backend watches, by kind, with their API group (the tree resolves only these). @public */
export const WATCHED_ASO_KINDS: Readonly<Record<string, string>> = {
  ResourceGroup: kinds.ResourceGroup.group,
  // In the legacy control plane's service order (CAPZ v1.26.0 controllers/azuremanagedcontrolplane_reconciler.go
  // lines 59-62: groups, virtualnetworks, subnets, managedclusters), which the tree lists them in.
  VirtualNetwork: kinds.VirtualNetwork.group,
  VirtualNetworksSubnet: kinds.VirtualNetworksSubnet.group,
  ManagedCluster: kinds.ManagedCluster.group,
  ManagedClustersAgentPool: kinds.ManagedClustersAgentPool.group,
};

/** The API group of a watched ASO kind, or undefined (own properties only: kinds come from untrusted JSON). @public */
export function watchedAsoGroup(kind: string): string | undefined {
  return Object.prototype.hasOwnProperty.call(WATCHED_ASO_KINDS, kind)
    ? WATCHED_ASO_KINDS[kind]
    : undefined;
}
