/**
 * The node pools of a cluster as its ungrouped tree shows them (the day-2 dialogs' pickers and their progress), and
 * the cluster as the day-2 rules see it, read from that tree. Pure.
 */
import { kinds } from '../kinds';
import type { Health, TreeNode } from '../tree/types';
import type { ObservedObject } from '../objects/types';
import type { Day2Cluster, Day2Pool } from './snapshot';

/** One node pool as the action dialogs and their progress need it, read from an ungrouped cluster tree. @public */
export interface TreePool {
  /** The agent pool's name in Azure: what day-2 actions name a pool by. */
  name: string;
  /** The MachinePool object's name. */
  machinePool: string;
  mode?: string;
  vmSize?: string;
  /** The nodes' operating system (`Linux`, `Windows`) and its SKU (`Ubuntu`, `AzureLinux`...), as the agent pool says. */
  osType?: string;
  osSku?: string;
  /** MachinePool `spec.replicas` (for an autoscaled pool: the count CAPZ copied back from AKS). */
  replicas?: number;
  readyReplicas?: number;
  /** MachinePool `spec.template.spec.version`: the version asked for. */
  version?: string;
  /** The agent pool's version as AKS reports it (`currentOrchestratorVersion`), when known. */
  currentVersion?: string;
  /** Who owns the count when not CAPI: the `cluster.x-k8s.io/replicas-managed-by` annotation's value. */
  replicasManagedBy?: string;
  /** Someone other than CAPI owns the count: the annotation, or AKS's autoscaler asked for in the spec. */
  autoscaling: boolean;
  /** AKS's autoscaler is asked for (agent pool `enableAutoScaling`, legacy `spec.scaling`). */
  autoscalerEnabled: boolean;
  minCount?: number;
  maxCount?: number;
  health: Health;
  reason?: string;
}

const num = (v: unknown) => (typeof v === 'number' ? v : undefined);
const str = (v: unknown) => (typeof v === 'string' && v ? v : undefined);

/** Depth-first search of a subtree. */
function find(
  node: TreeNode,
  test: (n: TreeNode) => boolean,
): TreeNode | undefined {
  if (test(node)) return node;
  for (const c of node.children) {
    const hit = find(c, test);
    if (hit) return hit;
  }
  return undefined;
}

const AGENT_POOL_KINDS = new Set([
  kinds.ManagedClustersAgentPool.kind,
  kinds.AzureManagedMachinePool.kind,
]);

/**
 * The pools of a cluster from its tree, in tree order. The tree must be ungrouped (`group: 0`): a group node
 * merges MachinePools and hides their facts. The pool's Azure name comes from its agent pool object (ASO's
 * ManagedClustersAgentPool, or the legacy AzureManagedMachinePool), else from the MachinePool's
 * `<cluster>-<pool>` name. @public
 */
export function treePools(tree: TreeNode): TreePool[] {
  const workers = tree.children.find(c => c.kind === 'Workers');
  if (!workers) return [];
  return workers.children
    .filter(mp => mp.kind === kinds.MachinePool.kind && !mp.group)
    .map(mp => {
      const agent = find(mp, n => AGENT_POOL_KINDS.has(n.kind));
      const f = mp.facts;
      const a = agent?.facts ?? {};
      const prefix = `${tree.name}-`;
      const fallback = mp.name.startsWith(prefix)
        ? mp.name.slice(prefix.length)
        : mp.name;
      const replicasManagedBy = str(f.replicasManagedBy);
      const minCount = num(a.autoscalingMin);
      const maxCount = num(a.autoscalingMax);
      const autoscalerEnabled =
        a.autoscaling === true ||
        (agent?.kind === kinds.AzureManagedMachinePool.kind &&
          minCount !== undefined);
      return {
        name: str(a.azureName) ?? fallback,
        machinePool: mp.name,
        mode: str(a.mode),
        vmSize: str(a.vmSize),
        osType: str(a.osType),
        osSku: str(a.osSku),
        replicas: num(f.replicas),
        readyReplicas: num(f.readyReplicas),
        version: str(f.kubernetesVersion),
        currentVersion:
          agent?.kind === kinds.ManagedClustersAgentPool.kind
            ? str(a.kubernetesVersion)
            : undefined,
        replicasManagedBy,
        autoscaling: !!replicasManagedBy || autoscalerEnabled,
        autoscalerEnabled,
        minCount,
        maxCount,
        health: mp.health,
        reason: mp.reason,
      };
    });
}

/** Whether reconciliation of the cluster is asked to pause: the root Cluster node's `paused` fact (`spec.paused`). @public */
export const isTreePaused = (tree: TreeNode) => tree.facts.paused === true;

/** Versions compare without their optional leading "v" (AKS reports 1.33.2, CAPI asks for v1.33.2). @public */
export const sameKubernetesVersion = (a?: string, b?: string) =>
  !!a && !!b && a.replace(/^v/, '') === b.replace(/^v/, '');

/** An object as the day-2 rules address it: kind, name and namespace (the tree carries no more of it). */
const objectRef = (
  kind: string,
  name: string,
  namespace: string,
): ObservedObject => ({ kind, metadata: { name, namespace } });

function day2PoolFromTree(
  p: TreePool,
  namespace: string,
  legacy: boolean,
): Day2Pool {
  const autoscaling = p.autoscalerEnabled
    ? { minCount: p.minCount, maxCount: p.maxCount }
    : undefined;
  const mode = p.mode === 'System' || p.mode === 'User' ? p.mode : undefined;
  return {
    name: p.name,
    machinePool: objectRef(kinds.MachinePool.kind, p.machinePool, namespace),
    infra: legacy
      ? objectRef(kinds.AzureManagedMachinePool.kind, p.machinePool, namespace)
      : {
          ...objectRef(
            kinds.AzureASOManagedMachinePool.kind,
            p.machinePool,
            namespace,
          ),
          // The embedded agent pool as the rules read it; the planner maps over spec.resources.
          spec: {
            resources: [
              {
                kind: kinds.ManagedClustersAgentPool.kind,
                spec: {
                  azureName: p.name,
                  mode,
                  ...(autoscaling
                    ? { enableAutoScaling: true, ...autoscaling }
                    : {}),
                },
              },
            ],
          },
        },
    agentPoolIndex: legacy ? undefined : 0,
    mode,
    vmSize: p.vmSize,
    replicas: p.replicas,
    version: p.version,
    replicasManagedBy: p.replicasManagedBy,
    autoscaling,
    deleting: false,
  };
}

/**
 * The cluster as {@link planDay2Action} sees it, read from its ungrouped tree (`group: 0`) and the pools
 * {@link treePools} reads from it, for the rules a dialog checks before it asks the backend. The tree carries what
 * the rules read (pools with mode, count, autoscaling, versions, the count's owner; the control plane's version);
 * what it does not carry (pinned values, the embedded ManagedCluster, Entra ID) is left out, and the backend's
 * preview, planned from the live objects with {@link readDay2Cluster}, still decides.
 * @public
 */
export function day2ClusterFromTree(
  tree: TreeNode,
  namespace: string,
  pools: readonly TreePool[] = treePools(tree),
): Day2Cluster {
  const cp = tree.children.find(
    c =>
      c.kind === kinds.AzureASOManagedControlPlane.kind ||
      c.kind === kinds.AzureManagedControlPlane.kind,
  );
  const legacy = cp?.kind === kinds.AzureManagedControlPlane.kind;
  const version =
    str(cp?.facts.desiredKubernetesVersion) ?? str(cp?.facts.kubernetesVersion);
  return {
    namespace,
    name: tree.name,
    api: legacy ? 'legacy' : 'aso',
    cluster: objectRef(kinds.Cluster.kind, tree.name, namespace),
    controlPlane: cp
      ? { ...objectRef(cp.kind, cp.name, namespace), spec: { version } }
      : undefined,
    paused: isTreePaused(tree),
    deleting: tree.health === 'deleting',
    version,
    observedVersion: str(cp?.facts.kubernetesVersion),
    entraOnly: false,
    entraId: false,
    pools: pools.map(p => day2PoolFromTree(p, namespace, legacy)),
  };
}
