/**
 * gitChangeFor on real parts: the template's layout (capz-common `clusterProposal`) in a repository of a real Gitea
 * (@internal/git-server's startGitea), a Flux Kustomization and its GitRepository (Flux's CRDs from the module zips:
 * no controller is built or running) and the MachinePool it applied on the run's kube-apiserver, read through the backend's management-cluster client
 * and the Git edge with the `integrations` config. A scale plan becomes a diff of exactly the MachinePool's replicas
 * line, read at the revision the Kustomization last applied (not the branch's newer tip, which has another count).
 */
import { mockServices } from '@backstage/backend-test-utils';
import {
  clusterProposal,
  computeDeletePreview,
  type AksAsoClusterParams,
  type Day2Plan,
  type ObservedObject,
} from '@capz-backstage/plugin-capz-common';
// eslint-disable-next-line @backstage/no-undeclared-imports
import { installFluxCrds } from '@internal/mgmt-cluster/flux';
import { startGitea, type GiteaServer } from '@internal/git-server';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { gitOpsSourceClient } from '../cluster/clientViews';
import { ManagementClusterClient } from '../cluster/ManagementClusterClient';
import { gitOpsRepository } from '../git/GitOpsRepository';
import {
  adminKubeConfig,
  kube,
  loadClientForTests,
  testClusterInfo,
  type ClusterInfo,
} from '../testing/realCluster';
import { day2GitOps, gitChangeFor } from './gitChange';
import {
  FLUX_RECONCILE_ANNOTATION,
  gitDeleteBody,
  gitDeleteFor,
} from './gitDelete';

const ns = `t-gitchange-${randomBytes(3).toString('hex')}`;
const params: AksAsoClusterParams = {
  name: 'git-a',
  namespace: ns,
  location: 'westeurope',
  kubernetesVersion: 'v1.33.2',
  credentialSecretName: 'aso-credential',
  owner: 'group:default/team-a',
  pools: [
    { name: 'pool0', mode: 'System', vmSize: 'Standard_D2s_v3', replicas: 2 },
    { name: 'pool1', mode: 'User', vmSize: 'Standard_D4s_v3', replicas: 1 },
  ],
};
const proposal = clusterProposal({ params, managementCluster: 'test' });
const clusterFile = proposal.files.find(f => f.path.endsWith('cluster.yaml'))!;

let info: ClusterInfo;
let client: ManagementClusterClient;
let gitea: GiteaServer;
/** The commit Flux "applied" (the template's files), and the branch's newer tip. */
let applied: string;
let tip: string;

/** Runs git on a clone of the Gitea repository with the admin's credentials in the URL (a test seed only). */
function seed(): { applied: string; tip: string } {
  const work = mkdtempSync(join(tmpdir(), 'capz-gitchange-seed-'));
  const url = new URL(gitea.repoUrl('gitops'));
  url.username = gitea.username;
  url.password = gitea.password;
  const git = (...args: string[]) =>
    execFileSync('git', ['-C', work, ...args], {
      encoding: 'utf8',
      env: {
        ...process.env,
        GIT_AUTHOR_NAME: 'seed',
        GIT_AUTHOR_EMAIL: 'seed@localhost',
        GIT_COMMITTER_NAME: 'seed',
        GIT_COMMITTER_EMAIL: 'seed@localhost',
      },
    }).trim();
  try {
    execFileSync('git', ['clone', '--quiet', url.toString(), work]);
    for (const f of proposal.files) {
      mkdirSync(dirname(join(work, f.path)), { recursive: true });
      writeFileSync(join(work, f.path), f.content);
    }
    git('add', '-A');
    git('commit', '--quiet', '-m', proposal.commitMessage);
    const first = git('rev-parse', 'HEAD');
    // A later commit Flux has not applied yet: pool0 at 5 in Git. The change is made from what Flux applied.
    const file = join(work, clusterFile.path);
    if (clusterFile.content.split('  replicas: 2\n').length !== 2)
      throw new Error('the template wrote pool0 otherwise: fix the test');
    writeFileSync(
      file,
      clusterFile.content.replace('  replicas: 2\n', '  replicas: 5\n'),
    );
    git('commit', '--quiet', '-am', 'A later commit Flux has not applied');
    git('push', '--quiet', 'origin', 'main');
    return { applied: first, tip: git('rev-parse', 'HEAD') };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

async function ok(
  p: Promise<{ status: number; body: any }>,
  what: string,
): Promise<any> {
  const r = await p;
  if (r.status >= 300)
    throw new Error(`${what}: HTTP ${r.status} ${JSON.stringify(r.body)}`);
  return r.body;
}

beforeAll(async () => {
  info = testClusterInfo();
  const k8s = await loadClientForTests();
  const kc = adminKubeConfig(k8s, info);
  client = new ManagementClusterClient(k8s, kc);
  gitea = await startGitea({ repos: ['gitops'] });
  ({ applied, tip } = seed());
  await installFluxCrds(info);
  await ok(
    kube(info, 'POST', '/api/v1/namespaces', { metadata: { name: ns } }),
    `namespace ${ns}`,
  );

  // The MachinePool as kustomize-controller applied it: the document of cluster.yaml with its labels (docs/flux-facts.md#flux-labels).
  const pool = parseAllDocuments(clusterFile.content)
    .map(d => d.toJS())
    .find(o => o.kind === 'MachinePool' && o.metadata.name === 'git-a-pool0');
  pool.metadata.labels = {
    ...pool.metadata.labels,
    'kustomize.toolkit.fluxcd.io/name': 'clusters',
    'kustomize.toolkit.fluxcd.io/namespace': ns,
  };
  await ok(
    kube(
      info,
      'POST',
      `/apis/cluster.x-k8s.io/v1beta2/namespaces/${ns}/machinepools`,
      pool,
    ),
    'MachinePool',
  );

  await ok(
    kube(
      info,
      'POST',
      `/apis/source.toolkit.fluxcd.io/v1/namespaces/${ns}/gitrepositories`,
      {
        apiVersion: 'source.toolkit.fluxcd.io/v1',
        kind: 'GitRepository',
        metadata: { name: 'gitops', namespace: ns },
        spec: {
          url: gitea.repoUrl('gitops'),
          interval: '1m',
          ref: { branch: 'main' },
        },
      },
    ),
    'GitRepository',
  );
  await ok(
    kube(
      info,
      'POST',
      `/apis/kustomize.toolkit.fluxcd.io/v1/namespaces/${ns}/kustomizations`,
      {
        apiVersion: 'kustomize.toolkit.fluxcd.io/v1',
        kind: 'Kustomization',
        metadata: { name: 'clusters', namespace: ns },
        spec: {
          interval: '10m',
          path: './clusters',
          prune: true,
          sourceRef: { kind: 'GitRepository', name: 'gitops' },
        },
      },
    ),
    'Kustomization',
  );
  // What kustomize-controller writes once it applied the first commit (FL12): the status subresource.
  await ok(
    kube(
      info,
      'PATCH',
      `/apis/kustomize.toolkit.fluxcd.io/v1/namespaces/${ns}/kustomizations/clusters/status`,
      { status: { lastAppliedRevision: `main@sha1:${applied}` } },
      'application/merge-patch+json',
    ),
    'Kustomization status',
  );
}, 1_800_000); // a hang detector: a cold build of Gitea takes minutes when run alone (Flux: only its CRDs, seconds)
afterAll(async () => {
  await gitea?.close();
  if (info)
    await kube(info, 'DELETE', `/api/v1/namespaces/${ns}`).catch(
      () => undefined,
    );
});

const repository = () =>
  gitOpsRepository({
    config: mockServices.rootConfig({
      data: {
        integrations: {
          gitea: [
            {
              host: gitea.host,
              baseUrl: gitea.url,
              username: gitea.username,
              password: gitea.password,
            },
          ],
        },
      },
    }),
  });

const scalePlan = (name: string, before: number, after: number): Day2Plan => ({
  action: { action: 'scale', pool: 'pool0', replicas: after },
  changes: [
    {
      apiVersion: 'cluster.x-k8s.io/v1beta2',
      kind: 'MachinePool',
      namespace: ns,
      name,
      operation: 'update',
      fields: [{ path: 'spec.replicas', before, after }],
    },
  ],
  warnings: [],
  applied: false,
  appliedBy: [
    {
      kind: 'MachinePool',
      namespace: ns,
      name,
      appliedBy: `Flux's Kustomization ${ns}/clusters`,
      blocks: true,
    },
  ],
});

describe('gitChangeFor', () => {
  it("writes a scale plan into the MachinePool's document at the revision the Kustomization applied: one replicas line", async () => {
    expect(tip).not.toBe(applied);
    const change = await gitChangeFor(
      scalePlan('git-a-pool0', 2, 3),
      gitOpsSourceClient(client),
      repository(),
    );
    if (!change?.ok) throw new Error(JSON.stringify(change));
    expect(change.source).toEqual({
      kustomization: { namespace: ns, name: 'clusters' },
      gitRepository: { namespace: ns, name: 'gitops' },
      url: gitea.repoUrl('gitops'),
      branch: 'main',
      path: './clusters',
      revision: `main@sha1:${applied}`,
      commit: applied,
      prune: true,
      // The Kustomization's build fields, as the edit read the files with them.
      spec: expect.objectContaining({ path: './clusters', prune: true }),
    });
    expect(change.byHand).toEqual([]);
    expect(change.notes).toEqual([]);
    expect(change.files.map(f => f.path)).toEqual([clusterFile.path]);
    const [file] = change.files;
    expect(file.before).toBe(clusterFile.content);
    const changed = file.diff
      .split('\n')
      .filter(l => /^[-+](?![-+]{2} )/.test(l));
    expect(changed).toEqual(['-  replicas: 2', '+  replicas: 3']);
    // Only that line: every other line of the file is as Git has it.
    const before = file.before.split('\n');
    const after = file.after!.split('\n');
    expect(after).toHaveLength(before.length);
    expect(after.filter((l, i) => l !== before[i])).toEqual(['  replicas: 3']);
  });

  it('is no Git change for a plan nothing applies from Git, and says why for a Kustomization that is gone', async () => {
    const plan = scalePlan('git-a-pool0', 2, 3);
    expect(
      await gitChangeFor(
        { ...plan, appliedBy: [] },
        gitOpsSourceClient(client),
        repository(),
      ),
    ).toBeUndefined();

    // A MachinePool that names a Kustomization the cluster does not have.
    const moved = await ok(
      kube(
        info,
        'PATCH',
        `/apis/cluster.x-k8s.io/v1beta2/namespaces/${ns}/machinepools/git-a-pool0`,
        {
          metadata: { labels: { 'kustomize.toolkit.fluxcd.io/name': 'gone' } },
        },
        'application/merge-patch+json',
      ),
      'relabel',
    );
    try {
      expect(
        await gitChangeFor(plan, gitOpsSourceClient(client), repository()),
      ).toEqual({
        ok: false,
        reason: `Kustomization ${ns}/gone is not on the management cluster`,
        source: { kustomization: { namespace: ns, name: 'gone' } },
      });
    } finally {
      expect(moved.metadata.labels['kustomize.toolkit.fluxcd.io/name']).toBe(
        'gone',
      );
      await ok(
        kube(
          info,
          'PATCH',
          `/apis/cluster.x-k8s.io/v1beta2/namespaces/${ns}/machinepools/git-a-pool0`,
          {
            metadata: {
              labels: { 'kustomize.toolkit.fluxcd.io/name': 'clusters' },
            },
          },
          'application/merge-patch+json',
        ),
        'relabel back',
      );
    }
  });

  it('proposes the change as one commit on the revision Flux applied, with a pull request; proposing it again finds both', async () => {
    const change = await gitChangeFor(
      scalePlan('git-a-pool0', 2, 3),
      gitOpsSourceClient(client),
      repository(),
    );
    if (!change?.ok) throw new Error(JSON.stringify(change));
    const gitOps = day2GitOps({
      client: async () => gitOpsSourceClient(client),
      repository: repository(),
      author: { name: 'Backstage CAPZ', email: 'capz@backstage.local' },
    });
    const branch = `capz/${ns}-git-a-scale-0123456789ab`;
    const request = {
      branch,
      title: `Scale pool pool0 to 3 (cluster ${ns}/git-a)`,
      body: 'Proposed from Backstage by user:default/jane',
    };
    const first = await gitOps.propose(change, request);
    expect(first.branch).toBe(branch);
    expect(first.pullRequest?.number).toBeGreaterThan(0);
    expect(await gitOps.propose(change, request)).toEqual(first);

    const repo = `/repos/${gitea.username}/gitops`;
    const pulls = (await gitea.api(
      'GET',
      `${repo}/pulls?state=open`,
    )) as Array<{
      number: number;
      title: string;
      head: { ref: string };
      base: { ref: string };
    }>;
    expect(
      pulls
        .filter(x => x.head.ref === branch)
        .map(x => [x.number, x.base.ref, x.title]),
    ).toEqual([[first.pullRequest!.number, 'main', request.title]]);
    // One commit whose parent is the commit Flux applied (not the branch's newer tip): the pull request's merge
    // meets the later commit's line, it does not overwrite it.
    const commit = await gitea.api(
      'GET',
      `${repo}/git/commits/${first.commit}`,
    );
    expect(commit.parents.map((x: { sha: string }) => x.sha)).toEqual([
      applied,
    ]);
    const file = await gitea.api(
      'GET',
      `${repo}/contents/${clusterFile.path}?ref=${encodeURIComponent(branch)}`,
    );
    expect(Buffer.from(file.content, 'base64').toString('utf8')).toBe(
      change.files[0].after,
    );
    // The cluster is as it was: the MachinePool still has 2.
    const pool = await ok(
      kube(
        info,
        'GET',
        `/apis/cluster.x-k8s.io/v1beta2/namespaces/${ns}/machinepools/git-a-pool0`,
      ),
      'MachinePool',
    );
    expect(pool.spec.replicas).toBe(2);
  });
});

describe('a cluster delete through Git', () => {
  const fluxLabels = {
    'kustomize.toolkit.fluxcd.io/name': 'clusters',
    'kustomize.toolkit.fluxcd.io/namespace': ns,
  };
  /** Every object of the template's cluster file, as kustomize-controller applied it (its labels), read back live. */
  async function applyTheCluster(): Promise<ObservedObject[]> {
    const out: ObservedObject[] = [];
    for (const o of parseAllDocuments(clusterFile.content).map(d => d.toJS())) {
      const [group, version] = o.apiVersion.split('/');
      const path = `/apis/${group}/${version}/namespaces/${ns}/${o.kind.toLowerCase()}s`;
      const name = o.metadata.name;
      const got = await kube(info, 'GET', `${path}/${name}`);
      if (got.status === 404) {
        o.metadata.labels = { ...o.metadata.labels, ...fluxLabels };
        await ok(kube(info, 'POST', path, o), `${o.kind} ${name}`);
      }
      out.push(await ok(kube(info, 'GET', `${path}/${name}`), o.kind));
    }
    return out;
  }
  const gitOps = () =>
    day2GitOps({
      client: async () => gitOpsSourceClient(client),
      repository: repository(),
      author: { name: 'Backstage CAPZ', email: 'capz@backstage.local' },
    });

  it("removes the Cluster's manifest and marks every other manifest of the cluster reconcile-disabled, at the revision Flux applied; the pull request carries the Azure impact", async () => {
    const objects = await applyTheCluster();
    const cluster = objects.find(o => o.kind === 'Cluster')!;
    const git = await gitDeleteFor({
      gitOps: gitOps(),
      managementCluster: 'test',
      cluster,
      objects,
    });
    if (!git?.change) throw new Error(JSON.stringify(git?.view));
    expect(git.view.proposable).toBe(true);
    expect(git.planDigest).toMatch(/^[0-9a-f]{64}$/);
    expect(git.change.files.map(f => f.path)).toEqual([clusterFile.path]);
    const after = parseAllDocuments(git.change.files[0].after!).map(d =>
      d.toJS(),
    );
    // The Cluster's document is gone; the six others stay, each marked (Flux neither applies nor prunes them).
    expect(after.map(o => `${o.kind}/${o.metadata.name}`)).toEqual(
      objects
        .filter(o => o.kind !== 'Cluster')
        .map(o => `${o.kind}/${o.metadata?.name}`),
    );
    for (const o of after)
      expect(o.metadata.annotations?.[FLUX_RECONCILE_ANNOTATION]).toBe(
        'disabled',
      );
    expect(git.view.notes.join(' ')).toContain(
      `Flux deletes the Cluster ${ns}/git-a (prune) and CAPI deletes the rest`,
    );

    const preview = computeDeletePreview('test', cluster, objects, [], {
      throughGit: true,
    });
    const branch = `capz/${ns}-git-a-delete-${git.planDigest!.slice(0, 12)}`;
    const proposed = await gitOps().propose(git.change, {
      branch,
      title: `Delete cluster ${ns}/git-a`,
      body: gitDeleteBody({
        preview,
        change: git.change,
        notes: git.view.notes,
        actor: 'user:default/jane',
      }),
    });
    expect(proposed.pullRequest?.number).toBeGreaterThan(0);
    const repo = `/repos/${gitea.username}/gitops`;
    const pr = await gitea.api(
      'GET',
      `${repo}/pulls/${proposed.pullRequest!.number}`,
    );
    expect(pr.body).toContain(
      `Proposed from Backstage by user:default/jane: delete cluster ${ns}/git-a on management cluster test.`,
    );
    expect(pr.body).toContain('Deleted in Azure once merged:');
    const commit = await gitea.api(
      'GET',
      `${repo}/git/commits/${proposed.commit}`,
    );
    expect(commit.parents.map((x: { sha: string }) => x.sha)).toEqual([
      applied,
    ]);
    // Nothing was deleted live.
    expect(
      (
        await kube(
          info,
          'GET',
          `/apis/cluster.x-k8s.io/v1beta2/namespaces/${ns}/clusters/git-a`,
        )
      ).status,
    ).toBe(200);
  });

  it('is not proposable when the Kustomization does not prune: Flux would keep the Cluster', async () => {
    const objects = await applyTheCluster();
    const cluster = objects.find(o => o.kind === 'Cluster')!;
    const path = `/apis/kustomize.toolkit.fluxcd.io/v1/namespaces/${ns}/kustomizations/clusters`;
    await ok(
      kube(
        info,
        'PATCH',
        path,
        { spec: { prune: false } },
        'application/merge-patch+json',
      ),
      'prune: false',
    );
    try {
      const git = await gitDeleteFor({
        gitOps: gitOps(),
        managementCluster: 'test',
        cluster,
        objects,
      });
      expect(git?.change).toBeUndefined();
      expect(git?.planDigest).toBeUndefined();
      expect(git?.view.reason).toContain(
        `Kustomization ${ns}/clusters has prune: false, so Flux would keep the Cluster when its manifest goes`,
      );
    } finally {
      await ok(
        kube(
          info,
          'PATCH',
          path,
          { spec: { prune: true } },
          'application/merge-patch+json',
        ),
        'prune: true',
      );
    }
  });
});
