/**
 * The AzureWorld model as ARM puts it on the wire for Microsoft.ContainerService api-version 2024-09-01
 * (envelope docs/azure-facts.md#arm-envelope, cluster docs/azure-facts.md#arm-managed-clusters, pool docs/azure-facts.md#arm-agent-pools) and for Microsoft.Resources resource groups
 * (docs/azure-facts.md#arm-resource-groups). Ids of AKS resources use lowercase `resourcegroups`, as AKS returns them (docs/azure-facts.md#arm-sdk, docs/azure-facts.md#arm-envelope).
 */
import type {
  AgentPool,
  ManagedCluster,
  ResourceGroup,
} from '../azure/model.ts';

export const API_VERSION = '2024-09-01';

/**
 * The Microsoft.Resources api-versions the resource group GET accepts: ASO's (docs/azure-facts.md#arm-resource-groups) and 2021-04-01, the
 * one the plugin's backend sends. Any GA version has the same resource group body; that both are accepted, and no
 * others, is a choice of the simulator (an inference: ARM accepts every published version of the provider).
 */
export const RESOURCES_API_VERSIONS = ['2020-06-01', '2021-04-01'];

/**
 * A resource group as ARM's GET returns it (docs/azure-facts.md#arm-resource-groups). The id spells `resourceGroups` in camel case as
 * Microsoft.Resources returns it (inference from ARM's public reference: docs/azure-facts.md#arm-envelope only states AKS's lowercase ids).
 */
export function resourceGroupToWire(rg: ResourceGroup) {
  return {
    id: `/subscriptions/${rg.subscriptionId}/resourceGroups/${rg.name}`,
    name: rg.name,
    type: 'Microsoft.Resources/resourceGroups',
    location: rg.location,
    tags: { ...rg.tags },
    properties: { provisioningState: rg.provisioningState },
  };
}

export const managedClusterId = (mc: ManagedCluster) =>
  `/subscriptions/${mc.subscriptionId}/resourcegroups/${mc.resourceGroup}/providers/Microsoft.ContainerService/managedClusters/${mc.name}`;

export const agentPoolId = (mc: ManagedCluster, pool: AgentPool) =>
  `${managedClusterId(mc)}/agentPools/${pool.name}`;

/** A map or list, left out when empty (AKS omits unset properties; inference for empty ones). */
const some = <T extends object>(v: T): T | undefined =>
  Object.keys(v).length ? structuredClone(v) : undefined;

/**
 * The pool's fields as they appear both in `agentPoolProfiles[]` (with `name`) and in an agentPools resource
 * (docs/azure-facts.md#arm-agent-pools; the 2024-09-01 ManagedClusterAgentPoolProfileProperties names: `osSKU`, `availabilityZones`,
 * `maxPods`, `osDiskSizeGB`, `nodeLabels`, `nodeTaints` as `key=value:Effect`, `tags`).
 */
function poolProperties(p: AgentPool) {
  return {
    count: p.count,
    vmSize: p.vmSize,
    osType: p.osType,
    osSKU: p.osSKU,
    osDiskSizeGB: p.osDiskSizeGB,
    maxPods: p.maxPods,
    ...(p.availabilityZones.length
      ? { availabilityZones: [...p.availabilityZones] }
      : {}),
    ...(some(p.nodeLabels) ? { nodeLabels: { ...p.nodeLabels } } : {}),
    ...(p.nodeTaints.length ? { nodeTaints: [...p.nodeTaints] } : {}),
    ...(some(p.tags) ? { tags: { ...p.tags } } : {}),
    mode: p.mode,
    type: 'VirtualMachineScaleSets',
    orchestratorVersion: p.orchestratorVersion,
    currentOrchestratorVersion: p.currentOrchestratorVersion,
    provisioningState: p.provisioningState,
    powerState: { code: p.powerState.code },
    enableAutoScaling: p.enableAutoScaling,
    // AKS only reports the bounds when they are set (autoscaling pools).
    ...(p.minCount !== undefined ? { minCount: p.minCount } : {}),
    ...(p.maxCount !== undefined ? { maxCount: p.maxCount } : {}),
    nodeImageVersion: p.nodeImageVersion,
  };
}

export function managedClusterToWire(mc: ManagedCluster) {
  return {
    id: managedClusterId(mc),
    name: mc.name,
    type: 'Microsoft.ContainerService/ManagedClusters',
    location: mc.location,
    tags: { ...mc.tags },
    identity: { ...mc.identity },
    properties: {
      provisioningState: mc.provisioningState,
      powerState: { code: mc.powerState.code },
      maxAgentPools: 100,
      kubernetesVersion: mc.kubernetesVersion,
      currentKubernetesVersion: mc.currentKubernetesVersion,
      dnsPrefix: mc.dnsPrefix,
      fqdn: mc.fqdn,
      azurePortalFQDN: mc.azurePortalFQDN,
      agentPoolProfiles: Object.values(mc.agentPools).map(p => ({
        name: p.name,
        ...poolProperties(p),
      })),
      nodeResourceGroup: mc.nodeResourceGroup,
      enableRBAC: mc.enableRBAC,
      disableLocalAccounts: mc.disableLocalAccounts,
      ...(mc.aadProfile ? { aadProfile: structuredClone(mc.aadProfile) } : {}),
      networkProfile: structuredClone(mc.networkProfile),
      resourceUID: mc.resourceUID,
    },
  };
}

export function agentPoolToWire(mc: ManagedCluster, pool: AgentPool) {
  return {
    id: agentPoolId(mc, pool),
    name: pool.name,
    type: 'Microsoft.ContainerService/managedClusters/agentPools',
    properties: poolProperties(pool),
  };
}
