/**
 * Legacy (AzureManagedControlPlane) clusters for the real-controllers lane: CAPZ's own `aks` template applied for
 * several clusters at once against one set of real managers, one poller that tells each test when its cluster is
 * ready (the real legacy controllers take ~3 min, docs/real-controllers.md finding 15), and the printing helpers the
 * legacy tests share.
 */
import { SIM_SERVICE_PRINCIPAL } from '@internal/capz-sim/azure';
import { capzTemplate } from '@internal/capz-sim/capz-templates';
import type { SimulatedAzure } from '@internal/capz-sim/simulated-azure';
import { apiRequest, type ClusterInfo } from '../src/cluster.ts';
// The poller's own lifetime is no wait (it runs until every cluster is ready or the file ends): each cluster's
// readiness is reported instead.
import { until } from '../src/testing.ts';
import { reportWait } from './wait.ts';
import { condition, conditionText, objectsIn, type Obj } from './objects.ts';

export const SUBSCRIPTION = '00000000-0000-4000-8000-0000000000f2';
export const LOCATION = 'westeurope';

/** The API versions the lane reads and writes each group at. */
export const V = {
  capi: 'cluster.x-k8s.io/v1beta2',
  capz: 'infrastructure.cluster.x-k8s.io/v1beta1',
  rg: 'resources.azure.com/v1api20200601',
  aks: 'containerservice.azure.com/v1api20250801',
  net: 'network.azure.com/v1api20201101',
} as const;

export const POLICY = 'serviceoperator.azure.com/reconcile-policy';
export const PRE_PAUSE =
  'sigs.k8s.io/cluster-api-provider-azure-pre-pause-reconcile-policy';
export const BLOCK_MOVE = 'clusterctl.cluster.x-k8s.io/block-move';

/** The ASO kinds the legacy control plane and machine pools write (docs/real-controllers.md#legacy-path). */
export const LEGACY_ASO_KINDS = [
  [V.aks, 'ManagedClustersAgentPool'],
  [V.aks, 'ManagedCluster'],
  [V.net, 'VirtualNetworksSubnet'],
  [V.net, 'VirtualNetwork'],
  [V.rg, 'ResourceGroup'],
] as const;

export interface Lane {
  info: ClusterInfo;
  azure: SimulatedAzure;
  say: (m: string) => void;
}

/** One legacy cluster: its namespace and name; the template names its resource group after the cluster. */
export interface LegacyCluster {
  ns: string;
  name: string;
}

export const seconds = (since: number) =>
  ((Date.now() - since) / 1000).toFixed(1);

export async function createNamespace(
  info: ClusterInfo,
  ns: string,
): Promise<void> {
  const r = await apiRequest(info, 'POST', '/api/v1/namespaces', {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: ns },
  });
  if (r.status !== 201 && r.status !== 409)
    throw new Error(`create namespace ${ns}: ${r.status} ${r.body}`);
}

/**
 * CAPZ v1.26.0's `templates/cluster-template-aks.yaml` for `c` in its own namespace, applied as a user would, with a
 * ServicePrincipal AzureClusterIdentity for the simulator's service principal instead of the template's workload
 * identity (CAPZ v1.26.0 api/v1beta1/azureclusteridentity_types.go: clientSecret is a SecretReference), allowed in
 * that namespace only. Returns how many objects were applied.
 */
export async function applyLegacyTemplate(
  info: ClusterInfo,
  c: LegacyCluster,
): Promise<number> {
  await createNamespace(info, c.ns);
  // The client secret under the key CAPZ reads (azure/scope/identity.go AzureSecretKey).
  const r = await apiRequest(
    info,
    'POST',
    `/api/v1/namespaces/${c.ns}/secrets`,
    {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'cluster-identity-secret' },
      stringData: { clientSecret: SIM_SERVICE_PRINCIPAL.clientSecret },
    },
  );
  if (r.status !== 201 && r.status !== 409)
    throw new Error(`create identity secret in ${c.ns}: ${r.status} ${r.body}`);
  const objects: Obj[] = capzTemplate('aks', c.name, c.ns, {
    CLUSTER_IDENTITY_NAME: 'cluster-identity',
    CLUSTER_IDENTITY_TYPE: 'ServicePrincipal',
    AZURE_CLIENT_ID_USER_ASSIGNED_IDENTITY: SIM_SERVICE_PRINCIPAL.clientId,
    AZURE_TENANT_ID: SIM_SERVICE_PRINCIPAL.tenantId,
    AZURE_SUBSCRIPTION_ID: SUBSCRIPTION,
    AZURE_LOCATION: LOCATION,
    KUBERNETES_VERSION: 'v1.33.2',
    AZURE_NODE_MACHINE_TYPE: 'Standard_D2s_v3',
    WORKER_MACHINE_COUNT: '2',
  });
  const identity = objects.find(o => o.kind === 'AzureClusterIdentity')!;
  identity.spec.clientSecret = {
    name: 'cluster-identity-secret',
    namespace: c.ns,
  };
  identity.spec.allowedNamespaces = { list: [c.ns] };
  const { create } = objectsIn(() => info, c.ns);
  for (const o of objects) await create(o);
  return objects.length;
}

/** Seconds after the templates were applied at which a cluster reached each stage. */
export interface Readiness {
  /** The Cluster's v1beta2 Available condition is True. */
  available: Promise<number>;
  /** Available, and each of its MachinePools has 2 ready replicas with 2 nodeRefs. */
  ready: Promise<number>;
}

function deferred(): {
  promise: Promise<number>;
  resolve: (v: number) => void;
  reject: (e: unknown) => void;
  done: boolean;
} {
  const d = { done: false } as ReturnType<typeof deferred>;
  d.promise = new Promise<number>((resolve, reject) => {
    d.resolve = v => {
      d.done = true;
      resolve(v);
    };
    d.reject = e => {
      d.done = true;
      reject(e);
    };
  });
  // Marked handled here: a test awaiting it later still sees the rejection.
  d.promise.catch(() => undefined);
  return d;
}

/**
 * One poller for every legacy cluster (two cluster-wide lists per round rather than one poll per test): each
 * cluster's Cluster conditions are printed when they change, and its promises resolve when it gets there. Its bound,
 * counted from the apply, is a hang detector: beside stress-ng on both cores every cluster was Available 163-166 s and
 * had both pools 2/2 194-202 s after the apply (as on an idle machine: the legacy controllers' 20 s requeues set the
 * pace, docs/real-controllers.md finding 15).
 */
export function watchLegacyClusters(
  lane: Lane,
  clusters: LegacyCluster[],
  appliedAt: number,
  timeoutMs = 900_000,
): { clusters: Map<string, Readiness>; stop: () => void } {
  let stopped = false;
  const state = new Map(
    clusters.map(c => [
      `${c.ns}/${c.name}`,
      { available: deferred(), ready: deferred(), last: '' },
    ]),
  );
  const listAll = async (apiVersion: string, plural: string) => {
    const r = await apiRequest(
      lane.info,
      'GET',
      `/apis/${apiVersion}/${plural}`,
    );
    if (r.status !== 200) throw new Error(`list ${plural}: ${r.status}`);
    return (JSON.parse(r.body) as { items: Obj[] }).items;
  };
  until(
    'every legacy cluster Available with its MachinePools ready',
    async () => {
      if (stopped) return true;
      const cl = await listAll(V.capi, 'clusters');
      const mps = await listAll(V.capi, 'machinepools');
      for (const [key, s] of state) {
        if (s.ready.done) continue;
        const c = cl.find(
          o => `${o.metadata.namespace}/${o.metadata.name}` === key,
        );
        const now = conditionText(c);
        if (now !== s.last) lane.say(`Cluster ${key}: ${(s.last = now)}`);
        if (condition(c, 'Available')?.status !== 'True') continue;
        const t = Number(seconds(appliedAt));
        if (!s.available.done) {
          lane.say(`Cluster ${key} Available after ${t} s`);
          reportWait(`Cluster ${key} Available`, t * 1000, timeoutMs);
          s.available.resolve(t);
        }
        const own = mps.filter(
          m => `${m.metadata.namespace}/${m.spec?.clusterName}` === key,
        );
        if (
          own.length === 2 &&
          own.every(
            m =>
              m.status?.readyReplicas === 2 && m.status?.nodeRefs?.length === 2,
          )
        ) {
          lane.say(`Cluster ${key}: both MachinePools 2/2 after ${t} s`);
          reportWait(
            `Cluster ${key} both MachinePools 2/2`,
            t * 1000,
            timeoutMs,
          );
          s.ready.resolve(t);
        }
      }
      return [...state.values()].every(s => s.ready.done);
    },
    timeoutMs,
  ).catch(e => {
    for (const s of state.values()) {
      if (!s.available.done) s.available.reject(e);
      if (!s.ready.done) s.ready.reject(e);
    }
  });
  return {
    clusters: new Map(
      [...state].map(([k, s]) => [
        k,
        { available: s.available.promise, ready: s.ready.promise },
      ]),
    ),
    // Ends the polling when the file's tests are over (a failed test must not leave it running).
    stop: () => {
      stopped = true;
    },
  };
}

/** What the real managers wrote on an object, for the report (docs/real-controllers.md#legacy-path). */
export const shape = (o: Obj) => ({
  kind: o.kind,
  name: o.metadata.name,
  annotations: o.metadata.annotations,
  labels: o.metadata.labels,
  ownerReferences: (o.metadata.ownerReferences as any[] | undefined)?.map(
    r =>
      `${r.kind}/${r.name}${r.controller ? ' controller' : ''}${
        r.blockOwnerDeletion ? ' block' : ''
      }`,
  ),
  finalizers: o.metadata.finalizers,
  conditions: conditionText(o),
});

/** An ASO object's reconcile policy, pre-pause policy, finalizers, owners and deletion state, on one line. */
export const asoState = (o: Obj) =>
  `${o.kind}/${o.metadata.name} policy=${
    (o.metadata.annotations as any)?.[POLICY] ?? '-'
  } pre-pause=${
    (o.metadata.annotations as any)?.[PRE_PAUSE] ?? '-'
  } finalizers=${JSON.stringify(
    o.metadata.finalizers ?? [],
  )} owners=${JSON.stringify(
    ((o.metadata.ownerReferences as any[] | undefined) ?? []).map(
      r => `${r.kind}/${r.name}`,
    ),
  )}${o.metadata.deletionTimestamp ? ' deleting' : ''}`;

/** The simulated Azure's created/deleted counters (resource groups, clusters, pools; VNets, subnets), copied. */
export const azureCounts = (azure: SimulatedAzure) =>
  structuredClone({
    created: azure.world.counters.created,
    deleted: azure.world.counters.deleted,
    updated: azure.world.counters.updated,
    networkCreated: azure.world.networkCounters.created,
    networkDeleted: azure.world.networkCounters.deleted,
    networkUpdated: azure.world.networkCounters.updated,
  });
