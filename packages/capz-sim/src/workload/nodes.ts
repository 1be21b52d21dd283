/**
 * The Nodes an AKS agent pool has in its workload cluster, one per VMSS instance, shaped as the real CAPI and CAPZ
 * controllers read them (docs/real-controllers.md#workload-clusters):
 *  - CAPZ v1.26.0 `controllers/azureasomanagedmachinepool_controller.go` (reconcileNormal, lines 259–285) lists the
 *    Nodes labelled `kubernetes.azure.com/agentpool=<pool azureName>` and `kubernetes.azure.com/cluster=<node resource
 *    group>` (`expectedNodeLabels`, lines 291–302: each value cut to 63 characters) and copies their `spec.providerID`
 *    into `providerIDList`; a listed Node without a providerID makes it requeue;
 *  - CAPI v1.13.3 `internal/controllers/machinepool/machinepool_controller_phases.go` (`getNodeRefMap`, lines
 *    589–608) lists every Node and keys them by `spec.providerID`; `machinepool_controller_noderef.go`
 *    (`getNodeReferences`, lines 200–230) counts a Node ready by its `Ready` condition alone
 *    (`controllers/noderefutil/util.go` `IsNodeReady`), available when Ready for `minReadySeconds`
 *    (from the condition's `lastTransitionTime`). Addresses and nodeInfo are not read.
 *  - The providerID is what the legacy CAPZ path builds from the ARM id of the VMSS instance, and what
 *    cloud-provider-azure gives the Node: `azure://` + the id with the resource group lower-cased
 *    (CAPZ v1.26.0 `controllers/azuremanagedmachinepool_reconciler.go` line 161,
 *    cloud-provider-azure v1.34.3 `pkg/provider/azure_wrap.go` `ConvertResourceGroupNameToLower`).
 * Names follow AKS: VMSS `aks-<pool>-<8 digits>-vmss` (the digits are one number per cluster, shared by its pools) and
 * Node (the VMSS computer name) `<vmss name><instance id in base 36, 6 wide>`, e.g. `aks-system-12345678-vmss00000a`.
 */
import { createHash } from 'node:crypto';
import type { AgentPool, ManagedCluster } from '../azure/model.ts';
import type { Obj } from '../runtime/types.ts';

/** The simulator's own label on the Nodes it writes: which sync owns them (several worlds may share a server). */
export const OWNER_LABEL = 'sim.capz.internal/owner';
export const POOL_LABEL = 'kubernetes.azure.com/agentpool';
export const CLUSTER_LABEL = 'kubernetes.azure.com/cluster';

/** CAPZ cuts both label values to `validation.LabelValueMaxLength` (63) before it lists (expectedNodeLabels). */
export const labelValue = (v: string) => v.slice(0, 63);

/** AKS's per-cluster number in VMSS and Node names: derived here from the cluster's resourceUID (a re-created cluster gets new names). */
export function clusterDigits(mc: Pick<ManagedCluster, 'resourceUID'>): string {
  const n =
    parseInt(
      createHash('sha256').update(mc.resourceUID).digest('hex').slice(0, 12),
      16,
    ) % 100_000_000;
  return String(n).padStart(8, '0');
}

export const vmssName = (mc: ManagedCluster, pool: Pick<AgentPool, 'name'>) =>
  `aks-${pool.name}-${clusterDigits(mc)}-vmss`;

export const nodeName = (vmss: string, instance: number) =>
  `${vmss}${instance.toString(36).padStart(6, '0')}`;

/** The instance id of a Node named by {@link nodeName}, or undefined for a name of another VMSS. */
export function instanceOf(vmss: string, node: string): number | undefined {
  if (!node.startsWith(vmss)) return undefined;
  const suffix = node.slice(vmss.length);
  return /^[0-9a-z]{6}$/.test(suffix) ? parseInt(suffix, 36) : undefined;
}

export const providerId = (
  mc: ManagedCluster,
  vmss: string,
  instance: number,
) =>
  `azure:///subscriptions/${
    mc.subscriptionId
  }/resourceGroups/${mc.nodeResourceGroup.toLowerCase()}` +
  `/providers/Microsoft.Compute/virtualMachineScaleSets/${vmss}/virtualMachines/${instance}`;

const region = (mc: ManagedCluster) =>
  mc.location.toLowerCase().replace(/\s/g, '');

/** The labels AKS puts on a pool's Nodes (the subset consumers here read), the pool's own `nodeLabels` included. */
export function nodeLabels(
  mc: ManagedCluster,
  pool: AgentPool,
  name: string,
  instance: number,
  owner: string,
): Record<string, string> {
  const zones = pool.availabilityZones;
  return {
    ...pool.nodeLabels,
    [POOL_LABEL]: labelValue(pool.name),
    agentpool: labelValue(pool.name),
    [CLUSTER_LABEL]: labelValue(mc.nodeResourceGroup),
    'kubernetes.azure.com/mode': pool.mode.toLowerCase(),
    'kubernetes.azure.com/role': 'agent',
    'kubernetes.azure.com/os-sku': pool.osSKU,
    'kubernetes.azure.com/node-image-version': pool.nodeImageVersion,
    'kubernetes.io/os': pool.osType.toLowerCase(),
    'kubernetes.io/arch': 'amd64',
    'kubernetes.io/hostname': name,
    'node.kubernetes.io/instance-type': pool.vmSize,
    'topology.kubernetes.io/region': region(mc),
    // AKS spreads a zonal pool's instances over its zones and labels a non-zonal one's zone "0".
    'topology.kubernetes.io/zone': zones.length
      ? `${region(mc)}-${zones[instance % zones.length]}`
      : '0',
    [OWNER_LABEL]: owner,
  };
}

/** `key=value:Effect` (the pool's nodeTaints) as a Node taint. */
export function taintOf(t: string): {
  key: string;
  value?: string;
  effect: string;
} {
  const [kv, effect = 'NoSchedule'] = t.split(':');
  const [key, value] = kv.split('=');
  return value === undefined ? { key, effect } : { key, value, effect };
}

/** vCPUs from the size name (`Standard_D4s_v3` → 4); memory 4 GiB per vCPU. An approximation: nothing here reads it. */
function capacity(pool: AgentPool): Record<string, string> {
  const cpu = Number(/^Standard_[A-Za-z]+(\d+)/.exec(pool.vmSize)?.[1] ?? 2);
  return {
    cpu: String(cpu),
    memory: `${cpu * 4}Gi`,
    pods: String(pool.maxPods),
    'ephemeral-storage': `${pool.osDiskSizeGB}Gi`,
  };
}

export const kubeletVersion = (pool: AgentPool) =>
  `v${pool.currentOrchestratorVersion}`;

/**
 * The Node object for one VMSS instance, status included: the API server keeps a Node's status on create ("Nodes
 * allow *all* fields, including status, to be set on create", kubernetes v1.35.4
 * `pkg/registry/core/node/strategy.go`), so a Node is never seen without its Ready condition; later status changes go
 * through `/status`.
 */
export function nodeObject(
  mc: ManagedCluster,
  pool: AgentPool,
  instance: number,
  owner: string,
  now = new Date(),
): Obj {
  const vmss = vmssName(mc, pool);
  const name = nodeName(vmss, instance);
  const time = now.toISOString().replace(/\.\d+Z$/, 'Z');
  // A per-pool /24 of AKS's default node subnet (10.224.0.0/16); nothing here reads addresses.
  const subnet = createHash('sha256').update(vmss).digest()[0];
  const ip = `10.224.${subnet}.${4 + (instance % 250)}`;
  const windows = pool.osType === 'Windows';
  const cond = (
    type: string,
    status: 'True' | 'False',
    reason: string,
    message: string,
  ) => ({
    type,
    status,
    reason,
    message,
    lastHeartbeatTime: time,
    lastTransitionTime: time,
  });
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name,
      labels: nodeLabels(mc, pool, name, instance, owner),
      annotations: { 'node.alpha.kubernetes.io/ttl': '0' },
    },
    spec: {
      providerID: providerId(mc, vmss, instance),
      ...(pool.nodeTaints.length
        ? { taints: pool.nodeTaints.map(taintOf) }
        : {}),
    },
    status: {
      capacity: capacity(pool),
      allocatable: capacity(pool),
      conditions: [
        cond(
          'MemoryPressure',
          'False',
          'KubeletHasSufficientMemory',
          'kubelet has sufficient memory available',
        ),
        cond(
          'DiskPressure',
          'False',
          'KubeletHasNoDiskPressure',
          'kubelet has no disk pressure',
        ),
        cond(
          'PIDPressure',
          'False',
          'KubeletHasSufficientPID',
          'kubelet has sufficient PID available',
        ),
        cond(
          'Ready',
          'True',
          'KubeletReady',
          'kubelet is posting ready status',
        ),
      ],
      addresses: [
        { type: 'InternalIP', address: ip },
        { type: 'Hostname', address: name },
      ],
      nodeInfo: {
        machineID: createHash('md5').update(name).digest('hex'),
        systemUUID: createHash('md5').update(`${name}/uuid`).digest('hex'),
        bootID: createHash('md5').update(`${name}/boot`).digest('hex'),
        kernelVersion: windows ? '10.0.20348.2700' : '5.15.0-1074-azure',
        osImage: windows
          ? 'Windows Server 2022 Datacenter'
          : 'Ubuntu 22.04.5 LTS',
        containerRuntimeVersion: 'containerd://1.7.27-1',
        kubeletVersion: kubeletVersion(pool),
        kubeProxyVersion: '',
        operatingSystem: windows ? 'windows' : 'linux',
        architecture: 'amd64',
      },
    },
  };
}
