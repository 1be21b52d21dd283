/**
 * Building blocks of the named scenarios: clusters in the shapes each API produces. Objects are written as a person
 * (or the scaffolder) would write them; the simulated controllers do the rest.
 */
import {
  SIM_SERVICE_PRINCIPAL,
  servicePrincipalSecretData,
  type SimServicePrincipal,
} from '../azure/credential.ts';
import type { AgentPoolSpec, AzureWorld } from '../azure/model.ts';
import { apiVersionOf, K, type KindName } from '../runtime/kinds.ts';
import type { Kube } from '../runtime/kube.ts';
import type { Obj } from '../runtime/types.ts';
import { capzTags } from '../capz/legacy/index.ts';
import { RECONCILE_POLICY } from '../aso/controller.ts';

export interface PoolSeed extends AgentPoolSpec {
  name: string;
  mode: 'System' | 'User';
  count: number;
}

const CAPZ = 'infrastructure.cluster.x-k8s.io';
const o = (
  kind: KindName,
  namespace: string,
  name: string,
  spec: unknown,
  metadata: Partial<Obj['metadata']> = {},
): Obj => ({
  apiVersion: apiVersionOf(K[kind]),
  kind: K[kind].kind,
  metadata: { name, namespace, ...metadata },
  spec,
});

export async function ensureNamespace(kube: Kube, name: string): Promise<void> {
  await kube.createIfAbsent(K.Namespace, {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name },
  });
}

/**
 * An ASO credential Secret (docs/capz-aso-facts.md#aks-aso-flavor: the aks-aso flavor's credentials.yaml shape), in the
 * service principal with client secret form (docs/capz-aso-facts.md#aso-credential-keys), for the simulator's service
 * principal unless another is given.
 */
export function credentialSecretObject(
  namespace: string,
  name: string,
  subscription: string,
  sp: SimServicePrincipal = SIM_SERVICE_PRINCIPAL,
): Obj {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name, namespace },
    type: 'Opaque',
    data: servicePrincipalSecretData(subscription, sp),
  };
}

export async function credentialSecret(
  kube: Kube,
  namespace: string,
  name: string,
  subscription: string,
): Promise<void> {
  const wanted = credentialSecretObject(namespace, name, subscription);
  if (await kube.createIfAbsent(K.Secret, wanted)) return;
  // A demo cluster kept from before the seeds used a client secret holds the workload-identity form of the simulator's
  // own Secret: bring it to the client-secret form (a Secret someone else wrote, for another client, is left alone).
  const live = await kube.get(K.Secret, namespace, name);
  const data = live?.data;
  if (
    data &&
    !data.AZURE_CLIENT_SECRET &&
    data.AZURE_CLIENT_ID === wanted.data!.AZURE_CLIENT_ID
  ) {
    await kube.mergePatch(K.Secret, namespace, name, {
      data: {
        AZURE_CLIENT_SECRET: wanted.data!.AZURE_CLIENT_SECRET,
        AUTH_MODE: null,
      },
    });
  }
}

/**
 * An AKS cluster that exists only in Azure (to adopt), with its resource group. Created when absent and otherwise left
 * as it is (a restarted demo keeps what the jobs did to it): seeding twice changes nothing.
 */
export function azureOnlyCluster(
  world: AzureWorld,
  sub: string,
  rg: string,
  name: string,
  opts: {
    location?: string;
    /** The resource group's own location, when it differs from the cluster's. */
    resourceGroupLocation?: string;
    version?: string;
    pools: PoolSeed[];
    entraOnly?: boolean;
    /** Azure tags of the cluster and of its resource group. */
    tags?: Record<string, string>;
    resourceGroupTags?: Record<string, string>;
  },
): void {
  const location = opts.location ?? 'westeurope';
  if (!world.getResourceGroup(sub, rg)) {
    world.putResourceGroup(sub, rg, {
      location: opts.resourceGroupLocation ?? location,
      ...(opts.resourceGroupTags ? { tags: opts.resourceGroupTags } : {}),
    });
  }
  if (world.getManagedCluster(sub, rg, name)) return;
  world.putManagedCluster(sub, rg, name, {
    location,
    kubernetesVersion: opts.version ?? '1.33.2',
    ...(opts.tags ? { tags: opts.tags } : {}),
    ...(opts.entraOnly
      ? {
          disableLocalAccounts: true,
          aadProfile: { managed: true, enableAzureRBAC: true },
        }
      : {}),
    agentPoolProfiles: opts.pools,
  });
}

/** `key=value:Effect` (AKS's taint strings) as CAPZ's AzureManagedMachinePool `spec.taints` entries. */
export function taintsOf(
  nodeTaints: string[] | undefined,
): Array<{ key: string; value: string; effect: string }> {
  return (nodeTaints ?? []).map(t => {
    const m =
      /^([^=:]+)(?:=([^:]*))?:(NoSchedule|NoExecute|PreferNoSchedule)$/.exec(t);
    if (!m) throw new Error(`taint "${t}" is not key=value:Effect`);
    return { key: m[1], value: m[2] ?? '', effect: m[3] };
  });
}

/**
 * A cluster on the deprecated AzureManaged* API (docs/capz-aso-facts.md#legacy-api), already running in Azure, as
 * CAPZ's legacy path would have left it: Cluster, AzureManagedCluster, AzureManagedControlPlane, a MachinePool and an
 * AzureManagedMachinePool per pool. The legacy controllers then create the ASO objects and adopt the Azure cluster.
 */
export async function legacyCluster(
  kube: Kube,
  world: AzureWorld,
  opts: {
    namespace: string;
    name: string;
    subscription: string;
    resourceGroup: string;
    location?: string;
    version?: string;
    pools: PoolSeed[];
    entraOnly?: boolean;
    /** The control plane's `additionalTags`: CAPZ writes them, with its own, as the AKS cluster's tags. */
    additionalTags?: Record<string, string>;
    /** Tags the resource group has in Azure (a group CAPZ did not create: none of CAPZ's own). */
    resourceGroupTags?: Record<string, string>;
  },
): Promise<void> {
  const { namespace: ns, name } = opts;
  const location = opts.location ?? 'westeurope';
  const version = opts.version ?? '1.33.2';
  // In Azure as CAPZ keeps it: the cluster's tags are CAPZ's own plus the additional ones, each pool's what its
  // AzureManagedMachinePool says (legacy.ts `capzTags`, `legacyPoolFields`), so the legacy controllers' PUTs change nothing.
  azureOnlyCluster(world, opts.subscription, opts.resourceGroup, name, {
    location,
    version,
    pools: opts.pools,
    entraOnly: opts.entraOnly,
    tags: capzTags(name, name, opts.additionalTags),
    resourceGroupTags: opts.resourceGroupTags,
  });
  // The VNet and subnet CAPZ's legacy control plane made for it, with the webhook's defaults (name = the control
  // plane's, 10.0.0.0/8 and 10.240.0.0/16) and CAPZ's owned tags (CAPZ v1.26.0 azure/services/virtualnetworks/
  // spec.go lines 53–80, azure/services/subnets/spec.go lines 59–75): the legacy controllers find them owned and
  // manage them without changing Azure (docs/real-controllers.md#findings, finding 10).
  if (!world.getVirtualNetwork(opts.subscription, opts.resourceGroup, name)) {
    world.putVirtualNetwork(opts.subscription, opts.resourceGroup, name, {
      location,
      tags: capzTags(name, name, opts.additionalTags),
      properties: { addressSpace: { addressPrefixes: ['10.0.0.0/8'] } },
    });
    world.putSubnet(opts.subscription, opts.resourceGroup, name, name, {
      addressPrefix: '10.240.0.0/16',
      addressPrefixes: ['10.240.0.0/16'],
    });
  }
  await kube.createIfAbsent(
    K.Cluster,
    o('Cluster', ns, name, {
      controlPlaneRef: {
        apiGroup: CAPZ,
        kind: 'AzureManagedControlPlane',
        name,
      },
      infrastructureRef: { apiGroup: CAPZ, kind: 'AzureManagedCluster', name },
    }),
  );
  await kube.createIfAbsent(
    K.AzureManagedCluster,
    o('AzureManagedCluster', ns, name, {}),
  );
  await kube.createIfAbsent(
    K.AzureManagedControlPlane,
    o('AzureManagedControlPlane', ns, name, {
      identityRef: {
        apiVersion: `${CAPZ}/v1beta1`,
        kind: 'AzureClusterIdentity',
        name: 'cluster-identity',
        namespace: ns,
      },
      location,
      resourceGroupName: opts.resourceGroup,
      subscriptionID: opts.subscription,
      version: `v${version}`,
      ...(opts.additionalTags ? { additionalTags: opts.additionalTags } : {}),
      ...(opts.entraOnly
        ? {
            aadProfile: {
              managed: true,
              adminGroupObjectIDs: ['00000000-0000-0000-0000-00000000a0a0'],
            },
            disableLocalAccounts: true,
          }
        : {}),
    }),
  );
  for (const p of opts.pools) {
    const poolName = `${name}-${p.name}`;
    await kube.createIfAbsent(
      K.MachinePool,
      o('MachinePool', ns, poolName, {
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
      }),
    );
    await kube.createIfAbsent(
      K.AzureManagedMachinePool,
      o('AzureManagedMachinePool', ns, poolName, {
        mode: p.mode,
        name: p.name,
        sku: p.vmSize ?? 'Standard_D2s_v3',
        ...(p.enableAutoScaling
          ? { scaling: { minSize: p.minCount ?? 1, maxSize: p.maxCount ?? 5 } }
          : {}),
        ...(p.osType ? { osType: p.osType } : {}),
        ...(p.osDiskSizeGB !== undefined
          ? { osDiskSizeGB: p.osDiskSizeGB }
          : {}),
        ...(p.maxPods !== undefined ? { maxPods: p.maxPods } : {}),
        ...(p.availabilityZones?.length
          ? { availabilityZones: p.availabilityZones }
          : {}),
        ...(p.nodeLabels ? { nodeLabels: p.nodeLabels } : {}),
        ...(p.nodeTaints?.length ? { taints: taintsOf(p.nodeTaints) } : {}),
        ...(p.tags ? { additionalTags: p.tags } : {}),
      }),
    );
  }
}

/**
 * A new ASO-managed cluster written as CAPZ's aks-aso flavor does (docs/capz-aso-facts.md#aks-aso-flavor), at CAPI
 * v1beta2: ASO then creates the resource group, the AKS cluster and its pools in Azure.
 */
export async function asoManagedCluster(
  kube: Kube,
  opts: {
    namespace: string;
    name: string;
    location?: string;
    version?: string;
    credentialSecret: string;
    pools: PoolSeed[];
    apiVersion?: 'v1beta1' | 'v1alpha1';
    entraOnly?: boolean;
    /** The catalog owner (an entity ref): the Cluster's `capz.io/owner` annotation; without it, the default owner. */
    owner?: string;
    /** The embedded ManagedCluster's `autoUpgradeProfile.upgradeChannel` (AKS's auto-upgrade; none when absent). */
    autoUpgradeChannel?: 'patch' | 'stable' | 'rapid' | 'node-image' | 'none';
    /**
     * A resource group made outside CAPZ (with these tags): it exists in Azure first, and the cluster's ResourceGroup
     * object stands for it on reconcile-policy skip, as the adoption jobs pin it (ASO then only reads it, and never
     * deletes it: docs/capz-aso-facts.md#reconcile-policy).
     */
    existingResourceGroup?: {
      world: AzureWorld;
      subscription: string;
      name: string;
      tags?: Record<string, string>;
    };
  },
): Promise<void> {
  const { namespace: ns, name } = opts;
  const existing = opts.existingResourceGroup;
  const location = opts.location ?? 'westeurope';
  if (
    existing &&
    !existing.world.getResourceGroup(existing.subscription, existing.name)
  )
    existing.world.putResourceGroup(existing.subscription, existing.name, {
      location,
      ...(existing.tags ? { tags: existing.tags } : {}),
    });
  const capzVersion = `${CAPZ}/${opts.apiVersion ?? 'v1beta1'}`;
  const credential = {
    'serviceoperator.azure.com/credential-from': opts.credentialSecret,
  };
  const version = `v${opts.version ?? '1.33.2'}`;
  const cluster = o(
    'Cluster',
    ns,
    name,
    {
      controlPlaneRef: {
        apiGroup: CAPZ,
        kind: 'AzureASOManagedControlPlane',
        name,
      },
      infrastructureRef: {
        apiGroup: CAPZ,
        kind: 'AzureASOManagedCluster',
        name,
      },
    },
    // As the New AKS cluster template writes it (the product's OWNER_ANNOTATION).
    opts.owner ? { annotations: { 'capz.io/owner': opts.owner } } : {},
  );
  await kube.createIfAbsent(K.Cluster, cluster);
  const withVersion = (kind: KindName, obj: Obj) => ({
    ...obj,
    apiVersion: capzVersion,
    kind: K[kind].kind,
  });
  await kube.createIfAbsent(
    K.AzureASOManagedControlPlane,
    withVersion(
      'AzureASOManagedControlPlane',
      o('AzureASOManagedControlPlane', ns, name, {
        version,
        resources: [
          {
            apiVersion: apiVersionOf(K.ManagedCluster),
            kind: 'ManagedCluster',
            metadata: { name, annotations: credential },
            spec: {
              dnsPrefix: name,
              identity: { type: 'SystemAssigned' },
              location,
              networkProfile: { networkPlugin: 'azure' },
              owner: { name },
              servicePrincipalProfile: { clientId: 'msi' },
              ...(opts.autoUpgradeChannel
                ? {
                    autoUpgradeProfile: {
                      upgradeChannel: opts.autoUpgradeChannel,
                    },
                  }
                : {}),
              ...(opts.entraOnly
                ? {
                    disableLocalAccounts: true,
                    aadProfile: { managed: true, enableAzureRBAC: true },
                    operatorSpec: {
                      secrets: {
                        userCredentials: {
                          name: `${name}-user-kubeconfig`,
                          key: 'value',
                        },
                      },
                    },
                  }
                : {}),
            },
          },
        ],
      }),
    ),
  );
  await kube.createIfAbsent(
    K.AzureASOManagedCluster,
    withVersion(
      'AzureASOManagedCluster',
      o('AzureASOManagedCluster', ns, name, {
        resources: [
          {
            apiVersion: apiVersionOf(K.ResourceGroup),
            kind: 'ResourceGroup',
            metadata: {
              name,
              annotations: existing
                ? { ...credential, [RECONCILE_POLICY]: 'skip' }
                : credential,
            },
            spec: existing
              ? { azureName: existing.name, location }
              : { location },
          },
        ],
      }),
    ),
  );
  for (const p of opts.pools) {
    const poolName = `${name}-${p.name}`;
    await kube.createIfAbsent(
      K.MachinePool,
      o('MachinePool', ns, poolName, {
        clusterName: name,
        replicas: p.count,
        template: {
          spec: {
            clusterName: name,
            bootstrap: { dataSecretName: '' },
            infrastructureRef: {
              apiGroup: CAPZ,
              kind: 'AzureASOManagedMachinePool',
              name: poolName,
            },
            version,
          },
        },
      }),
    );
    await kube.createIfAbsent(
      K.AzureASOManagedMachinePool,
      withVersion(
        'AzureASOManagedMachinePool',
        o('AzureASOManagedMachinePool', ns, poolName, {
          resources: [
            {
              apiVersion: apiVersionOf(K.ManagedClustersAgentPool),
              kind: 'ManagedClustersAgentPool',
              metadata: { name: poolName, annotations: credential },
              spec: {
                azureName: p.name,
                mode: p.mode,
                owner: { name },
                type: 'VirtualMachineScaleSets',
                vmSize: p.vmSize ?? 'Standard_D2s_v3',
                ...(p.enableAutoScaling
                  ? {
                      enableAutoScaling: true,
                      minCount: p.minCount ?? 1,
                      maxCount: p.maxCount ?? 5,
                    }
                  : {}),
              },
            },
          ],
        }),
      ),
    );
  }
}
