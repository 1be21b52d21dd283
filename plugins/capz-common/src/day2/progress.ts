/**
 * Whether an applied day-2 action is done, from the cluster's ungrouped tree. Done means the state
 * asked for is observed: the tree shows the value written (so it is not the tree from before the write), the
 * controllers report it (nodes ready at the new count, the version AKS runs, the autoscaler as set, the pause seen by
 * CAPI), and the object's health is healthy, which holds only once its controller observed the generation the write
 * made (status.observedGeneration or the conditions' observedGeneration, see tree/health/). Never the state from
 * before the write. Pure.
 */
import type { TreeNode } from '../tree/types';
import type { Day2Plan } from './api';
import {
  isTreePaused,
  sameKubernetesVersion,
  treePools,
  type TreePool,
} from './treePools';

/** One line of an action's progress: what is awaited, and whether it is observed. @public */
export interface Day2ProgressItem {
  text: string;
  done: boolean;
  /**
   * Whether the cluster's objects hold the value written (an upgrade's spec version): false while a change proposed to
   * Git is not merged and applied yet. Only the lines that know it say it.
   */
  asked?: boolean;
}

/** An action's progress: its lines, and whether all of it (and every object it wrote) is observed done. @public */
export interface Day2Progress {
  items: Day2ProgressItem[];
  done: boolean;
}

/** The first node of `kind` named `name` in a tree (depth first), or undefined. @public */
export function findTreeNode(
  tree: TreeNode,
  kind: string,
  name: string,
): TreeNode | undefined {
  const stack = [tree];
  while (stack.length) {
    const n = stack.pop()!;
    if (n.kind === kind && n.name === name) return n;
    stack.push(...n.children);
  }
  return undefined;
}

const AGENT_POOL_KINDS = new Set([
  'ManagedClustersAgentPool',
  'AzureManagedMachinePool',
]);

function agentNode(tree: TreeNode, p: TreePool) {
  const mp = findTreeNode(tree, 'MachinePool', p.machinePool);
  const stack = mp ? [...mp.children] : [];
  while (stack.length) {
    const n = stack.pop()!;
    if (AGENT_POOL_KINDS.has(n.kind)) return n;
    stack.push(...n.children);
  }
  return undefined;
}

const num = (v: unknown) => (typeof v === 'number' ? v : undefined);

/** A pool at `want` nodes: asked for (spec), reported by CAPI (status replicas, ready) and by AKS, and healthy. */
function nodesItem(
  tree: TreeNode,
  pools: Map<string, TreePool>,
  name: string,
  want: number,
): Day2ProgressItem {
  const p = pools.get(name);
  if (!p)
    return { text: `pool ${name}: not in the cluster (yet)`, done: false };
  const ready = p.readyReplicas ?? 0;
  const mp = findTreeNode(tree, 'MachinePool', p.machinePool);
  const current = num(mp?.facts.currentReplicas);
  const aks = num(agentNode(tree, p)?.facts.replicas);
  const asked = p.replicas === want;
  const done =
    asked &&
    ready === want &&
    (current === undefined || current === want) &&
    (aks === undefined || aks === want) &&
    p.health === 'healthy';
  const waiting = !asked
    ? ` (the cluster still asks for ${p.replicas ?? 'an unknown number of'})`
    : '';
  return {
    text: `pool ${name}: ${ready} of ${want} ${
      want === 1 ? 'node' : 'nodes'
    } ready${
      p.autoscaling ? " (AKS's autoscaler owns the count)" : ''
    }${waiting}${done ? ' (done)' : ''}`,
    done,
  };
}

function autoscaleItem(
  tree: TreeNode,
  pools: Map<string, TreePool>,
  a: Extract<Day2Plan['action'], { action: 'autoscale' }>,
): Day2ProgressItem {
  const p = pools.get(a.pool);
  const asked = a.enabled
    ? `autoscaling ${a.minCount ?? '?'} to ${a.maxCount ?? '?'} nodes`
    : 'autoscaling off';
  if (!p)
    return { text: `pool ${a.pool}: not in the cluster (yet)`, done: false };
  const agent = agentNode(tree, p);
  const now = p.autoscalerEnabled
    ? `autoscaling ${p.minCount ?? '?'} to ${p.maxCount ?? '?'} nodes`
    : 'autoscaling off';
  const observed = a.enabled
    ? p.autoscalerEnabled &&
      p.minCount === a.minCount &&
      p.maxCount === a.maxCount &&
      // CAPZ hands the count to AKS (docs/capz-aso-facts.md#day2-replicas-managed-by).
      (agent?.kind !== 'ManagedClustersAgentPool' || !!p.replicasManagedBy)
    : !p.autoscalerEnabled &&
      (agent?.kind !== 'ManagedClustersAgentPool' || !p.replicasManagedBy);
  const done =
    observed && p.health === 'healthy' && agent?.health !== 'progressing';
  let suffix = ` → ${asked}`;
  if (done) suffix = ' (done)';
  else if (observed) suffix = '';
  return { text: `pool ${a.pool}: ${now}${suffix}`, done };
}

function versionItem(
  tree: TreeNode,
  pools: Map<string, TreePool>,
  name: string,
  version: string,
): Day2ProgressItem {
  const p = pools.get(name);
  if (!p)
    return { text: `pool ${name}: not in the cluster (yet)`, done: false };
  const agent = agentNode(tree, p);
  // AKS's own report where there is one (ASO's currentOrchestratorVersion), else CAPI's asked-for version.
  const runs = p.currentVersion ?? p.version;
  const asked = sameKubernetesVersion(p.version, version);
  const done =
    asked &&
    sameKubernetesVersion(runs, version) &&
    p.health === 'healthy' &&
    agent?.health !== 'progressing';
  return {
    text: `pool ${name}: ${runs ?? 'version unknown'}${
      done ? ' (done)' : ` → ${version}`
    }`,
    done,
    asked,
  };
}

function controlPlaneItem(tree: TreeNode, version: string): Day2ProgressItem {
  const cp = tree.children.find(c => /ControlPlane$/.test(c.kind));
  const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
  const runs = str(cp?.facts.kubernetesVersion);
  const asked = str(cp?.facts.desiredKubernetesVersion) ?? runs;
  const managed = cp && findTreeNode(cp, 'ManagedCluster', cp.name);
  const aks = str(managed?.facts.kubernetesVersion);
  const written = sameKubernetesVersion(asked, version);
  const done =
    written &&
    sameKubernetesVersion(runs, version) &&
    (aks === undefined || sameKubernetesVersion(aks, version)) &&
    cp?.health === 'healthy';
  return {
    text: `control plane: ${runs ?? 'version unknown'}${
      done ? ' (done)' : ` → ${version}`
    }`,
    done,
    asked: written,
  };
}

/** CAPI's Paused condition on the Cluster (v1beta2), when it reports one. */
const pausedCondition = (tree: TreeNode) =>
  tree.conditions.find(c => c.type === 'Paused');

function pauseItem(tree: TreeNode, pause: boolean): Day2ProgressItem {
  const asked = isTreePaused(tree) === pause;
  const c = pausedCondition(tree);
  const seen = c ? (c.status === 'True') === pause : asked;
  if (pause) {
    if (asked && seen)
      return { text: 'reconciliation paused (done)', done: true };
    return {
      text: asked
        ? 'waiting for CAPI to report the pause'
        : 'waiting for the pause',
      done: false,
    };
  }
  // Resumed: CAPI reconciles again, and the cluster has caught up with what was written while it was paused.
  if (!asked || !seen) return { text: 'waiting for the resume', done: false };
  return tree.health === 'healthy'
    ? {
        text: 'reconciliation resumed, the cluster is healthy (done)',
        done: true,
      }
    : {
        text: `reconciliation resumed; the cluster is ${tree.health}`,
        done: false,
      };
}

/**
 * The progress of an applied action on the cluster's ungrouped tree: a line per pool or part it is about, each done
 * only once the state asked for is observed (see the module's comment), and `done` once every line is and every
 * object the plan wrote is healthy (or, for a delete, gone). @public
 */
export function day2Progress(plan: Day2Plan, tree: TreeNode): Day2Progress {
  const a = plan.action;
  const pools = new Map(treePools(tree).map(p => [p.name, p]));
  let items: Day2ProgressItem[];
  switch (a.action) {
    case 'scale':
      items = [nodesItem(tree, pools, a.pool, a.replicas)];
      break;
    case 'autoscale':
      items = [autoscaleItem(tree, pools, a)];
      break;
    case 'addPool':
      items = [nodesItem(tree, pools, a.pool.name, a.pool.replicas)];
      break;
    case 'removePool':
      items = [
        pools.has(a.pool)
          ? { text: `pool ${a.pool}: being removed`, done: false }
          : { text: `pool ${a.pool}: removed (done)`, done: true },
      ];
      break;
    case 'upgrade':
      items =
        a.target === 'controlPlane'
          ? [controlPlaneItem(tree, a.version)]
          : a.target.pools.map(n => versionItem(tree, pools, n, a.version));
      break;
    case 'pause':
      items = [pauseItem(tree, true)];
      break;
    case 'resume':
      items = [pauseItem(tree, false)];
      break;
    default:
      items = [];
  }
  // A pause writes only the Cluster, and its line is done once CAPI reports the pause. The Cluster's rolled-up health
  // is no measure of it: a pause leaves a degraded descendant degraded (tree/rollup.ts), so a paused unhealthy cluster
  // would read "in progress" forever beside "reconciliation paused (done)".
  const objectsDone =
    a.action === 'pause' ||
    plan.changes.every(c => {
      const node = findTreeNode(tree, c.kind, c.name);
      if (c.operation === 'delete') return !node;
      return node?.health === 'healthy';
    });
  return {
    items,
    done: items.length > 0 && items.every(i => i.done) && objectsDone,
  };
}
