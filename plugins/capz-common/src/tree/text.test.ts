import { treeToLines } from './text';
import { node } from './__fixtures__/nodes';

describe('treeToLines', () => {
  it('prints kind/name, health and reason, indented by depth, groups with their first names', () => {
    const tree = node('Cluster', 'c', 'degraded', {
      reason: 'ManagedCluster mc: ReconciliationBlocked',
      children: [
        node('Workers', 'Workers', 'healthy', {
          children: [
            node('MachinePool', '4 MachinePools', 'healthy', {
              reason: 'Available',
              group: {
                kind: 'MachinePool',
                count: 4,
                names: ['a', 'b', 'c', 'd'],
              },
            }),
            node('MachinePool', '3 MachinePools', 'healthy', {
              group: { kind: 'MachinePool', count: 3, names: ['e', 'f', 'g'] },
            }),
          ],
        }),
      ],
    });
    expect(treeToLines(tree)).toEqual([
      'Cluster/c degraded ManagedCluster mc: ReconciliationBlocked',
      '  Workers/Workers healthy',
      '    MachinePool/4 MachinePools healthy Available [4: a, b, c, …]',
      '    MachinePool/3 MachinePools healthy [3: e, f, g]',
    ]);
  });
});
