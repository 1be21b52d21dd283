/**
 * One line per cluster for the clusters list and the catalog: which API describes it, its health, version,
 * location and pools.
 */
import { clusterAppliedBy, describeAppliedBy } from '../objects/appliedBy';
import type { ClusterApi, ClusterSummary, PoolCounts } from '../api';
import { worstInSubtree } from './rollup';
import { ann, at, kindOf, nameOf, str, versionOf } from '../objects/read';
import type { TreeNode } from './types';
import type { ObservedObject } from '../objects/types';
import { OWNER_ANNOTATION } from '../vocabulary';
import { clusterLifecycleFacts } from '../lifecycle/attention';

/** Options of {@link summarizeCluster} and {@link detectClusterApi}. @public */
export interface SummarizeOptions {
  /**
   * The API version the cluster's ASO-managed objects are written at, when the caller knows better than the
   * objects can tell (e.g. the manifests in git): `v1alpha1`, `v1beta1`, or a full apiVersion. A v1alpha1 hint
   * makes the cluster `aso-v1alpha1`; a v1beta1 hint makes it `aso-v1beta1` whatever the objects say.
   */
  apiVersionHint?: string;
}

const isAlpha = (apiVersion: string | undefined) =>
  versionOf(apiVersion) === 'v1alpha1';

function lookupRef(
  ref: unknown,
  namespace: string | undefined,
  objects: readonly ObservedObject[],
): ObservedObject | undefined {
  const kind = str(at(ref, 'kind'));
  const name = str(at(ref, 'name'));
  if (!kind || !name) return undefined;
  return objects.find(
    o =>
      kindOf(o) === kind &&
      nameOf(o) === name &&
      (!namespace ||
        !o.metadata?.namespace ||
        o.metadata.namespace === namespace),
  );
}

/** The CAPZ objects of a cluster: its infrastructure, its control plane and its machine pools' infrastructure. */
function capzObjectsOf(
  cluster: ObservedObject,
  objects: readonly ObservedObject[],
): ObservedObject[] {
  const ns = cluster.metadata?.namespace;
  const refs = [
    at(cluster.spec, 'infrastructureRef'),
    at(cluster.spec, 'controlPlaneRef'),
    ...objects
      .filter(
        o =>
          kindOf(o) === 'MachinePool' &&
          str(o.spec?.clusterName) === nameOf(cluster),
      )
      .map(o => at(o.spec, 'template', 'spec', 'infrastructureRef')),
  ];
  return refs
    .map(r => lookupRef(r, ns, objects))
    .filter((o): o is ObservedObject => !!o);
}

/**
 * Which API describes a cluster:
 * - `azure-managed` when its control plane (or, without one, its infrastructure) is a legacy AzureManaged* kind;
 * - otherwise `aso-v1alpha1` when any of these says v1alpha1: the hint; the Cluster's references (a v1beta1
 *   Cluster's `apiVersion` refs; v1beta2 refs carry only the group); the CAPZ objects' own `apiVersion` (the
 *   backend falls back to v1alpha1 where v1beta1 is not served); or a `metadata.managedFields` entry of those
 *   objects outside the status subresource, i.e. a field manager (kubectl, GitOps, the scaffolder) last wrote
 *   them at v1alpha1. The API server converts between the two versions without a webhook, so an object read at
 *   v1beta1 does not show how it was written; managedFields does.
 * - `aso-v1beta1` otherwise.
 * @public
 */
export function detectClusterApi(
  cluster: ObservedObject,
  objects: readonly ObservedObject[],
  opts: SummarizeOptions = {},
): ClusterApi {
  const cpKind = str(at(cluster.spec, 'controlPlaneRef', 'kind'));
  const infraKind = str(at(cluster.spec, 'infrastructureRef', 'kind'));
  if (
    cpKind === 'AzureManagedControlPlane' ||
    (!cpKind && infraKind === 'AzureManagedCluster')
  )
    return 'azure-managed';
  if (opts.apiVersionHint)
    return isAlpha(opts.apiVersionHint) ? 'aso-v1alpha1' : 'aso-v1beta1';
  const refVersions = [
    str(at(cluster.spec, 'controlPlaneRef', 'apiVersion')),
    str(at(cluster.spec, 'infrastructureRef', 'apiVersion')),
  ];
  if (refVersions.some(isAlpha)) return 'aso-v1alpha1';
  const capz = capzObjectsOf(cluster, objects).filter(o =>
    kindOf(o).startsWith('AzureASOManaged'),
  );
  if (capz.some(o => isAlpha(o.apiVersion))) return 'aso-v1alpha1';
  const writtenAtAlpha = capz.some(o =>
    (o.metadata?.managedFields ?? []).some(
      m => m.subresource !== 'status' && isAlpha(m.apiVersion),
    ),
  );
  return writtenAtAlpha ? 'aso-v1alpha1' : 'aso-v1beta1';
}

function withV(v: string | number | boolean | undefined): string | undefined {
  if (typeof v !== 'string' || !v) return undefined;
  return v.startsWith('v') ? v : `v${v}`;
}

function findNode(
  root: TreeNode,
  pred: (n: TreeNode) => boolean,
): TreeNode | undefined {
  if (pred(root)) return root;
  for (const c of root.children) {
    const found = findNode(c, pred);
    if (found) return found;
  }
  return undefined;
}

/**
 * The summary of one cluster, from its tree ({@link buildClusterTree}, grouped or not) and its objects:
 * - `api` and `migrationCandidate` (the legacy API) from {@link detectClusterApi};
 * - `health`, `reason`, `message` from the tree's root (the rollup);
 * - `kubernetesVersion` (with a leading v): the control plane's `status.version`, else the ManagedCluster's
 *   current version, else the control plane's `spec.version`;
 * - `location`: the ManagedCluster's, else the legacy control plane's, else the resource group's;
 * - `pools`: MachinePools under `Workers` by the worst health of each one's subtree ({@link PoolCounts}); `replicas`
 *   sums their current replicas (`status.replicas`, else `spec.replicas`);
 * - `owner` from the `capz.io/owner` annotation;
 * - `lifecycle`: the date-free lifecycle facts ({@link clusterLifecycleFacts}).
 * @public
 */
export function summarizeCluster(
  managementCluster: string,
  tree: TreeNode,
  cluster: ObservedObject,
  objects: readonly ObservedObject[],
  opts: SummarizeOptions = {},
): ClusterSummary {
  const api = detectClusterApi(cluster, objects, opts);
  const ns = cluster.metadata?.namespace;
  const controlPlane = lookupRef(
    at(cluster.spec, 'controlPlaneRef'),
    ns,
    objects,
  );
  const managedCluster = findNode(
    tree,
    n => n.kind === 'ManagedCluster' && !n.group,
  );
  const resourceGroup = findNode(
    tree,
    n => n.kind === 'ResourceGroup' && !n.group,
  );
  const kubernetesVersion =
    withV(str(controlPlane?.status?.version)) ??
    withV(managedCluster?.facts.kubernetesVersion) ??
    withV(str(controlPlane?.spec?.version));
  const location = [
    managedCluster?.facts.location,
    str(controlPlane?.spec?.location),
    resourceGroup?.facts.location,
  ].find((v): v is string => typeof v === 'string' && v !== '');

  const workers = tree.children.find(c => c.kind === 'Workers');
  const pools: PoolCounts = { total: 0, ready: 0, replicas: 0 };
  let updating = 0;
  let paused = 0;
  for (const n of workers?.children ?? []) {
    const count = n.group?.count ?? 1;
    pools.total += count;
    const worst = worstInSubtree(n).health;
    if (worst === 'healthy') pools.ready += count;
    else if (worst === 'progressing') updating += count;
    else if (worst === 'paused') paused += count;
    const replicas = n.facts.currentReplicas ?? n.facts.replicas;
    if (typeof replicas === 'number') pools.replicas += replicas;
  }
  if (updating) pools.updating = updating;
  if (paused) pools.paused = paused;
  const lifecycle = clusterLifecycleFacts({
    controlPlane,
    managedCluster: objects.find(
      o =>
        kindOf(o) === 'ManagedCluster' &&
        String(o.apiVersion ?? '').startsWith('containerservice.azure.com/'),
    ),
    controlPlaneVersion: kubernetesVersion,
    pools: (workers?.children ?? [])
      .filter(n => n.kind === 'MachinePool')
      .map(n => ({
        name: n.name,
        version:
          typeof n.facts.kubernetesVersion === 'string'
            ? n.facts.kubernetesVersion
            : undefined,
      })),
  });

  const summary: ClusterSummary = {
    managementCluster,
    namespace: cluster.metadata?.namespace ?? '',
    name: nameOf(cluster),
    uid: cluster.metadata?.uid ?? '',
    api,
    health: tree.health,
    pools,
    migrationCandidate: api === 'azure-managed',
  };
  // Its own objects only (the per-cluster group), the Cluster first: linear in them, rebuilt with the tree.
  const gitOps = clusterAppliedBy([cluster, ...objects]);
  if (gitOps) summary.appliedBy = describeAppliedBy(gitOps.appliedBy);
  const owner = ann(cluster, OWNER_ANNOTATION);
  if (owner) summary.owner = owner;
  if (tree.reason) summary.reason = tree.reason;
  if (tree.message) summary.message = tree.message;
  if (kubernetesVersion) summary.kubernetesVersion = kubernetesVersion;
  if (location) summary.location = location;
  if (lifecycle) summary.lifecycle = lifecycle;
  return summary;
}

/**
 * A cluster's pools in a few words, by state: "2/2 pools ready", "1/1 pools paused", "0/2 pools ready", "1/3 pools
 * ready, 1 updating, 1 not ready". A pool that is paused or updating is not counted as broken: during a pause or an upgrade the header read
 * "0/1 pools ready". `noun` is left out in a narrow column ("2/2 ready"). @public
 */
export function describePools(p: PoolCounts, noun = 'pools'): string {
  const updating = p.updating ?? 0;
  const paused = p.paused ?? 0;
  const states: Array<[string, number]> = [
    ['ready', p.ready],
    ['updating', updating],
    ['paused', paused],
    ['not ready', p.total - p.ready - updating - paused],
  ];
  const present = states.filter(([, n]) => n > 0);
  const w = noun ? `${noun} ` : '';
  const [only] = present;
  if (present.length === 1 && only[0] !== 'not ready')
    return `${only[1]}/${p.total} ${w}${only[0]}`;
  if (present.length <= 1) return `${p.ready}/${p.total} ${w}ready`;
  return `${p.ready}/${p.total} ${w}ready, ${present
    .filter(([s]) => s !== 'ready')
    .map(([s, n]) => `${n} ${s}`)
    .join(', ')}`;
}
