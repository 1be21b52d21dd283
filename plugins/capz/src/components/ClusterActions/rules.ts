/**
 * The client-side checks of the action dialogs: capz-common's `planDay2Action`, the planner the backend runs, over a
 * cluster read from the page's tree. The tree carries what the rules read (pools with mode, count, autoscaling,
 * versions, the count's owner; the control plane's version); the backend's preview still decides, with the live
 * objects (pinned values, names taken, the versions AKS offers).
 */
import {
  planDay2Action,
  type Day2Action,
  type Day2Cluster,
  type Day2PlanContext,
  type Day2Pool,
  type TreeNode,
} from '@capz-backstage/plugin-capz-common';
import type { PoolView } from './pools';

const obj = (kind: string, name: string, namespace: string) => ({
  kind,
  metadata: { name, namespace },
});

function pool(p: PoolView, namespace: string, legacy: boolean): Day2Pool {
  const autoscaling = p.autoscalerEnabled
    ? { minCount: p.minCount, maxCount: p.maxCount }
    : undefined;
  const mode = p.mode === 'System' || p.mode === 'User' ? p.mode : undefined;
  return {
    name: p.name,
    machinePool: obj('MachinePool', p.machinePool, namespace),
    infra: legacy
      ? obj('AzureManagedMachinePool', p.machinePool, namespace)
      : {
          ...obj('AzureASOManagedMachinePool', p.machinePool, namespace),
          // The embedded agent pool as the rules read it; the planner maps over spec.resources.
          spec: {
            resources: [
              {
                kind: 'ManagedClustersAgentPool',
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

/** The cluster as `planDay2Action` sees it, from the page's ungrouped tree and its pools. */
export function clusterFromTree(
  tree: TreeNode,
  pools: PoolView[],
  namespace: string,
): Day2Cluster {
  const cp = tree.children.find(c => /ControlPlane$/.test(c.kind));
  const legacy = cp?.kind === 'AzureManagedControlPlane';
  const str = (v: unknown) => (typeof v === 'string' && v ? v : undefined);
  const version =
    str(cp?.facts.desiredKubernetesVersion) ?? str(cp?.facts.kubernetesVersion);
  return {
    namespace,
    name: tree.name,
    api: legacy ? 'legacy' : 'aso',
    cluster: obj('Cluster', tree.name, namespace),
    controlPlane: cp
      ? { ...obj(cp.kind, cp.name, namespace), spec: { version } }
      : undefined,
    paused: tree.facts.paused === true,
    deleting: tree.health === 'deleting',
    version,
    observedVersion: str(cp?.facts.kubernetesVersion),
    entraOnly: false,
    entraId: false,
    pools: pools.map(p => pool(p, namespace, legacy)),
  };
}

/**
 * The rules the action breaks, in the planner's words; empty when the backend should be asked. Only `input`
 * problems: a `conflict` depends on live state the tree may show late, and the backend answers it with a 409.
 */
export function actionProblems(
  cluster: Day2Cluster | undefined,
  action: Day2Action | undefined,
  ctx?: Day2PlanContext,
): string[] {
  if (!cluster || !action) return [];
  try {
    const r = planDay2Action(cluster, action, ctx);
    return r.ok
      ? []
      : r.problems.filter(p => p.kind === 'input').map(p => p.message);
  } catch {
    // Building the writes may need an object detail the tree does not carry; the rules passed, so ask the backend.
    return [];
  }
}
