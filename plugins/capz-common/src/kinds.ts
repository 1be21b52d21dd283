/**
 * The Kubernetes kinds the CAPZ plugins read and write, with the API versions they use.
 *
 * Versions follow what the installed CRDs serve (see packages/mgmt-cluster/README.md):
 * CAPI v1.13 stores v1beta2; CAPZ's AzureASOManaged* store v1beta1 (v1alpha1 still served, deprecated);
 * the legacy AzureManaged* only have v1beta1; the ASO kinds are read at the version CAPZ's templates embed.
 *
 * @public
 */
export interface KindInfo {
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
  // Lowercase + "s" unless the CRD's spec.names.plural says otherwise (GitRepository: gitrepositories).
  plural = `${kind.toLowerCase()}s`,
  namespaced = true,
): KindInfo => ({
  group,
  version,
  kind,
  plural,
  namespaced,
});

/** @public */
export const CAPI_GROUP = 'cluster.x-k8s.io';
/** @public */
export const CAPZ_GROUP = 'infrastructure.cluster.x-k8s.io';

/** Flux's kustomize-controller API group (docs/flux-facts.md#flux-labels). @public */
export const FLUX_KUSTOMIZE_GROUP = 'kustomize.toolkit.fluxcd.io';
/** Flux's source-controller API group (docs/flux-facts.md#flux-source-ref). @public */
export const FLUX_SOURCE_GROUP = 'source.toolkit.fluxcd.io';

/** @public */
export const kinds = {
  Cluster: k(CAPI_GROUP, 'v1beta2', 'Cluster'),
  MachinePool: k(CAPI_GROUP, 'v1beta2', 'MachinePool'),
  AzureASOManagedCluster: k(CAPZ_GROUP, 'v1beta1', 'AzureASOManagedCluster'),
  AzureASOManagedControlPlane: k(
    CAPZ_GROUP,
    'v1beta1',
    'AzureASOManagedControlPlane',
  ),
  AzureASOManagedMachinePool: k(
    CAPZ_GROUP,
    'v1beta1',
    'AzureASOManagedMachinePool',
  ),
  AzureManagedCluster: k(CAPZ_GROUP, 'v1beta1', 'AzureManagedCluster'),
  AzureManagedControlPlane: k(
    CAPZ_GROUP,
    'v1beta1',
    'AzureManagedControlPlane',
  ),
  AzureManagedMachinePool: k(CAPZ_GROUP, 'v1beta1', 'AzureManagedMachinePool'),
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
  // The legacy AzureManagedControlPlane's network, at the version CAPZ v1.26.0 writes it
  // (azure/services/virtualnetworks/virtualnetworks.go and azure/services/subnets/subnets.go line 22 import ASO's
  // network v1api20201101); the ASO-managed API has them only if a user lists them in spec.resources.
  VirtualNetwork: k('network.azure.com', 'v1api20201101', 'VirtualNetwork'),
  VirtualNetworksSubnet: k(
    'network.azure.com',
    'v1api20201101',
    'VirtualNetworksSubnet',
  ),
  // Flux, read (never written by the read path) to say where a cluster applied from Git comes from: the
  // Kustomization that applies it and the GitRepository it applies from (docs/flux-facts.md#flux-source-ref), at the
  // v1 APIs Flux v1.9.6 serves (docs/flux-facts.md#flux-versions). No cluster's tree holds them.
  Kustomization: k(FLUX_KUSTOMIZE_GROUP, 'v1', 'Kustomization'),
  GitRepository: k(FLUX_SOURCE_GROUP, 'v1', 'GitRepository', 'gitrepositories'),
} as const;

/** @public */
export type KindName = keyof typeof kinds;

/** `group/version`, or just `version` for the core group. @public */
export function apiVersionOf(
  info: Pick<KindInfo, 'group' | 'version'>,
): string {
  return info.group ? `${info.group}/${info.version}` : info.version;
}

/**
 * The REST path of a kind's collection, or of one object when `name` is given.
 * Throws for a namespaced kind without a namespace on a single object, which would address nothing.
 * @public
 */
export function resourcePath(
  info: KindInfo,
  opts: { namespace?: string; name?: string } = {},
): string {
  const base = info.group
    ? `/apis/${info.group}/${info.version}`
    : `/api/${info.version}`;
  if (opts.name !== undefined && info.namespaced && !opts.namespace) {
    throw new Error(
      `${info.kind} is namespaced: a namespace is required to address ${opts.name}`,
    );
  }
  const ns =
    info.namespaced && opts.namespace
      ? `/namespaces/${encodeURIComponent(opts.namespace)}`
      : '';
  const name =
    opts.name !== undefined ? `/${encodeURIComponent(opts.name)}` : '';
  return `${base}${ns}/${info.plural}${name}`;
}

/**
 * Finds the kind an object's `apiVersion` and `kind` refer to, across all API versions of its group
 * (a v1alpha1 AzureASOManagedControlPlane is the same kind as the v1beta1 one).
 * @public
 */
export function lookupKind(
  apiVersion: string,
  kind: string,
): KindInfo | undefined {
  const group = apiVersion.includes('/') ? apiVersion.split('/')[0] : '';
  return Object.values(kinds).find(i => i.kind === kind && i.group === group);
}
