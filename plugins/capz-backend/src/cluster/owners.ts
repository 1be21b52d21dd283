/**
 * Who points at an AKS cluster, across every configured management cluster's watch cache: the ASO
 * ManagedClusters that would PUT it (or delete it with themselves). Read by the adoption preflight (is it managed
 * anywhere already?) and by the clusters list (is one AKS cluster managed from more than one place?). Pure over the
 * cache; the job engine's own check before the first write reads the API servers live instead.
 */
import {
  RECONCILE_POLICY_ANNOTATION,
  type ManagedFromPlace,
  type ObservedObject,
} from '@capz-backstage/plugin-capz-common';
import { asoTargets } from '../azure/mapping';
import type { WatchCache } from './WatchCache';

export const RECONCILE_POLICY = RECONCILE_POLICY_ANNOTATION;

/** One ASO ManagedCluster and the AKS cluster it points at (as far as the cache can tell). */
export interface AksOwner extends ManagedFromPlace {
  azureName: string;
  resourceGroup?: string;
  subscriptionId?: string;
  /** The object's reconcile-policy annotation (ASO's default is `manage`). */
  reconcilePolicy?: string;
}

const lower = (s: string | undefined) => s?.toLowerCase();

/** Every ASO ManagedCluster of these management clusters, with where it points in Azure (see asoTargets). */
export function aksOwners(
  cache: Pick<WatchCache, 'list'>,
  managementClusters: readonly string[],
): AksOwner[] {
  return managementClusters.flatMap(managementCluster => {
    const managedClusters = cache.list(
      managementCluster,
      'ManagedCluster',
    ) as unknown as ObservedObject[];
    const groups = cache.list(
      managementCluster,
      'ResourceGroup',
    ) as unknown as ObservedObject[];
    const policies = new Map(
      managedClusters.map(o => [
        `${o.metadata?.namespace}/${o.metadata?.name}`,
        o.metadata?.annotations?.[RECONCILE_POLICY],
      ]),
    );
    return asoTargets(managedClusters, groups).map(t => {
      const policy = policies.get(`${t.namespace}/${t.name}`);
      return {
        managementCluster,
        ...t,
        ...(policy ? { reconcilePolicy: policy } : {}),
      };
    });
  });
}

/**
 * The owners that point at this AKS cluster. Names compare case-insensitively (ARM does). `strict: false` (the
 * adoption preflight): an owner whose group or subscription the cache cannot tell is counted, since a missed owner
 * would let two manage one cluster. `strict: true` (the clusters page's flag): the group must be known and equal, the
 * subscription equal when both are known, so that a flag is never raised on a guess.
 */
export function ownersOf(
  aks: { name: string; resourceGroup?: string; subscriptionId?: string },
  owners: readonly AksOwner[],
  o: { strict: boolean },
): AksOwner[] {
  const name = lower(aks.name);
  const rg = lower(aks.resourceGroup);
  const sub = lower(aks.subscriptionId);
  return owners.filter(x => {
    if (lower(x.azureName) !== name) return false;
    if (o.strict && (!rg || !x.resourceGroup)) return false;
    if (rg && x.resourceGroup && lower(x.resourceGroup) !== rg) return false;
    if (sub && x.subscriptionId && lower(x.subscriptionId) !== sub)
      return false;
    return true;
  });
}

/** `<management cluster>/<namespace>/<name>`, as the preflight and the clusters page name a place. */
export const describePlace = (p: ManagedFromPlace) =>
  `${p.managementCluster}/${p.namespace}/${p.name}`;

const place = (o: AksOwner): ManagedFromPlace => ({
  managementCluster: o.managementCluster,
  namespace: o.namespace,
  name: o.name,
  ...(o.cluster ? { cluster: o.cluster } : {}),
});

/**
 * For each ManagedCluster that manages (reconcile-policy other than `skip`), the other places whose ManagedClusters
 * manage the same AKS cluster. Keyed by `<management cluster>/<namespace>/<name>` of the ManagedCluster; only those
 * with at least one other place are in the map. A ManagedCluster on `skip` (e.g. the old one of a migration, disarmed)
 * neither writes to nor deletes anything in Azure and is not counted.
 */
export function managedFromIndex(
  owners: readonly AksOwner[],
): Map<string, ManagedFromPlace[]> {
  const managing = owners.filter(o => lower(o.reconcilePolicy) !== 'skip');
  const byName = new Map<string, AksOwner[]>();
  for (const o of managing) {
    const k = `${lower(o.resourceGroup) ?? ''}/${lower(o.azureName)}`;
    byName.set(k, [...(byName.get(k) ?? []), o]);
  }
  const out = new Map<string, ManagedFromPlace[]>();
  for (const group of byName.values()) {
    if (group.length < 2) continue;
    for (const o of group) {
      const others = ownersOf(
        {
          name: o.azureName,
          resourceGroup: o.resourceGroup,
          subscriptionId: o.subscriptionId,
        },
        group,
        { strict: true },
      ).filter(x => x !== o);
      if (others.length)
        out.set(
          describePlace(o),
          others
            .map(place)
            .sort((a, b) => describePlace(a).localeCompare(describePlace(b))),
        );
    }
  }
  return out;
}
