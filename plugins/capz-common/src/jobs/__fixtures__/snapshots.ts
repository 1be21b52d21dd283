/**
 * Snapshots for the planner tests: the tree fixtures' clusters (mirroring packages/capz-sim) completed with what the
 * live objects also carry (ASO finalizers, the ManagedCluster's status.agentPoolProfiles and operatorSpec as the
 * legacy controller writes them, capz-sim capz/legacy.ts and aso/shapes.ts), and a small RFC 7386 merge patch to
 * play a plan's patches onto them.
 */
import {
  asoManagedCluster,
  find,
  legacyCluster,
  SUB,
  type Obj,
  type PoolOpts,
} from '../../tree/__fixtures__/clusters';
import type { AccessAnswer, AccessRequirement } from '../types';

export { find, SUB };

export const allow = (required: AccessRequirement[]): AccessAnswer[] =>
  required.map(({ why: _why, ...a }) => ({ ...a, allowed: true }));

export interface LegacyOpts {
  name?: string;
  namespace?: string;
  pools?: PoolOpts[];
  entraOnly?: boolean;
  /** The legacy control plane's VNet and subnet, as real CAPZ v1.26.0 makes them (tree fixture `network`). */
  network?: boolean;
}

/** A running legacy (AzureManagedControlPlane) cluster as the management cluster holds it. */
export function legacySnapshotObjects(opts: LegacyOpts = {}) {
  const name = opts.name ?? 'legacy-1';
  const pools = opts.pools ?? [
    { name: 'pool0', mode: 'System', count: 2, vmSize: 'Standard_D2s_v3' },
    {
      name: 'pool1',
      mode: 'User',
      count: 3,
      vmSize: 'Standard_D4s_v3',
      autoscale: { min: 1, max: 5 },
    },
  ];
  const { cluster, objects } = legacyCluster({
    name,
    namespace: opts.namespace ?? 'team-legacy',
    pools,
    network: opts.network,
  });
  const ns = cluster.metadata.namespace!;
  const mc = find(objects, 'ManagedCluster', name);
  const rgAzure = `RG_${name}`;
  for (const o of objects) {
    if (o.apiVersion?.includes('.azure.com/'))
      (o.metadata as any).finalizers = ['serviceoperator.azure.com/finalizer'];
  }
  const subnet = `/subscriptions/${SUB}/resourceGroups/${rgAzure}/providers/Microsoft.Network/virtualNetworks/vnet/subnets/nodes`;
  Object.assign(mc.spec, {
    dnsPrefix: `${name}-dns`,
    identity: { type: 'SystemAssigned' },
    enableRBAC: true,
    networkProfile: {
      networkPlugin: 'azure',
      serviceCidr: '10.0.0.0/16',
      dnsServiceIP: '10.0.0.10',
    },
    operatorSpec: opts.entraOnly
      ? {
          secrets: {
            userCredentials: {
              name: `${name}-user-aso-kubeconfig`,
              key: 'value',
            },
          },
        }
      : {
          secrets: {
            adminCredentials: { name: `${name}-aso-kubeconfig`, key: 'value' },
          },
        },
    ...(opts.entraOnly
      ? {
          disableLocalAccounts: true,
          aadProfile: { managed: true, enableAzureRBAC: true },
        }
      : {}),
  });
  Object.assign(mc.status, {
    id: `/subscriptions/${SUB}/resourceGroups/${rgAzure}/providers/Microsoft.ContainerService/managedClusters/${name}`,
    dnsPrefix: `${name}-dns`,
    kubernetesVersion: '1.32.5',
    ...(opts.entraOnly
      ? {
          disableLocalAccounts: true,
          aadProfile: { managed: true, enableAzureRBAC: true },
        }
      : {}),
    agentPoolProfiles: pools.map(p => ({
      name: p.name,
      type: 'VirtualMachineScaleSets',
      count: p.count ?? 1,
      vmSize: p.vmSize ?? 'Standard_D2s_v3',
      mode: p.mode ?? 'User',
      osType: 'Linux',
      orchestratorVersion: '1.32.5',
      currentOrchestratorVersion: '1.32.5',
      enableAutoScaling: !!p.autoscale,
      ...(p.autoscale
        ? { minCount: p.autoscale.min, maxCount: p.autoscale.max }
        : {}),
      vnetSubnetID: subnet,
      nodeImageVersion: 'AKSUbuntu-2204gen2containerd-202611.01.0',
      powerState: { code: 'Running' },
      provisioningState: 'Succeeded',
    })),
  });
  // The legacy agent pools carry the autoscaling fields CAPZ's buildAgentPoolSpec writes.
  for (const p of pools) {
    const ap = find(objects, 'ManagedClustersAgentPool', `${name}-${p.name}`);
    Object.assign(ap.spec, {
      type: 'VirtualMachineScaleSets',
      orchestratorVersion: '1.32.5',
      osType: 'Linux',
    });
    if (p.autoscale)
      Object.assign(ap.spec, {
        enableAutoScaling: true,
        minCount: p.autoscale.min,
        maxCount: p.autoscale.max,
      });
  }
  return { cluster, objects, ns, mc };
}

export { asoManagedCluster, type Obj };

/** RFC 7386 JSON merge patch. */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (typeof patch !== 'object' || patch === null || Array.isArray(patch))
    return patch;
  const out: Record<string, unknown> =
    typeof target === 'object' && target !== null && !Array.isArray(target)
      ? { ...(target as object) }
      : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}
