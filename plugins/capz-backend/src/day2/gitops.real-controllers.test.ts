/**
 * A cluster applied from Git by a real Flux (source-controller and kustomize-controller v1.9.6, built from their Go
 * modules) reading a real Gitea, with the real CAPI v1.13.3, CAPZ v1.26.0 and ASO v2.18.0 managers and only Azure
 * simulated; day 2 through a real backend process's HTTP routes as the guest user. Part of the real-controllers lane
 * (`scripts/test-real-controllers.sh`). Every reconcile the tests wait for is one they ask for
 * (`reconcile.fluxcd.io/requestedAt`, what `flux reconcile` writes: docs/flux-facts.md#flux-reconcile-triggers), never
 * the periodic one. In order:
 * - the template's files (capz-common `clusterProposal`) merged on Gitea become a cluster that CAPZ creates in ARM;
 * - the hazard (docs/flux-facts.md#flux-ssa): a scale written live, as `kubectl scale` does, reaches ARM and is put
 *   back by Flux's next reconcile, and ARM follows it back;
 * - the same scale through the product: the preview is a diff of the file, the confirm opens a pull request and writes
 *   nothing live; merged, Flux applies it, ARM's pool reaches the count, and a later reconcile keeps it;
 * - a fleet upgrade of the cluster: each step (control plane, then pools) proposed as a pull request, the run waiting
 *   for each merge without timing it; merged, Flux applies it, ARM runs the version, and the run ends succeeded;
 * - an adoption into the namespace (docs/flux-facts.md#git-add-beside): the job adopts an Azure-only AKS cluster live,
 *   proposes its objects beside g1's, and once merged Flux applies them unchanged; Azure creates and deletes nothing;
 * - delete through Git (docs/flux-facts.md#git-delete): the pull request removes the Cluster's document and marks the
 *   others; merged, Flux prunes the Cluster alone, CAPI deletes the rest, Azure deletes what the preview said, and
 *   nothing comes back at the next reconcile.
 * - a migration in Git mode (docs/flux-facts.md#job-git-mode), as a migration wave (a fleet run) of one cluster: a
 *   legacy cluster Flux applies from its own Kustomization is migrated by the run's job, which suspends the
 *   Kustomization, migrates, proposes the new manifests in place of the old, waits for the merge and resumes it; the
 *   run follows the job to its end: Azure creates and deletes nothing, the repository ends with the new manifests,
 *   Flux's apply changes no spec, and nothing old comes back.
 */
// Test-only: the simulator's per-field view of one resource group.
// eslint-disable-next-line @backstage/no-undeclared-imports
import { azureResourceState } from '@internal/capz-sim/azure';
import {
  clusterProposal,
  day2Paths,
  type AksAsoClusterParams,
  type DeletePreview,
} from '@capz-backstage/plugin-capz-common';
import { startGitea, type GiteaServer } from '@internal/git-server';
// eslint-disable-next-line @backstage/no-undeclared-imports
import {
  followGitRepository,
  startFlux,
  stopFlux,
} from '@internal/mgmt-cluster/flux';
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { stringify } from 'yaml';
import type { BackendProcess } from '../testing/backendProcess';
import {
  azureDeletedSince,
  clusterObjectsGone,
  deletesByType,
} from '../testing/day2Fixtures';
import { condition, makeAzureOnlyCluster } from '../testing/jobFixtures';
import { everyStep, JobsWorld, system, user } from '../testing/jobsWorld';
import { createInNamespace, legacyTemplate } from '../testing/legacyTemplate';
import { kube, until } from '../testing/realCluster';
import { FLUX_RECONCILE_ANNOTATION } from './gitDelete';

const w = new JobsWorld('real-gitops');
const ns = 'gitops-real';
const name = 'g1';
/** Hang detectors in minutes: the real managers reconcile slowly on a busy 2-core machine. */
const LONG = 300_000;
const FLUX_NS = 'flux-system';
const REPO = 'gitops';
const KS = 'clusters';
/** followGitRepository names the GitRepository as the Kustomization. */
const gitRepoPath = (ks: string) =>
  `/apis/source.toolkit.fluxcd.io/v1/namespaces/${FLUX_NS}/gitrepositories/${ks}`;
const kustomizationPath = (ks: string) =>
  `/apis/kustomize.toolkit.fluxcd.io/v1/namespaces/${FLUX_NS}/kustomizations/${ks}`;
const POOL = `/apis/cluster.x-k8s.io/v1beta2/namespaces/${ns}/machinepools/${name}-user`;

const params: AksAsoClusterParams = {
  name,
  namespace: ns,
  location: 'westeurope',
  // One patch behind the simulated region's newest (1.33.2), for the fleet upgrade through Git.
  kubernetesVersion: 'v1.33.1',
  credentialSecretName: 'aso-credential',
  owner: 'group:default/team-a',
  pools: [
    { name: 'system', mode: 'System', vmSize: 'Standard_D2s_v3', replicas: 1 },
    { name: 'user', mode: 'User', vmSize: 'Standard_D2s_v3', replicas: 1 },
  ],
};

let main: BackendProcess;
let gitea: GiteaServer;
let work: string;

const paths = day2Paths({ managementCluster: w.mcName, namespace: ns, name });

const seconds = (since: number) =>
  `${((Date.now() - since) / 1000).toFixed(1)} s`;

/** The simulated AKS cluster as persisted. */
const aks = (): any => w.azure().managedClusters.find(m => m.name === name);

const git = (...args: string[]) =>
  execFileSync('git', ['-C', work, ...args], {
    encoding: 'utf8',
    env: {
      ...process.env,
      GIT_TERMINAL_PROMPT: '0',
      GIT_AUTHOR_NAME: 'platform',
      GIT_AUTHOR_EMAIL: 'platform@example.com',
      GIT_COMMITTER_NAME: 'platform',
      GIT_COMMITTER_EMAIL: 'platform@example.com',
    },
  }).trim();

async function ok(
  p: Promise<{ status: number; body: any }>,
  what: string,
): Promise<any> {
  const r = await p;
  if (r.status >= 300 && r.status !== 409)
    throw new Error(`${what}: HTTP ${r.status} ${JSON.stringify(r.body)}`);
  return r.body;
}

const get = async (path: string) => {
  const r = await kube(w.info, 'GET', path);
  return r.status === 404 ? undefined : r.body;
};

/** Asks Flux to reconcile the object now; resolves with the request's token. */
async function requestReconcile(path: string): Promise<string> {
  const token = `test-${Date.now()}`;
  await ok(
    kube(
      w.info,
      'PATCH',
      path,
      {
        metadata: { annotations: { 'reconcile.fluxcd.io/requestedAt': token } },
      },
      'application/merge-patch+json',
    ),
    `requestedAt on ${path}`,
  );
  return token;
}

/** The head of Gitea's main branch. */
const mainCommit = async () =>
  (await gitea.api('GET', `/repos/${gitea.username}/${REPO}/branches/main`))
    .commit.id as string;

/**
 * Fetches main now and waits until the Kustomization is Ready having applied its head (and having handled a reconcile
 * request made after that, when `again`): what a user sees after `flux reconcile kustomization --with-source`.
 */
async function applied(again = false, ks = KS): Promise<any> {
  const commit = await mainCommit();
  const rev = `main@sha1:${commit}`;
  const token = again
    ? await requestReconcile(kustomizationPath(ks))
    : await requestReconcile(gitRepoPath(ks));
  let k: any;
  await w.waitFor(
    `Kustomization ${ks} Ready at ${rev}${
      again ? ` after request ${token}` : ''
    }`,
    async () => {
      k = await get(kustomizationPath(ks));
      const ready = condition(k, 'Ready');
      if (ready?.status !== 'True' || k.status?.lastAppliedRevision !== rev)
        return `Ready ${ready?.status} ${ready?.reason} ${ready?.message}; lastAppliedRevision ${k?.status?.lastAppliedRevision}`;
      if (again && k.status.lastHandledReconcileAt !== token)
        return `lastHandledReconcileAt ${k.status.lastHandledReconcileAt}`;
      return true;
    },
    LONG,
  );
  return k;
}

/** ARM's user pool at `count`, Succeeded, and CAPI counting as many ready Nodes. */
async function userPoolAt(count: number) {
  await w.waitFor(
    `ARM pool user at ${count} and ${count} ready Nodes in CAPI`,
    async () => {
      const p = aks()?.agentPools.user;
      const mp = await get(POOL);
      const nodes = mp?.status?.readyReplicas ?? 0;
      return (
        (p?.count === count &&
          p.provisioningState === 'Succeeded' &&
          nodes === count) ||
        `ARM count ${p?.count} ${p?.provisioningState}; MachinePool spec ${mp?.spec?.replicas}, ready ${nodes}`
      );
    },
    LONG,
  );
}

/** Waits until the job waits for the merge of the pull request it opened; fails when it ends first. */
async function atMergeWait(id: string, what: string): Promise<any> {
  let job: any;
  await w.waitFor(
    `${what} to wait for the merge of its pull request`,
    async () => {
      job = await w.job(main, id);
      if (['failed', 'cancelled', 'succeeded'].includes(job.state))
        throw new Error(`job ${job.state}: ${job.error}`);
      return (
        (job.currentStep === 'wait-merge' &&
          !!job.result?.gitProposal?.pullRequest) ||
        `${job.state} at ${job.currentStep}`
      );
    },
    900_000,
  );
  return job;
}

/** Merges a pull request on Gitea as a reviewer would; resolves with main's new head. */
async function merge(number: number): Promise<string> {
  await gitea.api(
    'POST',
    `/repos/${gitea.username}/${REPO}/pulls/${number}/merge`,
    { Do: 'merge' },
  );
  return mainCommit();
}

/** The pull request's changed files as Gitea counts them: path → [additions, deletions]. */
/** A fleet run of one cluster, read through the API; a run that failed or was cancelled ends the wait at once. */
async function readOneClusterRun(id: string): Promise<{ run: any; part: any }> {
  const r = await main.request('GET', `capz/fleet-runs/${id}`);
  if (r.status !== 200)
    throw new Error(`GET fleet run: ${r.status} ${JSON.stringify(r.body)}`);
  const run = r.body.run;
  const part = run.stages[0].clusters[0];
  if (['failed', 'cancelled'].includes(run.state))
    throw new Error(`run ${run.state}: ${part.message}`);
  return { run, part };
}

async function prFiles(number: number): Promise<Record<string, number[]>> {
  const files: any[] = await gitea.api(
    'GET',
    `/repos/${gitea.username}/${REPO}/pulls/${number}/files`,
  );
  return Object.fromEntries(
    files.map(f => [f.filename, [f.additions, f.deletions]]),
  );
}

/** The same counts from the preview's `diff -u` of each file (its hunks: a removed `---` separator is `----`). */
const previewFiles = (files: Array<{ path: string; diff: string }>) =>
  Object.fromEntries(
    files.map(f => {
      const lines = f.diff.split('\n');
      const hunks = lines.slice(lines.findIndex(l => l.startsWith('@@')));
      const n = (c: string) => hunks.filter(l => l.startsWith(c)).length;
      return [f.path, [n('+'), n('-')]];
    }),
  );

beforeAll(async () => {
  await w.start({ scenarios: 'none', realControllers: true, operationMs: 300 });
  // Flux and Gitea in the management cluster's state folder: the lane finds (and stops) whatever names it.
  const [, forge] = await Promise.all([
    startFlux(w.info),
    startGitea({ root: join(w.info.stateDir, 'gitea'), repos: [REPO] }),
  ]);
  gitea = forge;
  const giteaConfig = join(w.tmp, 'app-config.gitea.yaml');
  writeFileSync(
    giteaConfig,
    `integrations:\n  gitea:\n    - host: '${gitea.host}'\n      baseUrl: ${gitea.url}\n      username: ${gitea.username}\n      password: ${gitea.password}\n`,
  );
  w.extraConfigFiles.push(giteaConfig);
  const backendStarting = w.backend('main', w.sqlite('main'));
  backendStarting.catch(() => undefined);

  await w.namespaceWithCredential(ns);
  // flux-system/clusters: the repository with the admin's basic auth (docs/flux-facts.md#flux-git-auth), prune on,
  // intervals long: every reconcile the tests wait for is one they ask for.
  await followGitRepository(w.info, {
    url: gitea.repoUrl(REPO),
    username: gitea.username,
    password: gitea.password,
    name: KS,
    path: `./clusters/${ns}`,
    interval: '1h',
  });

  work = join(w.tmp, 'work');
  const authed = new URL(gitea.repoUrl(REPO));
  authed.username = gitea.username;
  authed.password = gitea.password;
  execFileSync('git', ['clone', '-q', authed.toString(), work]);
  main = await backendStarting;
}, 900_000);

afterAll(async () => {
  try {
    await gitea?.close();
    if (w.info) await stopFlux(w.info);
  } finally {
    await w.stop();
  }
}, 180_000);

it("the template's files merged on Gitea: Flux applies them, CAPZ creates the cluster in ARM, the backend names Flux as who applies it", async () => {
  const proposal = clusterProposal({
    params,
    managementCluster: w.mcName,
    includeCatalogEntity: true,
  });
  git('checkout', '-q', '-b', 'add-g1');
  for (const f of proposal.files) {
    mkdirSync(dirname(join(work, f.path)), { recursive: true });
    writeFileSync(join(work, f.path), f.content);
  }
  git('add', '-A');
  git('commit', '-q', '-m', proposal.commitMessage);
  git('push', '-q', 'origin', 'add-g1');
  const pr = await gitea.api('POST', `/repos/${gitea.username}/${REPO}/pulls`, {
    head: 'add-g1',
    base: 'main',
    title: proposal.title,
  });
  await merge(pr.number);
  const started = Date.now();
  const k = await applied();
  expect((k.status.inventory.entries as any[]).map(e => e.id).sort()).toContain(
    `${ns}_${name}_cluster.x-k8s.io_Cluster`,
  );
  await w.waitFor(
    `cluster ${name} Available with both pools Succeeded in ARM`,
    async () => {
      const cl = await w.c.get('Cluster', ns, name);
      if (condition(cl, 'Available')?.status !== 'True')
        return `Available: ${JSON.stringify(condition(cl, 'Available'))}`;
      const pools = aks()?.agentPools ?? {};
      const states = Object.entries(pools)
        .map(([p, x]: [string, any]) => `${p}:${x.provisioningState}`)
        .sort()
        .join();
      return states === 'system:Succeeded,user:Succeeded' || states;
    },
    LONG,
  );
  await userPoolAt(1);
  w.say(
    `the merged proposal became an Available cluster in ${seconds(started)}`,
  );
  const cluster = await w.c.get('Cluster', ns, name);
  expect(cluster.metadata.labels['kustomize.toolkit.fluxcd.io/name']).toBe(KS);
  // The backend reads the same marks: a scale of the pool is a Git change of the Kustomization's repository.
  await w.waitFor(
    "the backend's preview to name the Kustomization",
    async () => {
      const r = await main.request('POST', `capz${paths.preview}`, {
        action: 'scale',
        pool: 'user',
        replicas: 2,
      });
      return (
        (r.status === 200 &&
          r.body.git?.source?.kustomization?.name === KS &&
          r.body.git.proposable === true) ||
        `HTTP ${r.status} ${JSON.stringify(r.body.git ?? r.body)}`
      );
    },
    LONG,
  );
}, 900_000);

it("the hazard: a scale written live reaches ARM, and Flux's next reconcile puts it back, in ARM too", async () => {
  const started = Date.now();
  // As `kubectl scale` writes it: another field manager than Flux's.
  await ok(
    kube(
      w.info,
      'PATCH',
      `${POOL}?fieldManager=kubectl-scale`,
      { spec: { replicas: 2 } },
      'application/merge-patch+json',
    ),
    'live scale',
  );
  await userPoolAt(2);
  const live = seconds(started);
  await applied(true);
  expect((await get(POOL)).spec.replicas).toBe(1);
  await userPoolAt(1);
  w.say(
    `hazard: the live scale reached ARM in ${live}; Flux's reconcile put it back, ARM at 1 again after ${seconds(
      started,
    )}`,
  );
}, 600_000);

it('the same scale through the product: a pull request whose diff is the preview, nothing live until the merge; then ARM reaches it and it stays', async () => {
  // Preview, then confirm with its digest. The controllers may still be settling after the hazard's revert (CAPZ and
  // ASO write their objects after ARM's count is back): a confirm that meets such a change answers 409 "changed since
  // the preview" and writes nothing, and the user previews again, as the message says. So does the test.
  const scale = { action: 'scale', pool: 'user', replicas: 2 };
  let preview: { status: number; body: any } | undefined;
  let r: { status: number; body: any } | undefined;
  await w.waitFor(
    'a confirm of the plan as previewed',
    async () => {
      preview = await main.request('POST', `capz${paths.preview}`, scale);
      if (preview.status !== 200)
        return `preview: HTTP ${preview.status} ${JSON.stringify(
          preview.body,
        )}`;
      r = await main.request('POST', `capz${paths.actions}`, {
        ...scale,
        planDigest: preview.body.planDigest,
      });
      const message = String(r.body?.error?.message ?? '');
      if (
        r.status === 409 &&
        /changed since the preview|changed since it was read/.test(message)
      ) {
        w.say(
          `the confirm met a change since its preview, previewing again: ${message}`,
        );
        return message;
      }
      return true;
    },
    LONG,
  );
  expect(preview!.status).toBe(200);
  const change = preview!.body.git;
  expect(change.proposable).toBe(true);
  expect(change.source.path).toBe(`./clusters/${ns}`);
  const file = `clusters/${ns}/${name}/cluster.yaml`;
  expect(change.files.map((f: any) => f.path)).toEqual([file]);
  expect(change.files[0].diff).toMatch(/^- {2}replicas: 1$/m);
  expect(change.files[0].diff).toMatch(/^\+ {2}replicas: 2$/m);

  expect(r!.status).toBe(200);
  const number = r!.body.git.proposed.pullRequest.number as number;
  expect(await prFiles(number)).toEqual(previewFiles(change.files));
  // Nothing live: the MachinePool still has Git's count, written by Flux only.
  const pool = await get(POOL);
  expect(pool.spec.replicas).toBe(1);

  const started = Date.now();
  await merge(number);
  await applied();
  await userPoolAt(2);
  const reached = seconds(started);
  // A later reconcile applies the same revision and changes nothing.
  await applied(true);
  expect((await get(POOL)).spec.replicas).toBe(2);
  expect(aks().agentPools.user.count).toBe(2);
  w.say(`scale through Git: ARM at 2 ${reached} after the merge, and kept`);
}, 600_000);

it('a fleet upgrade of the cluster Flux applies goes through its pull requests: each step proposed, not written; the run waits for each merge untimed; Flux applies it and ARM runs the version', async () => {
  const spec = {
    target: { kind: 'version', version: 'v1.33.2' },
    stages: [
      {
        name: 'git',
        clusters: [{ managementCluster: w.mcName, namespace: ns, name }],
      },
    ],
  };
  let preview: any;
  await w.waitFor(
    `${name} planned for the upgrade`,
    async () => {
      const r = await main.request('POST', 'capz/fleet-runs/preview', spec);
      preview = r.body;
      return (
        (r.status === 200 && r.body.counts?.upgrade === 1) ||
        `${r.status} ${JSON.stringify(r.body.stages ?? r.body)}`
      );
    },
    LONG,
  );
  const by = `Flux's Kustomization ${FLUX_NS}/${KS}`;
  expect(
    preview.stages[0].clusters[0].steps.map((s: any) => [
      s.target,
      s.throughGit,
    ]),
  ).toEqual([
    ['controlPlane', `${by} applies AzureASOManagedControlPlane ${name}`],
    [
      { pools: ['system', 'user'] },
      `${by} applies MachinePool ${name}-system, MachinePool ${name}-user`,
    ],
  ]);
  const created = await main.request('POST', 'capz/fleet-runs', {
    spec,
    options: {},
  });
  expect(created.status).toBe(201);
  const runId = created.body.id as string;
  let run: any;
  let part: any;
  const readRun = async () => {
    ({ run, part } = await readOneClusterRun(runId));
    return `run ${run.state}, ${name} ${part.state} step ${part.step}: ${
      part.message ?? ''
    }`;
  };
  const file = `clusters/${ns}/${name}/cluster.yaml`;
  const cpPath = `/apis/infrastructure.cluster.x-k8s.io/v1beta1/namespaces/${ns}/azureasomanagedcontrolplanes/${name}`;
  const started = Date.now();
  const merged: string[] = [];
  /** Waits until the run has proposed `step` and waits for its merge; answers its pull request. */
  const proposed = async (step: number) => {
    await w.waitFor(
      `step ${step + 1} proposed, the run waiting for its merge`,
      async () => {
        const now = await readRun();
        return (
          (part.step === step &&
            !!part.proposal?.pullRequest &&
            !!part.waitingForPersonSince) ||
          now
        );
      },
      LONG,
    );
    return part.proposal.pullRequest as { number: number; url: string };
  };
  /** The version the step's object asks for, live. */
  const liveVersion = async (step: number) =>
    step === 0
      ? (await get(cpPath)).spec.version
      : (await get(POOL)).spec.template.spec.version;
  for (const [step, words] of [
    [0, 'control plane to v1.33.2'],
    [1, 'pools system, user to v1.33.2'],
  ] as const) {
    const pr = await proposed(step);
    expect(part.message).toBe(
      `${words}: waiting for the merge of pull request #${pr.number} (${pr.url}) and Flux's apply of it`,
    );
    // The pull request changes the cluster's file only, and nothing was written live.
    expect(Object.keys(await prFiles(pr.number))).toEqual([file]);
    expect(await liveVersion(step)).toBe('v1.33.1');
    await merge(pr.number);
    merged.push(seconds(started));
    await applied();
  }
  await w.waitFor(
    'the run to end',
    async () => {
      const now = await readRun();
      return run.state === 'succeeded' || now;
    },
    LONG,
  );
  expect([part.state, part.message]).toEqual([
    'succeeded',
    'upgraded to v1.33.2',
  ]);
  const mc = aks();
  expect([
    mc.kubernetesVersion,
    mc.agentPools.system.orchestratorVersion,
    mc.agentPools.user.orchestratorVersion,
  ]).toEqual(['1.33.2', '1.33.2', '1.33.2']);
  // Git holds the version now: a later reconcile changes nothing.
  await applied(true);
  expect((await get(cpPath)).spec.version).toBe('v1.33.2');
  w.say(
    `fleet upgrade through Git: merged at ${merged.join(
      ' and ',
    )}; ended ${seconds(started)} after its start`,
  );
}, 900_000);

it("an AKS cluster adopted into the namespace Flux applies: adopted live, its objects proposed beside g1's by pull request; merged, Flux applies them unchanged and Azure creates and deletes nothing", async () => {
  const adopted = {
    resourceGroup: 'rg-git-adopt',
    name: 'git-adopt',
    pools: [system(1), user('web', 1)],
  };
  await w.namespaceWithCredential('fixtures');
  await makeAzureOnlyCluster(w.c, {
    scratchNamespace: 'fixtures',
    credentialSecret: 'aso-credential',
    ...adopted,
  });
  const azureState = () =>
    azureResourceState(w.azure() as any, {
      resourceGroup: adopted.resourceGroup,
    });
  await until('the persisted Azure state to show the Azure-only cluster', () =>
    w
      .azure()
      .managedClusters.some(
        (m: any) =>
          m.resourceGroup === adopted.resourceGroup &&
          m.provisioningState === 'Succeeded',
      ),
  );
  // What Azure had created and deleted before the job: azureUntouched checks that the job added none.
  w.markBaseline();
  const before = azureState();
  const counters = w.azure().counters;
  const request = w.adopt(ns, adopted);

  // The preflight says where the cluster goes in Git; nothing refuses it.
  const preview = await main.request('POST', 'capz/jobs/preview', request);
  expect(preview.status).toBe(200);
  expect(
    preview.body.preflight.find((c: any) => c.id === 'gitops-namespace'),
  ).toMatchObject({
    status: 'warn',
    message: expect.stringContaining(
      `Flux's Kustomization ${FLUX_NS}/${KS} applies 1 cluster of namespace ${ns} (${name}). After the adoption the job proposes`,
    ),
  });
  expect(
    preview.body.preflight.filter((c: any) => c.status === 'fail'),
  ).toEqual([]);
  const started = Date.now();
  const { id } = await w.submit(main, request);
  const job = await atMergeWait(id, 'the adoption job');
  const waiting = seconds(started);
  const dir = `clusters/${ns}/${adopted.name}`;
  const number = job.result.gitProposal.pullRequest.number as number;
  // A folder of its own beside g1's, in the template's layout; nothing else in the repository changes.
  expect(Object.keys(await prFiles(number)).sort()).toEqual([
    `${dir}/cluster.yaml`,
    `${dir}/kustomization.yaml`,
  ]);
  const cluster = await w.c.get('Cluster', ns, adopted.name);
  expect(
    cluster.metadata.labels?.['kustomize.toolkit.fluxcd.io/name'],
  ).toBeUndefined();

  const merged = Date.now();
  const head = await merge(number);
  await requestReconcile(gitRepoPath(KS));
  const done = await w.finished(main, id, 600_000);
  everyStep(done);
  const k = await get(kustomizationPath(KS));
  expect(k.status.lastAppliedRevision).toBe(`main@sha1:${head}`);
  expect((k.status.inventory.entries as any[]).map(e => e.id)).toEqual(
    expect.arrayContaining([
      `${ns}_${adopted.name}_cluster.x-k8s.io_Cluster`,
      `${ns}_${adopted.name}-web_cluster.x-k8s.io_MachinePool`,
    ]),
  );
  // Flux's apply changed no spec (the job checked the generations it noted; so does the test) and marks them as its own.
  const after = await w.c.get('Cluster', ns, adopted.name);
  expect(after.metadata.generation).toBe(
    done.result.generations[`Cluster/${ns}/${adopted.name}`],
  );
  expect(after.metadata.labels['kustomize.toolkit.fluxcd.io/name']).toBe(KS);
  expect(condition(after, 'Available')?.status).toBe('True');
  // A later reconcile changes nothing either.
  await applied(true);
  expect((await w.c.get('Cluster', ns, adopted.name)).metadata.generation).toBe(
    after.metadata.generation,
  );
  await w.azureUntouched(
    adopted.resourceGroup,
    adopted.name,
    adopted.pools.map(p => p.name),
  );
  await w.azureSettled(adopted.resourceGroup);
  expect(azureState()).toEqual(before);
  expect(w.azure().counters.created).toEqual(counters.created);
  expect(w.azure().counters.deleted).toEqual(counters.deleted);
  w.say(
    `adoption through Git: at the merge wait after ${waiting}; done ${seconds(
      merged,
    )} after the merge`,
  );
}, 1_800_000);

it('delete through Git: the merged pull request makes Flux prune the Cluster alone; CAPI deletes the rest, Azure deletes what the preview said, nothing comes back', async () => {
  const preview = await main.request('GET', `capz${paths.deletePreview}`);
  expect(preview.status).toBe(200);
  const p = preview.body as DeletePreview;
  expect(p.blockers).toEqual([]);
  expect(p.git?.proposable).toBe(true);
  expect(deletesByType(p.deletes)).toEqual({
    resourceGroups: 1,
    managedClusters: 1,
    agentPools: 2,
  });
  const r = await main.request('DELETE', `capz${paths.cluster}`, {
    confirmName: name,
    planDigest: p.planDigest,
  });
  expect(r.status).toBe(202);
  const number = r.body.preview.git.proposed.pullRequest.number as number;
  expect(await prFiles(number)).toEqual(previewFiles(p.git!.files));
  expect(
    (await w.c.get('Cluster', ns, name)).metadata.deletionTimestamp,
  ).toBeUndefined();

  // What the pull request leaves in Git: no Cluster document, every other document of the cluster marked.
  const before = w.azure().counters.deleted;
  const started = Date.now();
  await merge(number);
  git('fetch', '-q', 'origin', 'main');
  const cluster = git(
    'show',
    `origin/main:clusters/${ns}/${name}/cluster.yaml`,
  );
  expect(cluster).not.toMatch(/^kind: Cluster$/m);
  const docs = cluster.split(/^---$/m).filter(d => /^kind: /m.test(d));
  expect(docs.length).toBeGreaterThan(0);
  for (const d of docs)
    expect(d).toContain(`${FLUX_RECONCILE_ANNOTATION}: disabled`);

  await applied();
  await w.waitFor(
    `cluster ${name} gone from the management cluster and from ARM`,
    async () => {
      const left = await clusterObjectsGone(w, ns, name);
      if (left !== true) return left;
      return aks() ? 'AKS cluster still in Azure' : true;
    },
    LONG,
  );
  const deleted = await azureDeletedSince(w, before, 3000, 60_000);
  expect(deleted).toEqual(deletesByType(p.deletes));
  // Flux's next reconcile re-creates nothing: the marked objects are skipped, the Cluster is not in Git.
  await applied(true);
  const back = await Promise.all(
    (
      [
        'Cluster',
        'AzureASOManagedCluster',
        'AzureASOManagedControlPlane',
        'MachinePool',
        'AzureASOManagedMachinePool',
      ] as const
    ).map(async kind =>
      (
        await w.c.list(kind, ns)
      )
        // g1's own (the cluster adopted beside it stays).
        .filter(
          o =>
            o.metadata.name === name || o.metadata.name.startsWith(`${name}-`),
        )
        .map(o => `${kind}/${o.metadata.name}`),
    ),
  );
  expect(back.flat()).toEqual([]);
  w.say(
    `delete through Git: gone ${seconds(
      started,
    )} after the merge; Azure deleted ${JSON.stringify(deleted)}`,
  );
}, 600_000);

it('a legacy cluster Flux applies is migrated through Git in a migration wave: suspended, migrated, its manifests replaced by pull request, resumed; the run follows its job to the end; Azure creates and deletes nothing, nothing old comes back', async () => {
  const from = 'legacy-git';
  const target = 'legacy-git-aso';
  const lname = 'git-legacy';
  const LKS = 'legacy';
  const file = `clusters/${from}/cluster.yaml`;
  const t = legacyTemplate(w, from, lname);
  // The identity live; the cluster's own objects in Git, committed to main as a platform team keeps them, and applied
  // by Flux from a Kustomization of their own.
  await w.c.createNamespace(from);
  await createInNamespace(w, from, t.identity);
  git('checkout', '-q', 'main');
  git('pull', '-q', 'origin', 'main');
  mkdirSync(join(work, dirname(file)), { recursive: true });
  writeFileSync(
    join(work, file),
    t.cluster.map(o => stringify(o)).join('---\n'),
  );
  git('add', '-A');
  git('commit', '-q', '-m', `Add legacy cluster ${from}/${lname}`);
  git('push', '-q', 'origin', 'main');
  await followGitRepository(w.info, {
    url: gitea.repoUrl(REPO),
    username: gitea.username,
    password: gitea.password,
    name: LKS,
    path: `./clusters/${from}`,
    interval: '1h',
  });
  await applied(false, LKS);
  await w.waitFor(
    `legacy cluster ${from}/${lname} to be ready to migrate`,
    () => w.legacyReady(from, lname),
    LONG + 100_000,
  );
  expect(
    (await w.c.get('Cluster', from, lname)).metadata.labels[
      'kustomize.toolkit.fluxcd.io/name'
    ],
  ).toBe(LKS);
  await w.azureSettled(lname);
  // What Azure had created and deleted before the job: w.migrated checks that the job added none.
  w.markBaseline();
  const azureState = () =>
    azureResourceState(w.azure() as any, { resourceGroup: lname });
  const before = azureState();
  const counters = w.azure().counters;

  // The preflight says the job runs through Git; nothing refuses it.
  const preview = await main.request(
    'POST',
    'capz/jobs/preview',
    w.migrate(from, lname, target),
  );
  expect(preview.status).toBe(200);
  expect(
    preview.body.preflight.find((c: any) => c.id === 'gitops'),
  ).toMatchObject({
    status: 'warn',
    message: expect.stringContaining(
      `Flux's Kustomization ${FLUX_NS}/${LKS} applies`,
    ),
  });
  expect(
    preview.body.preflight.filter((c: any) => c.status === 'fail'),
  ).toEqual([]);
  // Run as a migration wave of one cluster (a fleet run): its preview is the job's, hazard included, and the run
  // follows the job through the merge wait to its end.
  const spec = {
    target: { kind: 'migrate', targetNamespace: target },
    stages: [
      {
        name: 'git',
        clusters: [
          { managementCluster: w.mcName, namespace: from, name: lname },
        ],
      },
    ],
    concurrency: 1,
  };
  const wave = await main.request('POST', 'capz/fleet-runs/preview', spec);
  expect(wave.status).toBe(200);
  const [planned] = wave.body.stages[0].clusters;
  expect(planned).toMatchObject({ name: lname, outcome: 'upgrade' });
  expect(planned.steps[0].title).toBe(
    `migrate to the ASO API in namespace ${target}`,
  );
  expect(planned.steps[0].warnings.join('\n')).toContain(
    `Flux's Kustomization ${FLUX_NS}/${LKS} applies`,
  );
  const started = Date.now();
  const created = await main.request('POST', 'capz/fleet-runs', {
    spec,
    options: {},
  });
  expect(created.status).toBe(201);
  const runId = created.body.id as string;
  let run: any;
  let part: any;
  const readRun = async () => {
    ({ run, part } = await readOneClusterRun(runId));
    return `run ${run.state}, ${lname} ${part.state}: ${part.message ?? ''}`;
  };
  await w.waitFor(
    "the run's migration job",
    async () => {
      const now = await readRun();
      return part.jobId ? true : now;
    },
    120_000,
  );
  const id = part.jobId as string;

  // Migrated while Flux is suspended; then the job waits for a person to merge its pull request, and so does the run.
  const job = await atMergeWait(id, 'the migration job');
  const migrated = seconds(started);
  const pr = job.result.gitProposal.pullRequest;
  // The run says what it waits for, and that wait is not counted against its step timeout.
  await w.waitFor(
    'the run to show its job waiting for the merge',
    async () => {
      const now = await readRun();
      return (
        (run.state === 'running' &&
          part.state === 'running' &&
          part.message ===
            `migrate to the ASO API in namespace ${target}: waiting for the merge of pull request #${pr.number} (${pr.url}) and Flux's fetch of it (job ${id})` &&
          !!part.waitingForPersonSince) ||
        now
      );
    },
    60_000,
  );
  expect((await get(kustomizationPath(LKS))).spec.suspend).toBe(true);
  expect(await w.c.get('Cluster', from, lname)).toBeUndefined();
  const proposal = job.result.gitProposal;
  const number = proposal.pullRequest.number as number;
  expect(Object.keys(await prFiles(number))).toEqual([file]);
  expect(proposal.files.map((f: any) => f.path)).toEqual([file]);

  // Merged as a reviewer would, fetched as `flux reconcile source git legacy` asks.
  const merged = Date.now();
  const head = await merge(number);
  await requestReconcile(gitRepoPath(LKS));
  const done = await w.finished(main, id, 600_000);
  everyStep(done);
  await w.waitFor(
    'the wave to end',
    async () => {
      const now = await readRun();
      return run.state === 'succeeded' || now;
    },
    300_000,
  );
  expect([part.state, part.message]).toEqual([
    'succeeded',
    `migrated: now ${target}/${lname}`,
  ]);
  const k = await get(kustomizationPath(LKS));
  expect(k.spec.suspend).toBeUndefined();
  expect(condition(k, 'Ready')?.status).toBe('True');
  expect(k.status.lastAppliedRevision).toBe(`main@sha1:${head}`);

  // The repository ends with the new cluster's manifests in place of the old ones.
  git('fetch', '-q', 'origin', 'main');
  const kinds = (
    git('show', `origin/main:${file}`).match(/^kind: .*$/gm) ?? []
  ).sort();
  expect(kinds).toEqual(
    [
      'kind: AzureASOManagedCluster',
      'kind: AzureASOManagedControlPlane',
      'kind: AzureASOManagedMachinePool',
      'kind: AzureASOManagedMachinePool',
      'kind: Cluster',
      'kind: MachinePool',
      'kind: MachinePool',
    ].sort(),
  );
  // Flux's first apply changed no spec (the job checked the generations it noted; so does the test), and Flux now
  // applies the new objects.
  const cluster = await w.c.get('Cluster', target, lname);
  expect(cluster.metadata.generation).toBe(
    done.result.generations[`Cluster/${target}/${lname}`],
  );
  expect(cluster.metadata.labels['kustomize.toolkit.fluxcd.io/name']).toBe(LKS);
  // A later reconcile brings nothing old back, and the new cluster is the migrated one.
  await applied(true, LKS);
  // CAPZ's `aks` template's pools (as jobs.real-controllers.test.ts migrates them).
  const pools = ['pool0', 'pool1'].map((p, i) => ({
    name: p,
    mode: i === 0 ? ('System' as const) : ('User' as const),
    count: 2,
    vmSize: 'Standard_D2s_v3',
  }));
  await w.migrated(from, target, lname, lname, pools);
  await w.azureSettled(lname);
  expect(azureState()).toEqual(before);
  expect(w.azure().counters.created).toEqual(counters.created);
  expect(w.azure().counters.deleted).toEqual(counters.deleted);
  w.say(
    `migration through Git: at the merge wait after ${migrated}; done ${seconds(
      merged,
    )} after the merge`,
  );
}, 1_800_000);
