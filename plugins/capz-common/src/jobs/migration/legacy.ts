/**
 * The legacy (AzureManagedControlPlane) cluster's objects and what they hold, as the migration's preflight and steps
 * read them. Pure: no I/O.
 */
import type { ObservedObject } from '../../objects/types';
import { CAPZ, clone, groupOfApiVersion, isRecord, nameOf } from '../helpers';
import { CLUSTER_NAME_LABEL } from '../../vocabulary';

/**
 * The fields of an ASO `agentPoolProfiles[]` entry that are also spec fields (ManagedClusterAgentPoolProfile),
 * copied as they are from `status.agentPoolProfiles`. Status-only fields (provisioningState, nodeImageVersion,
 * currentOrchestratorVersion, powerState, eTag, ...) are left out.
 */
const POOL_SPEC_FIELDS = [
  'name',
  'mode',
  'vmSize',
  'count',
  'enableAutoScaling',
  'minCount',
  'maxCount',
  'type',
  'osType',
  'osSKU',
  'orchestratorVersion',
  'availabilityZones',
  'maxPods',
  'osDiskSizeGB',
  'osDiskType',
  'kubeletDiskType',
  'nodeLabels',
  'nodeTaints',
  'tags',
  'enableNodePublicIP',
  'enableEncryptionAtHost',
  'enableFIPS',
  'enableUltraSSD',
  'scaleSetPriority',
  'scaleSetEvictionPolicy',
  'scaleDownMode',
  'spotMaxPrice',
  'upgradeSettings',
  'kubeletConfig',
  'linuxOSConfig',
  'workloadRuntime',
  'gpuInstanceProfile',
  'networkProfile',
  'securityProfile',
  'windowsProfile',
  'creationData',
] as const;

/** Status carries ARM ids where the spec wants ASO references (`vnetSubnetID` -> `vnetSubnetReference.armId`). */
const POOL_ID_TO_REFERENCE: Record<string, string> = {
  vnetSubnetID: 'vnetSubnetReference',
  podSubnetID: 'podSubnetReference',
  nodePublicIPPrefixID: 'nodePublicIPPrefixReference',
  proximityPlacementGroupID: 'proximityPlacementGroupReference',
  hostGroupID: 'hostGroupReference',
  capacityReservationGroupID: 'capacityReservationGroupReference',
};

/**
 * `spec.agentPoolProfiles` for the new ManagedCluster from the OLD object's `status.agentPoolProfiles`: the legacy
 * controller strips them from the spec after the first create, and without them ASO's PUT starts an update cycle
 * that keeps the new control plane from becoming ready (docs/migration-procedure.md#step-6-2,
 * docs/capz-aso-facts.md#legacy-agent-pool-profiles).
 * @public
 */
export function agentPoolProfilesFromStatus(
  status: unknown,
): Array<Record<string, unknown>> {
  const list =
    isRecord(status) && Array.isArray(status.agentPoolProfiles)
      ? status.agentPoolProfiles
      : [];
  return list.filter(isRecord).map(p => {
    const out: Record<string, unknown> = {};
    for (const f of POOL_SPEC_FIELDS)
      if (p[f] !== undefined && p[f] !== null) out[f] = clone(p[f]);
    for (const [id, reference] of Object.entries(POOL_ID_TO_REFERENCE)) {
      if (typeof p[id] === 'string' && p[id]) out[reference] = { armId: p[id] };
    }
    return out;
  });
}

/** Entra-only: local accounts disabled, so ASO cannot fetch adminCredentials (docs/capz-aso-facts.md#entra-only-kubeconfig, docs/capz-aso-facts.md#adoption-entra). */
export function isEntraOnly(mc: ObservedObject): boolean {
  return (
    mc.spec?.disableLocalAccounts === true ||
    mc.status?.disableLocalAccounts === true
  );
}

/** A non-empty string, else undefined. */
export const str = (v: unknown): string | undefined =>
  typeof v === 'string' && v !== '' ? v : undefined;

/** Whether `o` has an owner reference to a CAPZ object of this kind and name (any version of the group). */
export function ownedBy(
  o: ObservedObject,
  kind: string,
  name: string,
  controllerOnly = false,
): boolean {
  return (o.metadata?.ownerReferences ?? []).some(
    r =>
      r.kind === kind &&
      r.name === name &&
      groupOfApiVersion(r.apiVersion) === CAPZ &&
      (!controllerOnly || r.controller === true),
  );
}

/** The legacy cluster's objects, found from the Cluster's references and the owner references CAPZ writes (docs/capz-aso-facts.md#legacy-aso-objects). */
export interface LegacyObjects {
  amc?: ObservedObject;
  amcp?: ObservedObject;
  machinePools: ObservedObject[];
  ammps: ObservedObject[];
  mc?: ObservedObject;
  /** The ResourceGroup the ManagedCluster's `spec.owner.name` names. */
  rg?: ObservedObject;
  /** ResourceGroups owned by the control plane that are not the cluster's (e.g. a VNet's group). */
  otherRgs: ObservedObject[];
  agentPools: ObservedObject[];
  /** Other ASO objects the old CAPZ objects own (VNet, Subnet, FleetsMember, Extension...): not adopted. */
  otherAso: ObservedObject[];
}

export function findLegacy(
  cluster: ObservedObject,
  objects: readonly ObservedObject[],
): LegacyObjects {
  const clusterName = nameOf(cluster);
  const byKind = (kind: string, name: unknown) =>
    objects.find(o => o.kind === kind && nameOf(o) === name);
  const amcp = byKind(
    'AzureManagedControlPlane',
    (cluster.spec?.controlPlaneRef as { name?: string } | undefined)?.name,
  );
  const amc = byKind(
    'AzureManagedCluster',
    (cluster.spec?.infrastructureRef as { name?: string } | undefined)?.name,
  );
  const machinePools = objects.filter(
    o => o.kind === 'MachinePool' && o.spec?.clusterName === clusterName,
  );
  const poolRefs = new Set(
    machinePools
      .map(
        mp =>
          (
            mp.spec?.template as
              | {
                  spec?: {
                    infrastructureRef?: { kind?: string; name?: string };
                  };
                }
              | undefined
          )?.spec?.infrastructureRef,
      )
      .filter(r => r?.kind === 'AzureManagedMachinePool')
      .map(r => r!.name),
  );
  const ammps = objects.filter(
    o =>
      o.kind === 'AzureManagedMachinePool' &&
      (poolRefs.has(nameOf(o)) ||
        o.metadata?.labels?.[CLUSTER_NAME_LABEL] === clusterName),
  );
  const ownedByCp = (o: ObservedObject) =>
    !!amcp && ownedBy(o, 'AzureManagedControlPlane', nameOf(amcp));
  const ownedByPool = (o: ObservedObject) =>
    ammps.some(p => ownedBy(o, 'AzureManagedMachinePool', nameOf(p)));
  const mc = objects.find(o => o.kind === 'ManagedCluster' && ownedByCp(o));
  const rgName = (mc?.spec?.owner as { name?: string } | undefined)?.name;
  const rg = objects.find(
    o =>
      o.kind === 'ResourceGroup' &&
      nameOf(o) === rgName &&
      (ownedByCp(o) || !amcp),
  );
  const otherRgs = objects.filter(
    o => o.kind === 'ResourceGroup' && o !== rg && ownedByCp(o),
  );
  const agentPools = objects.filter(
    o => o.kind === 'ManagedClustersAgentPool' && ownedByPool(o),
  );
  const known = new Set<ObservedObject>([
    ...(mc ? [mc] : []),
    ...(rg ? [rg] : []),
    ...otherRgs,
    ...agentPools,
  ]);
  const otherAso = objects.filter(
    o =>
      !known.has(o) &&
      (o.apiVersion ?? '').split('/')[0].endsWith('.azure.com') &&
      (ownedByCp(o) || ownedByPool(o)),
  );
  return {
    amc,
    amcp,
    machinePools,
    ammps,
    mc,
    rg,
    otherRgs,
    agentPools,
    otherAso,
  };
}
