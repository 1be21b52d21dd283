import { rollupHealth, worstInSubtree } from './rollup';
import { node } from './__fixtures__/nodes';

describe('worstInSubtree', () => {
  it('finds the worst node, preferring the deeper one on a tie and the first sibling', () => {
    const mc = node('ManagedCluster', 'mc', 'degraded', {
      reason: 'ReconciliationBlocked',
    });
    const cp = node('AzureASOManagedControlPlane', 'cp', 'degraded', {
      reason: 'ReconciliationBlocked',
      children: [mc],
    });
    const other = node('ResourceGroup', 'rg', 'degraded');
    const root = node('Cluster', 'c', 'healthy', { children: [cp, other] });
    expect(worstInSubtree(root)).toEqual({ health: 'degraded', node: mc });
    expect(worstInSubtree(node('X', 'x', 'progressing'))).toEqual({
      health: 'progressing',
      node: expect.objectContaining({ name: 'x' }),
    });
  });

  it('counts a deletion as progressing, a stuck one as degraded or failed', () => {
    const d = (severity?: 'Warning' | 'Error') =>
      worstInSubtree(
        node('R', 'r', 'healthy', {
          children: [node('C', 'c', 'deleting', severity ? { severity } : {})],
        }),
      ).health;
    expect(d()).toBe('progressing');
    expect(d('Warning')).toBe('degraded');
    expect(d('Error')).toBe('failed');
  });
});

describe('rollupHealth', () => {
  const child = node('ManagedClustersAgentPool', 'p1', 'failed', {
    id: 'uid-p1',
    reason: 'InvalidParameter',
    message: 'vmSize not allowed',
    severity: 'Error',
    since: '2026-11-21T10:00:00Z',
  });
  const tree = (health: Parameters<typeof node>[2], c = child) =>
    node('Cluster', 'c', health, { children: [c] });

  it('a worse descendant decides, prefixed and named as the source', () => {
    expect(
      rollupHealth({ health: 'healthy', reason: 'Available' }, tree('healthy')),
    ).toEqual({
      health: 'failed',
      reason: 'ManagedClustersAgentPool p1: InvalidParameter',
      message: 'ManagedClustersAgentPool p1: vmSize not allowed',
      severity: 'Error',
      since: '2026-11-21T10:00:00Z',
      source: { id: 'uid-p1', kind: 'ManagedClustersAgentPool', name: 'p1' },
    });
  });

  it('on a tie the descendant explains; when the node is worse it keeps its own verdict', () => {
    const degradedChild = node('ManagedCluster', 'mc', 'degraded', {
      reason: 'ReconciliationBlocked',
    });
    expect(
      rollupHealth(
        { health: 'degraded', reason: 'NotAvailable' },
        tree('degraded', degradedChild),
      ).reason,
    ).toBe('ManagedCluster mc: ReconciliationBlocked');
    const progressingChild = node('ManagedCluster', 'mc', 'progressing', {
      reason: 'Reconciling',
    });
    expect(
      rollupHealth(
        { health: 'degraded', reason: 'NotAvailable' },
        tree('degraded', progressingChild),
      ),
    ).toEqual({ health: 'degraded', reason: 'NotAvailable' });
  });

  it('healthy descendants never replace the own verdict', () => {
    const own = { health: 'healthy' as const, reason: 'Available', since: 't' };
    expect(
      rollupHealth(
        own,
        tree('healthy', node('X', 'x', 'healthy', { reason: 'Succeeded' })),
      ),
    ).toBe(own);
    expect(rollupHealth(own, node('Cluster', 'c', 'healthy'))).toBe(own);
  });

  it('a descendant without a reason is named by its health', () => {
    expect(
      rollupHealth(
        { health: 'healthy' },
        tree('healthy', node('MachinePool', 'mp', 'unknown')),
      ).reason,
    ).toBe('MachinePool mp: Unknown');
  });

  it('deleting stays deleting, explained by a serious descendant only', () => {
    const own = { health: 'deleting' as const, reason: 'Deleting' };
    expect(rollupHealth(own, tree('deleting'))).toMatchObject({
      health: 'deleting',
      reason: 'ManagedClustersAgentPool p1: InvalidParameter',
    });
    expect(rollupHealth(own, tree('deleting', node('X', 'x', 'unknown')))).toBe(
      own,
    );
  });

  it('paused stays paused unless a descendant is degraded or failed', () => {
    const own = { health: 'paused' as const, reason: 'Paused' };
    expect(rollupHealth(own, tree('paused'))).toMatchObject({
      health: 'failed',
    });
    expect(
      rollupHealth(own, tree('paused', node('X', 'x', 'degraded'))),
    ).toMatchObject({ health: 'degraded' });
    expect(rollupHealth(own, tree('paused', node('X', 'x', 'unknown')))).toBe(
      own,
    );
    expect(
      rollupHealth(own, tree('paused', node('X', 'x', 'progressing'))),
    ).toBe(own);
  });
});
