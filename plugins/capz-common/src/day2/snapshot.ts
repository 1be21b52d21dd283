/**
 * What the day-2 rules need to know about one cluster, read from its objects (live ones in the backend, or the watch
 * cache's). Pure: no I/O.
 */
import { at, arr, isObj, num, str } from '../objects/read';
import type { ObservedObject } from '../objects/types';
import {
  CLUSTER_NAME_LABEL,
  CREDENTIAL_FROM_ANNOTATION,
  REPLICAS_MANAGED_BY_ANNOTATION,
} from '../vocabulary';

/** Which CAPZ API a cluster is written in: the ASO-managed one, or the deprecated AzureManaged* one. @public */
export type Day2ClusterApi = 'aso' | 'legacy';

/** One node pool: its MachinePool, its infrastructure object and what they say. @public */
export interface Day2Pool {
  /** The agent pool's name in Azure (ASO `spec.azureName`, legacy `spec.name`; else the object's name). */
  name: string;
  machinePool: ObservedObject;
  /** AzureASOManagedMachinePool or AzureManagedMachinePool; undefined when the cache/API server has none. */
  infra?: ObservedObject;
  /** ASO path: the index of the embedded ManagedClustersAgentPool in the infra object's `spec.resources`. */
  agentPoolIndex?: number;
  mode?: 'System' | 'User';
  osType?: string;
  vmSize?: string;
  /** MachinePool `spec.replicas`. */
  replicas?: number;
  /** MachinePool `spec.template.spec.version`. */
  version?: string;
  /** `cluster.x-k8s.io/replicas-managed-by`: who owns the count when not the MachinePool. */
  replicasManagedBy?: string;
  /** The autoscaler's bounds as the spec asks (ASO: enableAutoScaling/minCount/maxCount; legacy: spec.scaling). */
  autoscaling?: { minCount?: number; maxCount?: number };
  /** ASO path: a pinned `orchestratorVersion` in spec.resources (CAPZ refuses one that differs from the pool's version). */
  pinnedOrchestratorVersion?: string;
  /** ASO path: a pinned `count` in spec.resources. */
  pinnedCount?: number;
  /** The ASO ManagedClustersAgentPool object the pool's infrastructure object applies, when found. */
  agentPool?: ObservedObject;
  deleting: boolean;
}

/** One cluster as the day-2 rules see it. @public */
export interface Day2Cluster {
  namespace: string;
  name: string;
  api: Day2ClusterApi;
  cluster: ObservedObject;
  controlPlane?: ObservedObject;
  infraCluster?: ObservedObject;
  paused: boolean;
  deleting: boolean;
  /** The control plane's desired version (`spec.version`). */
  version?: string;
  /** The control plane's observed version (`status.version`), when reported. */
  observedVersion?: string;
  /** ASO path: the index of the embedded ManagedCluster in the control plane's `spec.resources`. */
  managedClusterIndex?: number;
  /** ASO path: a pinned `kubernetesVersion` in the embedded ManagedCluster. */
  pinnedKubernetesVersion?: string;
  /** The AKS cluster's name in Azure, region, resource group and subscription, as far as the objects tell. */
  azureName?: string;
  location?: string;
  resourceGroup?: string;
  subscriptionId?: string;
  /** The credential Secret ASO uses for this cluster (`credential-from`), when set. */
  credentialSecret?: string;
  /** Entra ID only (local accounts disabled). */
  entraOnly: boolean;
  /**
   * AKS-managed Entra ID (`aadProfile.managed`): AKS's user kubeconfig then signs in through kubelogin, no secret
   * inside; without it, AKS's user credential is the local account (docs/capz-aso-facts.md#kubeconfig-download).
   */
  entraId: boolean;
  pools: Day2Pool[];
  /** The live ASO ManagedCluster (its status: provisioning state, conditions), when found. */
  managedCluster?: ObservedObject;
}

const refOf = (o: ObservedObject | undefined, ...path: string[]) => {
  const r = at(o?.spec, ...path);
  return isObj(r)
    ? { kind: str(r.kind), name: str(r.name), namespace: str(r.namespace) }
    : undefined;
};

const find = (
  objects: readonly ObservedObject[],
  ref: { kind?: string; name?: string } | undefined,
  namespace: string,
) =>
  ref?.kind && ref.name
    ? objects.find(
        o =>
          o.kind === ref.kind &&
          o.metadata?.name === ref.name &&
          (o.metadata?.namespace ?? namespace) === namespace,
      )
    : undefined;

/** The embedded ASO object of a kind in a CAPZ object's `spec.resources`, with its index. */
function embedded(
  o: ObservedObject | undefined,
  kind: string,
): { index: number; object: Record<string, unknown> } | undefined {
  const list = arr(o?.spec?.resources);
  const index = list.findIndex(r => isObj(r) && r.kind === kind);
  return index >= 0
    ? { index, object: list[index] as Record<string, unknown> }
    : undefined;
}

const ARM_ID =
  /^\/subscriptions\/([^/]+)\/resourceGroups\/([^/]+)\/providers\/Microsoft\.ContainerService\/managedClusters\/([^/]+)$/i;

/** The ASO ResourceGroup (or its ARM id) a ManagedCluster is owned by. */
function resourceGroupOf(
  managedClusterSpec: unknown,
  objects: readonly ObservedObject[],
  namespace: string,
): string | undefined {
  const owner = at(managedClusterSpec, 'owner');
  const armId = str(at(owner, 'armId'));
  if (armId) return armId.split('/')[4];
  const name = str(at(owner, 'name'));
  if (!name) return undefined;
  const rg = objects.find(
    o =>
      o.kind === 'ResourceGroup' &&
      o.metadata?.name === name &&
      (o.metadata?.namespace ?? namespace) === namespace,
  );
  return str(rg?.spec?.azureName) ?? name;
}

function readPool(
  mp: ObservedObject,
  objects: readonly ObservedObject[],
  namespace: string,
): Day2Pool {
  const infra = find(
    objects,
    refOf(mp, 'template', 'spec', 'infrastructureRef'),
    namespace,
  );
  const pool: Day2Pool = {
    name: mp.metadata?.name ?? '',
    machinePool: mp,
    infra,
    replicas: num(mp.spec?.replicas),
    version: str(at(mp.spec, 'template', 'spec', 'version')),
    replicasManagedBy:
      mp.metadata?.annotations?.[REPLICAS_MANAGED_BY_ANNOTATION],
    deleting: Boolean(mp.metadata?.deletionTimestamp),
  };
  if (infra?.kind === 'AzureASOManagedMachinePool') {
    const ap = embedded(infra, 'ManagedClustersAgentPool');
    if (ap) {
      const s = ap.object.spec;
      pool.agentPoolIndex = ap.index;
      pool.name =
        str(at(s, 'azureName')) ??
        str(at(ap.object, 'metadata', 'name')) ??
        pool.name;
      pool.mode = str(at(s, 'mode')) as Day2Pool['mode'];
      pool.osType = str(at(s, 'osType')) ?? 'Linux';
      pool.vmSize = str(at(s, 'vmSize'));
      if (at(s, 'enableAutoScaling') === true)
        pool.autoscaling = {
          minCount: num(at(s, 'minCount')),
          maxCount: num(at(s, 'maxCount')),
        };
      pool.pinnedOrchestratorVersion = str(at(s, 'orchestratorVersion'));
      pool.pinnedCount = num(at(s, 'count'));
      const apName = str(at(ap.object, 'metadata', 'name'));
      pool.agentPool = objects.find(
        o =>
          o.kind === 'ManagedClustersAgentPool' &&
          o.metadata?.name === apName &&
          (o.metadata?.namespace ?? namespace) === namespace,
      );
    }
  } else if (infra?.kind === 'AzureManagedMachinePool') {
    const s = infra.spec;
    pool.name = str(s?.name) ?? pool.name;
    pool.mode = str(s?.mode) as Day2Pool['mode'];
    pool.osType = str(s?.osType) ?? 'Linux';
    pool.vmSize = str(s?.sku);
    // The legacy controllers name the ASO agent pool after the AzureManagedMachinePool (docs/capz-aso-facts.md#legacy-names).
    pool.agentPool = objects.find(
      o =>
        o.kind === 'ManagedClustersAgentPool' &&
        ((infra.metadata?.uid &&
          o.metadata?.ownerReferences?.some(
            r => r.uid === infra.metadata?.uid,
          )) ||
          o.metadata?.name === infra.metadata?.name) &&
        (o.metadata?.namespace ?? namespace) === namespace,
    );
    const scaling = at(s, 'scaling');
    if (isObj(scaling))
      pool.autoscaling = {
        minCount: num(scaling.minSize),
        maxCount: num(scaling.maxSize),
      };
  }
  return pool;
}

/**
 * Reads one cluster from its objects: the Cluster, what its refs name, and the MachinePools of the cluster
 * (`spec.clusterName`) in its namespace. Objects of other clusters in the list are ignored.
 * @public
 */
export function readDay2Cluster(
  cluster: ObservedObject,
  objects: readonly ObservedObject[],
): Day2Cluster {
  const namespace = cluster.metadata?.namespace ?? '';
  const name = cluster.metadata?.name ?? '';
  const controlPlane = find(
    objects,
    refOf(cluster, 'controlPlaneRef'),
    namespace,
  );
  const infraCluster = find(
    objects,
    refOf(cluster, 'infrastructureRef'),
    namespace,
  );
  const api: Day2ClusterApi =
    controlPlane?.kind === 'AzureManagedControlPlane' ? 'legacy' : 'aso';
  const pools = objects
    .filter(
      o =>
        o.kind === 'MachinePool' &&
        (o.metadata?.namespace ?? namespace) === namespace &&
        (str(o.spec?.clusterName) ??
          o.metadata?.labels?.[CLUSTER_NAME_LABEL]) === name,
    )
    .map(mp => readPool(mp, objects, namespace))
    .sort((a, b) => a.name.localeCompare(b.name));
  const c: Day2Cluster = {
    namespace,
    name,
    api,
    cluster,
    controlPlane,
    infraCluster,
    paused: cluster.spec?.paused === true,
    deleting: Boolean(cluster.metadata?.deletionTimestamp),
    version: str(controlPlane?.spec?.version),
    observedVersion: str(controlPlane?.status?.version),
    entraOnly: false,
    entraId: false,
    pools,
  };
  if (api === 'aso') {
    const mc = embedded(controlPlane, 'ManagedCluster');
    if (mc) {
      const s = mc.object.spec;
      const mcName = str(at(mc.object, 'metadata', 'name'));
      c.managedClusterIndex = mc.index;
      c.pinnedKubernetesVersion = str(at(s, 'kubernetesVersion'));
      c.azureName = str(at(s, 'azureName')) ?? mcName;
      c.location = str(at(s, 'location'));
      c.resourceGroup = resourceGroupOf(s, objects, namespace);
      c.credentialSecret = str(
        at(mc.object, 'metadata', 'annotations', CREDENTIAL_FROM_ANNOTATION),
      );
      c.entraOnly = at(s, 'disableLocalAccounts') === true;
      c.entraId = at(s, 'aadProfile', 'managed') === true;
      // The live ASO object knows more: its ARM id (status.id) names the subscription and group for sure.
      const live = objects.find(
        o =>
          o.kind === 'ManagedCluster' &&
          o.metadata?.name === mcName &&
          (o.metadata?.namespace ?? namespace) === namespace,
      );
      c.managedCluster = live;
      const id = ARM_ID.exec(str(live?.status?.id) ?? '');
      if (id) {
        c.subscriptionId = id[1];
        c.resourceGroup = id[2];
        c.azureName = id[3];
      }
      c.credentialSecret ??= str(
        live?.metadata?.annotations?.[CREDENTIAL_FROM_ANNOTATION],
      );
      // What AKS reports wins over what is asked: ARM's aadProfile as ASO last read it.
      const aad = at(live?.status, 'aadProfile', 'managed');
      if (typeof aad === 'boolean') c.entraId = aad;
    }
  } else if (controlPlane) {
    const s = controlPlane.spec;
    c.azureName = str(controlPlane.metadata?.name);
    c.location = str(s?.location);
    c.resourceGroup = str(s?.resourceGroupName);
    c.subscriptionId = str(s?.subscriptionID);
    c.entraOnly = s?.disableLocalAccounts === true;
    c.entraId = at(s, 'aadProfile', 'managed') === true;
    // The legacy controllers' ASO ManagedCluster carries the credential it is reconciled with.
    const live = objects.find(
      o =>
        o.kind === 'ManagedCluster' &&
        o.metadata?.name === controlPlane.metadata?.name &&
        (o.metadata?.namespace ?? namespace) === namespace,
    );
    c.credentialSecret = str(
      live?.metadata?.annotations?.[CREDENTIAL_FROM_ANNOTATION],
    );
    c.managedCluster = live;
  }
  return c;
}

/** The pool named `name` (Azure name first, then MachinePool name). @public */
export function findDay2Pool(
  c: Day2Cluster,
  name: string,
): Day2Pool | undefined {
  return (
    c.pools.find(p => p.name === name) ??
    c.pools.find(p => p.machinePool.metadata?.name === name)
  );
}
