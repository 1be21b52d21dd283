/**
 * Builds one cluster's tree from the objects the backend watches in its namespace, like clusterctl's discovery
 * (docs/capz-aso-facts.md#clusterctl-tree) but with the embedded ASO objects that clusterctl never shows:
 *
 *   Cluster
 *   ├─ infrastructure (spec.infrastructureRef): AzureASOManagedCluster → ResourceGroup | AzureManagedCluster
 *   ├─ control plane (spec.controlPlaneRef): AzureASOManagedControlPlane → ManagedCluster
 *   │                                        | AzureManagedControlPlane → ResourceGroup, ManagedCluster (owned)
 *   └─ Workers (virtual, when there are MachinePools)
 *      └─ MachinePool (spec.clusterName) → infrastructure (spec.template.spec.infrastructureRef)
 *         → ManagedClustersAgentPool (embedded, or owned for the legacy kinds)
 *
 * Referenced objects that are missing become `unknown` nodes with reason `NotFound` (`NotWatched` for kinds the
 * backend does not watch). Never throws.
 */
import { kinds } from '../kinds';
import { CLUSTER_NAME_LABEL } from '../vocabulary';
import { factsFor } from './facts';
import {
  asoObjectHealth,
  asoOwnerFound,
  clusterHealth,
  familyOf,
  isClusterPaused,
  objectHealth,
  refOf,
  resolveResources,
  resolvedResourceHealth,
  WATCHED_ASO_KINDS,
  watchedAsoGroup,
} from './health';
import {
  at,
  conditionsOf,
  groupOf,
  kindOf,
  label,
  nameOf,
  str,
} from '../objects/read';
import { rollupHealth } from './rollup';
import type { HealthOptions, HealthResult, TreeNode } from './types';
import type { ObservedObject } from '../objects/types';

/** Options of {@link buildClusterTree}. @public */
export type BuildTreeOptions = HealthOptions;

interface Ref {
  group?: string;
  kind: string;
  name: string;
}

/** A CAPI reference: v1beta2 `{apiGroup, kind, name}` or v1beta1 `{apiVersion, kind, name}`. */
function refFrom(v: unknown): Ref | undefined {
  const kind = str(at(v, 'kind'));
  const name = str(at(v, 'name'));
  if (!kind || !name) return undefined;
  const apiGroup = str(at(v, 'apiGroup'));
  const apiVersion = str(at(v, 'apiVersion'));
  return {
    kind,
    name,
    group: apiGroup ?? (apiVersion ? groupOf(apiVersion) : undefined),
  };
}

const KNOWN_KINDS = new Set<string>(Object.values(kinds).map(k => k.kind));
const ASO_ORDER = Object.keys(WATCHED_ASO_KINDS);

function withVerdict(
  base: Omit<TreeNode, keyof HealthResult | 'health'>,
  v: HealthResult,
): TreeNode {
  const n: TreeNode = { ...base, health: v.health };
  if (v.reason) n.reason = v.reason;
  if (v.message) n.message = v.message;
  if (v.severity) n.severity = v.severity;
  if (v.since) n.since = v.since;
  if (v.source) n.source = v.source;
  return n;
}

function objectNode(
  o: ObservedObject,
  v: HealthResult,
  children: TreeNode[] = [],
): TreeNode {
  const base: Omit<TreeNode, keyof HealthResult | 'health'> = {
    id: refOf(o).id,
    kind: kindOf(o),
    name: nameOf(o),
    conditions: conditionsOf(o),
    facts: factsFor(o),
    children,
  };
  if (o.apiVersion) base.apiVersion = o.apiVersion;
  if (o.metadata?.namespace) base.namespace = o.metadata.namespace;
  if (o.metadata?.uid) base.uid = o.metadata.uid;
  return withVerdict(base, v);
}

function missingNode(
  parent: TreeNode,
  kind: string,
  name: string,
  v: HealthResult,
  namespace?: string,
): TreeNode {
  const base: Omit<TreeNode, keyof HealthResult | 'health'> = {
    id: `missing:${parent.id}:${kind}:${name}`,
    kind,
    name,
    conditions: [],
    facts: {},
    children: [],
  };
  if (namespace) base.namespace = namespace;
  return withVerdict(base, v);
}

/**
 * The tree of one CAPI Cluster. `objects` is every watched object of the cluster's namespace (objects of other
 * namespaces and of other clusters are ignored). The root's health is the rollup of the whole tree
 * ({@link rollupHealth}); every other node keeps its own health, except the virtual `Workers` node, which is the
 * rollup of its MachinePools.
 * @public
 */
export function buildClusterTree(
  cluster: ObservedObject,
  objects: readonly ObservedObject[],
  opts: BuildTreeOptions = {},
): TreeNode {
  const namespace = cluster.metadata?.namespace;
  const clusterName = nameOf(cluster);
  const pool = objects.filter(
    o =>
      o !== cluster &&
      (!namespace ||
        !o.metadata?.namespace ||
        o.metadata.namespace === namespace),
  );
  const ctx = { ...opts, clusterPaused: isClusterPaused(cluster) };

  const lookup = (ref: Ref): ObservedObject | undefined =>
    pool.find(
      o =>
        kindOf(o) === ref.kind &&
        nameOf(o) === ref.name &&
        (!ref.group || !o.apiVersion || groupOf(o.apiVersion) === ref.group),
    );

  const asoNode = (o: ObservedObject): TreeNode =>
    objectNode(
      o,
      asoObjectHealth(o, { ...opts, ownerFound: asoOwnerFound(o, pool) }),
    );

  /** The ASO objects under a CAPZ object: embedded (ASO-managed API) or controller-owned (legacy API). */
  const asoChildren = (o: ObservedObject, node: TreeNode): TreeNode[] => {
    if (familyOf(o) === 'asoManaged') {
      return resolveResources(o, pool).map(r =>
        r.object
          ? asoNode(r.object)
          : missingNode(
              node,
              r.ref.kind,
              r.ref.name,
              resolvedResourceHealth(r, pool, opts),
              namespace,
            ),
      );
    }
    if (familyOf(o) === 'legacyManaged') {
      const uid = o.metadata?.uid;
      return pool
        .filter(x => watchedAsoGroup(kindOf(x)) !== undefined)
        .filter(x =>
          (x.metadata?.ownerReferences ?? []).some(
            r =>
              r.controller &&
              r.kind === kindOf(o) &&
              (uid && r.uid ? r.uid === uid : r.name === nameOf(o)),
          ),
        )
        .sort(
          (a, b) =>
            ASO_ORDER.indexOf(kindOf(a)) - ASO_ORDER.indexOf(kindOf(b)) ||
            nameOf(a).localeCompare(nameOf(b)),
        )
        .map(asoNode);
    }
    return [];
  };

  /** A node for what a CAPI reference points at, with its ASO objects below it. */
  const refNode = (ref: Ref, parent: TreeNode): TreeNode => {
    const o = lookup(ref);
    if (!o) {
      const watched = KNOWN_KINDS.has(ref.kind);
      return missingNode(
        parent,
        ref.kind,
        ref.name,
        {
          health: 'unknown',
          reason: watched ? 'NotFound' : 'NotWatched',
          message: watched
            ? `${ref.kind} ${namespace ? `${namespace}/` : ''}${
                ref.name
              }, referenced by ${parent.kind} ${parent.name}, was not found`
            : `${ref.kind} ${ref.name}, referenced by ${parent.kind} ${parent.name}, is not a kind the CAPZ plugin watches`,
        },
        namespace,
      );
    }
    const node = objectNode(o, objectHealth(o, pool, ctx));
    node.children = asoChildren(o, node);
    return node;
  };

  const own = clusterHealth(cluster, opts);
  const root = objectNode(cluster, own);

  const infraRef = refFrom(cluster.spec?.infrastructureRef);
  if (infraRef) root.children.push(refNode(infraRef, root));
  const cpRef = refFrom(cluster.spec?.controlPlaneRef);
  if (cpRef) root.children.push(refNode(cpRef, root));

  const machinePools = pool
    .filter(o => kindOf(o) === 'MachinePool')
    .filter(
      o =>
        (str(o.spec?.clusterName) ?? label(o, CLUSTER_NAME_LABEL)) ===
        clusterName,
    )
    .sort((a, b) => nameOf(a).localeCompare(nameOf(b)));
  if (machinePools.length) {
    const workers: TreeNode = {
      id: `workers:${root.id}`,
      kind: 'Workers',
      name: 'Workers',
      health: 'healthy',
      conditions: [],
      facts: { machinePools: machinePools.length },
      children: machinePools.map(mp => {
        const node = objectNode(mp, objectHealth(mp, pool, ctx));
        const infra = refFrom(
          at(mp.spec, 'template', 'spec', 'infrastructureRef'),
        );
        if (infra) node.children.push(refNode(infra, node));
        return node;
      }),
    };
    if (namespace) workers.namespace = namespace;
    // Virtual: no verdict of its own, except that all its pools going away is a deletion, not "progressing".
    const ownWorkers: HealthResult = workers.children.every(
      c => c.health === 'deleting',
    )
      ? { health: 'deleting', reason: 'Deleting' }
      : { health: 'healthy' };
    root.children.push(withVerdict(workers, rollupHealth(ownWorkers, workers)));
  }

  const rolled = rollupHealth(own, root);
  const {
    reason: _r,
    message: _m,
    severity: _s,
    since: _t,
    source: _src,
    ...rest
  } = root;
  return withVerdict(rest, rolled);
}
