/**
 * What deleting a CAPI Cluster does in Azure, computed from the objects (the watch cache), before the user confirms.
 * The rules (docs/capz-aso-facts.md#day2-delete-impact):
 * 1. Kubernetes: CAPI deletes the Cluster's control plane, infrastructure cluster and MachinePools; CAPZ deletes the
 *    ASO objects its objects list in `spec.resources`; the garbage collector deletes every object all of whose
 *    owners are deleted (CAPZ's pools skip their own agent pool while the Cluster is deleted, the ManagedCluster's
 *    ownership takes it then).
 * 2. ASO: deleting an object deletes its Azure resource only under reconcile-policy `manage` (the default);
 *    `skip` and `detach-on-delete` only let the object go.
 * 3. Azure: deleting a resource group deletes everything in it; deleting an AKS cluster deletes its agent pools.
 * Every other Azure resource the cluster's ASO objects stand for is kept, and the reason says why.
 */
import { clusterAppliedBy, gitOpsRefusal } from '../objects/appliedBy';
import { at, isObj, reconcilePolicyOf, str } from '../objects/read';
import type { ObservedObject } from '../objects/types';
import { ASO_FINALIZER, CLUSTER_NAME_LABEL } from '../vocabulary';
import type { AzureImpact, DeletePreview } from './api';

/** An ASO object elsewhere (another namespace or management cluster), named by its place. @public */
export interface PlacedObject {
  /** `<management cluster>/<namespace>` */
  place: string;
  object: ObservedObject;
}

const ASO_TYPES: Record<string, string> = {
  ResourceGroup: 'Microsoft.Resources/resourceGroups',
  ManagedCluster: 'Microsoft.ContainerService/managedClusters',
  ManagedClustersAgentPool:
    'Microsoft.ContainerService/managedClusters/agentPools',
  VirtualNetwork: 'Microsoft.Network/virtualNetworks',
  VirtualNetworksSubnet: 'Microsoft.Network/virtualNetworks/subnets',
};

const isAso = (o: ObservedObject) => Boolean(o.kind && ASO_TYPES[o.kind]);
const keyOf = (o: ObservedObject) =>
  o.metadata?.uid ?? `${o.kind}/${o.metadata?.namespace}/${o.metadata?.name}`;
const ref = (o: ObservedObject) =>
  `${o.kind} ${o.metadata?.namespace}/${o.metadata?.name}`;
const lower = (s: string | undefined) => s?.toLowerCase();

/** Where an ASO object's resource is in Azure: its name, its group, its parent (for pools and subnets). */
interface AzureAddress {
  azureType: string;
  azureName: string;
  armId?: string;
  resourceGroup?: string;
  /** The parent's address key (agent pool → cluster, subnet → network). */
  parent?: string;
}

const addressKey = (a: AzureAddress) =>
  `${a.azureType}|${lower(a.resourceGroup)}|${a.parent ?? ''}|${lower(
    a.azureName,
  )}`;

/** The kind of ASO object `spec.owner` names for a kind: pools hang from clusters, subnets from networks. */
const parentKindOf = (kind: string | undefined) => {
  if (kind === 'ManagedClustersAgentPool') return 'ManagedCluster';
  if (kind === 'VirtualNetworksSubnet') return 'VirtualNetwork';
  return 'ResourceGroup';
};

function addressOf(
  o: ObservedObject,
  inNamespace: (kind: string, name: string) => ObservedObject | undefined,
  depth = 0,
): AzureAddress {
  const azureName = str(o.spec?.azureName) ?? o.metadata?.name ?? '';
  const armId = str(o.status?.id);
  const a: AzureAddress = { azureType: ASO_TYPES[o.kind ?? ''], azureName };
  if (armId) a.armId = armId;
  const idGroup = /\/resourceGroups\/([^/]+)/i.exec(armId ?? '')?.[1];
  if (o.kind === 'ResourceGroup') {
    a.resourceGroup = azureName;
    return a;
  }
  const owner = at(o.spec, 'owner');
  const ownerArm = str(at(owner, 'armId'));
  const ownerName = str(at(owner, 'name'));
  const parentKind = parentKindOf(o.kind);
  const parent = ownerName ? inNamespace(parentKind, ownerName) : undefined;
  if (parentKind === 'ResourceGroup') {
    a.resourceGroup =
      idGroup ??
      (ownerArm
        ? /\/resourceGroups\/([^/]+)/i.exec(ownerArm)?.[1]
        : undefined) ??
      (parent
        ? str(parent.spec?.azureName) ?? parent.metadata?.name
        : ownerName);
  } else if (depth < 3) {
    const p = parent ? addressOf(parent, inNamespace, depth + 1) : undefined;
    a.resourceGroup = idGroup ?? p?.resourceGroup;
    a.parent = p ? addressKey(p) : undefined;
  }
  return a;
}

/** The objects CAPI deletes with a Cluster: its control plane, infrastructure and MachinePools. */
function capiDeleted(
  cluster: ObservedObject,
  objects: readonly ObservedObject[],
): ObservedObject[] {
  const name = cluster.metadata?.name;
  const pools = objects.filter(
    o =>
      o.kind === 'MachinePool' &&
      (str(o.spec?.clusterName) ?? o.metadata?.labels?.[CLUSTER_NAME_LABEL]) ===
        name,
  );
  // The Cluster's control plane and infrastructure, and each MachinePool's infrastructure (CAPI deletes a pool's
  // infrastructureRef with it, besides its owner reference: docs/capz-aso-facts.md#day2-delete-impact).
  const refs = [
    ...['controlPlaneRef', 'infrastructureRef'].map(k => cluster.spec?.[k]),
    ...pools.map(p => at(p.spec, 'template', 'spec', 'infrastructureRef')),
  ].filter(isObj);
  return objects.filter(
    o =>
      pools.includes(o) ||
      refs.some(r => r.kind === o.kind && r.name === o.metadata?.name),
  );
}

/**
 * A System pool's ASO object that ASO claimed (its finalizer) but whose owner references no longer name its
 * ManagedCluster, as a pause and resume leaves them (docs/capz-aso-facts.md#day2-pause-owner-refs): deleting the
 * Cluster would let the garbage collector delete it before the ManagedCluster, AKS refuses to delete the last System
 * pool, and the object stays for about an hour. A blocker with the patch that puts the reference back.
 */
function lostPoolOwners(
  addressed: ReadonlyArray<{ o: ObservedObject; goes: boolean }>,
  inNamespace: (kind: string, name: string) => ObservedObject | undefined,
): string[] {
  const out: string[] = [];
  for (const { o, goes } of addressed) {
    if (o.kind !== 'ManagedClustersAgentPool' || !goes) continue;
    if (str(o.spec?.mode) !== 'System') continue;
    const finalizers = (o.metadata as { finalizers?: unknown } | undefined)
      ?.finalizers;
    if (!Array.isArray(finalizers) || !finalizers.includes(ASO_FINALIZER))
      continue;
    const mcName = str(at(o.spec, 'owner', 'name'));
    const mc = mcName ? inNamespace('ManagedCluster', mcName) : undefined;
    const uid = mc?.metadata?.uid;
    if (!mc || !uid || mc.metadata?.deletionTimestamp) continue;
    if ((o.metadata?.ownerReferences ?? []).some(r => r.uid === uid)) continue;
    const patch = JSON.stringify([
      {
        op: 'add',
        path: '/metadata/ownerReferences/-',
        value: {
          apiVersion: mc.apiVersion,
          kind: 'ManagedCluster',
          name: mcName,
          uid,
        },
      },
    ]);
    out.push(
      `${ref(
        o,
      )} has lost its owner reference to ManagedCluster ${mcName} (a pause and resume drops it, docs/capz-aso-facts.md#day2-pause-owner-refs): deleted now, it would go before the AKS cluster, AKS refuses to delete the last System pool, and the object would stay about an hour; put the reference back first: kubectl -n ${
        o.metadata?.namespace
      } patch managedclustersagentpools.containerservice.azure.com ${
        o.metadata?.name
      } --type json -p '${patch}'`,
    );
  }
  return out;
}

/** What goes in Kubernetes when `cluster` is deleted (see {@link objectsDeletedWithCluster}), by key. */
function deletedWith(
  cluster: ObservedObject,
  same: readonly ObservedObject[],
  inNamespace: (kind: string, name: string) => ObservedObject | undefined,
): Map<string, ObservedObject> {
  const deleted = new Map<string, ObservedObject>();
  const add = (o: ObservedObject | undefined) => {
    if (o && !deleted.has(keyOf(o))) deleted.set(keyOf(o), o);
  };
  add(cluster);
  capiDeleted(cluster, same).forEach(add);
  for (let grew = true; grew; ) {
    const before = deleted.size;
    for (const o of [...deleted.values()]) {
      // CAPZ's ResourceReconciler deletes what spec.resources lists (agent pools excepted while the Cluster goes).
      if (o.kind === 'AzureASOManagedMachinePool') continue;
      for (const r of Array.isArray(o.spec?.resources) ? o.spec!.resources : [])
        if (isObj(r))
          add(inNamespace(String(r.kind), String(at(r, 'metadata', 'name'))));
    }
    const uids = new Set(
      [...deleted.values()].map(o => o.metadata?.uid).filter(Boolean),
    );
    for (const o of same) {
      const owners = o.metadata?.ownerReferences ?? [];
      if (owners.length && owners.every(r => r.uid && uids.has(r.uid))) add(o);
    }
    grew = deleted.size > before;
  }

  return deleted;
}

/**
 * The objects of `cluster`'s namespace (`objects`) that go in Kubernetes when it is deleted: the Cluster, what CAPI
 * deletes with it, what CAPZ deletes from `spec.resources`, and what the garbage collector takes once every owner is
 * gone (docs/capz-aso-facts.md#day2-delete-impact). Pure.
 * @public
 */
export function objectsDeletedWithCluster(
  cluster: ObservedObject,
  objects: readonly ObservedObject[],
): ObservedObject[] {
  const namespace = cluster.metadata?.namespace ?? '';
  const same = objects.filter(
    o => (o.metadata?.namespace ?? namespace) === namespace,
  );
  const inNamespace = (kind: string, n: string) =>
    same.find(o => o.kind === kind && o.metadata?.name === n);
  return [...deletedWith(cluster, same, inNamespace).values()];
}

/**
 * The Azure impact of deleting `cluster`, from the objects of its namespace (`objects`, the Cluster included) and,
 * optionally, the ASO objects of other namespaces and management clusters (`elsewhere`), which may manage the same
 * Azure resources. Pure.
 * @public
 */
export function computeDeletePreview(
  managementCluster: string,
  cluster: ObservedObject,
  objects: readonly ObservedObject[],
  elsewhere: readonly PlacedObject[] = [],
  opts: {
    /** The delete goes through Git (a pull request), not live: what a GitOps controller applies does not block it. */
    throughGit?: boolean;
  } = {},
): DeletePreview {
  const namespace = cluster.metadata?.namespace ?? '';
  const name = cluster.metadata?.name ?? '';
  const same = objects.filter(
    o => (o.metadata?.namespace ?? namespace) === namespace,
  );
  const inNamespace = (kind: string, n: string) =>
    same.find(o => o.kind === kind && o.metadata?.name === n);

  // 1. Kubernetes: what goes, to a fixpoint.
  const deleted = deletedWith(cluster, same, inNamespace);

  // The ASO objects that matter: those deleted, and the owners (spec.owner) they hang from.
  const candidates = new Map<string, ObservedObject>();
  const addCandidate = (o: ObservedObject | undefined, depth = 0) => {
    if (!o || !isAso(o) || candidates.has(keyOf(o)) || depth > 3) return;
    candidates.set(keyOf(o), o);
    const ownerName = str(at(o.spec, 'owner', 'name'));
    if (!ownerName) return;
    const parentKind = parentKindOf(o.kind);
    addCandidate(inNamespace(parentKind, ownerName), depth + 1);
  };
  [...deleted.values()].forEach(o => addCandidate(o));

  const addressed = [...candidates.values()].map(o => ({
    o,
    a: addressOf(o, inNamespace),
    policy: reconcilePolicyOf(o),
    goes: deleted.has(keyOf(o)),
  }));

  // 2. ASO deletes in Azure what a deleted `manage` object stands for; 3. Azure deletes what is inside.
  const gone = new Map<string, string>();
  for (const x of addressed)
    if (x.goes && x.policy === 'manage')
      gone.set(
        addressKey(x.a),
        `${ref(
          x.o,
        )} is deleted with the cluster and its reconcile-policy is manage`,
      );
  const deletedGroups = addressed.filter(
    x => x.o.kind === 'ResourceGroup' && gone.has(addressKey(x.a)),
  );
  for (let grew = true; grew; ) {
    const before = gone.size;
    for (const x of addressed) {
      const k = addressKey(x.a);
      if (gone.has(k)) continue;
      const group = deletedGroups.find(
        g =>
          x.o.kind !== 'ResourceGroup' &&
          lower(g.a.azureName) === lower(x.a.resourceGroup),
      );
      if (group) {
        gone.set(
          k,
          `it is in resource group ${
            group.a.azureName
          }, which Azure deletes with everything in it (${ref(
            group.o,
          )}, reconcile-policy manage)`,
        );
      } else if (x.a.parent && gone.has(x.a.parent)) {
        const p = addressed.find(y => addressKey(y.a) === x.a.parent);
        gone.set(
          k,
          `it goes with its ${
            p?.o.kind === 'ManagedCluster' ? 'AKS cluster' : 'virtual network'
          } ${p?.a.azureName ?? ''}, which is deleted`,
        );
      }
    }
    grew = gone.size > before;
  }

  // Who else points at the same Azure resource, and would still manage it.
  const othersFor = (x: (typeof addressed)[number]) =>
    elsewhere
      .filter(
        e =>
          e.object.kind === x.o.kind &&
          !e.object.metadata?.deletionTimestamp &&
          reconcilePolicyOf(e.object) !== 'skip' &&
          lower(str(e.object.spec?.azureName) ?? e.object.metadata?.name) ===
            lower(x.a.azureName) &&
          (x.o.kind !== 'ManagedCluster' ||
            !x.a.resourceGroup ||
            lower(
              addressOf(
                e.object,
                (k, n) =>
                  elsewhere.find(
                    y =>
                      y.place === e.place &&
                      y.object.kind === k &&
                      y.object.metadata?.name === n,
                  )?.object,
              ).resourceGroup,
            ) === lower(x.a.resourceGroup)),
      )
      .map(
        e =>
          `${e.object.kind} ${e.place}/${
            e.object.metadata?.name
          } (reconcile-policy ${reconcilePolicyOf(e.object)})`,
      );

  const deletes: AzureImpact[] = [];
  const keeps: AzureImpact[] = [];
  const seen = new Set<string>();
  for (const x of addressed) {
    const k = addressKey(x.a);
    if (seen.has(k)) continue;
    seen.add(k);
    const others = othersFor(x);
    const impact = (reason: string): AzureImpact => ({
      azureType: x.a.azureType,
      azureName: x.a.azureName,
      ...(x.a.armId ? { armId: x.a.armId } : {}),
      object: {
        kind: x.o.kind ?? '',
        namespace: x.o.metadata?.namespace ?? namespace,
        name: x.o.metadata?.name ?? '',
      },
      reason,
    });
    const why = gone.get(k);
    if (why) {
      deletes.push(
        impact(
          others.length
            ? `${why}; it is also managed from ${others.join(
                ', ',
              )}, which will find it gone`
            : why,
        ),
      );
      continue;
    }
    let reason: string;
    if (!x.goes)
      reason = `${ref(
        x.o,
      )} is not deleted with the cluster (none of its owners is), so ASO keeps managing it`;
    else
      reason = `${ref(
        x.o,
      )} is deleted with the cluster, but its reconcile-policy is ${
        x.policy
      }: ASO lets the object go without deleting the Azure resource`;
    if (others.length) reason += `; still managed from ${others.join(', ')}`;
    keeps.push(impact(reason));
  }

  const order = (a: AzureImpact, b: AzureImpact) =>
    a.azureType.length - b.azureType.length ||
    a.azureName.localeCompare(b.azureName);
  const paused = cluster.spec?.paused === true;
  const blockers: string[] = [];
  if (cluster.metadata?.deletionTimestamp)
    blockers.push(`cluster ${name} is already being deleted`);
  if (paused)
    blockers.push(
      `cluster ${name} is paused: CAPI does not reconcile a paused Cluster, not even its deletion (docs/capz-aso-facts.md#capi-paused-not-reconciled); resume it first`,
    );
  blockers.push(...lostPoolOwners(addressed, inNamespace));
  // What Flux or Argo CD applies would be created again: the cluster would come back, or half of it.
  const gitOps = clusterAppliedBy([...deleted.values()], { deleting: true });
  if (gitOps?.appliedBy.reconciles && !opts.throughGit)
    blockers.push(
      gitOpsRefusal(
        gitOps.appliedBy,
        {
          kind: gitOps.object.kind ?? '',
          namespace: gitOps.object.metadata?.namespace ?? namespace,
          name: gitOps.object.metadata?.name ?? '',
        },
        { operation: 'delete' },
      ),
    );
  return {
    cluster: { managementCluster, namespace, name, paused },
    deletes: deletes.sort(order),
    keeps: keeps.sort(order),
    blockers,
  };
}
