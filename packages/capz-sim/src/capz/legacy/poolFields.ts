import type { Obj } from '../../runtime/types.ts';
import { subnetArmId } from './names.ts';

/**
 * The ManagedClustersAgentPool fields CAPZ's `buildAgentPoolSpec` takes from an AzureManagedMachinePool (and the
 * MachinePool's replicas), under the ARM names ASO uses; the same fields go into the ManagedCluster's
 * agentPoolProfiles for the first create.
 */
export function legacyPoolFields(
  ammp: Obj,
  replicas: number | undefined,
  cp?: Obj,
  version?: string,
): Record<string, unknown> {
  const s = ammp.spec ?? {};
  // CAPZ v1.26.0 azure/scope/managedmachinepool.go `buildAgentPoolSpec` lines 161–221 and azure/services/agentpools/
  // spec.go `Parameters` lines 217–274: osDiskSizeGB always (0 = AKS's default), osDiskType and scaleDownMode (CRD
  // defaults Managed / Delete), orchestratorVersion from the MachinePool, and the subnet `getAgentPoolSubnet` names
  // (spec.subnetName, else the control plane's) as vnetSubnetReference (docs/real-controllers.md#findings, finding 14).
  const vn = cp?.spec?.virtualNetwork;
  const subnet = s.subnetName ?? vn?.subnet?.name;
  const real = cp
    ? {
        osDiskSizeGB: s.osDiskSizeGB ?? 0,
        ...(s.osDiskType ? { osDiskType: s.osDiskType } : {}),
        ...(s.scaleDownMode ? { scaleDownMode: s.scaleDownMode } : {}),
        ...(version ? { orchestratorVersion: version.replace(/^v/, '') } : {}),
        ...(vn?.name && subnet
          ? {
              vnetSubnetReference: {
                armId: subnetArmId(
                  cp.spec.subscriptionID,
                  vn.resourceGroup,
                  vn.name,
                  subnet,
                ),
              },
            }
          : {}),
      }
    : {};
  const taints = (s.taints ?? []) as Array<{
    key: string;
    value?: string;
    effect: string;
  }>;
  return {
    mode: s.mode,
    vmSize: s.sku,
    type: 'VirtualMachineScaleSets',
    count: replicas ?? 1,
    enableAutoScaling: Boolean(s.scaling),
    ...(s.scaling
      ? { minCount: s.scaling.minSize, maxCount: s.scaling.maxSize }
      : {}),
    ...(s.osType ? { osType: s.osType } : {}),
    ...(s.osDiskSizeGB !== undefined ? { osDiskSizeGB: s.osDiskSizeGB } : {}),
    ...(s.maxPods !== undefined ? { maxPods: s.maxPods } : {}),
    ...(s.availabilityZones?.length
      ? { availabilityZones: [...s.availabilityZones] }
      : {}),
    ...(s.nodeLabels && Object.keys(s.nodeLabels).length
      ? { nodeLabels: { ...s.nodeLabels } }
      : {}),
    ...(taints.length
      ? { nodeTaints: taints.map(t => `${t.key}=${t.value ?? ''}:${t.effect}`) }
      : {}),
    ...(s.additionalTags && Object.keys(s.additionalTags).length
      ? { tags: { ...s.additionalTags } }
      : {}),
    ...real,
  };
}
