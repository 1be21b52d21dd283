/**
 * The node pools of a cluster as its ungrouped tree shows them (the day-2 dialogs' pickers and their progress).
 * Pure.
 */
import type { Health, TreeNode } from '../tree/types';

/** One node pool as the action dialogs and their progress need it, read from an ungrouped cluster tree. @public */
export interface TreePool {
  /** The agent pool's name in Azure: what day-2 actions name a pool by. */
  name: string;
  /** The MachinePool object's name. */
  machinePool: string;
  mode?: string;
  vmSize?: string;
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
  'ManagedClustersAgentPool',
  'AzureManagedMachinePool',
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
    .filter(mp => mp.kind === 'MachinePool' && !mp.group)
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
        (agent?.kind === 'AzureManagedMachinePool' && minCount !== undefined);
      return {
        name: str(a.azureName) ?? fallback,
        machinePool: mp.name,
        mode: str(a.mode),
        vmSize: str(a.vmSize),
        replicas: num(f.replicas),
        readyReplicas: num(f.readyReplicas),
        version: str(f.kubernetesVersion),
        currentVersion:
          agent?.kind === 'ManagedClustersAgentPool'
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
