/**
 * Pure mapping for AKS discovery: ARM managed clusters to DiscoveredAksCluster, and which ASO ManagedCluster on the
 * management cluster already points at one (so the wizard can refuse a second owner).
 */
import type { ManagedCluster } from '@azure/arm-containerservice';
import {
  CLUSTER_NAME_LABEL,
  RESOURCE_ID_ANNOTATION,
  type DiscoveredAksCluster,
  type ObservedObject,
} from '@capz-backstage/plugin-capz-common';

export interface ArmId {
  subscriptionId: string;
  resourceGroup: string;
  /** The last `name` segment (the cluster for a managed cluster id). */
  name: string;
}

/**
 * Parses `/subscriptions/{sub}/resourceGroups/{rg}[/providers/{ns}/{type}/{name}...]`, matching segment names
 * case-insensitively (AKS writes `resourcegroups`, ASO `resourceGroups`: docs/azure-facts.md#arm-sdk,
 * docs/azure-facts.md#arm-envelope).
 */
export function parseArmId(id: string | undefined): ArmId | undefined {
  if (!id) return undefined;
  const s = id.split('/').filter(Boolean);
  if (
    s.length < 4 ||
    s[0].toLowerCase() !== 'subscriptions' ||
    s[2].toLowerCase() !== 'resourcegroups'
  )
    return undefined;
  return { subscriptionId: s[1], resourceGroup: s[3], name: s[s.length - 1] };
}

const same = (a: string | undefined, b: string | undefined) =>
  !!a && !!b && a.toLowerCase() === b.toLowerCase();

/** A copy of a map or list ARM returned, or nothing when it is absent or empty. */
function nonEmpty<T extends object>(v: T | undefined): T | undefined {
  if (!v || !Object.keys(v).length) return undefined;
  return (Array.isArray(v) ? [...v] : { ...v }) as T;
}

/** Only the keys with a value: the wizard and the planner tell "ARM said nothing" from a value. */
function defined<T extends Record<string, unknown>>(o: T): Partial<T> {
  return Object.fromEntries(
    Object.entries(o).filter(([, v]) => v !== undefined),
  ) as Partial<T>;
}

/**
 * The ARM view of one cluster as the wizard shows it and adoption writes it back: every pool field ARM replaces or
 * resets on PUT (labels, taints, tags, autoscaling) and the ones it keeps (OS, zones, maxPods, disk), the cluster's
 * tags, identity type and aadProfile, so that the ManagedCluster adoption writes makes ASO's PUT change nothing.
 */
export function toDiscoveredCluster(
  mc: ManagedCluster,
  subscriptionId: string,
): DiscoveredAksCluster {
  const id = parseArmId(mc.id);
  const aad = mc.aadProfile;
  const aadProfile = aad
    ? defined({
        managed: aad.managed,
        enableAzureRBAC: aad.enableAzureRbac,
        adminGroupObjectIDs: nonEmpty(aad.adminGroupObjectIDs),
        tenantID: aad.tenantID,
      })
    : undefined;
  return {
    subscriptionId: id?.subscriptionId ?? subscriptionId,
    resourceGroup: id?.resourceGroup ?? '',
    name: mc.name ?? id?.name ?? '',
    location: mc.location,
    ...(mc.kubernetesVersion
      ? { kubernetesVersion: mc.kubernetesVersion }
      : {}),
    ...(mc.dnsPrefix ? { dnsPrefix: mc.dnsPrefix } : {}),
    ...(mc.provisioningState
      ? { provisioningState: mc.provisioningState }
      : {}),
    // Local accounts off means no admin kubeconfig: adoption must export userCredentials
    // (docs/capz-aso-facts.md#aso-secret-export, docs/capz-aso-facts.md#adoption-entra).
    entraOnly: mc.disableLocalAccounts === true,
    ...defined({ tags: nonEmpty(mc.tags), identityType: mc.identity?.type }),
    ...(aadProfile && Object.keys(aadProfile).length ? { aadProfile } : {}),
    agentPools: (mc.agentPoolProfiles ?? []).map(p => ({
      name: p.name,
      mode: p.mode === 'System' ? ('System' as const) : ('User' as const),
      vmSize: p.vmSize ?? '',
      count: p.count ?? 0,
      ...defined({
        enableAutoScaling: p.enableAutoScaling,
        minCount: p.minCount,
        maxCount: p.maxCount,
        osType: p.osType,
        osSKU: p.osSKU,
        orchestratorVersion: p.orchestratorVersion,
        availabilityZones: nonEmpty(p.availabilityZones),
        maxPods: p.maxPods,
        osDiskSizeGB: p.osDiskSizeGB,
        nodeLabels: nonEmpty(p.nodeLabels),
        nodeTaints: nonEmpty(p.nodeTaints),
        tags: nonEmpty(p.tags),
      }),
    })),
  };
}

const CONTROL_PLANES = [
  'AzureASOManagedControlPlane',
  'AzureManagedControlPlane',
];

interface AsoTarget {
  namespace: string;
  name: string;
  cluster?: string;
  azureName: string;
  resourceGroup?: string;
  subscriptionId?: string;
}

const str = (v: unknown) => (typeof v === 'string' && v ? v : undefined);

/** Where ASO says (or would say) the object lives: its resource-id annotation, else `status.id`. */
const armIdOf = (o: ObservedObject) =>
  parseArmId(
    o.metadata?.annotations?.[RESOURCE_ID_ANNOTATION] ?? str(o.status?.id),
  );

/**
 * What each ASO ManagedCluster points at in Azure. Best: its ARM id (ASO's resource-id annotation or status.id).
 * Else its azureName (`spec.azureName ?? metadata.name`) in its owner's group: `spec.owner.armId`, or the ResourceGroup
 * object `spec.owner.name` in its namespace (that group's azureName, and subscription if ASO recorded its id).
 */
export function asoTargets(
  managedClusters: ObservedObject[],
  resourceGroups: ObservedObject[],
): AsoTarget[] {
  const groups = new Map(
    resourceGroups.map(g => [
      `${g.metadata?.namespace}/${g.metadata?.name}`,
      g,
    ]),
  );
  const out: AsoTarget[] = [];
  for (const mc of managedClusters) {
    const namespace = mc.metadata?.namespace;
    const name = mc.metadata?.name;
    if (!namespace || !name) continue;
    const controlPlane = mc.metadata?.ownerReferences?.find(
      r => r.controller && CONTROL_PLANES.includes(r.kind ?? ''),
    );
    const cluster =
      mc.metadata?.labels?.[CLUSTER_NAME_LABEL] ?? controlPlane?.name;
    const base = { namespace, name, ...(cluster ? { cluster } : {}) };
    const id = armIdOf(mc);
    if (id) {
      out.push({
        ...base,
        azureName: id.name,
        resourceGroup: id.resourceGroup,
        subscriptionId: id.subscriptionId,
      });
      continue;
    }
    const spec = mc.spec ?? {};
    const owner = (spec.owner ?? {}) as { name?: unknown; armId?: unknown };
    const azureName = str(spec.azureName) ?? name;
    const ownerId = parseArmId(str(owner.armId));
    if (ownerId) {
      out.push({
        ...base,
        azureName,
        resourceGroup: ownerId.name,
        subscriptionId: ownerId.subscriptionId,
      });
      continue;
    }
    const group = str(owner.name)
      ? groups.get(`${namespace}/${owner.name}`)
      : undefined;
    const groupId = group && armIdOf(group);
    out.push({
      ...base,
      azureName,
      ...(group
        ? {
            resourceGroup:
              groupId?.resourceGroup ??
              str(group.spec?.azureName) ??
              group.metadata?.name,
          }
        : {}),
      ...(groupId ? { subscriptionId: groupId.subscriptionId } : {}),
    });
  }
  return out;
}

/**
 * The ASO ManagedCluster that points at this AKS cluster, if any. Names compare case-insensitively (ARM does); an
 * unknown group or subscription does not rule a candidate out: a false "already managed" only makes the wizard
 * cautious, a missed one would let two owners manage one cluster.
 */
export function findManagedBy(
  cluster: DiscoveredAksCluster,
  targets: AsoTarget[],
): DiscoveredAksCluster['managedBy'] {
  const t = targets.find(
    x =>
      same(x.azureName, cluster.name) &&
      (x.resourceGroup === undefined ||
        same(x.resourceGroup, cluster.resourceGroup)) &&
      (x.subscriptionId === undefined ||
        same(x.subscriptionId, cluster.subscriptionId)),
  );
  return t
    ? {
        namespace: t.namespace,
        name: t.name,
        ...(t.cluster ? { cluster: t.cluster } : {}),
      }
    : undefined;
}
