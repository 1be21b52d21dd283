/**
 * Fixture builders for the tree tests: objects in the shapes the management cluster holds once CAPI, CAPZ and ASO
 * have reconciled them (mirroring packages/capz-sim: aso/controller.ts and aso/shapes.ts for ASO status,
 * capz/asoManaged.ts and capz/legacy.ts for the CAPZ objects, capi/controllers.ts for Cluster and MachinePool,
 * scenarios/seed.ts for how clusters are written). Every builder returns fresh objects, so tests may mutate them.
 */
import { CAPZ_GROUP } from '../../kinds';
import {
  CLUSTER_NAME_LABEL as CLUSTER_NAME,
  CREDENTIAL_FROM_ANNOTATION as CREDENTIAL_FROM,
  RECONCILE_POLICY_ANNOTATION as POLICY,
} from '../../vocabulary';
import type { ObservedObject } from '../../objects/types';

export const NOW = '2026-11-21T12:00:00Z';
/** When the fixtures' clusters became ready. */
export const T_READY = '2026-11-20T10:00:00Z';
export const SUB = '00000000-0000-0000-0000-000000000001';

const CAPI = 'cluster.x-k8s.io/v1beta2';
const RG_API = 'resources.azure.com/v1api20200601';
const CS_API = 'containerservice.azure.com/v1api20240901';
const NET_API = 'network.azure.com/v1api20201101';

let uidSeq = 0;
/** A deterministic uid per fixture object. */
const uid = (kind: string, name: string) =>
  `uid-${kind.toLowerCase()}-${name}-${++uidSeq}`;

export type Obj = ObservedObject & {
  metadata: NonNullable<ObservedObject['metadata']> & { name: string };
  spec: Record<string, any>;
  status: Record<string, any>;
};

export const find = (
  objects: readonly ObservedObject[],
  kind: string,
  name: string,
): Obj => {
  const o = objects.find(x => x.kind === kind && x.metadata?.name === name);
  if (!o) throw new Error(`fixture ${kind}/${name} not found`);
  return o as Obj;
};

const ownerRef = (o: Obj, controller = true) => ({
  apiVersion: o.apiVersion,
  kind: o.kind,
  name: o.metadata.name,
  uid: o.metadata.uid,
  controller,
});

function meta(
  kind: string,
  namespace: string,
  name: string,
  extra: Partial<Obj['metadata']> = {},
): Obj['metadata'] {
  return {
    name,
    namespace,
    uid: uid(kind, name),
    generation: 1,
    creationTimestamp: '2026-11-20T09:30:00Z',
    ...extra,
  };
}

/** ASO's Ready condition when the resource is reconciled (aso/controller.ts). */
export const asoReady = (generation = 1, at = T_READY) => ({
  type: 'Ready',
  status: 'True',
  severity: '',
  reason: 'Succeeded',
  observedGeneration: generation,
  lastTransitionTime: at,
});

/** Sets an ASO (or v1beta1-style) Ready condition to False with the given reason and severity. */
export function failReady(
  o: Obj,
  reason: string,
  severity: 'Info' | 'Warning' | 'Error',
  message: string,
  at = '2026-11-21T11:00:00Z',
): Obj {
  const conditions = (o.status.conditions ?? []).filter(
    (c: any) => c.type !== 'Ready',
  );
  conditions.push({
    type: 'Ready',
    status: 'False',
    severity,
    reason,
    message,
    observedGeneration: o.metadata.generation,
    lastTransitionTime: at,
  });
  o.status.conditions = conditions;
  return o;
}

/** Marks an embedded resource not ready in a CAPZ object's status.resources, and the object not ready. */
export function markNotReady(o: Obj, kind?: string): Obj {
  o.status.ready = false;
  if ('initialized' in o.status) o.status.initialized = false;
  for (const r of o.status.resources ?? [])
    if (!kind || r.resource.kind === kind) r.ready = false;
  return o;
}

/** Sets a metav1 condition on a CAPI object. */
export function setCapiCondition(
  o: Obj,
  type: string,
  status: 'True' | 'False',
  reason: string,
  message = '',
  at = '2026-11-21T11:00:00Z',
): Obj {
  const conditions = (o.status.conditions ?? []).filter(
    (c: any) => c.type !== type,
  );
  conditions.push({
    type,
    status,
    reason,
    message,
    observedGeneration: o.metadata.generation,
    lastTransitionTime: at,
  });
  o.status.conditions = conditions.sort((a: any, b: any) =>
    a.type.localeCompare(b.type),
  );
  return o;
}

const capiConditions = (generation: number, available: boolean) =>
  [
    {
      type: 'Available',
      status: available ? 'True' : 'False',
      reason: available ? 'Available' : 'NotAvailable',
    },
    { type: 'ControlPlaneAvailable', status: 'True', reason: 'Available' },
    { type: 'InfrastructureReady', status: 'True', reason: 'Ready' },
    { type: 'Paused', status: 'False', reason: 'NotPaused' },
    { type: 'RemoteConnectionProbe', status: 'True', reason: 'ProbeSucceeded' },
    // MachinePools never feed it (docs/capz-aso-facts.md#cluster-available).
    { type: 'WorkersAvailable', status: 'True', reason: 'NoWorkers' },
  ].map(c => ({
    ...c,
    message: '',
    observedGeneration: generation,
    lastTransitionTime: T_READY,
  }));

export interface PoolOpts {
  name: string;
  mode?: 'System' | 'User';
  count?: number;
  vmSize?: string;
  autoscale?: { min: number; max: number };
}

export interface AsoClusterOpts {
  namespace?: string;
  name: string;
  location?: string;
  /** Without the v. */
  version?: string;
  pools?: PoolOpts[];
  /** The version the CAPZ objects are read at. */
  capzVersion?: 'v1beta1' | 'v1alpha1';
}

export interface ClusterFixture {
  cluster: Obj;
  objects: Obj[];
}

/** A healthy ASO-managed cluster as the aks-aso flavor writes it and the controllers leave it (seed.ts asoManagedCluster). */
export function asoManagedCluster(opts: AsoClusterOpts): ClusterFixture {
  const ns = opts.namespace ?? 'team-a';
  const name = opts.name;
  const location = opts.location ?? 'westeurope';
  const version = opts.version ?? '1.33.2';
  const capzApi = `${CAPZ_GROUP}/${opts.capzVersion ?? 'v1beta1'}`;
  const pools = opts.pools ?? [{ name: 'system', mode: 'System', count: 2 }];
  const credential = { [CREDENTIAL_FROM]: 'aso-credential' };
  const nodeRG = `MC_${name}_${name}_${location}`;
  const fqdn = `${name}-abc123.hcp.${location}.azmk8s.io`;

  const cluster: Obj = {
    apiVersion: CAPI,
    kind: 'Cluster',
    metadata: meta('Cluster', ns, name, {
      finalizers: ['cluster.cluster.x-k8s.io'],
    } as any),
    spec: {
      controlPlaneRef: {
        apiGroup: CAPZ_GROUP,
        kind: 'AzureASOManagedControlPlane',
        name,
      },
      infrastructureRef: {
        apiGroup: CAPZ_GROUP,
        kind: 'AzureASOManagedCluster',
        name,
      },
    },
    status: {
      conditions: capiConditions(1, true),
      initialization: {
        infrastructureProvisioned: true,
        controlPlaneInitialized: true,
      },
      workers: {
        desiredReplicas: pools.reduce((n, p) => n + (p.count ?? 1), 0),
        replicas: pools.reduce((n, p) => n + (p.count ?? 1), 0),
        readyReplicas: pools.reduce((n, p) => n + (p.count ?? 1), 0),
        availableReplicas: pools.reduce((n, p) => n + (p.count ?? 1), 0),
      },
      phase: 'Provisioned',
      observedGeneration: 1,
    },
  };
  const capzMeta = (kind: string, n: string, owner: Obj, ownedKinds: string) =>
    meta(kind, ns, n, {
      labels: { [CLUSTER_NAME]: name },
      annotations: {
        'clusterctl.cluster.x-k8s.io/block-move': 'true',
        'sigs.k8s.io/cluster-api-provider-azure-owned-aso-kinds': ownedKinds,
      },
      ownerReferences: [ownerRef(owner, kind !== 'AzureASOManagedMachinePool')],
      managedFields: [
        {
          manager: 'kubectl-client-side-apply',
          operation: 'Update',
          apiVersion: capzApi,
        },
        {
          manager: 'capz-manager',
          operation: 'Update',
          apiVersion: `${CAPZ_GROUP}/v1beta1`,
          subresource: 'status',
        },
      ],
    } as any);
  const statusRes = (
    group: string,
    apiVersion: string,
    kind: string,
    n: string,
  ) => ({
    resource: { group, version: apiVersion.split('/')[1], kind, name: n },
    ready: true,
  });

  const infra: Obj = {
    apiVersion: capzApi,
    kind: 'AzureASOManagedCluster',
    metadata: capzMeta(
      'AzureASOManagedCluster',
      name,
      cluster,
      'ResourceGroup.v1api20200601.resources.azure.com',
    ),
    spec: {
      controlPlaneEndpoint: { host: fqdn, port: 443 },
      resources: [
        {
          apiVersion: RG_API,
          kind: 'ResourceGroup',
          metadata: { name, annotations: credential },
          spec: { location },
        },
      ],
    },
    status: {
      resources: [
        statusRes('resources.azure.com', RG_API, 'ResourceGroup', name),
      ],
      ready: true,
    },
  };
  const cp: Obj = {
    apiVersion: capzApi,
    kind: 'AzureASOManagedControlPlane',
    metadata: capzMeta(
      'AzureASOManagedControlPlane',
      name,
      cluster,
      'ManagedCluster.v1api20240901.containerservice.azure.com',
    ),
    spec: {
      version: `v${version}`,
      resources: [
        {
          apiVersion: CS_API,
          kind: 'ManagedCluster',
          metadata: { name, annotations: credential },
          spec: {
            dnsPrefix: name,
            identity: { type: 'SystemAssigned' },
            location,
            networkProfile: { networkPlugin: 'azure' },
            owner: { name },
          },
        },
      ],
    },
    status: {
      resources: [
        statusRes('containerservice.azure.com', CS_API, 'ManagedCluster', name),
      ],
      controlPlaneEndpoint: { host: fqdn, port: 443 },
      ready: true,
      initialized: true,
      version: `v${version}`,
    },
  };
  const asoMeta = (kind: string, n: string, owner: Obj) =>
    meta(kind, ns, n, {
      annotations: {
        ...credential,
        'serviceoperator.azure.com/resource-id': `/subscriptions/${SUB}/resourceGroups/${name}`,
      },
      finalizers: ['serviceoperator.azure.com/finalizer'],
      ownerReferences: [ownerRef(owner)],
    } as any);

  const rg: Obj = {
    apiVersion: RG_API,
    kind: 'ResourceGroup',
    metadata: asoMeta('ResourceGroup', name, infra),
    spec: { location },
    status: {
      id: `/subscriptions/${SUB}/resourceGroups/${name}`,
      name,
      location,
      type: 'Microsoft.Resources/resourceGroups',
      properties: { provisioningState: 'Succeeded' },
      conditions: [asoReady()],
    },
  };
  const mc: Obj = {
    apiVersion: CS_API,
    kind: 'ManagedCluster',
    metadata: asoMeta('ManagedCluster', name, cp),
    spec: {
      dnsPrefix: name,
      identity: { type: 'SystemAssigned' },
      kubernetesVersion: version,
      location,
      owner: { name },
      operatorSpec: {
        secrets: {
          adminCredentials: { name: `${name}-kubeconfig`, key: 'value' },
        },
      },
    },
    status: {
      id: `/subscriptions/${SUB}/resourceGroups/${name}/providers/Microsoft.ContainerService/managedClusters/${name}`,
      name,
      type: 'Microsoft.ContainerService/ManagedClusters',
      location,
      dnsPrefix: name,
      kubernetesVersion: version,
      currentKubernetesVersion: version,
      fqdn,
      nodeResourceGroup: nodeRG,
      enableRBAC: true,
      disableLocalAccounts: false,
      provisioningState: 'Succeeded',
      powerState: { code: 'Running' },
      agentPoolProfiles: pools.map(p => ({
        name: p.name,
        count: p.count ?? 1,
        mode: p.mode ?? 'User',
        provisioningState: 'Succeeded',
      })),
      conditions: [asoReady()],
    },
  };
  const objects: Obj[] = [cluster, infra, cp, rg, mc];

  for (const p of pools) {
    const poolName = `${name}-${p.name}`;
    const count = p.count ?? 1;
    const mp: Obj = {
      apiVersion: CAPI,
      kind: 'MachinePool',
      metadata: meta('MachinePool', ns, poolName, {
        labels: { [CLUSTER_NAME]: name },
        ownerReferences: [ownerRef(cluster, false)],
        finalizers: ['machinepool.cluster.x-k8s.io'],
        ...(p.autoscale
          ? { annotations: { 'cluster.x-k8s.io/replicas-managed-by': 'aks' } }
          : {}),
      } as any),
      spec: {
        clusterName: name,
        replicas: count,
        template: {
          spec: {
            clusterName: name,
            bootstrap: { dataSecretName: '' },
            infrastructureRef: {
              apiGroup: CAPZ_GROUP,
              kind: 'AzureASOManagedMachinePool',
              name: poolName,
            },
            version: `v${version}`,
          },
        },
      },
      status: {
        conditions: [
          {
            type: 'Available',
            status: 'True',
            reason: 'Available',
            message: '',
            observedGeneration: 1,
            lastTransitionTime: T_READY,
          },
          {
            type: 'InfrastructureReady',
            status: 'True',
            reason: 'Ready',
            message: '',
            observedGeneration: 1,
            lastTransitionTime: T_READY,
          },
        ],
        initialization: {
          infrastructureProvisioned: true,
          bootstrapDataSecretCreated: true,
        },
        replicas: count,
        readyReplicas: count,
        availableReplicas: count,
        upToDateReplicas: count,
        phase: 'Running',
        observedGeneration: 1,
      },
    };
    const poolSpec = {
      azureName: p.name,
      mode: p.mode ?? 'User',
      owner: { name },
      type: 'VirtualMachineScaleSets',
      vmSize: p.vmSize ?? 'Standard_D2s_v3',
      ...(p.autoscale
        ? {
            enableAutoScaling: true,
            minCount: p.autoscale.min,
            maxCount: p.autoscale.max,
          }
        : {}),
    };
    const amp: Obj = {
      apiVersion: capzApi,
      kind: 'AzureASOManagedMachinePool',
      metadata: capzMeta(
        'AzureASOManagedMachinePool',
        poolName,
        mp,
        'ManagedClustersAgentPool.v1api20240901.containerservice.azure.com',
      ),
      spec: {
        providerIDList: Array.from(
          { length: count },
          (_, i) =>
            `azure:///subscriptions/${SUB}/resourceGroups/${nodeRG.toLowerCase()}/providers/Microsoft.Compute/virtualMachineScaleSets/aks-${
              p.name
            }-vmss/virtualMachines/${i}`,
        ),
        resources: [
          {
            apiVersion: CS_API,
            kind: 'ManagedClustersAgentPool',
            metadata: { name: poolName, annotations: credential },
            spec: poolSpec,
          },
        ],
      },
      status: {
        resources: [
          statusRes(
            'containerservice.azure.com',
            CS_API,
            'ManagedClustersAgentPool',
            poolName,
          ),
        ],
        replicas: count,
        ready: true,
      },
    };
    const ap: Obj = {
      apiVersion: CS_API,
      kind: 'ManagedClustersAgentPool',
      metadata: asoMeta('ManagedClustersAgentPool', poolName, amp),
      spec: { ...poolSpec, count, orchestratorVersion: version },
      status: {
        id: `/subscriptions/${SUB}/resourceGroups/${name}/providers/Microsoft.ContainerService/managedClusters/${name}/agentPools/${p.name}`,
        name: p.name,
        type: 'Microsoft.ContainerService/managedClusters/agentPools',
        properties_type: 'VirtualMachineScaleSets',
        count,
        vmSize: poolSpec.vmSize,
        mode: poolSpec.mode,
        osType: 'Linux',
        orchestratorVersion: version,
        currentOrchestratorVersion: version,
        enableAutoScaling: !!p.autoscale,
        ...(p.autoscale
          ? { minCount: p.autoscale.min, maxCount: p.autoscale.max }
          : {}),
        nodeImageVersion: 'AKSUbuntu-2204gen2containerd-202611.01.0',
        powerState: { code: 'Running' },
        provisioningState: 'Succeeded',
        conditions: [asoReady()],
      },
    };
    objects.push(mp, amp, ap);
  }
  return { cluster, objects };
}

/** azure/defaults.go GetNormalizedKubernetesName (docs/capz-aso-facts.md#legacy-names). */
const normalize = (s: string) =>
  s
    .toLowerCase()
    .replace(/[^a-z0-9-]/g, '-')
    .replace(/^-+|-+$/g, '');

/** v1beta1-style (CAPI v1beta1 Conditions) True condition with empty severity. */
const v1beta1True = (type: string) => ({
  type,
  status: 'True',
  severity: '',
  lastTransitionTime: T_READY,
});

/** A healthy cluster on the deprecated AzureManaged* API (seed.ts legacyCluster, capz/legacy.ts). */
export function legacyCluster(opts: {
  namespace?: string;
  name: string;
  resourceGroup?: string;
  location?: string;
  version?: string;
  pools?: PoolOpts[];
  /**
   * The VNet and subnet real CAPZ v1.26.0's legacy control plane has ASO create (docs/real-controllers.md finding
   * 10), shaped like the real objects: names, specs, tags, owners and annotations as the real managers wrote them.
   */
  network?: boolean;
}): ClusterFixture {
  const ns = opts.namespace ?? 'team-legacy';
  const name = opts.name;
  const location = opts.location ?? 'westeurope';
  const version = opts.version ?? '1.32.5';
  const rgName = opts.resourceGroup ?? `RG_${name}`;
  const pools = opts.pools ?? [{ name: 'pool0', mode: 'System', count: 3 }];
  const asoAnnotations = {
    [CREDENTIAL_FROM]: `${name}-aso-secret`,
    [POLICY]: 'manage',
  };
  const cluster: Obj = {
    apiVersion: CAPI,
    kind: 'Cluster',
    metadata: meta('Cluster', ns, name),
    spec: {
      controlPlaneRef: {
        apiGroup: CAPZ_GROUP,
        kind: 'AzureManagedControlPlane',
        name,
      },
      infrastructureRef: {
        apiGroup: CAPZ_GROUP,
        kind: 'AzureManagedCluster',
        name,
      },
    },
    status: {
      conditions: capiConditions(1, true),
      phase: 'Provisioned',
      observedGeneration: 1,
    },
  };
  const capzMeta = (kind: string, n: string, owner: Obj, controller: boolean) =>
    meta(kind, ns, n, {
      labels: { [CLUSTER_NAME]: name },
      annotations: { 'clusterctl.cluster.x-k8s.io/block-move': 'true' },
      ownerReferences: [ownerRef(owner, controller)],
    });
  const amc: Obj = {
    apiVersion: `${CAPZ_GROUP}/v1beta1`,
    kind: 'AzureManagedCluster',
    metadata: meta('AzureManagedCluster', ns, name, {
      labels: { [CLUSTER_NAME]: name },
      ownerReferences: [ownerRef(cluster)],
    }),
    spec: {
      controlPlaneEndpoint: {
        host: `${name}-dns.hcp.${location}.azmk8s.io`,
        port: 443,
      },
    },
    status: { ready: true },
  };
  const amcp: Obj = {
    apiVersion: `${CAPZ_GROUP}/v1beta1`,
    kind: 'AzureManagedControlPlane',
    metadata: capzMeta('AzureManagedControlPlane', name, cluster, true),
    spec: {
      identityRef: {
        apiVersion: `${CAPZ_GROUP}/v1beta1`,
        kind: 'AzureClusterIdentity',
        name: 'cluster-identity',
        namespace: ns,
      },
      location,
      resourceGroupName: rgName,
      subscriptionID: SUB,
      version: `v${version}`,
      controlPlaneEndpoint: {
        host: `${name}-dns.hcp.${location}.azmk8s.io`,
        port: 443,
      },
    },
    status: {
      conditions: [
        v1beta1True('ManagedClusterRunning'),
        v1beta1True('Ready'),
        v1beta1True('ResourceGroupReady'),
      ],
      ready: true,
      initialized: true,
      version: `v${version}`,
    },
  };
  const asoMeta = (kind: string, n: string, owner: Obj) =>
    meta(kind, ns, n, {
      labels: { [CLUSTER_NAME]: name },
      annotations: { ...asoAnnotations },
      ownerReferences: [ownerRef(owner)],
    });
  const rg: Obj = {
    apiVersion: RG_API,
    kind: 'ResourceGroup',
    metadata: asoMeta('ResourceGroup', normalize(rgName), amcp),
    spec: { azureName: rgName, location },
    status: {
      name: rgName,
      location,
      properties: { provisioningState: 'Succeeded' },
      conditions: [asoReady()],
    },
  };
  const mc: Obj = {
    apiVersion: CS_API,
    kind: 'ManagedCluster',
    metadata: asoMeta('ManagedCluster', normalize(name), amcp),
    spec: {
      azureName: name,
      owner: { name: normalize(rgName) },
      location,
      kubernetesVersion: version,
    },
    status: {
      name,
      location,
      currentKubernetesVersion: version,
      fqdn: `${name}-dns.hcp.${location}.azmk8s.io`,
      nodeResourceGroup: `MC_${rgName}_${name}_${location}`,
      provisioningState: 'Succeeded',
      powerState: { code: 'Running' },
      conditions: [asoReady()],
    },
  };
  const objects: Obj[] = [cluster, amc, amcp, rg, mc];
  if (opts.network) {
    const tags = {
      Name: name,
      [`sigs.k8s.io_cluster-api-provider-azure_cluster_${name}`]: 'owned',
      'sigs.k8s.io_cluster-api-provider-azure_role': 'common',
    };
    const vnetId = `/subscriptions/${SUB}/resourceGroups/${rgName}/providers/Microsoft.Network/virtualNetworks/${name}`;
    const vnet: Obj = {
      apiVersion: NET_API,
      kind: 'VirtualNetwork',
      metadata: meta('VirtualNetwork', ns, normalize(name), {
        labels: { [CLUSTER_NAME]: name },
        annotations: { ...asoAnnotations },
        ownerReferences: [ownerRef(amcp), ownerRef(rg, false)],
      }),
      spec: {
        azureName: name,
        location,
        owner: { name: normalize(rgName) },
        addressSpace: { addressPrefixes: ['10.0.0.0/8'] },
        tags,
      },
      status: {
        id: vnetId,
        name,
        location,
        addressSpace: { addressPrefixes: ['10.0.0.0/8'] },
        provisioningState: 'Succeeded',
        tags,
        conditions: [asoReady()],
      },
    };
    const subnet: Obj = {
      apiVersion: NET_API,
      kind: 'VirtualNetworksSubnet',
      metadata: meta(
        'VirtualNetworksSubnet',
        ns,
        normalize(`${name}-${name}`),
        {
          labels: { [CLUSTER_NAME]: name },
          annotations: { ...asoAnnotations },
          ownerReferences: [ownerRef(amcp), ownerRef(vnet, false)],
        },
      ),
      spec: {
        azureName: name,
        owner: { name: vnet.metadata.name },
        addressPrefix: '10.240.0.0/16',
        addressPrefixes: ['10.240.0.0/16'],
      },
      status: {
        id: `${vnetId}/subnets/${name}`,
        name,
        addressPrefix: '10.240.0.0/16',
        provisioningState: 'Succeeded',
        conditions: [asoReady()],
      },
    };
    objects.push(vnet, subnet);
  }
  for (const p of pools) {
    const poolName = `${name}-${p.name}`;
    const count = p.count ?? 1;
    const mp: Obj = {
      apiVersion: CAPI,
      kind: 'MachinePool',
      metadata: meta('MachinePool', ns, poolName, {
        labels: { [CLUSTER_NAME]: name },
        ownerReferences: [ownerRef(cluster, false)],
      }),
      spec: {
        clusterName: name,
        replicas: count,
        template: {
          spec: {
            clusterName: name,
            bootstrap: { dataSecretName: '' },
            infrastructureRef: {
              apiGroup: CAPZ_GROUP,
              kind: 'AzureManagedMachinePool',
              name: poolName,
            },
            version: `v${version}`,
          },
        },
      },
      status: {
        conditions: [
          {
            type: 'Available',
            status: 'True',
            reason: 'Available',
            message: '',
            observedGeneration: 1,
            lastTransitionTime: T_READY,
          },
          {
            type: 'InfrastructureReady',
            status: 'True',
            reason: 'Ready',
            message: '',
            observedGeneration: 1,
            lastTransitionTime: T_READY,
          },
        ],
        replicas: count,
        readyReplicas: count,
        availableReplicas: count,
        phase: 'Running',
        observedGeneration: 1,
      },
    };
    const ammp: Obj = {
      apiVersion: `${CAPZ_GROUP}/v1beta1`,
      kind: 'AzureManagedMachinePool',
      metadata: capzMeta('AzureManagedMachinePool', poolName, mp, false),
      spec: {
        mode: p.mode ?? 'User',
        name: p.name,
        sku: p.vmSize ?? 'Standard_D2s_v3',
        ...(p.autoscale
          ? { scaling: { minSize: p.autoscale.min, maxSize: p.autoscale.max } }
          : {}),
      },
      status: {
        conditions: [v1beta1True('AgentPoolsReady'), v1beta1True('Ready')],
        ready: true,
        replicas: count,
      },
    };
    const ap: Obj = {
      apiVersion: CS_API,
      kind: 'ManagedClustersAgentPool',
      metadata: asoMeta('ManagedClustersAgentPool', normalize(poolName), ammp),
      spec: {
        azureName: p.name,
        owner: { name: normalize(name) },
        mode: p.mode ?? 'User',
        vmSize: p.vmSize ?? 'Standard_D2s_v3',
        count,
      },
      status: {
        name: p.name,
        count,
        mode: p.mode ?? 'User',
        provisioningState: 'Succeeded',
        conditions: [asoReady()],
      },
    };
    objects.push(mp, ammp, ap);
  }
  return { cluster, objects };
}
