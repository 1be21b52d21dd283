/**
 * A cluster's Git source on the real API server of the test run (CAPZ_TEST_CLUSTER): Flux's CRDs from the module zips
 * (@internal/mgmt-cluster's installFluxCrds; no controller runs, the test writes the status kustomize-controller and
 * source-controller would), a GitRepository, a Kustomization and a Cluster carrying its labels in a namespace of the
 * test's own. The backend's identity is the ServiceAccount bound to rbac/read.yaml: its list and watch of Flux's kinds
 * are enough. The summary comes from the watch cache, and each change of the Kustomization or GitRepository is
 * announced on the change signals with the Cluster's uid.
 */
import { mockServices } from '@backstage/backend-test-utils';
import {
  CAPZ_SIGNAL_CHANNEL,
  generateAksAsoClusterManifests,
} from '@capz-backstage/plugin-capz-common';
// eslint-disable-next-line @backstage/no-undeclared-imports
import { installFluxCrds } from '@internal/mgmt-cluster/flux';
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import YAML from 'yaml';
import { WatchCache } from '../cluster/WatchCache';
import { ChangeSignals } from '../live/ChangeSignals';
import {
  applyManifest,
  createObjects,
  deleteTestNamespace,
  kube,
  loadClientForTests,
  serviceAccountToken,
  testClusterInfo,
  type ClusterInfo,
} from '../testing/realCluster';
import { ClusterViews } from './clusterViews';

const ns = `t-gitsource-${randomBytes(3).toString('hex')}`;
const A = '1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d';
const B = '5d6e7f8091a2b3c4d5e6f708192a3b4c5d6e7f80';
const KS = `/apis/kustomize.toolkit.fluxcd.io/v1/namespaces/${ns}/kustomizations/clusters`;
const REPO = `/apis/source.toolkit.fluxcd.io/v1/namespaces/${ns}/gitrepositories/gitops`;

let info: ClusterInfo;
let cache: WatchCache;
let views: ClusterViews;
let live: ChangeSignals;
/** Resolves the next signal that names a Cluster uid. */
let nextSignal: (uid: string) => Promise<void>;

async function ok(
  p: Promise<{ status: number; body: any }>,
  what: string,
): Promise<any> {
  const r = await p;
  if (r.status >= 300)
    throw new Error(`${what}: HTTP ${r.status} ${JSON.stringify(r.body)}`);
  return r.body;
}

const merge = (path: string, body: unknown, what: string) =>
  ok(kube(info, 'PATCH', path, body, 'application/merge-patch+json'), what);

/** What source-controller writes once it fetched `commit` (docs/flux-facts.md#flux-status). */
const fetched = (commit: string) =>
  merge(
    `${REPO}/status`,
    {
      status: {
        artifact: {
          path: `gitrepository/${ns}/gitops/${commit}.tar.gz`,
          url: `http://127.0.0.1:9090/gitrepository/${ns}/gitops/${commit}.tar.gz`,
          revision: `main@sha1:${commit}`,
          digest: `sha256:${createHash('sha256').update(commit).digest('hex')}`,
          lastUpdateTime: new Date().toISOString(),
        },
      },
    },
    'GitRepository status',
  );

beforeAll(async () => {
  info = testClusterInfo();
  await installFluxCrds(info);
  await applyManifest(
    info,
    YAML.parseAllDocuments(
      readFileSync(join(__dirname, '..', '..', 'rbac', 'read.yaml'), 'utf8'),
    ).map(d => d.toJS()),
  );
  await ok(
    kube(info, 'POST', '/api/v1/namespaces', { metadata: { name: ns } }),
    `namespace ${ns}`,
  );
  // The cluster as kustomize-controller applied it: its objects carry the Kustomization's labels
  // (docs/flux-facts.md#flux-labels).
  const manifests = generateAksAsoClusterManifests({
    name: 'git-src',
    namespace: ns,
    location: 'westeurope',
    kubernetesVersion: 'v1.33.2',
    credentialSecretName: 'aso-credential',
    pools: [
      { name: 'pool0', mode: 'System', vmSize: 'Standard_D2s_v3', replicas: 1 },
    ],
  }).map(o => ({
    ...o,
    metadata: {
      ...o.metadata,
      labels: {
        ...(o.metadata as { labels?: Record<string, string> }).labels,
        'kustomize.toolkit.fluxcd.io/name': 'clusters',
        'kustomize.toolkit.fluxcd.io/namespace': ns,
      },
    },
  }));
  await createObjects(info, ns, manifests);
  await createObjects(info, ns, [
    {
      apiVersion: 'source.toolkit.fluxcd.io/v1',
      kind: 'GitRepository',
      metadata: { name: 'gitops' },
      spec: {
        // Credentials in the URL are allowed by Flux's CRD; they must never reach a page.
        url: 'https://flux:s3cret@git.example.com/org/gitops.git',
        interval: '1h',
        ref: { branch: 'main' },
      },
    } as { apiVersion: string; kind: string; metadata: { name: string } },
    {
      apiVersion: 'kustomize.toolkit.fluxcd.io/v1',
      kind: 'Kustomization',
      metadata: { name: 'clusters' },
      spec: {
        interval: '1h',
        path: './clusters',
        prune: true,
        sourceRef: { kind: 'GitRepository', name: 'gitops' },
      },
    } as { apiVersion: string; kind: string; metadata: { name: string } },
  ]);
  await fetched(A);
  const generation = (await ok(kube(info, 'GET', KS), 'Kustomization')).metadata
    .generation;
  // What kustomize-controller writes once it applied A (docs/flux-facts.md#flux-status).
  await merge(
    `${KS}/status`,
    {
      status: {
        observedGeneration: generation,
        lastAppliedRevision: `main@sha1:${A}`,
        conditions: [
          {
            type: 'Ready',
            status: 'True',
            reason: 'ReconciliationSucceeded',
            message: `Applied revision: main@sha1:${A}`,
            lastTransitionTime: new Date().toISOString(),
            observedGeneration: generation,
          },
        ],
      },
    },
    'Kustomization status',
  );

  const token = await serviceAccountToken(
    info,
    'capz-system',
    'capz-backstage',
  );
  const managementClusters = [
    {
      name: 'local',
      authMethod: 'serviceAccountToken' as const,
      url: info.url,
      caData: info.caPem,
      serviceAccountToken: token,
      namespaces: [ns],
    },
  ];
  cache = new WatchCache(
    managementClusters,
    mockServices.logger.mock(),
    loadClientForTests,
  );
  await cache.start();
  views = new ClusterViews(cache, ['local']);
  const waiters: Array<{ uid: string; resolve: () => void }> = [];
  live = new ChangeSignals(
    cache,
    ['local'],
    {
      publish: async (s: any) => {
        expect(s.channel).toBe(CAPZ_SIGNAL_CHANNEL);
        for (const w of waiters.splice(0))
          if (s.message.clusterUids.includes(w.uid)) w.resolve();
          else waiters.push(w);
      },
    },
    mockServices.logger.mock(),
    10,
  );
  live.start();
  nextSignal = uid => new Promise(resolve => waiters.push({ uid, resolve }));
}, 300_000);

afterAll(async () => {
  live?.stop();
  await cache?.stop();
  if (info) await deleteTestNamespace(info, ns);
}, 120_000);

const summary = () => views.tree('local', ns, 'git-src', 0).summary;

describe("a cluster's Git source, from the watch cache", () => {
  it('is read from the Kustomization and GitRepository the backend lists and watches with rbac/read.yaml', () => {
    const status = cache.status('local');
    expect(status.kinds.Kustomization).toMatchObject({
      version: 'v1',
      synced: true,
    });
    expect(status.kinds.GitRepository).toMatchObject({
      version: 'v1',
      synced: true,
    });
    expect(summary().gitSource).toEqual({
      kustomization: { namespace: ns, name: 'clusters' },
      source: { kind: 'GitRepository', namespace: ns, name: 'gitops' },
      sourceFound: true,
      url: 'https://git.example.com/org/gitops.git',
      branch: 'main',
      path: './clusters',
      lastAppliedRevision: `main@sha1:${A}`,
      sourceRevision: `main@sha1:${A}`,
      ready: {
        status: 'True',
        reason: 'ReconciliationSucceeded',
        message: `Applied revision: main@sha1:${A}`,
      },
      suspended: false,
      generation: 1,
      observedGeneration: 1,
      inSync: true,
    });
    // Flux's objects share the cluster's namespace here, and still are no part of its tree.
    const { tree } = views.tree('local', ns, 'git-src', 0);
    const kinds = new Set<string>();
    const walk = (n: typeof tree) => {
      kinds.add(n.kind);
      n.children.forEach(walk);
    };
    walk(tree);
    expect(kinds.has('Kustomization') || kinds.has('GitRepository')).toBe(
      false,
    );
  });

  it("follows the GitRepository's and the Kustomization's changes, each announced to the cluster's page", async () => {
    const uid = summary().uid;

    // source-controller fetched a newer commit: Flux has not applied it yet.
    let signal = nextSignal(uid);
    await fetched(B);
    await signal;
    expect(summary().gitSource).toMatchObject({
      lastAppliedRevision: `main@sha1:${A}`,
      sourceRevision: `main@sha1:${B}`,
      inSync: false,
    });

    // Suspended (spec.suspend: a new generation, docs/flux-facts.md#flux-suspend).
    signal = nextSignal(uid);
    await merge(KS, { spec: { suspend: true } }, 'suspend');
    await signal;
    expect(summary().gitSource).toMatchObject({
      suspended: true,
      generation: 2,
      observedGeneration: 1,
      inSync: false,
    });
  });
});
