/**
 * Translations between ASO objects (field names follow the ARM wire JSON, docs/capz-aso-facts.md#adoption-manifest) and
 * the simulated Azure model, and the `status` ASO writes from an Azure GET (fields as the v1api20240901 / v1api20200601
 * CRDs define them: the agent pool's ARM type is `type`, its VMSS kind `properties_type`; pool fields
 * `availabilityZones`, `maxPods`, `nodeLabels`, `nodeTaints`, `osDiskSizeGB`, `osSKU`, `osType`, `tags` as in ASO's
 * v2/api/containerservice/v1api20240901 ManagedClusterAgentPoolProfile(_STATUS) and ManagedClustersAgentPool). ASO
 * sends its spec as the PUT body, so whatever the spec leaves out is left out of the PUT (and the model applies ARM's
 * PUT rules to it). Status fields Azure leaves unset are left out, as Go's omitempty does.
 */
import type {
  AgentPool,
  AgentPoolSpec,
  ManagedCluster,
  ManagedClusterSpec,
  ResourceGroup,
  VirtualNetwork,
} from '../azure/model.ts';
import { subnetToWire, vnetToWire } from '../arm/network.ts';

const armId = (sub: string, rg: string, rest = '') =>
  `/subscriptions/${sub}/resourceGroups/${rg}${rest}`;

export function clusterSpecFromAso(spec: any): ManagedClusterSpec {
  return {
    location: spec.location,
    dnsPrefix: spec.dnsPrefix,
    kubernetesVersion: spec.kubernetesVersion,
    enableRBAC: spec.enableRBAC,
    disableLocalAccounts: spec.disableLocalAccounts,
    aadProfile: spec.aadProfile,
    networkProfile: spec.networkProfile,
    identity: spec.identity,
    tags: spec.tags,
    // AKS's auto-upgrade channel travels in the PUT as `properties.autoUpgradeProfile` (the model keeps it verbatim).
    ...(spec.autoUpgradeProfile
      ? {
          extra: {
            properties: {
              autoUpgradeProfile: structuredClone(spec.autoUpgradeProfile),
            },
          },
        }
      : {}),
    agentPoolProfiles: (spec.agentPoolProfiles ?? []).map((p: any) => ({
      name: p.name,
      ...poolSpecFromAso(p),
    })),
  };
}

export function poolSpecFromAso(spec: any): AgentPoolSpec {
  return {
    count: spec.count,
    vmSize: spec.vmSize,
    mode: spec.mode,
    osType: spec.osType,
    osSKU: spec.osSKU,
    type: spec.type,
    orchestratorVersion: spec.orchestratorVersion,
    enableAutoScaling: spec.enableAutoScaling,
    minCount: spec.minCount,
    maxCount: spec.maxCount,
    availabilityZones: spec.availabilityZones,
    maxPods: spec.maxPods,
    osDiskSizeGB: spec.osDiskSizeGB,
    nodeLabels: spec.nodeLabels,
    nodeTaints: spec.nodeTaints,
    tags: spec.tags,
  };
}

/** A map or list Azure holds, or nothing when it is empty (ASO's status types are omitempty). */
const some = <T extends object>(v: T): T | undefined =>
  Object.keys(v).length ? structuredClone(v) : undefined;

export function resourceGroupStatus(rg: ResourceGroup) {
  return {
    id: `/subscriptions/${rg.subscriptionId}/resourceGroups/${rg.name}`,
    name: rg.name,
    location: rg.location,
    tags: some(rg.tags),
    type: 'Microsoft.Resources/resourceGroups',
    properties: { provisioningState: rg.provisioningState },
  };
}

const poolFields = (p: AgentPool) => ({
  count: p.count,
  vmSize: p.vmSize,
  mode: p.mode,
  osType: p.osType,
  osSKU: p.osSKU,
  availabilityZones: some(p.availabilityZones),
  maxPods: p.maxPods,
  osDiskSizeGB: p.osDiskSizeGB,
  nodeLabels: some(p.nodeLabels),
  nodeTaints: some(p.nodeTaints),
  tags: some(p.tags),
  orchestratorVersion: p.orchestratorVersion,
  currentOrchestratorVersion: p.currentOrchestratorVersion,
  enableAutoScaling: p.enableAutoScaling,
  minCount: p.minCount,
  maxCount: p.maxCount,
  nodeImageVersion: p.nodeImageVersion,
  powerState: p.powerState,
  provisioningState: p.provisioningState,
});

export function managedClusterStatus(mc: ManagedCluster) {
  return {
    id: armId(
      mc.subscriptionId,
      mc.resourceGroup,
      `/providers/Microsoft.ContainerService/managedClusters/${mc.name}`,
    ),
    name: mc.name,
    type: 'Microsoft.ContainerService/ManagedClusters',
    location: mc.location,
    tags: some(mc.tags),
    dnsPrefix: mc.dnsPrefix,
    kubernetesVersion: mc.kubernetesVersion,
    currentKubernetesVersion: mc.currentKubernetesVersion,
    fqdn: mc.fqdn,
    azurePortalFQDN: mc.azurePortalFQDN,
    nodeResourceGroup: mc.nodeResourceGroup,
    enableRBAC: mc.enableRBAC,
    disableLocalAccounts: mc.disableLocalAccounts,
    aadProfile: mc.aadProfile,
    autoUpgradeProfile: structuredClone(
      mc.extra?.properties?.autoUpgradeProfile,
    ),
    identity: mc.identity,
    networkProfile: mc.networkProfile,
    provisioningState: mc.provisioningState,
    powerState: mc.powerState,
    resourceUID: mc.resourceUID,
    agentPoolProfiles: Object.values(mc.agentPools)
      .sort((a, b) => a.name.localeCompare(b.name))
      .map(p => ({
        name: p.name,
        type: 'VirtualMachineScaleSets',
        ...poolFields(p),
      })),
  };
}

export function agentPoolStatus(
  p: AgentPool,
  sub: string,
  rg: string,
  cluster: string,
) {
  return {
    id: armId(
      sub,
      rg,
      `/providers/Microsoft.ContainerService/managedClusters/${cluster}/agentPools/${p.name}`,
    ),
    name: p.name,
    type: 'Microsoft.ContainerService/managedClusters/agentPools',
    properties_type: 'VirtualMachineScaleSets',
    ...poolFields(p),
  };
}

/**
 * ASO network v1api20201101 `VirtualNetwork_STATUS` from what ARM answers for the VNet (src/arm/network.ts): the
 * fields CAPZ reads back are `id`, `tags` and `addressSpace` (CAPZ v1.26.0 azure/services/virtualnetworks/
 * virtualnetworks.go `postCreateOrUpdateResourceHook`).
 */
export function virtualNetworkStatus(v: VirtualNetwork) {
  const wire = vnetToWire(v);
  const p = wire.properties as Record<string, unknown>;
  return {
    id: wire.id,
    name: wire.name,
    type: wire.type,
    location: wire.location,
    etag: wire.etag,
    tags: some(v.tags),
    addressSpace: p.addressSpace,
    provisioningState: p.provisioningState,
    resourceGuid: p.resourceGuid,
    subnets: (p.subnets as Array<{ id: string }>).map(x => ({ id: x.id })),
  };
}

/** ASO network v1api20201101 `VirtualNetworksSubnet_STATUS`: CAPZ reads `id` and the address prefixes (subnets.go). */
export function subnetStatus(
  v: VirtualNetwork,
  s: { name: string; properties: Record<string, unknown> },
) {
  const wire = subnetToWire(v, s);
  const p = wire.properties as Record<string, unknown>;
  return {
    id: wire.id,
    name: wire.name,
    type: wire.type,
    etag: wire.etag,
    addressPrefix: p.addressPrefix,
    addressPrefixes: p.addressPrefixes,
    provisioningState: p.provisioningState,
  };
}
