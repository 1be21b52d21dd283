/**
 * Seeds N ASO-managed clusters as static objects, in the state the real controllers would leave them: the CAPI/CAPZ
 * objects come from capz-sim's scenario builder (`asoManagedCluster`, recorded instead of sent), then each gets what
 * CAPI, CAPZ and ASO write (owner references, the `cluster.x-k8s.io/cluster-name` label, finalizers, the embedded
 * ASO objects, and status through the status subresource). No simulator controllers run.
 */
import { apiRequest, type ClusterInfo } from '@internal/mgmt-cluster';
import {
  asoManagedCluster,
  K,
  ownerRef,
  type Kube,
  type Obj,
  type PoolSeed,
} from '@internal/capz-sim';

type Kind = (typeof K)[keyof typeof K];

export const CLUSTER_NAME = 'cluster.x-k8s.io/cluster-name';
/** The label the stock Kubernetes plugin selects an entity's objects by (`backstage.io/kubernetes-id=<entity>`). */
export const KUBERNETES_ID = 'backstage.io/kubernetes-id';
const CREDENTIAL_SECRET = 'aso-credential';
const SUBSCRIPTION = '00000000-0000-0000-0000-00000000be0c';
const LOCATIONS = ['westeurope', 'northeurope', 'eastus2', 'swedencentral'];
const VERSIONS = ['1.32.7', '1.33.2', '1.33.2', '1.34.1'];

export interface SeededCluster {
  namespace: string;
  name: string;
  uid: string;
  objects: number;
  /** Its ManagedCluster is Ready=False (ReconciliationBlocked). */
  failing: boolean;
}

export interface SeedResult {
  clusters: SeededCluster[];
  objects: number;
  requests: number;
  ms: number;
}

type Conn = Pick<ClusterInfo, 'url' | 'caPem' | 'adminToken'>;

class ApiError extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

const pathOf = (
  kind: Kind,
  ns: string | undefined,
  name?: string,
  sub?: string,
) => {
  const base = kind.group
    ? `/apis/${kind.group}/${kind.version}`
    : `/api/${kind.version}`;
  const nsPart = kind.namespaced && ns ? `/namespaces/${ns}` : '';
  return `${base}${nsPart}/${kind.plural}${name ? `/${name}` : ''}${
    sub ? `/${sub}` : ''
  }`;
};

const now = () => new Date().toISOString().replace(/\.\d+Z$/, 'Z');

/** A deterministic pseudo-random generator, so that runs with the same N seed the same world. */
export function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 0x100000000;
  };
}

/** Runs `fn` over `items` with at most `limit` in flight. */
export async function pool<T, R>(
  items: T[],
  limit: number,
  fn: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i], i);
    }
  };
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, worker),
  );
  return results;
}

/** Records what a scenario builder would create, instead of sending it. */
function recordingKube(): {
  kube: Kube;
  created: Array<{ kind: Kind; obj: Obj }>;
} {
  const created: Array<{ kind: Kind; obj: Obj }> = [];
  const fake = {
    async createIfAbsent(kind: Kind, obj: Obj) {
      created.push({ kind, obj: structuredClone(obj) });
      return obj;
    },
  };
  // The builder only calls createIfAbsent; the cast keeps the real Kube type at the import boundary.
  return { kube: fake as unknown as Kube, created };
}

const asoReady = (
  generation = 1,
  failure?: { reason: string; message: string },
) => [
  failure
    ? {
        type: 'Ready',
        status: 'False',
        severity: 'Warning',
        reason: failure.reason,
        message: failure.message,
        observedGeneration: generation,
        lastTransitionTime: now(),
      }
    : {
        type: 'Ready',
        status: 'True',
        severity: '',
        reason: 'Succeeded',
        observedGeneration: generation,
        lastTransitionTime: now(),
      },
];

const v1beta2 = (
  generation: number,
  conds: Array<{
    type: string;
    status: string;
    reason: string;
    message?: string;
  }>,
) =>
  conds.map(c => ({
    ...c,
    message: c.message ?? '',
    observedGeneration: generation,
    lastTransitionTime: now(),
  }));

export class Seeder {
  readonly conn: Conn;
  requests = 0;

  constructor(conn: Conn) {
    this.conn = conn;
  }

  private async call(
    method: string,
    path: string,
    body?: unknown,
    contentType?: string,
  ): Promise<Obj> {
    this.requests++;
    for (let attempt = 0; ; attempt++) {
      const res = await apiRequest(this.conn, method, path, body, contentType);
      // 429/5xx under load: retry with a short backoff (the API server's max-in-flight limits).
      if ((res.status === 429 || res.status >= 500) && attempt < 5) {
        await new Promise(r => setTimeout(r, 100 * 2 ** attempt));
        continue;
      }
      if (res.status >= 400)
        throw new ApiError(
          res.status,
          `${method} ${path}: ${res.status} ${res.body.slice(0, 400)}`,
        );
      return JSON.parse(res.body) as Obj;
    }
  }

  /** Creates the object (or reads the existing one: re-running with --keep'd clusters is idempotent). */
  async create(kind: Kind, obj: Obj): Promise<Obj> {
    try {
      return await this.call('POST', pathOf(kind, obj.metadata.namespace), {
        ...obj,
        kind: kind.kind,
      });
    } catch (e) {
      if (e instanceof ApiError && e.status === 409)
        return this.call(
          'GET',
          pathOf(kind, obj.metadata.namespace, obj.metadata.name),
        );
      throw e;
    }
  }

  async patchStatus(kind: Kind, obj: Obj, status: unknown): Promise<Obj> {
    return this.call(
      'PATCH',
      pathOf(kind, obj.metadata.namespace, obj.metadata.name, 'status'),
      { status },
      'application/merge-patch+json',
    );
  }

  async patch(
    kind: Kind,
    ns: string,
    name: string,
    patch: unknown,
    sub?: string,
  ): Promise<Obj> {
    return this.call(
      'PATCH',
      pathOf(kind, ns, name, sub),
      patch,
      'application/merge-patch+json',
    );
  }

  async ensureNamespace(name: string): Promise<void> {
    await this.create(K.Namespace, {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name },
    });
  }
}

export const namespaceOf = (i: number, namespaces: number) =>
  `bench-${String(i % namespaces).padStart(2, '0')}`;
export const clusterNameOf = (i: number) => `aks-${String(i).padStart(5, '0')}`;

/** The namespace with the most seeded clusters (the first by name among equals) and how many it has. */
export function biggestNamespace(clusters: SeededCluster[]): {
  namespace: string;
  clusters: number;
} {
  const counts = new Map<string, number>();
  for (const c of clusters)
    counts.set(c.namespace, (counts.get(c.namespace) ?? 0) + 1);
  let best = { namespace: '', clusters: 0 };
  for (const [namespace, n] of [...counts].sort(([a], [b]) =>
    a.localeCompare(b),
  ))
    if (n > best.clusters) best = { namespace, clusters: n };
  return best;
}

/**
 * One cluster, level by level (owners before the objects that reference their uid): Cluster; its infrastructure,
 * control plane and MachinePools; their ASO objects and AzureASOManagedMachinePools; the agent pools.
 */
async function seedCluster(
  s: Seeder,
  i: number,
  pools: number,
  namespaces: number,
): Promise<SeededCluster> {
  const random = rng(1000 + i);
  const ns = namespaceOf(i, namespaces);
  const name = clusterNameOf(i);
  const location = LOCATIONS[i % LOCATIONS.length];
  const version = VERSIONS[i % VERSIONS.length];
  // About 1 in 20 clusters has a blocked ManagedCluster, so health rollups have something to say.
  const failing = random() < 0.05;
  const poolSeeds: PoolSeed[] = Array.from({ length: pools }, (_, p) =>
    p === 0
      ? { name: 'system', mode: 'System', count: 3, vmSize: 'Standard_D4s_v5' }
      : {
          name: `user${p}`,
          mode: 'User',
          count: 1 + Math.floor(random() * 5),
          vmSize: 'Standard_D8s_v5',
          ...(p % 2 === 0
            ? { enableAutoScaling: true, minCount: 1, maxCount: 10 }
            : {}),
        },
  );
  const { kube, created } = recordingKube();
  await asoManagedCluster(kube, {
    namespace: ns,
    name,
    location,
    version,
    credentialSecret: CREDENTIAL_SECRET,
    pools: poolSeeds,
  });
  const find = (kind: string, objName = name) =>
    created.find(c => c.obj.kind === kind && c.obj.metadata.name === objName)!
      .obj;
  const labels = { [CLUSTER_NAME]: name, [KUBERNETES_ID]: name };
  const withMeta = (obj: Obj, extra: Partial<Obj['metadata']>): Obj => ({
    ...obj,
    metadata: {
      ...obj.metadata,
      ...extra,
      labels: { ...obj.metadata.labels, ...labels, ...extra.labels },
    },
  });
  let objects = 0;

  // Level 0: the Cluster.
  const clusterSpec = find('Cluster');
  const cluster = await s.create(
    K.Cluster,
    withMeta(clusterSpec, { finalizers: ['cluster.cluster.x-k8s.io'] }),
  );
  objects++;

  // Level 1: infrastructure and control plane (CAPI adopts them: label + controller owner reference), MachinePools.
  const byCluster = { ownerReferences: [ownerRef(cluster, true)] };
  const amcSpec = find('AzureASOManagedCluster');
  const amcpSpec = find('AzureASOManagedControlPlane');
  const fqdn = `${name}-${((i * 2654435761) >>> 0)
    .toString(16)
    .padStart(8, '0')}.hcp.${location}.azmk8s.io`;
  const endpoint = { host: fqdn, port: 443 };
  const [amc, amcp, ...machinePools] = await Promise.all([
    s.create(
      K.AzureASOManagedCluster,
      withMeta(
        {
          ...amcSpec,
          spec: { ...amcSpec.spec, controlPlaneEndpoint: endpoint },
        },
        {
          ...byCluster,
          finalizers: [
            'azureasomanagedcluster.infrastructure.cluster.x-k8s.io',
          ],
          annotations: {
            'sigs.k8s.io/cluster-api-provider-azure-owned-aso-kinds':
              'ResourceGroup.resources.azure.com',
            'clusterctl.cluster.x-k8s.io/block-move': 'true',
          },
        },
      ),
    ),
    s.create(
      K.AzureASOManagedControlPlane,
      withMeta(amcpSpec, {
        ...byCluster,
        finalizers: [
          'azureasomanagedcontrolplane.infrastructure.cluster.x-k8s.io',
        ],
        annotations: {
          'sigs.k8s.io/cluster-api-provider-azure-owned-aso-kinds':
            'ManagedCluster.containerservice.azure.com',
          'clusterctl.cluster.x-k8s.io/block-move': 'true',
        },
      }),
    ),
    ...poolSeeds.map(p =>
      s.create(
        K.MachinePool,
        withMeta(find('MachinePool', `${name}-${p.name}`), {
          ownerReferences: [ownerRef(cluster, false)],
          finalizers: ['machinepool.cluster.x-k8s.io'],
          ...(p.enableAutoScaling
            ? { annotations: { 'cluster.x-k8s.io/replicas-managed-by': 'aks' } }
            : {}),
        }),
      ),
    ),
  ]);
  objects += 2 + machinePools.length;

  // Level 2: the ASO objects CAPZ applies (controller-owned by the CAPZ object) and the AzureASOManagedMachinePools.
  const credential = {
    'serviceoperator.azure.com/credential-from': CREDENTIAL_SECRET,
  };
  const rgEmbedded = amcSpec.spec.resources[0] as Obj;
  const mcEmbedded = amcpSpec.spec.resources[0] as Obj;
  const aso = (kind: Kind, embedded: Obj, owner: Obj, spec: unknown): Obj =>
    withMeta(
      {
        apiVersion: embedded.apiVersion,
        kind: kind.kind,
        metadata: { name: embedded.metadata.name, namespace: ns },
        spec,
      },
      {
        ownerReferences: [ownerRef(owner, true)],
        finalizers: ['serviceoperator.azure.com/finalizer'],
        annotations: {
          ...credential,
          'serviceoperator.azure.com/latest-reconciled-generation': '1',
        },
      },
    );
  const [rg, mc, ...ammps] = await Promise.all([
    s.create(
      K.ResourceGroup,
      aso(K.ResourceGroup, rgEmbedded, amc, rgEmbedded.spec),
    ),
    s.create(
      K.ManagedCluster,
      aso(K.ManagedCluster, mcEmbedded, amcp, {
        ...mcEmbedded.spec,
        kubernetesVersion: version,
        operatorSpec: {
          secrets: {
            adminCredentials: { name: `${name}-kubeconfig`, key: 'value' },
          },
        },
      }),
    ),
    ...poolSeeds.map((_p, k) => {
      const mp = machinePools[k];
      const spec = find('AzureASOManagedMachinePool', mp.metadata.name);
      return s.create(
        K.AzureASOManagedMachinePool,
        withMeta(spec, {
          ownerReferences: [ownerRef(mp, true)],
          finalizers: [
            'azureasomanagedmachinepool.infrastructure.cluster.x-k8s.io',
          ],
          annotations: {
            'sigs.k8s.io/cluster-api-provider-azure-owned-aso-kinds':
              'ManagedClustersAgentPool.containerservice.azure.com',
          },
        }),
      );
    }),
  ]);
  objects += 2 + ammps.length;

  // Level 3: the agent pools.
  const agentPools = await Promise.all(
    ammps.map((ammp, k) => {
      const embedded = ammp.spec.resources[0] as Obj;
      return s.create(
        K.ManagedClustersAgentPool,
        aso(K.ManagedClustersAgentPool, embedded, ammp, {
          ...embedded.spec,
          count: poolSeeds[k].count,
          orchestratorVersion: version,
        }),
      );
    }),
  );
  objects += agentPools.length;

  // Status, as ASO, CAPZ and CAPI write it (all through the status subresource).
  const nodeRG = `MC_${name}_${name}_${location}`;
  const armBase = `/subscriptions/${SUBSCRIPTION}/resourceGroups/${name}`;
  const mcFailure = failing
    ? {
        reason: 'ReconciliationBlocked',
        message: `Managed cluster '${name}' is in provisioning state 'Upgrading'; ASO will not PUT while AKS is busy.`,
      }
    : undefined;
  const poolStatus = (p: PoolSeed) => ({
    count: p.count,
    vmSize: p.vmSize,
    mode: p.mode,
    osType: 'Linux',
    orchestratorVersion: version,
    currentOrchestratorVersion: version,
    enableAutoScaling: p.enableAutoScaling,
    minCount: p.minCount,
    maxCount: p.maxCount,
    nodeImageVersion: 'AKSUbuntu-2204gen2containerd-202510.03.0',
    powerState: { code: 'Running' },
    provisioningState: 'Succeeded',
  });
  const resourceStatus = (o: Obj, ready: boolean) => ({
    resource: {
      group: o.apiVersion.split('/')[0],
      version: o.apiVersion.split('/')[1],
      kind: o.kind,
      name: o.metadata.name,
    },
    ready,
  });
  const workers = poolSeeds.reduce((n, p) => n + p.count, 0);
  await Promise.all([
    s.patchStatus(K.ResourceGroup, rg, {
      id: armBase,
      name,
      location,
      type: 'Microsoft.Resources/resourceGroups',
      properties: { provisioningState: 'Succeeded' },
      conditions: asoReady(rg.metadata.generation),
    }),
    s.patchStatus(K.ManagedCluster, mc, {
      id: `${armBase}/providers/Microsoft.ContainerService/managedClusters/${name}`,
      name,
      type: 'Microsoft.ContainerService/ManagedClusters',
      location,
      dnsPrefix: name,
      kubernetesVersion: version,
      currentKubernetesVersion: version,
      fqdn,
      azurePortalFQDN: fqdn.replace('.hcp.', '.portal.hcp.'),
      nodeResourceGroup: nodeRG,
      enableRBAC: true,
      identity: { type: 'SystemAssigned' },
      networkProfile: { networkPlugin: 'azure' },
      provisioningState: failing ? 'Upgrading' : 'Succeeded',
      powerState: { code: 'Running' },
      agentPoolProfiles: poolSeeds.map(p => ({
        name: p.name,
        type: 'VirtualMachineScaleSets',
        ...poolStatus(p),
      })),
      conditions: asoReady(mc.metadata.generation, mcFailure),
    }),
    ...agentPools.map((ap, k) =>
      s.patchStatus(K.ManagedClustersAgentPool, ap, {
        id: `${armBase}/providers/Microsoft.ContainerService/managedClusters/${name}/agentPools/${poolSeeds[k].name}`,
        name: poolSeeds[k].name,
        type: 'Microsoft.ContainerService/managedClusters/agentPools',
        properties_type: 'VirtualMachineScaleSets',
        ...poolStatus(poolSeeds[k]),
        conditions: asoReady(ap.metadata.generation),
      }),
    ),
    s.patchStatus(K.AzureASOManagedCluster, amc, {
      resources: [resourceStatus(rg, true)],
      ready: true,
    }),
    s.patchStatus(K.AzureASOManagedControlPlane, amcp, {
      resources: [resourceStatus(mc, !failing)],
      controlPlaneEndpoint: endpoint,
      ready: true,
      initialized: true,
      version: `v${version}`,
    }),
    ...ammps.map((ammp, k) =>
      s.patchStatus(K.AzureASOManagedMachinePool, ammp, {
        resources: [resourceStatus(agentPools[k], true)],
        replicas: poolSeeds[k].count,
        ready: true,
      }),
    ),
    ...machinePools.map((mp, k) => {
      const n = poolSeeds[k].count;
      return s.patchStatus(K.MachinePool, mp, {
        conditions: v1beta2(mp.metadata.generation ?? 1, [
          { type: 'Available', status: 'True', reason: 'Available' },
          { type: 'InfrastructureReady', status: 'True', reason: 'Ready' },
        ]),
        initialization: {
          infrastructureProvisioned: true,
          bootstrapDataSecretCreated: true,
        },
        replicas: n,
        readyReplicas: n,
        availableReplicas: n,
        upToDateReplicas: n,
        phase: 'Running',
        observedGeneration: mp.metadata.generation,
      });
    }),
    s.patchStatus(K.Cluster, cluster, {
      conditions: v1beta2(cluster.metadata.generation ?? 1, [
        { type: 'Available', status: 'True', reason: 'Available' },
        { type: 'ControlPlaneAvailable', status: 'True', reason: 'Available' },
        { type: 'InfrastructureReady', status: 'True', reason: 'Ready' },
        { type: 'Paused', status: 'False', reason: 'NotPaused' },
        {
          type: 'RemoteConnectionProbe',
          status: 'True',
          reason: 'ProbeSucceeded',
        },
        { type: 'WorkersAvailable', status: 'True', reason: 'NoWorkers' },
      ]),
      initialization: {
        infrastructureProvisioned: true,
        controlPlaneInitialized: true,
      },
      workers: {
        desiredReplicas: workers,
        replicas: workers,
        readyReplicas: workers,
        availableReplicas: workers,
        upToDateReplicas: workers,
      },
      phase: 'Provisioned',
      observedGeneration: cluster.metadata.generation,
    }),
  ]);
  return { namespace: ns, name, uid: cluster.metadata.uid!, objects, failing };
}

/** Seeds `clusters` clusters of `pools` pools each over `namespaces` namespaces, `concurrency` clusters at a time. */
export async function seedClusters(
  conn: Conn,
  opts: {
    clusters: number;
    pools: number;
    namespaces: number;
    concurrency: number;
    onProgress?: (done: number) => void;
  },
): Promise<SeedResult> {
  const s = new Seeder(conn);
  const started = performance.now();
  const nsCount = Math.min(opts.namespaces, opts.clusters);
  await pool(
    Array.from({ length: nsCount }, (_, k) => namespaceOf(k, nsCount)),
    8,
    async ns => {
      await s.ensureNamespace(ns);
      await s.create(K.Secret, {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: CREDENTIAL_SECRET, namespace: ns },
        type: 'Opaque',
        data: {
          AZURE_SUBSCRIPTION_ID: Buffer.from(SUBSCRIPTION).toString('base64'),
          AUTH_MODE: Buffer.from('workloadidentity').toString('base64'),
        },
      });
    },
  );
  let done = 0;
  const clusters = await pool(
    Array.from({ length: opts.clusters }, (_, i) => i),
    opts.concurrency,
    async i => {
      const c = await seedCluster(s, i, opts.pools, nsCount);
      done++;
      if (done % 100 === 0) opts.onProgress?.(done);
      return c;
    },
  );
  return {
    clusters,
    objects: clusters.reduce((n, c) => n + c.objects, 0),
    requests: s.requests,
    ms: performance.now() - started,
  };
}
