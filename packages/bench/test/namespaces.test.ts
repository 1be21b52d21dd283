import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { clustersViewPaths } from '../src/measures/clustersViews.ts';
import {
  biggestNamespace,
  namespaceOf,
  type SeededCluster,
} from '../src/seed.ts';

const seeded = (n: number, namespaces: number): SeededCluster[] =>
  Array.from({ length: n }, (_, i) => ({
    namespace: namespaceOf(i, namespaces),
    name: `aks-${i}`,
    uid: String(i),
    objects: 14,
    failing: false,
  }));

describe('biggestNamespace', () => {
  it('gives 500 clusters in a namespace at 10,000 over the default 20', () => {
    assert.deepEqual(biggestNamespace(seeded(10_000, 20)), {
      namespace: 'bench-00',
      clusters: 500,
    });
  });

  it('takes the namespace with most clusters, the first by name among equals', () => {
    assert.deepEqual(biggestNamespace(seeded(1_001, 20)), {
      namespace: 'bench-00',
      clusters: 51,
    });
    const uneven = [
      ...seeded(3, 1),
      ...seeded(4, 1).map(c => ({ ...c, namespace: 'bench-zz' })),
    ];
    assert.deepEqual(biggestNamespace(uneven), {
      namespace: 'bench-zz',
      clusters: 4,
    });
    assert.deepEqual(biggestNamespace([]), { namespace: '', clusters: 0 });
  });
});

describe('clustersViewPaths', () => {
  it('asks for pages of 50 of server-side views', () => {
    assert.deepEqual(clustersViewPaths('bench-00'), {
      page: '/api/capz/clusters?sort=name&limit=50',
      namespacePage:
        '/api/capz/clusters?namespace=bench-00&sort=health&limit=50',
      attentionPage: '/api/capz/clusters?attention=now&limit=50',
    });
  });
});
