/**
 * What the job integration tests write to and read from their own management cluster (with `capz-sim run` on it):
 * the objects of one kind by path, a snapshot of everything in some namespaces (to prove a refusal changed nothing),
 * extra legacy and Azure-only clusters beyond the seeded scenarios, and the simulated Azure's persisted state.
 */
import { readFileSync, statSync } from 'node:fs';
import https from 'node:https';
import { join } from 'node:path';
import {
  CREDENTIAL_FROM_ANNOTATION,
  RECONCILE_POLICY_ANNOTATION,
} from '@capz-backstage/plugin-capz-common';
import { ClusterInfo, kube, until } from './realCluster';

const CAPZ = 'infrastructure.cluster.x-k8s.io';

/** The namespaced kinds a job reads or writes, with the API path of their collection. */
export const KINDS = {
  Cluster: 'apis/cluster.x-k8s.io/v1beta2/clusters',
  MachinePool: 'apis/cluster.x-k8s.io/v1beta2/machinepools',
  AzureManagedCluster: `apis/${CAPZ}/v1beta1/azuremanagedclusters`,
  AzureManagedControlPlane: `apis/${CAPZ}/v1beta1/azuremanagedcontrolplanes`,
  AzureManagedMachinePool: `apis/${CAPZ}/v1beta1/azuremanagedmachinepools`,
  AzureASOManagedCluster: `apis/${CAPZ}/v1beta1/azureasomanagedclusters`,
  AzureASOManagedControlPlane: `apis/${CAPZ}/v1beta1/azureasomanagedcontrolplanes`,
  AzureASOManagedMachinePool: `apis/${CAPZ}/v1beta1/azureasomanagedmachinepools`,
  ResourceGroup: 'apis/resources.azure.com/v1api20200601/resourcegroups',
  ManagedCluster:
    'apis/containerservice.azure.com/v1api20240901/managedclusters',
  ManagedClustersAgentPool:
    'apis/containerservice.azure.com/v1api20240901/managedclustersagentpools',
  Secret: 'api/v1/secrets',
} as const;
export type KindName = keyof typeof KINDS;

/** `/apis/<group>/<version>/namespaces/<ns>/<plural>[/<name>]`. */
export function pathOf(
  kind: KindName,
  namespace: string,
  name?: string,
): string {
  const [prefix, ...rest] = KINDS[kind].split('/');
  const plural = rest.pop()!;
  return `/${prefix}/${rest.join('/')}${
    rest.length ? '/' : ''
  }namespaces/${namespace}/${plural}${name ? `/${name}` : ''}`.replace(
    '//',
    '/',
  );
}

export class Cluster {
  constructor(readonly info: ClusterInfo) {}

  req(method: string, path: string, body?: unknown, contentType?: string) {
    return kube(this.info, method, path, body, contentType);
  }

  async get(
    kind: KindName,
    namespace: string,
    name: string,
  ): Promise<any | undefined> {
    const r = await this.req('GET', pathOf(kind, namespace, name));
    if (r.status === 404) return undefined;
    if (r.status !== 200)
      throw new Error(
        `GET ${kind} ${namespace}/${name}: ${r.status} ${JSON.stringify(
          r.body,
        )}`,
      );
    return r.body;
  }

  async list(kind: KindName, namespace: string): Promise<any[]> {
    const r = await this.req('GET', pathOf(kind, namespace));
    if (r.status !== 200)
      throw new Error(
        `LIST ${kind} in ${namespace}: ${r.status} ${JSON.stringify(r.body)}`,
      );
    return r.body.items;
  }

  async create(kind: KindName, obj: any): Promise<void> {
    const r = await this.req('POST', pathOf(kind, obj.metadata.namespace), obj);
    if (r.status !== 201)
      throw new Error(
        `create ${kind} ${obj.metadata.namespace}/${obj.metadata.name}: ${
          r.status
        } ${JSON.stringify(r.body)}`,
      );
  }

  async namespaceExists(name: string): Promise<boolean> {
    return (await this.req('GET', `/api/v1/namespaces/${name}`)).status === 200;
  }

  async createNamespace(name: string): Promise<void> {
    const r = await this.req('POST', '/api/v1/namespaces', {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name },
    });
    if (r.status !== 201)
      throw new Error(
        `create namespace ${name}: ${r.status} ${JSON.stringify(r.body)}`,
      );
  }

  /**
   * Every object of the job kinds in these namespaces (Secrets by name and resourceVersion only), plus the list of
   * namespaces: equal snapshots before and after a refusal prove that nothing was created, changed or deleted.
   */
  async snapshot(namespaces: string[]): Promise<Record<string, string>> {
    const out: Record<string, string> = {};
    const nsList = await this.req('GET', '/api/v1/namespaces');
    out.namespaces = nsList.body.items
      .map((n: any) => n.metadata.name)
      .sort()
      .join(',');
    for (const ns of namespaces) {
      for (const kind of Object.keys(KINDS) as KindName[]) {
        for (const o of await this.list(kind, ns))
          out[`${kind} ${ns}/${o.metadata.name}`] = o.metadata.resourceVersion;
      }
    }
    return out;
  }
}

export const condition = (o: any, type: string) =>
  (o?.status?.conditions ?? []).find((c: any) => c.type === type);

export interface PoolSeed {
  name: string;
  mode: 'System' | 'User';
  count: number;
  vmSize?: string;
  enableAutoScaling?: boolean;
  minCount?: number;
  maxCount?: number;
  /** Azure's pool fields beyond the basics (ARM names; a legacy cluster gets them through its AzureManagedMachinePool). */
  nodeLabels?: Record<string, string>;
  /** `key=value:Effect`, as AKS writes them. */
  nodeTaints?: string[];
  tags?: Record<string, string>;
  osDiskSizeGB?: number;
  maxPods?: number;
  availabilityZones?: string[];
}

/** CAPZ's resource-group tag that makes the legacy controllers manage (and delete) a group (docs/capz-aso-facts.md#legacy-aso-objects). */
export const OWNED_TAG = (cluster: string) =>
  `sigs.k8s.io_cluster-api-provider-azure_cluster_${cluster}`;

/** azure/defaults.go GetNormalizedKubernetesName: lowercase, other characters to '-', trimmed. */
export const normalizeName = (s: string) =>
  s
    .toLowerCase()
    .replace(/[^a-z0-9-]/g, '-')
    .replace(/^-+|-+$/g, '');

/** The AzureManagedMachinePool form of a pool's taints (`key=value:Effect` -> {key, value, effect}). */
const taintsOf = (taints: string[]) =>
  taints.map(t => {
    const [kv, effect] = t.split(':');
    const [key, value] = kv.split('=');
    return { key, value, effect };
  });

/** The pool fields an ASO agentPoolProfile or ManagedClustersAgentPool takes beyond mode, count and size. */
const extraPoolFields = (p: PoolSeed) => ({
  ...(p.nodeLabels ? { nodeLabels: p.nodeLabels } : {}),
  ...(p.nodeTaints ? { nodeTaints: p.nodeTaints } : {}),
  ...(p.tags ? { tags: p.tags } : {}),
  ...(p.osDiskSizeGB ? { osDiskSizeGB: p.osDiskSizeGB } : {}),
  ...(p.maxPods ? { maxPods: p.maxPods } : {}),
  ...(p.availabilityZones ? { availabilityZones: p.availabilityZones } : {}),
});

/**
 * A cluster on the deprecated AzureManaged* API written as the simulator's `legacyCluster` seed writes it (capz-sim
 * scenarios/seed.ts, docs/capz-aso-facts.md#legacy-api): Cluster, AzureManagedCluster, AzureManagedControlPlane and a
 * MachinePool and AzureManagedMachinePool per pool. The simulated legacy controllers create the ASO objects; the
 * simulated ASO creates the AKS cluster in Azure (in an existing resource group it reads; a missing one leaves it
 * unhealthy).
 */
export async function writeLegacyCluster(
  c: Cluster,
  o: {
    namespace: string;
    name: string;
    subscription: string;
    resourceGroup: string;
    pools: PoolSeed[];
    entraOnly?: boolean;
    tags?: Record<string, string>;
  },
): Promise<void> {
  const { namespace: ns, name } = o;
  const version = '1.33.2';
  const meta = (n: string) => ({ name: n, namespace: ns });
  await c.create('Cluster', {
    apiVersion: 'cluster.x-k8s.io/v1beta2',
    kind: 'Cluster',
    metadata: meta(name),
    spec: {
      controlPlaneRef: {
        apiGroup: CAPZ,
        kind: 'AzureManagedControlPlane',
        name,
      },
      infrastructureRef: { apiGroup: CAPZ, kind: 'AzureManagedCluster', name },
    },
  });
  await c.create('AzureManagedCluster', {
    apiVersion: `${CAPZ}/v1beta1`,
    kind: 'AzureManagedCluster',
    metadata: meta(name),
    spec: {},
  });
  await c.create('AzureManagedControlPlane', {
    apiVersion: `${CAPZ}/v1beta1`,
    kind: 'AzureManagedControlPlane',
    metadata: meta(name),
    spec: {
      identityRef: {
        apiVersion: `${CAPZ}/v1beta1`,
        kind: 'AzureClusterIdentity',
        name: 'cluster-identity',
        namespace: ns,
      },
      location: 'westeurope',
      resourceGroupName: o.resourceGroup,
      subscriptionID: o.subscription,
      version: `v${version}`,
      ...(o.tags ? { additionalTags: o.tags } : {}),
      ...(o.entraOnly
        ? {
            aadProfile: {
              managed: true,
              adminGroupObjectIDs: ['00000000-0000-0000-0000-00000000a0a0'],
            },
            disableLocalAccounts: true,
          }
        : {}),
    },
  });
  for (const p of o.pools) {
    const poolName = `${name}-${p.name}`;
    await c.create('MachinePool', {
      apiVersion: 'cluster.x-k8s.io/v1beta2',
      kind: 'MachinePool',
      metadata: meta(poolName),
      spec: {
        clusterName: name,
        replicas: p.count,
        template: {
          spec: {
            clusterName: name,
            bootstrap: { dataSecretName: '' },
            infrastructureRef: {
              apiGroup: CAPZ,
              kind: 'AzureManagedMachinePool',
              name: poolName,
            },
            version: `v${version}`,
          },
        },
      },
    });
    await c.create('AzureManagedMachinePool', {
      apiVersion: `${CAPZ}/v1beta1`,
      kind: 'AzureManagedMachinePool',
      metadata: meta(poolName),
      spec: {
        mode: p.mode,
        name: p.name,
        sku: p.vmSize ?? 'Standard_D2s_v3',
        ...(p.enableAutoScaling
          ? { scaling: { minSize: p.minCount ?? 1, maxSize: p.maxCount ?? 5 } }
          : {}),
        ...(p.nodeLabels ? { nodeLabels: p.nodeLabels } : {}),
        ...(p.nodeTaints ? { taints: taintsOf(p.nodeTaints) } : {}),
        ...(p.tags ? { additionalTags: p.tags } : {}),
        ...(p.osDiskSizeGB ? { osDiskSizeGB: p.osDiskSizeGB } : {}),
        ...(p.maxPods ? { maxPods: p.maxPods } : {}),
        ...(p.availabilityZones
          ? { availabilityZones: p.availabilityZones }
          : {}),
      },
    });
  }
}

/**
 * An AKS cluster that exists only in Azure, made through the simulated ASO: a ResourceGroup and a ManagedCluster
 * (with its pools as agentPoolProfiles) set to `detach-on-delete` are created in a scratch namespace, waited for,
 * then deleted from Kubernetes, which leaves the Azure resources (ASO docs "Annotations": detach-on-delete). Azure
 * names need not be Kubernetes names (`myAKSCluster` in `My_Resource_Group`): the scratch objects carry them in
 * spec.azureName.
 */
export async function makeAzureOnlyCluster(
  c: Cluster,
  o: {
    scratchNamespace: string;
    credentialSecret: string;
    resourceGroup: string;
    name: string;
    pools: PoolSeed[];
    entraOnly?: boolean;
    tags?: Record<string, string>;
    resourceGroupTags?: Record<string, string>;
  },
): Promise<void> {
  const ns = o.scratchNamespace;
  const annotations = {
    [CREDENTIAL_FROM_ANNOTATION]: o.credentialSecret,
    [RECONCILE_POLICY_ANNOTATION]: 'detach-on-delete',
  };
  const mcName = normalizeName(o.name);
  const rgName = `${mcName}-rg`;
  await c.create('ResourceGroup', {
    apiVersion: 'resources.azure.com/v1api20200601',
    kind: 'ResourceGroup',
    metadata: { name: rgName, namespace: ns, annotations },
    spec: {
      azureName: o.resourceGroup,
      location: 'westeurope',
      ...(o.resourceGroupTags ? { tags: o.resourceGroupTags } : {}),
    },
  });
  await c.create('ManagedCluster', {
    apiVersion: 'containerservice.azure.com/v1api20240901',
    kind: 'ManagedCluster',
    metadata: { name: mcName, namespace: ns, annotations },
    spec: {
      azureName: o.name,
      owner: { name: rgName },
      location: 'westeurope',
      dnsPrefix: mcName,
      kubernetesVersion: '1.33.2',
      identity: { type: 'SystemAssigned' },
      ...(o.tags ? { tags: o.tags } : {}),
      ...(o.entraOnly
        ? {
            disableLocalAccounts: true,
            aadProfile: { managed: true, enableAzureRBAC: true },
          }
        : {}),
      agentPoolProfiles: o.pools.map(p => ({
        name: p.name,
        mode: p.mode,
        count: p.count,
        vmSize: p.vmSize ?? 'Standard_D2s_v3',
        type: 'VirtualMachineScaleSets',
        ...(p.enableAutoScaling
          ? {
              enableAutoScaling: true,
              minCount: p.minCount,
              maxCount: p.maxCount,
            }
          : {}),
        ...extraPoolFields(p),
      })),
    },
  });
  await until(
    `the scratch ManagedCluster ${ns}/${mcName} to be Ready in Azure`,
    async () =>
      condition(await c.get('ManagedCluster', ns, mcName), 'Ready')?.status ===
      'True',
    60_000,
  );
  for (const [kind, name] of [
    ['ManagedCluster', mcName],
    ['ResourceGroup', rgName],
  ] as const) {
    const r = await c.req('DELETE', pathOf(kind, ns, name));
    if (r.status !== 200 && r.status !== 202)
      throw new Error(
        `delete ${kind} ${ns}/${name}: ${r.status} ${JSON.stringify(r.body)}`,
      );
    await until(
      `${kind} ${ns}/${name} to be gone (detached)`,
      async () => !(await c.get(kind, ns, name)),
      30_000,
    );
  }
}

/**
 * A resource group in Azure with nothing of it left in Kubernetes: an ASO ResourceGroup set to `detach-on-delete`,
 * waited for, then deleted (the legacy controllers create theirs with reconcile-policy skip: it must exist already).
 */
export async function makeAzureResourceGroup(
  c: Cluster,
  o: {
    scratchNamespace: string;
    credentialSecret: string;
    resourceGroup: string;
    tags?: Record<string, string>;
  },
): Promise<void> {
  const ns = o.scratchNamespace;
  const name = `${normalizeName(o.resourceGroup)}-only`;
  await c.create('ResourceGroup', {
    apiVersion: 'resources.azure.com/v1api20200601',
    kind: 'ResourceGroup',
    metadata: {
      name,
      namespace: ns,
      annotations: {
        [CREDENTIAL_FROM_ANNOTATION]: o.credentialSecret,
        [RECONCILE_POLICY_ANNOTATION]: 'detach-on-delete',
      },
    },
    spec: {
      azureName: o.resourceGroup,
      location: 'westeurope',
      ...(o.tags ? { tags: o.tags } : {}),
    },
  });
  await until(
    `resource group ${o.resourceGroup} to be Ready in Azure`,
    async () =>
      condition(await c.get('ResourceGroup', ns, name), 'Ready')?.status ===
      'True',
    60_000,
  );
  await c.req('DELETE', pathOf('ResourceGroup', ns, name));
  await until(
    `ResourceGroup ${ns}/${name} to be gone (detached)`,
    async () => !(await c.get('ResourceGroup', ns, name)),
    30_000,
  );
}

/** What `capz-sim run` persists of the simulated Azure (debounced 200 ms after a change). */
export interface AzureState {
  counters: Record<
    'created' | 'updated' | 'deleted',
    Record<'resourceGroups' | 'managedClusters' | 'agentPools', number>
  >;
  resourceGroups: Array<{
    subscriptionId: string;
    name: string;
    location: string;
    tags: Record<string, string>;
    provisioningState: string;
  }>;
  managedClusters: Array<{
    resourceGroup: string;
    name: string;
    provisioningState: string;
    tags: Record<string, string>;
    agentPools: Record<string, { provisioningState: string; count?: number }>;
  }>;
}

export function readAzure(stateDir: string): AzureState & { mtimeMs: number } {
  const file = join(stateDir, 'azure.json');
  return {
    ...(JSON.parse(readFileSync(file, 'utf8')) as AzureState),
    mtimeMs: statSync(file).mtimeMs,
  };
}

export const sum = (r: Record<string, number>) =>
  Object.values(r).reduce((a, b) => a + b, 0);

/** The simulator's ARM endpoint (arm.json in its state directory), read with its static token. */
export class Arm {
  readonly url: string;
  readonly subscription: string;
  private readonly caPem: string;
  private readonly token: string;

  constructor(stateDir: string) {
    const a = JSON.parse(readFileSync(join(stateDir, 'arm.json'), 'utf8'));
    this.url = a.url;
    this.caPem = a.caPem;
    this.token = a.token;
    this.subscription = a.subscriptions[0];
  }

  private get(path: string): Promise<{ status: number; body: any }> {
    return new Promise((res, rej) => {
      const req = https.request(
        `${this.url}${path}${
          path.includes('?') ? '&' : '?'
        }api-version=2024-09-01`,
        {
          ca: this.caPem,
          agent: false,
          headers: {
            Authorization: `Bearer ${this.token}`,
            Accept: 'application/json',
          },
        },
        r => {
          let text = '';
          r.on('data', d => (text += d));
          r.on('end', () =>
            res({
              status: r.statusCode ?? 0,
              body: text ? JSON.parse(text) : undefined,
            }),
          );
        },
      );
      req.on('error', rej);
      req.end();
    });
  }

  /** `name: provisioningState` of the AKS cluster and each of its pools, as ARM serves them now. */
  async cluster(
    resourceGroup: string,
    name: string,
  ): Promise<{ state: string; pools: Record<string, string> } | undefined> {
    const base = `/subscriptions/${this.subscription}/resourceGroups/${resourceGroup}/providers/Microsoft.ContainerService/managedClusters/${name}`;
    const mc = await this.get(base);
    if (mc.status === 404) return undefined;
    if (mc.status !== 200)
      throw new Error(
        `ARM GET ${base}: ${mc.status} ${JSON.stringify(mc.body)}`,
      );
    const pools = await this.get(`${base}/agentPools`);
    if (pools.status !== 200)
      throw new Error(
        `ARM GET ${base}/agentPools: ${pools.status} ${JSON.stringify(
          pools.body,
        )}`,
      );
    return {
      state: mc.body.properties.provisioningState,
      pools: Object.fromEntries(
        pools.body.value.map((p: any) => [
          p.name,
          p.properties.provisioningState,
        ]),
      ),
    };
  }
}
