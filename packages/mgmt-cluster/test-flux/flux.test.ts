/**
 * Real Flux (source-controller and kustomize-controller v1.9.6, built from their Go modules) on a management cluster of
 * its own, reading a repository of a real Gitea (@internal/git-server's startGitea) over smart HTTP with basic auth:
 * Flux applies what Git holds, puts a live change of a field Git sets back at its next reconcile, and applies a
 * pushed commit. What it verifies is recorded in docs/flux-facts.md (each fact's "Verified" line).
 *
 * Part of the real-controllers lane (scripts/test-real-controllers.sh runs it once Flux and Gitea are built); alone,
 * test:flux builds the Kubernetes binaries, Flux and Gitea first (each cached; Flux and Gitea take minutes cold), so
 * the setup's bound only detects a hang:
 *
 *   yarn workspace @internal/mgmt-cluster test:flux
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
// git-server depends on this package, so it is not declared back as a dependency (a workspace cycle); the test
// reaches it through the workspace's node_modules, as the real-controllers lane reaches capz-sim.
import { startGitea, type GiteaServer } from '@internal/git-server';
import {
  apiRequest,
  startManagementCluster,
  stopManagementCluster,
  type ClusterInfo,
} from '../src/cluster.ts';
import {
  fluxStatus,
  followGitRepository,
  startFlux,
  stopFlux,
  type RunningFlux,
} from '../src/flux.ts';
import { fileHooks } from '../test-real/hooks.ts';
import { until } from '../test-real/wait.ts';

const run = promisify(execFile);

// Hang detectors, not timings.
/** Management cluster (its CRDs), Flux and Gitea, their binaries built before (test:flux): ~62 s under load. */
const SETUP_TIMEOUT = 600_000;
const TEARDOWN_TIMEOUT = 90_000;
/** One Flux reconcile: a fetch from Gitea, an artifact, a build and a server-side apply. */
const FLUX_TIMEOUT = 120_000;

let info: ClusterInfo;
let flux: RunningFlux;
let gitea: GiteaServer;
/** A clone of the repository, to commit and push from as a user would. */
let work: string;

const FLUX_NS = 'flux-system';
/** Where the repository's objects go (the manifests name it). */
const APP_NS = 'fleet';
const REPO = 'fleet';
const KS = 'fleet';

const GIT_ENV = {
  ...process.env,
  GIT_TERMINAL_PROMPT: '0',
  GIT_AUTHOR_NAME: 'flux-test',
  GIT_AUTHOR_EMAIL: 'flux-test@example.com',
  GIT_COMMITTER_NAME: 'flux-test',
  GIT_COMMITTER_EMAIL: 'flux-test@example.com',
};
const git = async (...args: string[]) =>
  (await run('git', ['-C', work, ...args], { env: GIT_ENV })).stdout.trim();

/** The repository's objects: a MachinePool (CAPI's CRD, as a GitOps repository holds it) and a ConfigMap. */
function manifests(replicas: number, colour: string): Record<string, string> {
  return {
    'kustomization.yaml': `apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources:
  - machinepool.yaml
  - configmap.yaml
`,
    'machinepool.yaml': `apiVersion: cluster.x-k8s.io/v1beta2
kind: MachinePool
metadata:
  name: pool1
  namespace: ${APP_NS}
spec:
  clusterName: aks1
  replicas: ${replicas}
  template:
    spec:
      clusterName: aks1
      bootstrap:
        dataSecretName: ""
      infrastructureRef:
        apiGroup: infrastructure.cluster.x-k8s.io
        kind: AzureASOManagedMachinePool
        name: pool1
`,
    'configmap.yaml': `apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
  namespace: ${APP_NS}
data:
  colour: ${colour}
`,
  };
}

/** Writes the manifests into the clone, commits and pushes them to Gitea's main; resolves with the commit. */
async function push(
  files: Record<string, string>,
  message: string,
): Promise<string> {
  for (const [path, text] of Object.entries(files))
    writeFileSync(join(work, path), text);
  await git('add', '-A');
  await git('commit', '-q', '-m', message);
  await git('push', '-q', 'origin', 'HEAD:main');
  // The commit as Gitea has it (what Flux will fetch).
  const branch = await gitea.api(
    'GET',
    `/repos/${gitea.username}/${REPO}/branches/main`,
  );
  return branch.commit.id as string;
}

type Obj = Record<string, any>;

async function get(path: string): Promise<Obj | undefined> {
  const r = await apiRequest(info, 'GET', path);
  if (r.status === 404) return undefined;
  assert.equal(r.status, 200, `GET ${path}: ${r.body}`);
  return JSON.parse(r.body) as Obj;
}

async function create(path: string, obj: Obj): Promise<void> {
  const r = await apiRequest(info, 'POST', path, obj);
  assert.ok(
    r.status === 201 || r.status === 409,
    `POST ${path}: ${r.status} ${r.body}`,
  );
}

async function mergePatch(path: string, body: Obj): Promise<Obj> {
  const r = await apiRequest(
    info,
    'PATCH',
    path,
    body,
    'application/merge-patch+json',
  );
  assert.equal(r.status, 200, `PATCH ${path}: ${r.body}`);
  return JSON.parse(r.body) as Obj;
}

const GITREPO = `/apis/source.toolkit.fluxcd.io/v1/namespaces/${FLUX_NS}/gitrepositories/${REPO}`;
const KUSTOMIZATION = `/apis/kustomize.toolkit.fluxcd.io/v1/namespaces/${FLUX_NS}/kustomizations/${KS}`;
const POOL = `/apis/cluster.x-k8s.io/v1beta2/namespaces/${APP_NS}/machinepools/pool1`;
const CONFIGMAP = `/api/v1/namespaces/${APP_NS}/configmaps/settings`;

const ready = (o: Obj | undefined) =>
  (o?.status?.conditions as Obj[] | undefined)?.find(c => c.type === 'Ready');

/** The revision string Flux gives a commit of a branch (docs/flux-facts.md#flux-status). */
const revision = (commit: string) => `main@sha1:${commit}`;

/** Waits until the Kustomization is Ready and applied `rev`, having handled reconcile request `requested` if given. */
async function appliedRevision(rev: string, requested?: string): Promise<Obj> {
  return until(
    `Kustomization ${KS} Ready with lastAppliedRevision ${rev}${
      requested ? ` after request ${requested}` : ''
    }`,
    async () => {
      const k = await get(KUSTOMIZATION);
      const r = ready(k);
      if (!k || r?.status !== 'True' || k.status.lastAppliedRevision !== rev)
        return undefined;
      if (requested && k.status.lastHandledReconcileAt !== requested)
        return undefined;
      return k;
    },
    FLUX_TIMEOUT,
  );
}

/** Asks Flux to reconcile now (the annotation its predicates react to; docs/flux-facts.md#flux-reconcile-triggers). */
async function requestReconcile(path: string): Promise<string> {
  const token = `test-${Date.now()}-${Math.random().toString(16).slice(2, 8)}`;
  await mergePatch(path, {
    metadata: { annotations: { 'reconcile.fluxcd.io/requestedAt': token } },
  });
  return token;
}

/** The field managers of a field path such as `f:spec` → `f:replicas`, from managedFields. */
function managersOf(o: Obj, path: string[]): string[] {
  return (o.metadata.managedFields as Obj[])
    .filter(
      m =>
        path.reduce<Obj | undefined>((n, k) => n?.[k], m.fieldsV1) !==
        undefined,
    )
    .map(m => `${m.manager}/${m.operation}`);
}

let firstCommit: string;

fileHooks({
  setup: async () => {
    info = await startManagementCluster({
      name: `flux-${process.pid}`,
      ephemeral: true,
    });
    flux = await startFlux(info);
    // Gitea in the cluster's state folder: the lane runner finds (and stops) what names that folder.
    gitea = await startGitea({
      root: join(info.stateDir, 'gitea'),
      repos: [REPO],
    });
    work = join(info.stateDir, 'work');
    mkdirSync(work, { recursive: true });
    const authed = new URL(gitea.repoUrl(REPO));
    authed.username = gitea.username;
    authed.password = gitea.password;
    await run('git', ['clone', '-q', authed.toString(), work], {
      env: GIT_ENV,
    });
    firstCommit = await push(
      manifests(2, 'blue'),
      'fleet: pool1 with 2 replicas',
    );

    for (const ns of [FLUX_NS, APP_NS])
      await create('/api/v1/namespaces', {
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name: ns },
      });
    // Basic auth as docs/flux-facts.md#flux-git-auth reads it: the repository is private to Gitea's admin user.
    await create(`/api/v1/namespaces/${FLUX_NS}/secrets`, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'gitea-auth' },
      stringData: { username: gitea.username, password: gitea.password },
    });
    await create(
      `/apis/source.toolkit.fluxcd.io/v1/namespaces/${FLUX_NS}/gitrepositories`,
      {
        apiVersion: 'source.toolkit.fluxcd.io/v1',
        kind: 'GitRepository',
        metadata: { name: REPO },
        spec: {
          url: gitea.repoUrl(REPO),
          ref: { branch: 'main' },
          secretRef: { name: 'gitea-auth' },
          // Long: every reconcile the tests wait for is one they ask for, never the periodic one.
          interval: '1h',
        },
      },
    );
    await create(
      `/apis/kustomize.toolkit.fluxcd.io/v1/namespaces/${FLUX_NS}/kustomizations`,
      {
        apiVersion: 'kustomize.toolkit.fluxcd.io/v1',
        kind: 'Kustomization',
        metadata: { name: KS },
        spec: {
          sourceRef: { kind: 'GitRepository', name: REPO },
          path: './',
          prune: true,
          interval: '1h',
        },
      },
    );
  },
  setupTimeoutMs: SETUP_TIMEOUT,
  teardown: async () => {
    try {
      await gitea?.close();
    } finally {
      if (info) {
        await stopFlux(info);
        await stopManagementCluster(info);
      }
    }
  },
  teardownTimeoutMs: TEARDOWN_TIMEOUT,
});

test(
  'source-controller fetches the Gitea repository with basic auth and serves it as an artifact',
  { timeout: FLUX_TIMEOUT },
  async () => {
    const repo = await until(
      `GitRepository ${REPO} Ready at ${firstCommit}`,
      async () => {
        const g = await get(GITREPO);
        return ready(g)?.status === 'True' &&
          g?.status?.artifact?.revision === revision(firstCommit)
          ? g
          : undefined;
      },
      FLUX_TIMEOUT,
    );
    // The artifact URL is the advertised loopback address (docs/flux-facts.md#flux-artifact-url), and it serves.
    const url = repo.status.artifact.url as string;
    assert.ok(
      url.startsWith(`${flux.storageUrl}/`),
      `artifact url ${url} under ${flux.storageUrl}`,
    );
    const res = await fetch(url);
    assert.equal(res.status, 200, `GET ${url}`);
    assert.ok((await res.arrayBuffer()).byteLength > 0);
  },
);

test(
  'kustomize-controller applies what Git holds, labelled as its own, by server-side apply',
  { timeout: FLUX_TIMEOUT },
  async () => {
    const k = await appliedRevision(revision(firstCommit));
    assert.equal(ready(k)?.reason, 'ReconciliationSucceeded');
    assert.equal(
      ready(k)?.message,
      `Applied revision: ${revision(firstCommit)}`,
    );
    const inventory = (k.status.inventory.entries as Obj[])
      .map(e => e.id)
      .sort();
    assert.deepEqual(inventory, [
      `${APP_NS}_pool1_cluster.x-k8s.io_MachinePool`,
      `${APP_NS}_settings__ConfigMap`,
    ]);

    const pool = await get(POOL);
    assert.ok(pool, 'MachinePool pool1 exists');
    assert.equal(pool.spec.replicas, 2);
    assert.equal(pool.metadata.labels['kustomize.toolkit.fluxcd.io/name'], KS);
    assert.equal(
      pool.metadata.labels['kustomize.toolkit.fluxcd.io/namespace'],
      FLUX_NS,
    );
    assert.deepEqual(managersOf(pool, ['f:spec', 'f:replicas']), [
      'kustomize-controller/Apply',
    ]);
    const cm = await get(CONFIGMAP);
    assert.equal(cm?.data.colour, 'blue');
    assert.equal(cm?.metadata.labels['kustomize.toolkit.fluxcd.io/name'], KS);
  },
);

test(
  'a live change of a field Git sets is put back at the next reconcile',
  { timeout: FLUX_TIMEOUT },
  async () => {
    await appliedRevision(revision(firstCommit));
    // Another field manager changes what Git sets (as `kubectl scale` or an edit would).
    const scaled = await mergePatch(`${POOL}?fieldManager=someone-else`, {
      spec: { replicas: 5 },
    });
    assert.equal(scaled.spec.replicas, 5);
    await mergePatch(`${CONFIGMAP}?fieldManager=someone-else`, {
      data: { colour: 'red' },
    });

    const token = await requestReconcile(KUSTOMIZATION);
    await appliedRevision(revision(firstCommit), token);
    const pool = await get(POOL);
    assert.equal(pool?.spec.replicas, 2, 'Flux put the Git value back');
    assert.deepEqual(managersOf(pool!, ['f:spec', 'f:replicas']), [
      'kustomize-controller/Apply',
    ]);
    assert.equal((await get(CONFIGMAP))?.data.colour, 'blue');
  },
);

test(
  'a pushed commit is fetched and applied',
  { timeout: FLUX_TIMEOUT },
  async () => {
    await appliedRevision(revision(firstCommit));
    const second = await push(
      manifests(3, 'green'),
      'fleet: pool1 to 3 replicas',
    );
    assert.notEqual(second, firstCommit);
    // Ask the source to fetch now; the Kustomization follows the new artifact revision by itself.
    await requestReconcile(GITREPO);
    await appliedRevision(revision(second));
    const pool = await get(POOL);
    assert.equal(pool?.spec.replicas, 3);
    assert.equal((await get(CONFIGMAP))?.data.colour, 'green');
  },
);

test(
  'kustomize-controller is built without SOPS: a Kustomization asking for decryption fails in words, applying nothing',
  { timeout: FLUX_TIMEOUT },
  async () => {
    // The same source; its objects into a namespace that does not exist, so that upstream's controller (which would
    // build it) fails too, at the apply, with other words (docs/flux-facts.md#trimmed-kustomize-controller).
    const name = 'wants-sops';
    await create(
      `/apis/kustomize.toolkit.fluxcd.io/v1/namespaces/${FLUX_NS}/kustomizations`,
      {
        apiVersion: 'kustomize.toolkit.fluxcd.io/v1',
        kind: 'Kustomization',
        metadata: { name },
        spec: {
          sourceRef: { kind: 'GitRepository', name: REPO },
          path: './',
          prune: false,
          interval: '1h',
          targetNamespace: 'no-such-namespace',
          decryption: { provider: 'sops' },
        },
      },
    );
    const k = await until(
      `Kustomization ${name} not Ready`,
      async () => {
        const o = await get(
          `/apis/kustomize.toolkit.fluxcd.io/v1/namespaces/${FLUX_NS}/kustomizations/${name}`,
        );
        return ready(o)?.status === 'False' ? o : undefined;
      },
      FLUX_TIMEOUT,
    );
    assert.match(
      ready(k)?.message ?? '',
      /spec\.decryption is not supported: this kustomize-controller is built without SOPS/,
    );
    assert.equal(k.status.inventory, undefined, 'nothing applied');
  },
);

test(
  "the demo's restart: a Gitea restarted on its root keeps its repository and password, followGitRepository re-points Flux at its new port, fluxStatus says so",
  { timeout: SETUP_TIMEOUT },
  async () => {
    const root = join(info.stateDir, 'gitea-kept');
    const first = await startGitea({ root, repos: ['kept'] });
    let commit: string;
    try {
      // A ConfigMap in the repository, pushed as a user would.
      const clone = join(info.stateDir, 'kept-work');
      const authed = new URL(first.repoUrl('kept'));
      authed.username = first.username;
      authed.password = first.password;
      await run('git', ['clone', '-q', authed.toString(), clone], {
        env: GIT_ENV,
      });
      writeFileSync(
        join(clone, 'kept.yaml'),
        `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: kept\n  namespace: ${APP_NS}\ndata:\n  a: "1"\n`,
      );
      const g = (...a: string[]) =>
        run('git', ['-C', clone, ...a], { env: GIT_ENV });
      await g('add', '-A');
      await g('commit', '-q', '-m', 'kept');
      await g('push', '-q', 'origin', 'HEAD:main');
      commit = (await g('rev-parse', 'HEAD')).stdout.trim();
      await followGitRepository(info, {
        url: first.repoUrl('kept'),
        username: first.username,
        password: first.password,
        name: 'kept',
        interval: '1h',
      });
      await until(
        'fluxStatus to say Kustomization flux-system/kept applied the commit',
        async () =>
          (
            await fluxStatus(info)
          ).some(
            l =>
              l.startsWith('Kustomization flux-system/kept: Ready=True') &&
              l.endsWith(`applied main@sha1:${commit}`),
          ) || undefined,
        FLUX_TIMEOUT,
      );
    } finally {
      await first.close();
    }
    const second = await startGitea({ root, repos: ['kept'] });
    try {
      assert.notEqual(second.url, first.url, 'another free port');
      assert.equal(second.password, first.password);
      const branch = await second.api(
        'GET',
        `/repos/${second.username}/kept/branches/main`,
      );
      assert.equal(branch.commit.id, commit!, 'the repository kept its commit');
      await followGitRepository(info, {
        url: second.repoUrl('kept'),
        username: second.username,
        password: second.password,
        name: 'kept',
        interval: '1h',
      });
      const repo = `/apis/source.toolkit.fluxcd.io/v1/namespaces/${FLUX_NS}/gitrepositories/kept`;
      assert.equal((await get(repo))?.spec.url, second.repoUrl('kept'));
      const token = await requestReconcile(repo);
      await until(
        'the GitRepository to fetch the same commit from the new port',
        async () => {
          const r = await get(repo);
          return (
            (r?.status?.lastHandledReconcileAt === token &&
              ready(r)?.status === 'True' &&
              r.status.artifact?.revision === revision(commit!)) ||
            undefined
          );
        },
        FLUX_TIMEOUT,
      );
      assert.equal(
        (await get(`/api/v1/namespaces/${APP_NS}/configmaps/kept`))?.data.a,
        '1',
      );
    } finally {
      await second.close();
    }
  },
);
