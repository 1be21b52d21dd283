/**
 * What needs attention about a cluster's lifecycle, in words with the fix: its version's support (dated, so computed
 * for a given day), and the date-free facts the watch cache gives (the version conflicts with AKS, pool skews, the
 * legacy API or v1alpha1 still in use). The facts are part of the cluster's summary, rebuilt with its tree; the dated
 * part is computed by whoever shows it, for its own today (docs/lifecycle-facts.md#attention).
 */
import { isObj } from '../objects/read';
import type { ObservedObject } from '../objects/types';
import type { AksMinorLifecycle } from './calendar';
import {
  aksVersionSupport,
  poolSkews,
  versionConflicts,
  type AksVersionSupport,
  type PoolSkew,
  type VersionConflict,
} from './support';

/**
 * A cluster's date-free lifecycle facts, from its objects in the watch cache.
 * @public
 */
export interface ClusterLifecycleFacts {
  /** Long-term support is on: the ManagedCluster's Premium tier with the `AKSLongTermSupport` plan. */
  lts?: boolean;
  /** How a set spec.version fights AKS ({@link versionConflicts}). */
  conflicts?: VersionConflict[];
  /** Pools outside AKS's version skew ({@link poolSkews}). */
  poolSkews?: PoolSkew[];
}

/** `spec` of the live ASO ManagedCluster, else of the one embedded in the control plane's spec.resources. */
function managedClusterSpec(
  controlPlane: ObservedObject | undefined,
  managedCluster: ObservedObject | undefined,
): Record<string, unknown> | undefined {
  if (isObj(managedCluster?.spec)) return managedCluster!.spec;
  const resources = (controlPlane?.spec as { resources?: unknown } | undefined)
    ?.resources;
  const embedded = Array.isArray(resources)
    ? resources.find(
        r =>
          isObj(r) &&
          r.kind === 'ManagedCluster' &&
          String(r.apiVersion ?? '').startsWith('containerservice.azure.com/'),
      )
    : undefined;
  return isObj(embedded?.spec) ? embedded.spec : undefined;
}

/**
 * The lifecycle facts of a cluster from its control plane, its ASO ManagedCluster (when the cache has it) and its
 * pools' versions; undefined when there is nothing to say.
 * @public
 */
export function clusterLifecycleFacts(o: {
  controlPlane?: ObservedObject;
  managedCluster?: ObservedObject;
  controlPlaneVersion?: string;
  pools: ReadonlyArray<{ name: string; version?: string }>;
}): ClusterLifecycleFacts | undefined {
  const facts: ClusterLifecycleFacts = {};
  const mc = managedClusterSpec(o.controlPlane, o.managedCluster) as
    | { sku?: { tier?: string }; supportPlan?: string }
    | undefined;
  if (
    String(mc?.sku?.tier ?? '').toLowerCase() === 'premium' &&
    String(mc?.supportPlan ?? '').toLowerCase() === 'akslongtermsupport'
  )
    facts.lts = true;
  if (o.controlPlane?.kind === 'AzureASOManagedControlPlane') {
    const conflicts = versionConflicts(o.controlPlane);
    if (conflicts.length) facts.conflicts = conflicts;
  }
  if (o.controlPlaneVersion) {
    const skews = poolSkews(o.controlPlaneVersion, o.pools);
    if (skews.length) facts.poolSkews = skews;
  }
  return Object.keys(facts).length ? facts : undefined;
}

/**
 * One reason a cluster needs attention: `now` (out of support or platform support only, CAPZ fighting AKS, a pool AKS
 * refuses, the legacy API) or `soon` (support ending within the configured days, v1alpha1 still written).
 * @public
 */
export interface AttentionItem {
  id:
    | 'version-support'
    | VersionConflict['id']
    | 'pool-skew'
    | 'legacy-api'
    | 'v1alpha1';
  severity: 'now' | 'soon';
  message: string;
  fix?: string;
  /** The pool, for `pool-skew`. */
  pool?: string;
}

/** What {@link clusterAttention} reads of a cluster's summary. @public */
export interface AttentionInput {
  /** The summary's `api` (`azure-managed`, `aso-v1alpha1`, `aso-v1beta1`). */
  api: string;
  kubernetesVersion?: string;
  lifecycle?: ClusterLifecycleFacts;
}

/** Options of {@link clusterAttention}. @public */
export interface AttentionOptions {
  /** The day to judge support on (`YYYY-MM-DD` or a Date). */
  today: string | Date;
  /** An ending support asks for attention this many days ahead (default 60). */
  soonDays?: number;
  /** The release calendar, when configured in place of the shipped one. */
  calendar?: readonly AksMinorLifecycle[];
}

/**
 * The reasons a cluster needs attention on `today`, `now` first; empty when none. Also gives the version's support,
 * for a page that shows it either way.
 * @public
 */
export function clusterAttention(
  c: AttentionInput,
  o: AttentionOptions,
): { items: AttentionItem[]; support?: AksVersionSupport } {
  const items: AttentionItem[] = [];
  const support = c.kubernetesVersion
    ? aksVersionSupport(c.kubernetesVersion, {
        today: o.today,
        lts: c.lifecycle?.lts,
        soonDays: o.soonDays,
        calendar: o.calendar,
      })
    : undefined;
  if (support && support.attention !== 'none')
    items.push({
      id: 'version-support',
      severity: support.attention,
      message: support.message,
      ...(support.fix ? { fix: support.fix } : {}),
    });
  for (const conflict of c.lifecycle?.conflicts ?? [])
    items.push({
      id: conflict.id,
      severity: 'now',
      message: conflict.message,
      fix: conflict.fix,
    });
  for (const skew of c.lifecycle?.poolSkews ?? [])
    items.push({
      id: 'pool-skew',
      severity: 'now',
      pool: skew.pool,
      message: skew.message,
      fix: skew.fix,
    });
  if (c.api === 'azure-managed')
    items.push({
      id: 'legacy-api',
      severity: 'now',
      message:
        'This cluster uses the legacy AzureManagedControlPlane API, deprecated since CAPZ v1.21.',
      fix: 'Migrate it to AzureASOManagedControlPlane: "Migrate to ASO API" on its page runs the migration job, which keeps the AKS cluster.',
    });
  if (c.api === 'aso-v1alpha1')
    items.push({
      id: 'v1alpha1',
      severity: 'soon',
      message:
        'Its AzureASOManaged* objects are written at v1alpha1, which CAPZ serves deprecated beside v1beta1.',
      fix: 'Move them to v1beta1: "Upgrade to v1beta1" on its page runs the apiVersion upgrade job, which does not touch the AKS cluster.',
    });
  const rank = (i: AttentionItem) => (i.severity === 'now' ? 0 : 1);
  items.sort((a, b) => rank(a) - rank(b));
  return support ? { items, support } : { items };
}
