/**
 * The rules a new ASO-managed AKS cluster's parameters must meet, as pure functions: the scaffolder form's fields
 * run them before Review, and the backend's `POST /clusters` runs them again (400 naming the field).
 *
 * Where each limit comes from:
 * - Cluster name: a DNS label (it names Kubernetes objects). It is also the ManagedCluster's `dnsPrefix`, which CAPZ's
 *   AzureASOManagedControlPlane / AKS limit to 54 characters; the pool objects are named `<name>-<pool>` (DNS label,
 *   at most 63); and AKS derives the node resource group `MC_<resourceGroup>_<name>_<location>` (the resource group is
 *   named after the cluster here), which Azure limits to 80 characters.
 * - Pool names (the agent pool's `azureName`): AKS allows lowercase letters and digits, starting with a letter, at most
 *   12 for Linux pools and 6 for Windows pools; a System pool must run Linux; AKS needs at least one System pool.
 * - Counts: a System pool has at least one node; with autoscaling AKS needs minCount <= count <= maxCount and
 *   maxCount <= 1000 (per pool, for VMSS pools).
 * - Tags: ARM allows 50 tags per resource, names of at most 512 characters (no `<>%&\?/`), values of at most 256.
 */

import {
  DNS_LABEL_MAX_LENGTH,
  DNS_LABEL_PATTERN,
  validateDnsLabel,
  validateDnsSubdomain,
} from '../jobs/names';

/** A problem with one parameter: `field` is its path in the request (`name`, `pools[1].name`, `tags`). @public */
export interface ClusterFieldError {
  field: string;
  message: string;
}

/**
 * The rules a cluster name must meet, by stable id: `name-required`; `name-format` (a DNS label); `dns-prefix` (at
 * most {@link MAX_DNS_PREFIX}); `pool-object-name` (`<name>-<pool>` a DNS label); `node-resource-group` (AKS's
 * `MC_<name>_<name>_<location>` at most {@link MAX_NODE_RESOURCE_GROUP}). Callers pick rules by these, never by words.
 * @public
 */
export type ClusterNameRule =
  | 'name-required'
  | 'name-format'
  | 'dns-prefix'
  | 'pool-object-name'
  | 'node-resource-group';

/** A cluster-name problem and the rule it breaks. @public */
export interface ClusterNameError extends ClusterFieldError {
  /** The rule, by its stable id. */
  rule: ClusterNameRule;
}

/** One agent pool of a new cluster. @public */
export interface AksAsoPoolParams {
  /** Agent pool name in Azure (azureName): lowercase letters and digits; at most 12 (Linux) or 6 (Windows). */
  name: string;
  mode: 'System' | 'User';
  /** Default Linux. */
  osType?: 'Linux' | 'Windows';
  vmSize: string;
  /** The MachinePool's replicas: the node count, or the initial count of an autoscaled pool. */
  replicas: number;
  /** Cluster autoscaler bounds (AKS `enableAutoScaling`, `minCount`, `maxCount`). */
  autoscaling?: { minCount: number; maxCount: number };
}

/** AKS: the ManagedCluster's dnsPrefix (CAPZ's webhook and AKS) is at most 54 characters. @public */
export const MAX_DNS_PREFIX = 54;
/** Azure: a resource group name (here: AKS's node resource group) is at most 80 characters. @public */
export const MAX_NODE_RESOURCE_GROUP = 80;
/** AKS: agent pool names, by OS. @public */
export const MAX_POOL_NAME = { Linux: 12, Windows: 6 } as const;
/** AKS: nodes per VMSS pool. @public */
export const MAX_POOL_NODES = 1000;
/** ARM: tags per resource. @public */
export const MAX_TAGS = 50;

const REGION = /^[a-z][a-z0-9]*$/;
const VERSION = /^v\d+\.\d+\.\d+$/;
const VM_SIZE = /^[A-Za-z][A-Za-z0-9_-]*$/;
const ENTITY_REF =
  /^[a-z][a-z0-9_-]*:([a-z0-9][-_.a-zA-Z0-9]*\/)?[a-zA-Z0-9][-_.a-zA-Z0-9]*$/;
const GUID =
  /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
const TAG_NAME_FORBIDDEN = /[<>%&\\?/]/;

/** Whether `id` is an Entra object id (a GUID), as AKS's `aadProfile.adminGroupObjectIDs` takes them. @public */
export const isEntraObjectId = (id: string) => GUID.test(id);

/** The node resource group AKS derives when none is given: `MC_<resourceGroup>_<cluster>_<location>`. @public */
export const nodeResourceGroupOf = (name: string, location: string) =>
  `MC_${name}_${name}_${location}`;

/** The object name of a pool's MachinePool and AzureASOManagedMachinePool. @public */
export const poolObjectName = (cluster: string, pool: string) =>
  `${cluster}-${pool}`;

/**
 * Namespaces Kubernetes makes for itself (`kube-system`, `kube-public`, `kube-node-lease`) and `default`: not where a
 * team's cluster objects and its credential Secret belong, so the forms do not offer them. @public
 */
export function isSystemNamespace(namespace: string): boolean {
  return namespace === 'default' || namespace.startsWith('kube-');
}

/** The Secret ASO writes the Entra (user) kubeconfig to; CAPZ keeps `<name>-kubeconfig` for itself. @public */
export const userKubeconfigSecretName = (cluster: string) =>
  `${cluster}-user-kubeconfig`;

/**
 * The longest cluster name the other parameters allow (54 for the dnsPrefix, less when the location or the longest
 * pool name make a derived name too long). @public
 */
export function maxClusterNameLength(
  location?: string,
  pools: Array<{ name: string }> = [],
): number {
  let max = MAX_DNS_PREFIX;
  const longestPool = Math.max(0, ...pools.map(p => (p.name ?? '').length));
  if (longestPool) max = Math.min(max, DNS_LABEL_MAX_LENGTH - 1 - longestPool);
  if (location)
    max = Math.min(
      max,
      Math.floor(
        (MAX_NODE_RESOURCE_GROUP - 'MC___'.length - location.length) / 2,
      ),
    );
  return max;
}

/** The cluster name's problems, given (when known) the location and the pools it is combined with. @public */
export function clusterNameErrors(
  name: string | undefined,
  context: { location?: string; pools?: Array<{ name: string }> } = {},
): ClusterNameError[] {
  const field = 'name';
  if (!name)
    return [
      { field, rule: 'name-required', message: 'a cluster name is required' },
    ];
  if (!DNS_LABEL_PATTERN.test(name)) {
    return [
      {
        field,
        rule: 'name-format',
        message: `"${name}" must be lowercase letters, digits and '-', starting and ending with a letter or digit`,
      },
    ];
  }
  const errors: ClusterNameError[] = [];
  if (name.length > MAX_DNS_PREFIX) {
    errors.push({
      field,
      rule: 'dns-prefix',
      message: `"${name}" is ${name.length} characters; it is the AKS dnsPrefix, which is limited to ${MAX_DNS_PREFIX}`,
    });
  }
  (context.pools ?? []).forEach((pool, i) => {
    const objName = poolObjectName(name, pool.name ?? '');
    if (pool.name && objName.length > DNS_LABEL_MAX_LENGTH) {
      errors.push({
        field: `pools[${i}].name`,
        rule: 'pool-object-name',
        message: `"${name}" with pool "${pool.name}" makes the object name "${objName}" (${objName.length} characters), above the ${DNS_LABEL_MAX_LENGTH} a Kubernetes name allows: shorten the cluster or the pool name`,
      });
    }
  });
  if (context.location) {
    const rg = nodeResourceGroupOf(name, context.location);
    if (rg.length > MAX_NODE_RESOURCE_GROUP) {
      errors.push({
        field,
        rule: 'node-resource-group',
        message: `"${name}" makes AKS's node resource group "${rg}" ${
          rg.length
        } characters, above Azure's ${MAX_NODE_RESOURCE_GROUP}: at most ${maxClusterNameLength(
          context.location,
        )} characters in ${context.location}`,
      });
    }
  }
  return errors;
}

/** The node pools' problems, each naming its pool (`pools[i].name`, `pools[i].replicas`, ...). @public */
export function nodePoolsErrors(
  pools: AksAsoPoolParams[] | undefined,
): ClusterFieldError[] {
  if (!pools?.length)
    return [{ field: 'pools', message: 'at least one node pool is required' }];
  const errors: ClusterFieldError[] = [];
  if (!pools.some(p => p.mode === 'System')) {
    errors.push({
      field: 'pools',
      message: 'at least one pool must be a System pool (AKS requires one)',
    });
  }
  const seen = new Set<string>();
  pools.forEach((pool, i) => {
    const at = (f: string) => `pools[${i}].${f}`;
    const os = pool.osType ?? 'Linux';
    const max = MAX_POOL_NAME[os] ?? MAX_POOL_NAME.Linux;
    const label = pool.name ? `pool "${pool.name}"` : `pool ${i + 1}`;
    if (!pool.name) {
      errors.push({ field: at('name'), message: `${label} needs a name` });
    } else if (!new RegExp(`^[a-z][a-z0-9]{0,${max - 1}}$`).test(pool.name)) {
      errors.push({
        field: at('name'),
        message: `${label}: a ${os} pool name is 1 to ${max} lowercase letters or digits, starting with a letter`,
      });
    }
    if (pool.name && seen.has(pool.name))
      errors.push({ field: at('name'), message: `${label} appears twice` });
    if (pool.name) seen.add(pool.name);
    if (pool.mode !== 'System' && pool.mode !== 'User')
      errors.push({
        field: at('mode'),
        message: `${label}: mode must be System or User`,
      });
    if (os !== 'Linux' && os !== 'Windows')
      errors.push({
        field: at('osType'),
        message: `${label}: osType must be Linux or Windows`,
      });
    if (pool.mode === 'System' && os !== 'Linux') {
      errors.push({
        field: at('osType'),
        message: `${label}: a System pool must run Linux`,
      });
    }
    if (!pool.vmSize || !VM_SIZE.test(pool.vmSize)) {
      errors.push({
        field: at('vmSize'),
        message: `${label}: choose a VM size, e.g. Standard_D2s_v3`,
      });
    }
    const min = pool.mode === 'System' ? 1 : 0;
    if (
      !Number.isInteger(pool.replicas) ||
      pool.replicas < min ||
      pool.replicas > MAX_POOL_NODES
    ) {
      errors.push({
        field: at('replicas'),
        message: `${label}: the node count must be a whole number from ${min} to ${MAX_POOL_NODES}${
          min ? ' (a System pool needs a node)' : ''
        }`,
      });
    }
    const a = pool.autoscaling;
    if (a) {
      if (!Number.isInteger(a.minCount) || a.minCount < min) {
        errors.push({
          field: at('autoscaling.minCount'),
          message: `${label}: the autoscaler minimum must be a whole number of at least ${min}`,
        });
      } else if (
        !Number.isInteger(a.maxCount) ||
        a.maxCount < a.minCount ||
        a.maxCount > MAX_POOL_NODES
      ) {
        errors.push({
          field: at('autoscaling.maxCount'),
          message: `${label}: the autoscaler maximum must be a whole number from the minimum (${a.minCount}) to ${MAX_POOL_NODES}`,
        });
      } else if (
        Number.isInteger(pool.replicas) &&
        (pool.replicas < a.minCount || pool.replicas > a.maxCount)
      ) {
        errors.push({
          field: at('replicas'),
          message: `${label}: the initial node count ${pool.replicas} must be between the autoscaler's minimum ${a.minCount} and maximum ${a.maxCount}`,
        });
      }
    }
  });
  return errors;
}

/** ARM tag rules. @public */
export function tagsErrors(
  tags: Record<string, string> | undefined,
): ClusterFieldError[] {
  if (!tags) return [];
  const errors: ClusterFieldError[] = [];
  const entries = Object.entries(tags);
  if (entries.length > MAX_TAGS)
    errors.push({ field: 'tags', message: `at most ${MAX_TAGS} tags` });
  for (const [k, v] of entries) {
    if (!k || k.length > 512 || TAG_NAME_FORBIDDEN.test(k)) {
      errors.push({
        field: 'tags',
        message: `tag name "${k}" must be 1 to 512 characters without < > % & \\ ? /`,
      });
    }
    if (typeof v !== 'string' || v.length > 256)
      errors.push({
        field: 'tags',
        message: `tag "${k}": the value must be text of at most 256 characters`,
      });
  }
  return errors;
}

/**
 * A Kubernetes version as CAPI expects it, with the leading v: people and AKS (`az aks get-versions`) write
 * `1.33.2`, CAPI's webhooks refuse a MachinePool or control plane `version` without the v. Anything that is not a
 * bare version is returned as it was, for {@link kubernetesVersionErrors} to name.
 * @public
 */
export function normalizeKubernetesVersion(v: string): string {
  const t = v.trim();
  return /^[vV]?\d+\.\d+\.\d+$/.test(t) ? `v${t.replace(/^[vV]/, '')}` : v;
}

/** The Kubernetes version's problems (the form and CAPI both write it with a leading v). @public */
export function kubernetesVersionErrors(
  v: string | undefined,
): ClusterFieldError[] {
  return v && VERSION.test(v)
    ? []
    : [
        {
          field: 'kubernetesVersion',
          message: `"${v ?? ''}" must be a version like v1.33.2`,
        },
      ];
}

/**
 * A new cluster's version must be one AKS offers in its region: `offered` is ARM's
 * `managedClusters.listKubernetesVersions(location)` (every patch, as the day-2 upgrade reads it). AKS refuses any
 * other with `AgentPoolK8sVersionNotSupported`, but only once CAPZ and ASO have sent the cluster to ARM, after the
 * objects are written (docs/capz-aso-facts.md#create-offered-version). Versions compare with or without the leading v.
 * @public
 */
export function offeredKubernetesVersionErrors(
  p: { kubernetesVersion: string; location: string },
  offered: readonly string[],
): ClusterFieldError[] {
  const withV = (v: string) => (v.startsWith('v') ? v : `v${v}`);
  const versions = [...new Set(offered.map(withV))];
  if (versions.includes(withV(p.kubernetesVersion))) return [];
  return [
    {
      field: 'kubernetesVersion',
      message: `AKS does not offer ${withV(p.kubernetesVersion)} in ${
        p.location
      }; it offers ${versions.join(', ') || 'no version'}`,
    },
  ];
}

/** An Azure region name as ARM spells it (`westeurope`). @public */
export function locationErrors(l: string | undefined): ClusterFieldError[] {
  return l && REGION.test(l)
    ? []
    : [
        {
          field: 'location',
          message: `"${
            l ?? ''
          }" must be an Azure region name such as westeurope`,
        },
      ];
}

/** Every rule the parameters of a new cluster must meet, each problem naming its field. @public */
export function clusterParamsFieldErrors(p: {
  name: string;
  namespace: string;
  location: string;
  kubernetesVersion: string;
  credentialSecretName: string;
  pools: AksAsoPoolParams[];
  owner?: string;
  tags?: Record<string, string>;
  entraOnly?: boolean;
  adminGroupObjectIDs?: string[];
}): ClusterFieldError[] {
  const errors: ClusterFieldError[] = [];
  const validPools = (p.pools ?? []).filter(x => typeof x?.name === 'string');
  errors.push(
    ...clusterNameErrors(p.name, {
      location: REGION.test(p.location ?? '') ? p.location : undefined,
      pools: validPools,
    }),
  );
  // The names of Kubernetes objects: Kubernetes' rules, one place (../jobs/names.ts; the backend's OpenAPI schemas
  // NamespaceName and SecretName say the same, src/schema/openapi.test.ts there checks that).
  if (!p.namespace || validateDnsLabel(p.namespace) !== undefined) {
    errors.push({
      field: 'namespace',
      message: `"${
        p.namespace ?? ''
      }" is not a namespace name (a DNS label of at most ${DNS_LABEL_MAX_LENGTH} characters)`,
    });
  }
  errors.push(...locationErrors(p.location));
  errors.push(...kubernetesVersionErrors(p.kubernetesVersion));
  if (
    !p.credentialSecretName ||
    validateDnsSubdomain(p.credentialSecretName) !== undefined
  ) {
    errors.push({
      field: 'credentialSecretName',
      message: `"${p.credentialSecretName ?? ''}" is not a Secret name`,
    });
  }
  errors.push(...nodePoolsErrors(p.pools));
  errors.push(...tagsErrors(p.tags));
  if (p.owner !== undefined && p.owner !== '' && !ENTITY_REF.test(p.owner)) {
    errors.push({
      field: 'owner',
      message: `"${p.owner}" must be a catalog entity reference such as group:default/platform`,
    });
  }
  for (const id of p.adminGroupObjectIDs ?? []) {
    if (!GUID.test(id))
      errors.push({
        field: 'adminGroupObjectIDs',
        message: `"${id}" is not an Entra group object id (a GUID)`,
      });
  }
  if (p.adminGroupObjectIDs?.length && p.entraOnly === false) {
    errors.push({
      field: 'adminGroupObjectIDs',
      message: 'admin groups apply to Entra-only clusters (entraOnly: true)',
    });
  }
  return errors;
}

/** `field: message`, as the backend's 400 and the actions' errors word a problem. @public */
export const formatFieldError = (e: ClusterFieldError) =>
  `${e.field}: ${e.message}`;
