/** The kinds the simulated controllers read and write, at the versions the local management cluster stores. */
export interface Kind {
  group: string;
  version: string;
  kind: string;
  plural: string;
  namespaced: boolean;
}

const k = (
  group: string,
  version: string,
  kind: string,
  plural = `${kind.toLowerCase()}s`,
  namespaced = true,
): Kind => ({
  group,
  version,
  kind,
  plural,
  namespaced,
});

const CAPZ = 'infrastructure.cluster.x-k8s.io';

export const K = {
  Namespace: k('', 'v1', 'Namespace', 'namespaces', false),
  Secret: k('', 'v1', 'Secret'),
  Event: k('', 'v1', 'Event'),
  Cluster: k('cluster.x-k8s.io', 'v1beta2', 'Cluster'),
  MachinePool: k('cluster.x-k8s.io', 'v1beta2', 'MachinePool'),
  AzureASOManagedCluster: k(CAPZ, 'v1beta1', 'AzureASOManagedCluster'),
  AzureASOManagedControlPlane: k(
    CAPZ,
    'v1beta1',
    'AzureASOManagedControlPlane',
  ),
  AzureASOManagedMachinePool: k(CAPZ, 'v1beta1', 'AzureASOManagedMachinePool'),
  AzureManagedCluster: k(CAPZ, 'v1beta1', 'AzureManagedCluster'),
  AzureManagedControlPlane: k(CAPZ, 'v1beta1', 'AzureManagedControlPlane'),
  AzureManagedMachinePool: k(CAPZ, 'v1beta1', 'AzureManagedMachinePool'),
  ResourceGroup: k('resources.azure.com', 'v1api20200601', 'ResourceGroup'),
  ManagedCluster: k(
    'containerservice.azure.com',
    'v1api20240901',
    'ManagedCluster',
  ),
  ManagedClustersAgentPool: k(
    'containerservice.azure.com',
    'v1api20240901',
    'ManagedClustersAgentPool',
  ),
  // The legacy AzureManagedControlPlane's VNet and subnet (CAPZ v1.26.0 azure/services/virtualnetworks/spec.go,
  // azure/services/subnets/spec.go: network.azure.com v1api20201101).
  VirtualNetwork: k('network.azure.com', 'v1api20201101', 'VirtualNetwork'),
  VirtualNetworksSubnet: k(
    'network.azure.com',
    'v1api20201101',
    'VirtualNetworksSubnet',
  ),
} as const;

export type KindName = keyof typeof K;

export const apiVersionOf = (kind: Kind) =>
  kind.group ? `${kind.group}/${kind.version}` : kind.version;

export function pathOf(
  kind: Kind,
  ns?: string,
  name?: string,
  sub?: string,
): string {
  const base = kind.group
    ? `/apis/${kind.group}/${kind.version}`
    : `/api/${kind.version}`;
  const nsPart = kind.namespaced && ns ? `/namespaces/${ns}` : '';
  return `${base}${nsPart}/${kind.plural}${name ? `/${name}` : ''}${
    sub ? `/${sub}` : ''
  }`;
}
