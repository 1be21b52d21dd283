import {
  ClusterSummary,
  ConditionTransition,
  TimelineEvent,
  TimelineResponse,
  TreeNode,
} from '@capz-backstage/plugin-capz-common';

export const BASE = 'http://backend.test/api/capz';

export function summary(
  over: Partial<ClusterSummary> & { name: string },
): ClusterSummary {
  return {
    managementCluster: 'local',
    namespace: `team-${over.name}`,
    uid: `uid-cluster-${over.name}`,
    api: 'aso-v1beta1',
    health: 'healthy',
    kubernetesVersion: 'v1.33.2',
    location: 'westeurope',
    pools: { total: 2, ready: 2, replicas: 5 },
    migrationCandidate: false,
    ...over,
  };
}

export const SEARCH_PROD = summary({
  name: 'search-prod',
  namespace: 'team-search',
  health: 'degraded',
  reason: 'ManagedCluster search-prod: ReconciliationBlocked',
  message:
    'Managed cluster is busy with another operation (provisioningState Updating)',
  location: 'northeurope',
});

export const CLUSTERS: ClusterSummary[] = [
  SEARCH_PROD,
  summary({ name: 'payments' }),
  summary({
    name: 'legacy-web',
    api: 'azure-managed',
    migrationCandidate: true,
    location: 'eastus',
  }),
  summary({
    name: 'analytics',
    managementCluster: 'demo-2',
    api: 'aso-v1alpha1',
    health: 'progressing',
    reason: 'MachinePool analytics-pool0: Reconciling',
  }),
];

const T0 = '2026-11-21T10:00:00Z';

export function node(
  over: Partial<TreeNode> & { id: string; kind: string; name: string },
): TreeNode {
  return {
    health: 'healthy',
    conditions: [],
    facts: {},
    children: [],
    ...over,
  };
}

/** A tree like the backend's for search-prod: the ManagedCluster is blocked, everything else fine. */
export function searchProdTree(): TreeNode {
  const mc = node({
    id: 'uid-mc',
    uid: 'uid-mc',
    kind: 'ManagedCluster',
    name: 'search-prod',
    health: 'degraded',
    reason: 'ReconciliationBlocked',
    message:
      'Managed cluster is busy with another operation (provisioningState Updating)',
    severity: 'Warning',
    since: '2026-11-21T11:00:00Z',
    conditions: [
      {
        type: 'Ready',
        status: 'False',
        reason: 'ReconciliationBlocked',
        severity: 'Warning',
        message:
          'Managed cluster is busy with another operation (provisioningState Updating)',
        lastTransitionTime: '2026-11-21T11:00:00Z',
      },
    ],
    facts: { provisioningState: 'Updating', kubernetesVersion: '1.33.2' },
  });
  const cp = node({
    id: 'uid-cp',
    uid: 'uid-cp',
    kind: 'AzureASOManagedControlPlane',
    name: 'search-prod',
    health: 'degraded',
    reason: 'ReconciliationBlocked',
    source: { id: 'uid-mc', kind: 'ManagedCluster', name: 'search-prod' },
    children: [mc],
  });
  return node({
    id: 'uid-cluster-search-prod',
    uid: 'uid-cluster-search-prod',
    kind: 'Cluster',
    name: 'search-prod',
    health: 'degraded',
    reason: 'ManagedCluster search-prod: ReconciliationBlocked',
    source: { id: 'uid-mc', kind: 'ManagedCluster', name: 'search-prod' },
    children: [
      node({
        id: 'uid-infra',
        uid: 'uid-infra',
        kind: 'AzureASOManagedCluster',
        name: 'search-prod',
        since: T0,
        children: [
          node({
            id: 'uid-rg',
            uid: 'uid-rg',
            kind: 'ResourceGroup',
            name: 'search-prod',
            since: T0,
          }),
        ],
      }),
      cp,
      node({
        id: 'workers:search-prod',
        kind: 'Workers',
        name: 'Workers',
        children: [
          node({
            id: 'group:workers:MachinePool:healthy:',
            kind: 'MachinePool',
            name: '3 MachinePools',
            group: {
              kind: 'MachinePool',
              count: 3,
              names: ['pool0', 'pool1', 'pool2'],
            },
            facts: { count: 3, replicas: 9 },
          }),
        ],
      }),
    ],
  });
}

/** A cluster with `pools` MachinePools, each with its AzureASOManagedMachinePool and agent pool (ungrouped). */
export function bigTree(pools: number): TreeNode {
  const workers = node({ id: 'workers:big', kind: 'Workers', name: 'Workers' });
  for (let i = 0; i < pools; i++) {
    const agent = node({
      id: `uid-ap-${i}`,
      uid: `uid-ap-${i}`,
      kind: 'ManagedClustersAgentPool',
      name: `pool${i}`,
      since: T0,
      facts: { count: 3 },
    });
    const ammp = node({
      id: `uid-ammp-${i}`,
      uid: `uid-ammp-${i}`,
      kind: 'AzureASOManagedMachinePool',
      name: `pool${i}`,
      since: T0,
      children: [agent],
    });
    workers.children.push(
      node({
        id: `uid-mp-${i}`,
        uid: `uid-mp-${i}`,
        kind: 'MachinePool',
        name: `pool${i}`,
        since: T0,
        health: i === 7 ? 'failed' : 'healthy',
        reason: i === 7 ? 'OperationNotAllowed' : undefined,
        facts: { replicas: 3, readyReplicas: 3 },
        children: [ammp],
      }),
    );
  }
  return node({
    id: 'uid-cluster-big',
    uid: 'uid-cluster-big',
    kind: 'Cluster',
    name: 'big',
    children: [workers],
  });
}

export function transition(
  over: Partial<ConditionTransition> & { transitionTime: string },
): ConditionTransition {
  return {
    objectUid: 'uid-mc',
    kind: 'ManagedCluster',
    name: 'search-prod',
    conditionType: 'Ready',
    status: 'True',
    reason: 'Succeeded',
    firstSeen: over.transitionTime,
    ...over,
  };
}

export function event(
  over: Partial<TimelineEvent> & { lastTimestamp: string },
): TimelineEvent {
  return {
    objectUid: 'uid-mc',
    kind: 'ManagedCluster',
    name: 'search-prod',
    type: 'Warning',
    reason: 'ReconciliationBlocked',
    message: 'busy',
    count: 1,
    firstTimestamp: over.lastTimestamp,
    ...over,
  };
}

/** `count` transitions spread over `objects` objects and three condition types, between from and to. */
export function bigTimeline(
  count: number,
  from: number,
  to: number,
  objects = 20,
): TimelineResponse {
  const types = ['Ready', 'Available', 'Paused'];
  const transitions: ConditionTransition[] = [];
  for (let i = 0; i < count; i++) {
    const t = new Date(
      from + ((i + 1) / (count + 1)) * (to - from),
    ).toISOString();
    const o = i % objects;
    transitions.push(
      transition({
        objectUid: `uid-o${o}`,
        kind: o % 2 ? 'ManagedClustersAgentPool' : 'MachinePool',
        name: `pool${o}`,
        conditionType: types[Math.floor(i / objects) % types.length],
        status: i % 3 === 0 ? 'False' : 'True',
        severity: i % 3 === 0 ? 'Warning' : undefined,
        reason: i % 3 === 0 ? 'ReconciliationBlocked' : 'Succeeded',
        transitionTime: t,
      }),
    );
  }
  return {
    from: new Date(from).toISOString(),
    to: new Date(to).toISOString(),
    initial: [],
    transitions,
    deletions: [],
    events: [],
    truncated: false,
  };
}
