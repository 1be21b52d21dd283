#!/usr/bin/env node
/**
 * Does the watch of a kind without changes relist after etcd compaction? Not a test: it prints what the API server's
 * audit log saw (docs/scale.md#quiet-watches).
 *
 * A local management cluster (compaction every COMPACT, ManagedCluster read from etcd as in docs/scale.md's 10,000
 * setting, its watch cache off) with three informers: Cluster and ResourceGroup (served from the watch cache) and
 * ManagedCluster (from etcd). Nothing of those kinds changes; a ConfigMap is written every 2 s so that the revision
 * moves and compaction passes the informers' resourceVersions. After MINUTES it prints the LIST and WATCH requests
 * per resource that ended in that time. By default the informers are client-node's `makeInformer`, as ClusterWatch
 * builds them; BOOKMARKS=1 uses `ListWatch` with `allowWatchBookmarks=true`, an idle limit of IDLE_MS (default
 * 150000) and, with TIMEOUT_S, a server-side `timeoutSeconds`, and prints each bookmark.
 *
 *   node packages/bench/quiet-watch.mjs                   (COMPACT=20s MINUTES=3; Node 24: the toolchain's)
 *   BOOKMARKS=1 node packages/bench/quiet-watch.mjs
 */
import { createRequire } from 'node:module';
import { auditSince, auditSize } from './src/util.ts';

const repo = new URL('../../', import.meta.url);
const require = createRequire(
  new URL('plugins/capz-backend/package.json', repo),
);
const { startManagementCluster, stopManagementCluster } = await import(
  new URL('packages/mgmt-cluster/src/index.ts', repo).href
);
const k8s = await import(require.resolve('@kubernetes/client-node'));

const COMPACT = process.env.COMPACT ?? '20s';
const MINUTES = Number(process.env.MINUTES ?? '3');
const BOOKMARKS = Boolean(process.env.BOOKMARKS);
const KINDS = [
  ['cluster.x-k8s.io', 'v1beta2', 'clusters'],
  ['containerservice.azure.com', 'v1api20240901', 'managedclusters'],
  ['resources.azure.com', 'v1api20200601', 'resourcegroups'],
];

const info = await startManagementCluster({
  name: 'quiet-watch',
  ephemeral: true,
  extraApiserverArgs: [
    `--etcd-compaction-interval=${COMPACT}`,
    '--watch-cache-sizes=managedclusters.containerservice.azure.com#0',
  ],
});
const time = () => new Date().toISOString().slice(11, 19);
try {
  const kc = new k8s.KubeConfig();
  kc.loadFromFile(info.kubeconfigPath);
  const core = kc.makeApiClient(k8s.CoreV1Api);
  const custom = kc.makeApiClient(k8s.CustomObjectsApi);
  const auditStart = auditSize(info.auditLog);

  const informers = [];
  let stopping = false;
  for (const [group, version, plural] of KINDS) {
    const path = `/apis/${group}/${version}/${plural}`;
    const listFn = () =>
      custom.listClusterCustomObject({ group, version, plural });
    let informer;
    if (BOOKMARKS) {
      const inner = new k8s.Watch(kc);
      inner.requestTimeoutMs = Number(process.env.IDLE_MS ?? 150_000);
      const extra = { allowWatchBookmarks: true };
      if (process.env.TIMEOUT_S)
        extra.timeoutSeconds = Number(process.env.TIMEOUT_S);
      const watch = {
        watch: (p, params, callback, done) =>
          inner.watch(
            p,
            { ...params, ...extra },
            (type, obj, raw) => {
              if (type === 'BOOKMARK')
                console.log(
                  `${time()} bookmark ${plural} ${
                    obj.metadata.resourceVersion
                  }`,
                );
              return callback(type, obj, raw);
            },
            done,
          ),
      };
      informer = new k8s.ListWatch(path, watch, listFn, false);
    } else {
      informer = k8s.makeInformer(kc, path, listFn);
    }
    informer.on('error', e => {
      if (!stopping) console.log(`${time()} ${plural}: ${e.message}`);
    });
    await informer.start();
    informers.push(informer);
  }
  console.log(`${time()} listed; compaction every ${COMPACT}, ${MINUTES} min`);

  await core.createNamespace({ body: { metadata: { name: 'churn' } } });
  const end = Date.now() + MINUTES * 60_000;
  for (let i = 0; Date.now() < end; i++) {
    await core.createNamespacedConfigMap({
      namespace: 'churn',
      body: { metadata: { name: `c${i}` } },
    });
    await new Promise(r => setTimeout(r, 2000));
  }
  stopping = true;
  for (const informer of informers) await informer.stop();

  const counts = new Map();
  for (const e of auditSince(info.auditLog, auditStart)) {
    // A cluster-wide list or watch of a kind: /apis/<group>/<version>/<plural>.
    const resource = new URL(e.requestURI, 'https://x').pathname
      .split('/')
      .pop();
    if (!['list', 'watch'].includes(e.verb)) continue;
    if (!KINDS.some(k => k[2] === resource)) continue;
    const key = `${e.verb} ${resource}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  console.log(
    `${
      BOOKMARKS ? 'ListWatch with bookmarks' : 'makeInformer'
    }: requests that ended in ${MINUTES} min`,
  );
  for (const [key, n] of [...counts].sort()) console.log(`  ${n}\t${key}`);
} finally {
  await stopManagementCluster(info);
}
process.exit(0);
