import { buildClusterTree } from './buildTree';
import { groupTree } from './grouping';
import { treeToLines } from './text';
import {
  asoManagedCluster,
  failReady,
  find,
  markNotReady,
  NOW,
  setCapiCondition,
} from './__fixtures__/clusters';
import { node } from './__fixtures__/nodes';

const opts = { now: NOW };

describe('groupTree: fifty similar pools and one failing', () => {
  const bigCluster = () => {
    const pools = Array.from({ length: 51 }, (_, i) => ({
      name: `p${String(i).padStart(2, '0')}`,
      count: 1 + (i % 3),
    }));
    const f = asoManagedCluster({ name: 'big', pools });
    failReady(
      find(f.objects, 'ManagedClustersAgentPool', 'big-p17'),
      'ReconciliationFailedPermanently',
      'Error',
      'quota exceeded',
    );
    markNotReady(find(f.objects, 'AzureASOManagedMachinePool', 'big-p17'));
    // One of the healthy pools has been Available for longest: the group's since.
    setCapiCondition(
      find(f.objects, 'MachinePool', 'big-p42'),
      'Available',
      'True',
      'Available',
      '',
      '2026-11-01T00:00:00Z',
    );
    return f;
  };

  it('merges the healthy pools into one group node and keeps the failing one apart', () => {
    const { cluster, objects } = bigCluster();
    const tree = groupTree(buildClusterTree(cluster, objects, opts));
    expect(treeToLines(tree)).toEqual([
      'Cluster/big failed ManagedClustersAgentPool big-p17: ReconciliationFailedPermanently',
      '  AzureASOManagedCluster/big healthy',
      '    ResourceGroup/big healthy Succeeded',
      '  AzureASOManagedControlPlane/big healthy',
      '    ManagedCluster/big healthy Succeeded',
      '  Workers/Workers failed ManagedClustersAgentPool big-p17: ReconciliationFailedPermanently',
      '    MachinePool/50 MachinePools healthy Available [50: big-p00, big-p01, big-p02, …]',
      '    MachinePool/big-p17 healthy Available',
      '      AzureASOManagedMachinePool/big-p17 failed ReconciliationFailedPermanently',
      '        ManagedClustersAgentPool/big-p17 failed ReconciliationFailedPermanently',
    ]);
    const workers = tree.children[2];
    const group = workers.children[0];
    const names = Array.from(
      { length: 51 },
      (_, i) => `big-p${String(i).padStart(2, '0')}`,
    ).filter(n => n !== 'big-p17');
    expect(group).toEqual({
      id: `group:${workers.id}:MachinePool:healthy:Available`,
      kind: 'MachinePool',
      name: '50 MachinePools',
      apiVersion: 'cluster.x-k8s.io/v1beta2',
      namespace: 'team-a',
      health: 'healthy',
      reason: 'Available',
      since: '2026-11-01T00:00:00Z',
      conditions: [],
      facts: {
        count: 50,
        // 1 + (i % 3) replicas for i in 0..50 without 17 (which has 3).
        replicas: names.reduce(
          (n, name) => n + 1 + (Number(name.slice(5)) % 3),
          0,
        ),
        readyReplicas: names.reduce(
          (n, name) => n + 1 + (Number(name.slice(5)) % 3),
          0,
        ),
        availableReplicas: names.reduce(
          (n, name) => n + 1 + (Number(name.slice(5)) % 3),
          0,
        ),
      },
      children: [],
      group: { kind: 'MachinePool', count: 50, names },
    });
  });

  it('does not change the tree it is given, and grouping is repeatable', () => {
    const { cluster, objects } = bigCluster();
    const tree = buildClusterTree(cluster, objects, opts);
    const before = JSON.stringify(tree);
    const once = groupTree(tree);
    expect(JSON.stringify(tree)).toBe(before);
    expect(groupTree(once)).toEqual(once);
  });
});

describe('groupTree: rules', () => {
  const parent = (...children: ReturnType<typeof node>[]) =>
    node('Workers', 'Workers', 'healthy', { children });

  it('groups at the threshold and not below it', () => {
    const two = parent(
      node('MachinePool', 'a', 'healthy'),
      node('MachinePool', 'b', 'healthy'),
    );
    expect(groupTree(two).children.map(c => c.name)).toEqual(['a', 'b']);
    expect(groupTree(two, { threshold: 2 }).children.map(c => c.name)).toEqual([
      '2 MachinePools',
    ]);
    expect(groupTree(two, { threshold: 1 }).children.map(c => c.name)).toEqual([
      'a',
      'b',
    ]);
    const three = parent(
      node('MachinePool', 'a', 'healthy'),
      node('MachinePool', 'b', 'healthy'),
      node('MachinePool', 'c', 'healthy'),
    );
    expect(groupTree(three).children.map(c => c.name)).toEqual([
      '3 MachinePools',
    ]);
    expect(
      groupTree(three, { threshold: 4 }).children.map(c => c.name),
    ).toEqual(['a', 'b', 'c']);
  });

  it('groups by kind, health and reason; groups take the place of their first member', () => {
    const p = parent(
      node('MachinePool', 'a', 'degraded', {
        reason: 'QuotaExceeded',
        message: 'quota',
        since: '2026-11-21T10:00:00Z',
        severity: 'Warning',
      }),
      node('MachinePool', 'b', 'degraded', { reason: 'Other' }),
      node('MachinePool', 'c', 'degraded', {
        reason: 'QuotaExceeded',
        message: 'quota',
        since: '2026-11-21T09:00:00Z',
        severity: 'Warning',
      }),
      node('Other', 'x', 'degraded', { reason: 'QuotaExceeded' }),
      node('MachinePool', 'd', 'degraded', {
        reason: 'QuotaExceeded',
        message: 'quota',
        severity: 'Warning',
      }),
      node('MachinePool', 'e', 'healthy'),
    );
    const g = groupTree(p);
    expect(treeToLines(g)).toEqual([
      'Workers/Workers healthy',
      '  MachinePool/3 MachinePools degraded QuotaExceeded [3: a, c, d]',
      '  MachinePool/b degraded Other',
      '  Other/x degraded QuotaExceeded',
      '  MachinePool/e healthy',
    ]);
    expect(g.children[0]).toMatchObject({
      message: 'quota',
      severity: 'Warning',
      since: '2026-11-21T09:00:00Z',
      id: 'group:Workers/Workers:MachinePool:degraded:QuotaExceeded',
    });
  });

  it('a sibling whose subtree is worse than itself is not grouped with the healthy ones', () => {
    const sick = node('MachinePool', 'c', 'healthy', {
      children: [
        node('ManagedClustersAgentPool', 'c', 'failed', { reason: 'Boom' }),
      ],
    });
    const p = parent(
      node('MachinePool', 'a', 'healthy'),
      node('MachinePool', 'b', 'healthy'),
      sick,
      node('MachinePool', 'd', 'healthy'),
    );
    expect(treeToLines(groupTree(p))).toEqual([
      'Workers/Workers healthy',
      '  MachinePool/3 MachinePools healthy [3: a, b, d]',
      '  MachinePool/c healthy',
      '    ManagedClustersAgentPool/c failed Boom',
    ]);
  });

  it('keeps messages that differ out of the group, and leaves existing group nodes alone', () => {
    const existing = node('MachinePool', '4 MachinePools', 'healthy', {
      group: { kind: 'MachinePool', count: 4, names: ['w', 'x', 'y', 'z'] },
    });
    const p = parent(
      existing,
      node('MachinePool', 'a', 'progressing', { message: 'one' }),
      node('MachinePool', 'b', 'progressing', { message: 'two' }),
      node('MachinePool', 'c', 'progressing', { message: 'one' }),
    );
    const g = groupTree(p);
    expect(g.children[0]).toEqual(existing);
    expect(g.children[1]).toMatchObject({
      name: '3 MachinePools',
      health: 'progressing',
    });
    expect(g.children[1].message).toBeUndefined();
  });

  it('groups at any depth', () => {
    const deep = node('Cluster', 'c', 'healthy', {
      children: [
        node('AzureManagedControlPlane', 'cp', 'healthy', {
          children: ['a', 'b', 'c'].map(n =>
            node('ResourceGroup', n, 'healthy'),
          ),
        }),
      ],
    });
    expect(treeToLines(groupTree(deep))).toEqual([
      'Cluster/c healthy',
      '  AzureManagedControlPlane/cp healthy',
      '    ResourceGroup/3 ResourceGroups healthy [3: a, b, c]',
    ]);
  });
});
