/**
 * The AzureWorld model as ARM puts it on the wire for Microsoft.ContainerService api-version 2024-09-01
 * (envelope docs/azure-facts.md#arm-envelope, cluster docs/azure-facts.md#arm-managed-clusters, pool
 * docs/azure-facts.md#arm-agent-pools) and for Microsoft.Resources resource groups
 * (docs/azure-facts.md#arm-resource-groups). Ids of AKS resources use lowercase `resourcegroups`, as AKS returns them
 * (docs/azure-facts.md#arm-sdk, docs/azure-facts.md#arm-envelope).
 */
import { SIM_SERVICE_PRINCIPAL } from '../azure/credential.ts';
import { AzureError } from '../azure/errors.ts';
import {
  KUBERNETES_VERSIONS,
  type AgentPool,
  type AgentPoolSpec,
  type ManagedCluster,
  type ManagedClusterSpec,
  type ResourceGroup,
  type WireExtra,
} from '../azure/model.ts';

export const API_VERSION = '2024-09-01';

/**
 * Microsoft.ContainerService api-versions of the managed cluster and agent pool routes: what ASO v2.18.0 sends, the
 * version of the API an object was written at (each `v2/api/containerservice/<version>/arm/managed_cluster_spec_types_gen.go`
 * `GetAPIVersion`): 2025-08-01 (`v1api20250801`, what CAPZ v1.26.0 writes), 2024-09-01 (`v1api20240901`, also what
 * this repository's backend and fixtures send), 2025-10-02-preview (`v20251002preview`, CAPZ's AzureManagedControlPlane
 * with preview features: `azure/services/managedclusters/spec.go` `Preview`) and 2024-04-02-preview
 * (`v1api20240402preview`) (docs/azure-facts.md#arm-write-api). Every version gets the same body here.
 */
export const CONTAINER_SERVICE_API_VERSIONS = [
  '2025-08-01',
  API_VERSION,
  '2025-10-02-preview',
  '2024-04-02-preview',
];

/**
 * The credential actions also accept 2022-04-01: ASO v2.18.0 lists credentials through
 * `armcontainerservice` v1.0.0, whose `listClusterAdminCredentialsCreateRequest` hard-codes it
 * (`sdk/resourcemanager/containerservice/armcontainerservice@v1.0.0/zz_generated_managedclusters_client.go`).
 */
export const CREDENTIAL_API_VERSIONS = [
  ...CONTAINER_SERVICE_API_VERSIONS,
  '2022-04-01',
];

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
    ...structuredClone(p.extra?.properties ?? {}),
  };
}

export function managedClusterToWire(mc: ManagedCluster) {
  return {
    ...structuredClone(mc.extra?.top ?? {}),
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
      ...structuredClone(mc.extra?.properties ?? {}),
      ...oidcIssuer(mc),
    },
  };
}

/**
 * AKS answers an enabled OIDC issuer with its read-only `issuerURL` (`https://<region>.oic.prod-aks.azure.com/<tenant>/
 * <guid>/`; ARM's ManagedClusterOIDCIssuerProfile), which CAPZ v1.26.0 copies into the AzureManagedControlPlane's
 * `status.oidcIssuerProfile.issuerURL` (`azure/services/managedclusters/managedclusters.go`
 * `postCreateOrUpdateResourceHook`) and ASO into the `operatorSpec.configMaps.oidcIssuerProfile` ConfigMap the legacy
 * CAPZ asks for. The tenant is the simulator's (the model knows no tenant); the guid is the cluster's resourceUID.
 */
function oidcIssuer(mc: ManagedCluster) {
  const p = mc.extra?.properties?.oidcIssuerProfile as
    | { enabled?: boolean }
    | undefined;
  if (!p?.enabled) return {};
  const region = mc.location.toLowerCase().replace(/\s/g, '');
  return {
    oidcIssuerProfile: {
      ...structuredClone(p),
      issuerURL: `https://${region}.oic.prod-aks.azure.com/${SIM_SERVICE_PRINCIPAL.tenantId}/${mc.resourceUID}/`,
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

export { KUBERNETES_VERSIONS };

/** What the region offers (by default every version; the ARM endpoint passes `world.kubernetesVersions()`). */
export function kubernetesVersionsToWire(
  offered: readonly (typeof KUBERNETES_VERSIONS)[number][] = KUBERNETES_VERSIONS,
) {
  const all = offered.flatMap(m => m.patches);
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
    values: offered.map(m => ({
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

// ---- the write API: ARM request bodies onto the model (docs/azure-facts.md#arm-write-api) ----

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * ARM's answer to a body that does not deserialize into the resource's type (ASO v2.18.0 classifies
 * `InvalidRequestContent` as fatal: `v2/internal/reconcilers/arm/errorclassification/error_classifier.go`).
 */
const invalidContent = (path: string, expected: string) =>
  new AzureError(
    400,
    'InvalidRequestContent',
    `The request content was invalid and could not be deserialized: 'Error converting value at path '${path}': expected ${expected}.'`,
  );

/** A JSON request body, or ARM's 400 for one that is not a JSON object. */
export function parseBody(text: string): Json {
  let v: unknown;
  try {
    v = text.trim() ? JSON.parse(text) : undefined;
  } catch {
    throw new AzureError(
      400,
      'InvalidRequestContent',
      'The request content was invalid and could not be deserialized.',
    );
  }
  if (!isObject(v)) {
    throw new AzureError(
      400,
      'InvalidRequestContent',
      'The request content was invalid and could not be deserialized: the body must be a JSON object.',
    );
  }
  return v;
}

/** Typed readers of optional members; a present member of the wrong JSON type is ARM's InvalidRequestContent. */
function str(o: Json, k: string, at: string): string | undefined {
  const v = o[k];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw invalidContent(`${at}${k}`, 'a string');
  return v;
}
function bool(o: Json, k: string, at: string): boolean | undefined {
  const v = o[k];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'boolean') throw invalidContent(`${at}${k}`, 'a boolean');
  return v;
}
function int(o: Json, k: string, at: string): number | undefined {
  const v = o[k];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number' || !Number.isInteger(v))
    throw invalidContent(`${at}${k}`, 'an integer');
  return v;
}
function strMap(
  o: Json,
  k: string,
  at: string,
): Record<string, string> | undefined {
  const v = o[k];
  if (v === undefined || v === null) return undefined;
  if (!isObject(v) || Object.values(v).some(x => typeof x !== 'string'))
    throw invalidContent(`${at}${k}`, 'an object of strings');
  return { ...(v as Record<string, string>) };
}
function strList(o: Json, k: string, at: string): string[] | undefined {
  const v = o[k];
  if (v === undefined || v === null) return undefined;
  if (!Array.isArray(v) || v.some(x => typeof x !== 'string'))
    throw invalidContent(`${at}${k}`, 'an array of strings');
  return [...(v as string[])];
}
function obj(o: Json, k: string, at: string): Json | undefined {
  const v = o[k];
  if (v === undefined || v === null) return undefined;
  if (!isObject(v)) throw invalidContent(`${at}${k}`, 'an object');
  return structuredClone(v);
}

/**
 * The members of `o` not named in `known`, or undefined when there are none. A JSON `null` sets nothing, so it is not
 * kept (inference: ARM's responses leave unset properties out; ASO's serializer writes some as `null`, e.g. an agent
 * pool's `virtualMachineNodesStatus` from the legacy CAPZ path, and a later PUT without them must read back the same).
 */
function rest(o: Json, known: readonly string[]): Json | undefined {
  const lower = new Set(known.map(k => k.toLowerCase()));
  const out = Object.fromEntries(
    Object.entries(o).filter(
      ([k, v]) => !lower.has(k.toLowerCase()) && v !== undefined && v !== null,
    ),
  );
  return Object.keys(out).length ? structuredClone(out) : undefined;
}

const extraOf = (top?: Json, properties?: Json): WireExtra | undefined =>
  top || properties
    ? { ...(top ? { top } : {}), ...(properties ? { properties } : {}) }
    : undefined;

/** ARM's 400 for a PUT without the location its resource type requires. */
function requireLocation(body: Json): string {
  const location = str(body, 'location', '');
  if (!location) {
    throw new AzureError(
      400,
      'LocationRequired',
      'The location property is required for this definition.',
    );
  }
  return location;
}

/** `PUT /subscriptions/{sub}/resourceGroups/{rg}`: `{location, tags?}` (ASO `ResourceGroup_Spec`, 2020-06-01). */
export function resourceGroupFromWire(body: Json): {
  location: string;
  tags?: Record<string, string>;
} {
  return { location: requireLocation(body), tags: strMap(body, 'tags', '') };
}

/** Read-only members a GET returns; a PUT may echo them back (ASO does not), they are ignored as ARM ignores them. */
const POOL_READ_ONLY = [
  'provisioningState',
  'powerState',
  'currentOrchestratorVersion',
  'nodeImageVersion',
];
const POOL_MAPPED = [
  'count',
  'vmSize',
  'mode',
  'osType',
  'osSKU',
  'type',
  'orchestratorVersion',
  'enableAutoScaling',
  'minCount',
  'maxCount',
  'availabilityZones',
  'maxPods',
  'osDiskSizeGB',
  'nodeLabels',
  'nodeTaints',
  'tags',
];

/**
 * A pool's properties (an agentPools PUT's `properties`, or one `agentPoolProfiles[]` entry without `name`) in the
 * names of ASO's `ManagedClusterAgentPoolProfileProperties` (v1api20250801 `arm/managed_clusters_agent_pool_spec_types_gen.go`).
 * `mode` is AKS's enum (400 InvalidParameter otherwise); anything else is kept verbatim in `extra.properties`.
 */
export function agentPoolSpecFromWire(
  p: Json,
  at: string,
  extraKnown: readonly string[] = [],
): AgentPoolSpec {
  const mode = str(p, 'mode', at);
  if (mode !== undefined && mode !== 'System' && mode !== 'User') {
    throw new AzureError(
      400,
      'InvalidParameter',
      `The value of parameter ${at}mode is invalid: '${mode}'. Allowed values are 'System', 'User'.`,
    );
  }
  const count = int(p, 'count', at);
  if (count !== undefined && count < 0) {
    throw new AzureError(
      400,
      'InvalidParameter',
      `The value of parameter ${at}count is invalid: ${count} is below 0.`,
    );
  }
  const spec: AgentPoolSpec = {
    count,
    vmSize: str(p, 'vmSize', at),
    mode,
    osType: str(p, 'osType', at),
    osSKU: str(p, 'osSKU', at),
    type: str(p, 'type', at),
    orchestratorVersion: str(p, 'orchestratorVersion', at),
    enableAutoScaling: bool(p, 'enableAutoScaling', at),
    minCount: int(p, 'minCount', at),
    maxCount: int(p, 'maxCount', at),
    availabilityZones: strList(p, 'availabilityZones', at),
    maxPods: int(p, 'maxPods', at),
    osDiskSizeGB: int(p, 'osDiskSizeGB', at),
    nodeLabels: strMap(p, 'nodeLabels', at),
    nodeTaints: strList(p, 'nodeTaints', at),
    tags: strMap(p, 'tags', at),
  };
  const extra = extraOf(
    undefined,
    rest(p, [...POOL_MAPPED, ...POOL_READ_ONLY, ...extraKnown]),
  );
  return Object.fromEntries(
    Object.entries({ ...spec, extra }).filter(([, v]) => v !== undefined),
  ) as AgentPoolSpec;
}

/** `PUT …/agentPools/{pool}`: `{properties: {...}}` (ASO `ManagedClustersAgentPool_Spec`). */
export function agentPoolFromWire(body: Json): AgentPoolSpec {
  const properties = obj(body, 'properties', '') ?? {};
  return agentPoolSpecFromWire(properties, 'properties.');
}

const CLUSTER_MAPPED = [
  'kubernetesVersion',
  'dnsPrefix',
  'enableRBAC',
  'disableLocalAccounts',
  'aadProfile',
  'networkProfile',
  'agentPoolProfiles',
  'nodeResourceGroup',
];
const CLUSTER_READ_ONLY = [
  'provisioningState',
  'powerState',
  'maxAgentPools',
  'currentKubernetesVersion',
  'fqdn',
  'azurePortalFQDN',
  'privateFQDN',
  'resourceUID',
];

/**
 * `PUT …/managedClusters/{name}` (ASO `ManagedCluster_Spec`, v1api20250801
 * `arm/managed_cluster_spec_types_gen.go`): `location`, `tags`, `identity`, `properties.{kubernetesVersion, dnsPrefix,
 * enableRBAC, disableLocalAccounts, aadProfile, networkProfile, nodeResourceGroup, agentPoolProfiles[]}` onto the
 * model; `sku`, `kind`, `extendedLocation` and every other `properties` member verbatim in `extra`.
 */
export function managedClusterFromWire(body: Json): ManagedClusterSpec {
  const location = requireLocation(body);
  const properties = obj(body, 'properties', '') ?? {};
  const at = 'properties.';
  const profiles = properties.agentPoolProfiles;
  if (profiles !== undefined && profiles !== null && !Array.isArray(profiles))
    throw invalidContent(`${at}agentPoolProfiles`, 'an array');
  const agentPoolProfiles = (
    (profiles as unknown[] | undefined | null) ?? []
  ).map((p, i) => {
    const pat = `${at}agentPoolProfiles[${i}].`;
    if (!isObject(p)) throw invalidContent(pat.slice(0, -1), 'an object');
    const name = str(p, 'name', pat);
    if (!name) {
      throw new AzureError(
        400,
        'InvalidParameter',
        `The value of parameter ${pat}name is invalid: an agent pool needs a name.`,
      );
    }
    return { name, ...agentPoolSpecFromWire(p, pat, ['name']) };
  });
  const identity = obj(body, 'identity', '');
  if (identity && typeof identity.type !== 'string')
    throw invalidContent('identity.type', 'a string');
  const spec: ManagedClusterSpec = {
    location,
    tags: strMap(body, 'tags', ''),
    identity: identity as ManagedClusterSpec['identity'],
    kubernetesVersion: str(properties, 'kubernetesVersion', at),
    dnsPrefix: str(properties, 'dnsPrefix', at),
    enableRBAC: bool(properties, 'enableRBAC', at),
    disableLocalAccounts: bool(properties, 'disableLocalAccounts', at),
    aadProfile: obj(
      properties,
      'aadProfile',
      at,
    ) as ManagedClusterSpec['aadProfile'],
    networkProfile: obj(properties, 'networkProfile', at),
    nodeResourceGroup: str(properties, 'nodeResourceGroup', at),
    agentPoolProfiles: agentPoolProfiles.length ? agentPoolProfiles : undefined,
    extra: extraOf(
      rest(body, [
        'id',
        'name',
        'type',
        'location',
        'tags',
        'identity',
        'properties',
        'systemData',
      ]),
      rest(properties, [...CLUSTER_MAPPED, ...CLUSTER_READ_ONLY]),
    ),
  };
  return Object.fromEntries(
    Object.entries(spec).filter(([, v]) => v !== undefined),
  ) as unknown as ManagedClusterSpec;
}

/** `POST …/listClusterUserCredential|listClusterAdminCredential`: AKS's `CredentialResults`. */
export function credentialResultsToWire(
  which: 'admin' | 'user',
  kubeconfig: string,
) {
  return {
    kubeconfigs: [
      {
        name: which === 'admin' ? 'clusterAdmin' : 'clusterUser',
        value: Buffer.from(kubeconfig).toString('base64'),
      },
    ],
  };
}
