/**
 * `yarn bench:views`: what one `GET /clusters` view costs the backend at fleet size, in-process, without an API
 * server: ClusterViews over a stand-in of the watch cache holding N clusters (default 10,000, `CAPZ_BENCH_CLUSTERS`)
 * in 20 namespaces (500 each at 10,000, as docs/scale.md's setup). Prints p50 / p99 of the per-request work for three
 * of the clusters page's views: the views from the kept orders (ClusterViews.page), the same after a change in one
 * namespace before each request, and for comparison the per-request filter and sort of the whole list
 * (pageOfClusters over ClusterViews.list). Not a test of speed: it asserts only that both give the same pages.
 * The end-to-end figures (HTTP, a real cache, a busy backend) are `yarn bench`'s.
 */
import { EventEmitter } from 'node:events';
import {
  clusterAttention,
  ClusterPageQuery,
  ClusterSummary,
  generateAksAsoClusterManifests,
  pageOfClusters,
} from '@capz-backstage/plugin-capz-common';
import { CacheChange, CachedObject } from '../cluster/ClusterWatch';
import { WatchCache } from '../cluster/WatchCache';
import { ClusterViews } from './clusterViews';

const N = Number(process.env.CAPZ_BENCH_CLUSTERS ?? 10_000);
const NAMESPACES = 20;
const REQUESTS = 50;

const available = (up: boolean) => ({
  conditions: [
    {
      type: 'Available',
      status: up ? 'True' : 'False',
      reason: up ? 'Available' : 'NotAvailable',
      lastTransitionTime: '2026-01-01T00:00:00Z',
    },
  ],
});

function fleet() {
  const byKey = new Map<string, CachedObject[]>();
  const put = (o: CachedObject) => {
    for (const key of [o.kind!, `${o.kind}/${o.metadata.namespace}`]) {
      if (!byKey.has(key)) byKey.set(key, []);
      byKey.get(key)!.push(o);
    }
  };
  for (let i = 0; i < N; i++) {
    const namespace = `bench-${String(i % NAMESPACES).padStart(2, '0')}`;
    for (const o of generateAksAsoClusterManifests({
      name: `c${String(i).padStart(5, '0')}`,
      namespace,
      location: i % 3 ? 'westeurope' : 'eastus',
      kubernetesVersion: ['v1.32.5', 'v1.33.2', 'v1.34.1'][i % 3],
      credentialSecretName: 'aso-credential',
      pools: [
        {
          name: 'system',
          mode: 'System',
          vmSize: 'Standard_D2s_v3',
          replicas: 1,
        },
      ],
    })) {
      const object = {
        ...o,
        metadata: {
          ...o.metadata,
          uid: `${o.kind}-${namespace}-${o.metadata!.name}`,
        },
        ...(o.kind === 'Cluster' ? { status: available(i % 7 !== 0) } : {}),
      } as CachedObject;
      put(object);
    }
  }
  const cache = Object.assign(new EventEmitter(), {
    list: (_mc: string, kind: string, ns?: string) => [
      ...(byKey.get(ns === undefined ? kind : `${kind}/${ns}`) ?? []),
    ],
  });
  /** Replaces one Cluster (its availability flipped) and says so, as the watch cache does. */
  const change = (n: number) => {
    const list = byKey.get('Cluster/bench-00')!;
    const before = list[n % list.length];
    const after = {
      ...before,
      status: available(n % 2 === 0),
    } as CachedObject;
    for (const key of ['Cluster', 'Cluster/bench-00']) {
      const l = byKey.get(key)!;
      l[l.indexOf(before)] = after;
    }
    cache.emit('change', {
      managementCluster: 'mc',
      kind: 'Cluster',
      type: 'update',
      object: after,
    } satisfies CacheChange);
  };
  return { cache: cache as unknown as WatchCache, change };
}

const VIEWS: Array<[string, ClusterPageQuery]> = [
  ['?sort=name&limit=50', { sort: 'name', limit: 50 }],
  [
    '?namespace=bench-00&sort=health&limit=50',
    { namespace: 'bench-00', sort: 'health', limit: 50 },
  ],
  ['?q=c0042&limit=50 (search)', { q: 'c0042', limit: 50 }],
  ['?attention=now&limit=50', { attention: 'now', limit: 50 }],
];

/** Each summary judged once for the day, as the router does (its `judged` map). */
const TODAY = '2026-12-07';
const judged = new WeakMap<
  ClusterSummary,
  ReturnType<typeof clusterAttention>
>();
const attentionOf = (c: ClusterSummary) => {
  let j = judged.get(c);
  if (!j) {
    j = clusterAttention(c, { today: TODAY });
    judged.set(c, j);
  }
  return j;
};
const options = { attentionOf };
/** The whole list as the filters read it: each summary with its judgement. */
const judgedList = (views: ClusterViews) =>
  views.list().map(c => ({ ...c, attention: attentionOf(c) }));

function times(f: (i: number) => unknown): { p50: number; p99: number } {
  const t: number[] = [];
  for (let i = 0; i < REQUESTS; i++) {
    const s = performance.now();
    f(i);
    t.push(performance.now() - s);
  }
  t.sort((a, b) => a - b);
  return {
    p50: t[Math.floor(t.length * 0.5)],
    p99: t[Math.min(t.length - 1, Math.floor(t.length * 0.99))],
  };
}

const ms = (x: number) => `${x.toFixed(2)} ms`;
const allowed = () => true;
const ids = (xs: ClusterSummary[]) => xs.map(c => `${c.namespace}/${c.name}`);

it(`prints what a GET /clusters view costs at ${N} clusters`, () => {
  const { cache, change } = fleet();
  const views = new ClusterViews(cache, ['mc']);
  const lines = [
    `GET /clusters views, in-process, ${N.toLocaleString(
      'en',
    )} clusters in ${NAMESPACES} namespaces, p50 / p99 of ${REQUESTS} requests`,
    '',
    '| view | kept orders | kept orders, a change in bench-00 before each | filter and sort of the whole list |',
    '| --- | --- | --- | --- |',
  ];
  let s = performance.now();
  views.list();
  const firstList = performance.now() - s;
  s = performance.now();
  views.page({ limit: 50 }, allowed);
  const firstPage = performance.now() - s;
  for (const [label, query] of VIEWS) {
    // The same clusters in the same order either way (the unit tests' comparison, at this size).
    expect(ids(views.page(query, allowed, options).items)).toEqual(
      ids(pageOfClusters(judgedList(views), query).items),
    );
    views.page(query, allowed, options);
    const kept = times(() => views.page(query, allowed, options));
    const changed = times(i => {
      change(i);
      views.page(query, allowed, options);
    });
    const whole = times(() => pageOfClusters(judgedList(views), query));
    lines.push(
      `| \`${label}\` | ${ms(kept.p50)} / ${ms(kept.p99)} | ${ms(
        changed.p50,
      )} / ${ms(changed.p99)} | ${ms(whole.p50)} / ${ms(whole.p99)} |`,
    );
  }
  lines.push(
    '',
    `first whole list (every tree and summary built): ${ms(
      firstList,
    )}; first view (the orders built): ${ms(firstPage)}`,
  );
  process.stdout.write(`\n${lines.join('\n')}\n`);
});
