/**
 * The legacy control plane's VNet and subnet in a migration: which old objects they are, and the exact
 * `spec.resources` entries that keep them managed after it. Pure: no I/O.
 *
 * Real CAPZ v1.26.0's AzureManagedControlPlane has ASO create a VirtualNetwork and a VirtualNetworksSubnet,
 * controller-owned by the control plane (docs/real-controllers.md finding 10). Adoption takes neither
 * (docs/capz-aso-facts.md#adoption-scope), so the job disarms them with the other old ASO objects and leaves them
 * in Azure, no longer managed; the preflight gives the entries that bring them back under the new cluster.
 */
import type { ObservedObject } from '../../objects/types';
import {
  azureNameOf,
  clone,
  groupOfApiVersion,
  nameOf,
  policyBeforeJob,
} from '../helpers';
import { str, type LegacyObjects } from './legacy';
import {
  CREDENTIAL_FROM_ANNOTATION,
  RECONCILE_POLICY_ANNOTATION,
} from '../../vocabulary';

const NETWORK_GROUP = 'network.azure.com';
const VNET = 'VirtualNetwork';
const SUBNET = 'VirtualNetworksSubnet';

const isKind = (o: ObservedObject, kind: string) =>
  o.kind === kind && groupOfApiVersion(o.apiVersion) === NETWORK_GROUP;

/**
 * The old VNet and subnet objects among `otherAso`, subnets first: children before their owners, as the legacy
 * control plane deletes them (CAPZ v1.26.0 controllers/azuremanagedcontrolplane_reconciler.go lines 113-114: services
 * in reverse order, subnets before virtualnetworks before groups) and as the job disarms pools before their cluster.
 */
export function legacyNetwork(l: LegacyObjects): ObservedObject[] {
  return [
    ...l.otherAso.filter(o => isKind(o, SUBNET)),
    ...l.otherAso.filter(o => isKind(o, VNET)),
  ];
}

const strMap = (v: unknown): Record<string, string> | undefined =>
  v &&
  typeof v === 'object' &&
  !Array.isArray(v) &&
  Object.values(v).every(x => typeof x === 'string')
    ? (v as Record<string, string>)
    : undefined;

/** `/subscriptions/<s>/resourceGroups/<g>` from an ARM id inside that group. */
const groupIdOf = (id: string | undefined) =>
  id?.match(/^\/subscriptions\/[^/]+\/resourceGroups\/[^/]+/i)?.[0];

/** What to add to the new AzureASOManagedCluster's spec.resources, and what is left out on purpose. */
export interface NetworkCarryOver {
  /** The entries, VNets before their subnets. */
  entries: Array<Record<string, unknown>>;
  /** Objects left out, each with why. */
  leftOut: string[];
}

/**
 * One `spec.resources` entry per old VNet and subnet: the old spec as CAPZ wrote it (address space or prefix, and
 * every other field), its Azure name and location made explicit, the tags Azure has (ARM replaces tags on PUT), the
 * owner as the new namespace names it, and the old `credential-from`. The reconcile policy as before the job:
 * - `manage` (CAPZ's own): no annotation, which is ASO's default. Writing `manage` there would make CAPZ fail the
 *   next pause (pkg/mutators/mutator.go lines 104-108: any policy but skip in spec.resources is Incompatible).
 * - `skip`: pinned as `skip`, the one policy CAPZ accepts there (docs/capz-aso-facts.md#aso-managed-pause).
 * - `detach-on-delete`: left out. It cannot be written in spec.resources, and an unmanaged resource is what
 *   detach-on-delete leaves behind anyway when its object is deleted.
 * ASO's VNet PUT keeps the subnets Azure has (ASO v2.18.0 api/network/customizations/virtual_network_extensions.go
 * lines 72-79), so listing the VNet cannot remove the subnet the node pools use.
 */
export function networkCarryOver(
  l: LegacyObjects,
  rgName: string,
  credential: string,
): NetworkCarryOver {
  const rg = l.rg!;
  const entries: Array<Record<string, unknown>> = [];
  const leftOut: string[] = [];
  const network = legacyNetwork(l);
  // VNets first: a subnet's owner must be listed before it.
  for (const o of [...network].reverse()) {
    const policy = policyBeforeJob(o);
    if (policy === 'detach-on-delete') {
      leftOut.push(
        `${o.kind} ${nameOf(
          o,
        )} (detach-on-delete: cannot be written in spec.resources; unmanaged keeps it in Azure as deleting it would have)`,
      );
      continue;
    }
    const { owner: oldOwner, ...spec } = clone(o.spec ?? {}) as Record<
      string,
      unknown
    > & { owner?: { name?: string; armId?: string } };
    let owner: Record<string, string> | undefined;
    if (isKind(o, VNET)) {
      const groupId = groupIdOf(str(o.status?.id));
      // The adopted group keeps its object name; any other group is not adopted, so it is named by its ARM id.
      if (oldOwner?.armId) owner = { armId: oldOwner.armId };
      else if (oldOwner?.name === nameOf(rg)) owner = { name: rgName };
      else if (groupId) owner = { armId: groupId };
    } else if (oldOwner?.armId) owner = { armId: oldOwner.armId };
    else if (oldOwner?.name) owner = { name: oldOwner.name };
    if (!owner) {
      leftOut.push(
        `${o.kind} ${nameOf(
          o,
        )} (its owner cannot be named in the new namespace)`,
      );
      continue;
    }
    const location = str(o.spec?.location) ?? str(o.status?.location);
    const tags = strMap(o.status?.tags) ?? strMap(o.spec?.tags);
    entries.push({
      apiVersion: o.apiVersion,
      kind: o.kind,
      metadata: {
        name: nameOf(o),
        annotations: {
          [CREDENTIAL_FROM_ANNOTATION]: credential,
          ...(policy === 'skip'
            ? { [RECONCILE_POLICY_ANNOTATION]: 'skip' }
            : {}),
        },
      },
      spec: {
        ...spec,
        azureName: azureNameOf(o),
        ...(location ? { location } : {}),
        ...(tags && Object.keys(tags).length ? { tags: { ...tags } } : {}),
        owner,
      },
    });
  }
  return { entries, leftOut };
}

/** The one command that appends the entries to the new AzureASOManagedCluster's spec.resources (JSON patch). */
export function networkCarryOverCommand(
  namespace: string,
  name: string,
  entries: Array<Record<string, unknown>>,
): string {
  const ops = entries.map(value => ({
    op: 'add',
    path: '/spec/resources/-',
    value,
  }));
  const json = JSON.stringify(ops).replace(/'/g, `'\\''`);
  return `kubectl -n ${namespace} patch azureasomanagedcluster ${name} --type json -p '${json}'`;
}
