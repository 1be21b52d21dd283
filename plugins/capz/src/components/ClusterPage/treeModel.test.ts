import { bigTree } from '../../__testUtils__/fixtures';
import { initiallyExpanded, visibleRows } from './treeModel';

describe('visibleRows', () => {
  it('lists every node of a fully expanded tree in order, with its level and place among its siblings', () => {
    const tree = bigTree(2);
    const rows = visibleRows(tree, initiallyExpanded(tree));
    expect(
      rows.map(r => [r.node.id, r.level, r.posInSet, r.setSize, r.parent]),
    ).toEqual([
      ['uid-cluster-big', 1, 1, 1, undefined],
      ['workers:big', 2, 1, 1, 'uid-cluster-big'],
      ['uid-mp-0', 3, 1, 2, 'workers:big'],
      ['uid-ammp-0', 4, 1, 1, 'uid-mp-0'],
      ['uid-ap-0', 5, 1, 1, 'uid-ammp-0'],
      ['uid-mp-1', 3, 2, 2, 'workers:big'],
      ['uid-ammp-1', 4, 1, 1, 'uid-mp-1'],
      ['uid-ap-1', 5, 1, 1, 'uid-ammp-1'],
    ]);
  });

  it('hides the descendants of a collapsed node', () => {
    const tree = bigTree(2);
    const expanded = initiallyExpanded(tree);
    expanded.delete('uid-mp-0');
    expect(visibleRows(tree, expanded).map(r => r.node.id)).toEqual([
      'uid-cluster-big',
      'workers:big',
      'uid-mp-0',
      'uid-mp-1',
      'uid-ammp-1',
      'uid-ap-1',
    ]);
    expect(visibleRows(tree, new Set()).map(r => r.node.id)).toEqual([
      'uid-cluster-big',
    ]);
  });
});
