import type {
  ClusterSummary,
  TreeNode,
} from '@capz-backstage/plugin-capz-common';
import { gunzipSync } from 'node:zlib';
import { TREE_GZIP_MIN_BYTES, TreeBodies } from './treeBodies';

const tree = (name: string): TreeNode =>
  ({ kind: 'Cluster', name, children: [] } as unknown as TreeNode);
const summary = (health: string): ClusterSummary =>
  ({ name: 'alpha', health } as unknown as ClusterSummary);

describe('TreeBodies', () => {
  it('serializes a tree once and answers the same bytes while its tree and summary stay the same', () => {
    const bodies = new TreeBodies();
    const t = tree('alpha');
    const first = bodies.of(summary('healthy'), t);
    expect(JSON.parse(first.json.toString())).toEqual({
      summary: summary('healthy'),
      tree: t,
    });
    expect(bodies.of(summary('healthy'), t)).toBe(first);
  });

  it('gzips a large tree once and a small one not at all', () => {
    const bodies = new TreeBodies();
    const small = bodies.of(summary('healthy'), tree('alpha'));
    expect(small.gzip()).toBeUndefined();
    const large = bodies.of(
      summary('healthy'),
      tree('a'.repeat(TREE_GZIP_MIN_BYTES)),
    );
    const gzipped = large.gzip()!;
    expect(JSON.parse(gunzipSync(gzipped).toString())).toEqual(
      JSON.parse(large.json.toString()),
    );
    expect(large.gzip()).toBe(gzipped);
  });

  it('makes a new body, with a new ETag, when the summary or the tree changes', () => {
    const bodies = new TreeBodies();
    const t = tree('alpha');
    const first = bodies.of(summary('healthy'), t);
    const otherSummary = bodies.of(summary('degraded'), t);
    expect(otherSummary.etag).not.toBe(first.etag);
    expect(JSON.parse(otherSummary.json.toString()).summary.health).toBe(
      'degraded',
    );
    const otherTree = bodies.of(summary('degraded'), tree('beta'));
    expect(otherTree.etag).not.toBe(otherSummary.etag);
    expect(JSON.parse(otherTree.json.toString()).tree.name).toBe('beta');
  });
});
