/**
 * The Microsoft.Compute reads the legacy CAPZ AzureManagedMachinePool makes, and what the simulated ARM answers for
 * them (docs/real-controllers.md#legacy-path). CAPZ v1.26.0 `controllers/azuremanagedmachinepool_reconciler.go`
 * lines 130–171 (through `azure/services/scalesets/client.go` `List`/`ListInstances`, armcompute v5.7.0, api-version
 * 2024-03-01, `NewListPager` following `nextLink`):
 *  1. `GET /subscriptions/{sub}/resourceGroups/{node rg}/providers/Microsoft.Compute/virtualMachineScaleSets`: CAPZ
 *     takes the first VMSS whose `tags.poolName` or `tags["aks-managed-poolName"]` is the pool's name and only reads
 *     its `name`;
 *  2. `GET .../virtualMachineScaleSets/{vmss}/virtualMachines`: of each VM only `id` is read; providerIDList =
 *     `azure://` + id with the resource group lower-cased (cloud-provider-azure v1.34.3 `pkg/provider/azure_wrap.go`
 *     `ConvertResourceGroupNameToLower`).
 * The VMSS are the node resource group's view of the model's agent pools: one per pool of every cluster whose
 * `nodeResourceGroup` it is, named and numbered as the workload Nodes are (`src/workload/nodes.ts`), the VMs being
 * exactly `AzureWorld.runningInstances` of the pool, which the Node sync also follows. Field names are armcompute
 * v5.7.0's (`models.go` `VirtualMachineScaleSet`, `VirtualMachineScaleSetVM`); fields nothing reads are few and
 * plausible, not a full VMSS.
 */
import { createHash } from 'node:crypto';
import { AzureError, notFound } from '../azure/errors.ts';
import type { AgentPool, AzureWorld, ManagedCluster } from '../azure/model.ts';
import { clusterDigits, nodeName, vmssName } from '../workload/nodes.ts';

/** armcompute v5.7.0 sends 2024-03-01 for both lists (`virtualmachinescalesets_client.go` `listCreateRequest`). */
export const COMPUTE_API_VERSIONS = ['2024-03-01'];

const uuidOf = (s: string) => {
  const h = createHash('sha256').update(s).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(
    16,
    20,
  )}-${h.slice(20, 32)}`;
};

export const vmssId = (mc: ManagedCluster, vmss: string) =>
  `/subscriptions/${mc.subscriptionId}/resourceGroups/${mc.nodeResourceGroup}/providers/Microsoft.Compute/virtualMachineScaleSets/${vmss}`;

/** The node resource group's scale sets: a pool that is being deleted has lost its VMSS already. */
function scaleSets(
  world: AzureWorld,
  sub: string,
  nodeRg: string,
): Array<{ mc: ManagedCluster; pool: AgentPool; name: string }> {
  const clusters = world.clustersWithNodeResourceGroup(sub, nodeRg);
  if (!clusters.length && !world.getResourceGroup(sub, nodeRg)) {
    throw new AzureError(
      404,
      'ResourceGroupNotFound',
      `Resource group '${nodeRg}' could not be found.`,
    );
  }
  return clusters
    .filter(mc => mc.provisioningState !== 'Deleting')
    .flatMap(mc =>
      Object.values(mc.agentPools)
        .filter(p => p.provisioningState !== 'Deleting')
        .map(pool => ({ mc, pool, name: vmssName(mc, pool) })),
    );
}

function vmssToWire(world: AzureWorld, mc: ManagedCluster, pool: AgentPool) {
  const name = vmssName(mc, pool);
  const zones = pool.availabilityZones;
  return {
    id: vmssId(mc, name),
    name,
    type: 'Microsoft.Compute/virtualMachineScaleSets',
    location: mc.location.toLowerCase().replace(/\s/g, ''),
    // AKS tags its scale sets with the pool's tags plus its own `aks-managed-*` ones; CAPZ matches on poolName.
    tags: {
      ...pool.tags,
      'aks-managed-poolName': pool.name,
      'aks-managed-orchestrator': `Kubernetes:${pool.currentOrchestratorVersion}`,
      'aks-managed-resourceNameSuffix': clusterDigits(mc),
    },
    sku: {
      name: pool.vmSize,
      tier: 'Standard',
      capacity: world.runningInstances(mc, pool).length,
    },
    ...(zones.length ? { zones: [...zones] } : {}),
    properties: {
      provisioningState:
        pool.provisioningState === 'Creating' ? 'Creating' : 'Succeeded',
      orchestrationMode: 'Uniform',
      overprovision: false,
      singlePlacementGroup: false,
      upgradePolicy: { mode: 'Manual' },
      uniqueId: uuidOf(vmssId(mc, name)),
    },
  };
}

function vmToWire(mc: ManagedCluster, pool: AgentPool, id: number) {
  const vmss = vmssName(mc, pool);
  const zones = pool.availabilityZones;
  return {
    id: `${vmssId(mc, vmss)}/virtualMachines/${id}`,
    name: `${vmss}_${id}`,
    instanceId: String(id),
    type: 'Microsoft.Compute/virtualMachineScaleSets/virtualMachines',
    location: mc.location.toLowerCase().replace(/\s/g, ''),
    sku: { name: pool.vmSize, tier: 'Standard' },
    // A zonal pool's instances round-robin over its zones, as the Nodes' zone label (src/workload/nodes.ts).
    ...(zones.length ? { zones: [zones[id % zones.length]] } : {}),
    properties: {
      latestModelApplied: true,
      provisioningState: 'Succeeded',
      vmId: uuidOf(`${vmssId(mc, vmss)}/${id}`),
      hardwareProfile: { vmSize: pool.vmSize },
      osProfile: {
        computerName: nodeName(vmss, id),
        adminUsername: 'azureuser',
      },
    },
  };
}

/** `GET .../resourceGroups/{nodeRg}/providers/Microsoft.Compute/virtualMachineScaleSets`: one page, no `nextLink`. */
export function listScaleSets(world: AzureWorld, sub: string, nodeRg: string) {
  return {
    value: scaleSets(world, sub, nodeRg).map(s =>
      vmssToWire(world, s.mc, s.pool),
    ),
  };
}

/** `GET .../virtualMachineScaleSets/{vmss}/virtualMachines`: the pool's running instances, ascending ids. */
export function listScaleSetVms(
  world: AzureWorld,
  sub: string,
  nodeRg: string,
  vmss: string,
) {
  const s = scaleSets(world, sub, nodeRg).find(
    x => x.name.toLowerCase() === vmss.toLowerCase(),
  );
  if (!s)
    throw notFound('Microsoft.Compute/virtualMachineScaleSets', vmss, nodeRg);
  return {
    value: world
      .runningInstances(s.mc, s.pool)
      .map(id => vmToWire(s.mc, s.pool, id)),
  };
}
