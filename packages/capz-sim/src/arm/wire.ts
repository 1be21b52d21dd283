/**
 * The AzureWorld model as ARM puts it on the wire for Microsoft.ContainerService api-version 2024-09-01
 * (envelope docs/azure-facts.md#arm-envelope, cluster docs/azure-facts.md#arm-managed-clusters, pool
 * docs/azure-facts.md#arm-agent-pools) and for Microsoft.Resources resource groups
 * (docs/azure-facts.md#arm-resource-groups). Ids of AKS resources use lowercase `resourcegroups`, as AKS returns them
 * (docs/azure-facts.md#arm-sdk, docs/azure-facts.md#arm-envelope).
 */
import type {
  AgentPool,
  ManagedCluster,
  ResourceGroup,
} from '../azure/model.ts';

export const API_VERSION = '2024-09-01';

/**
 * The Microsoft.Resources api-versions the resource group GET accepts: ASO's (docs/azure-facts.md#arm-resource-groups)
 * and 2021-04-01, the one the plugin's backend sends. Any GA version has the same resource group body; that both are
 * accepted, and no others, is a choice of the simulator (an inference: ARM accepts every published version of the
 * provider).
 */
export const RESOURCES_API_VERSIONS = ['2020-06-01', '2021-04-01'];

/**
 * A resource group as ARM's GET returns it (docs/azure-facts.md#arm-resource-groups). The id spells `resourceGroups` in
 * camel case as Microsoft.Resources returns it (inference from ARM's public reference: docs/azure-facts.md#arm-envelope
 * only states AKS's lowercase ids).
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
 * (docs/azure-facts.md#arm-agent-pools; the 2024-09-01 ManagedClusterAgentPoolProfileProperties names: `osSKU`,
 * `availabilityZones`, `maxPods`, `osDiskSizeGB`, `nodeLabels`, `nodeTaints` as `key=value:Effect`, `tags`).
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

/**
 * The Microsoft.Resources api-versions of the subscription's locations list (`/subscriptions/{sub}/locations`).
 * 2022-12-01 is the one the plugin's backend sends (an inference from ARM's public reference: any GA version has
 * the same `value[]` body of name, displayName, regionalDisplayName and metadata).
 */
export const LOCATIONS_API_VERSIONS = ['2022-12-01'];

/** The regions the simulated subscriptions offer (a few physical regions of the public cloud). */
export const LOCATIONS: Array<{
  name: string;
  displayName: string;
  geography: string;
}> = [
  { name: 'eastus', displayName: 'East US', geography: 'United States' },
  { name: 'westus2', displayName: 'West US 2', geography: 'United States' },
  { name: 'northeurope', displayName: 'North Europe', geography: 'Europe' },
  { name: 'westeurope', displayName: 'West Europe', geography: 'Europe' },
  { name: 'swedencentral', displayName: 'Sweden Central', geography: 'Sweden' },
  { name: 'uksouth', displayName: 'UK South', geography: 'United Kingdom' },
  {
    name: 'australiasoutheast',
    displayName: 'Australia Southeast',
    geography: 'Australia',
  },
];

/** GET /subscriptions/{sub}/locations: ARM's Location shape (id, name, type, displayName, regionalDisplayName, metadata). */
export function locationsToWire(sub: string) {
  return {
    value: LOCATIONS.map(l => ({
      id: `/subscriptions/${sub}/locations/${l.name}`,
      name: l.name,
      type: 'Region',
      displayName: l.displayName,
      regionalDisplayName: `(${l.geography}) ${l.displayName}`,
      metadata: {
        regionType: 'Physical',
        regionCategory: 'Recommended',
        geography: l.geography,
      },
    })),
  };
}

/**
 * What AKS offers in every simulated region (managedClusters.listKubernetesVersions, api-version 2024-09-01): one
 * entry per minor with `isDefault`, `isPreview`, `capabilities.supportPlan` and `patchVersions` keyed by patch with
 * their `upgrades`, as `KubernetesVersionListResult` in @azure/arm-containerservice has them. 1.33 is the default
 * (the model's default version is 1.33.2); 1.34 is a preview.
 */
export const KUBERNETES_VERSIONS: Array<{
  minor: string;
  patches: string[];
  isDefault?: boolean;
  isPreview?: boolean;
  lts?: boolean;
}> = [
  { minor: '1.31', patches: ['1.31.9', '1.31.10'], lts: true },
  { minor: '1.32', patches: ['1.32.5', '1.32.6'] },
  { minor: '1.33', patches: ['1.33.1', '1.33.2'], isDefault: true },
  { minor: '1.34', patches: ['1.34.0'], isPreview: true },
];

export function kubernetesVersionsToWire() {
  const all = KUBERNETES_VERSIONS.flatMap(m => m.patches);
  const later = (a: string, b: string) => {
    const x = a.split('.').map(Number);
    const y = b.split('.').map(Number);
    return x[0] !== y[0]
      ? x[0] > y[0]
      : x[1] !== y[1]
      ? x[1] > y[1]
      : x[2] > y[2];
  };
  // Upgrades: later patches of the same minor and every patch of the next minor (AKS does not skip minors).
  const upgradesOf = (v: string) => {
    const [maj, min] = v.split('.').map(Number);
    return all.filter(u => {
      const [um, un] = u.split('.').map(Number);
      return um === maj && (un === min ? later(u, v) : un === min + 1);
    });
  };
  return {
    values: KUBERNETES_VERSIONS.map(m => ({
      version: m.minor,
      capabilities: {
        supportPlan: m.lts
          ? ['KubernetesOfficial', 'AKSLongTermSupport']
          : ['KubernetesOfficial'],
      },
      ...(m.isDefault ? { isDefault: true } : {}),
      ...(m.isPreview ? { isPreview: true } : {}),
      patchVersions: Object.fromEntries(
        m.patches.map(p => [p, { upgrades: upgradesOf(p) }]),
      ),
    })),
  };
}
