/** The names the legacy controllers write: annotations, finalizers, tags, labels, and the ASO objects' names. */
export const POLICY = 'serviceoperator.azure.com/reconcile-policy';
export const PRE_PAUSE =
  'sigs.k8s.io/cluster-api-provider-azure-pre-pause-reconcile-policy';
export const CREDENTIAL_FROM = 'serviceoperator.azure.com/credential-from';
export const AMCP_FINALIZER =
  'azuremanagedcontrolplane.infrastructure.cluster.x-k8s.io';
export const AMMP_FINALIZER = 'azurecluster.infrastructure.cluster.x-k8s.io';
export const OWNED_TAG = (cluster: string) =>
  `sigs.k8s.io_cluster-api-provider-azure_cluster_${cluster}`;
const ROLE_TAG = 'sigs.k8s.io_cluster-api-provider-azure_role';
/** CAPZ v1.26.0 azure/services/aso/tags.go line 34 `tagsLastAppliedAnnotation`. */
export const LAST_APPLIED_TAGS =
  'sigs.k8s.io/cluster-api-provider-azure-last-applied-tags';
/** CAPZ v1.26.0 api/v1beta1 `LabelAgentPoolMode`, set by the AzureManagedMachinePool defaulting webhook. */
export const AGENT_POOL_MODE_LABEL =
  'azuremanagedmachinepool.infrastructure.cluster.x-k8s.io/agentpoolmode';

/** The ASO kinds a legacy control plane controls, in CAPZ's service order (azuremanagedcontrolplane_reconciler.go lines 59–66). */
export type CpAsoKind =
  | 'ResourceGroup'
  | 'VirtualNetwork'
  | 'VirtualNetworksSubnet'
  | 'ManagedCluster';
export type LegacyAsoKind = CpAsoKind | 'ManagedClustersAgentPool';
export const CP_ASO_KINDS: CpAsoKind[] = [
  'ResourceGroup',
  'VirtualNetwork',
  'VirtualNetworksSubnet',
  'ManagedCluster',
];

/** azure.SubnetID (CAPZ v1.26.0 azure/defaults.go line 194): the ARM id CAPZ puts into each agent pool's vnetSubnetReference. */
export const subnetArmId = (
  sub: string,
  rg: string,
  vnet: string,
  subnet: string,
) =>
  `/subscriptions/${sub}/resourceGroups/${rg}/providers/Microsoft.Network/virtualNetworks/${vnet}/subnets/${subnet}`;

/** CAPZ's `infrav1.Build` for an owned resource of role common: the additional tags, then CAPZ's own. */
export function capzTags(
  cluster: string,
  name: string,
  additional: Record<string, string> = {},
): Record<string, string> {
  return {
    ...additional,
    [OWNED_TAG(cluster)]: 'owned',
    [ROLE_TAG]: 'common',
    Name: name,
  };
}

/** azure/defaults.go GetNormalizedKubernetesName: lowercase, other characters to '-', trimmed. */
export const normalize = (s: string) =>
  s
    .toLowerCase()
    .replace(/[^a-z0-9-]/g, '-')
    .replace(/^-+|-+$/g, '');
