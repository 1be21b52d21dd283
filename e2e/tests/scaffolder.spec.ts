import { expect, Page, test } from '@playwright/test';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parseAllDocuments } from 'yaml';
import {
  chooseInDialog,
  expectAxeClean,
  saveScreenshot,
  signInAsGuest,
} from './helpers';
import { kube } from './kube';

/**
 * The "New AKS cluster" template end to end, in Chromium, against the backend, the run's management cluster, the
 * background simulator (it reconciles team-* namespaces only, so the clusters go to team-e2e-create) and the local Git
 * server scripts/test.sh starts (CAPZ_GITOPS_REPO_URL, the backend's scaffolder.capz.gitops.repoUrl):
 *
 * - apply: fill the form → dry run (the scaffolder's dry-run API, as the template editor runs it: nothing is written) →
 *   create → follow "Open the cluster" → the cluster turns Healthy → its catalog entity is there, with the owner;
 * - git: the same form with delivery "git" → the branch capz/new-cluster-<namespace>-<name> is on the Git server with
 *   the cluster's manifests, and nothing was applied;
 * - pull-request on Gitea: the same form with delivery "pull-request" to the `gitops` repository of the Gitea that
 *   scripts/test.sh starts (v1.26.0 built from its Go module; CAPZ_GITEA_INFO, and the backend's integrations.gitea)
 *   → the pull request is open on Gitea, its branch holds the files capz:cluster:render writes, the output links it;
 * - through Gitea and Flux (a real Flux, which scripts/test.sh starts on the run's management cluster): the same
 *   pull request merged through Gitea's API is applied by Flux and turns Healthy on the cluster page, which names the
 *   Kustomization; a scale on it previews the file's diff and opens a pull request with the same changed lines,
 *   nothing live until the merge; merged, the page's pool table shows the new count; the delete dialog opens the
 *   pull request of docs/flux-facts.md#git-delete, nothing deleted live, and once merged the cluster is gone.
 */

const MC = 'local';
const NS = 'team-e2e-create';
/** Unique per run, so the spec can run again on a kept cluster (names and branches cannot be reused). */
const RUN = randomBytes(2).toString('hex');
/** A new cluster (a resource group, a managed cluster, two pools) with 100 ms operations: well under a minute. */
const READY_TIMEOUT = 120_000;

const run = promisify(execFile);

/** Printed (as render-time.spec does) and kept in the JSON report. */
function timing(description: string) {
  test.info().annotations.push({ type: 'timing', description });
  console.log(`[scaffolder chromium] ${description}`);
}

/**
 * The namespace and its ASO credential: a copy of the simulator's `team-payments/aso-credential` (the simulated
 * service principal on the run's subscription), as a platform team would provide one per team.
 */
async function ensureNamespaceWithCredential(ns: string) {
  await kube('POST', '/api/v1/namespaces', {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: ns },
  }).catch(e => {
    if (!/ 409 /.test(String(e))) throw e;
  });
  const source = await kube(
    'GET',
    '/api/v1/namespaces/team-payments/secrets/aso-credential',
  );
  await kube('POST', `/api/v1/namespaces/${ns}/secrets`, {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'aso-credential', namespace: ns },
    type: source.type,
    data: source.data,
  }).catch(e => {
    if (!/ 409 /.test(String(e))) throw e;
  });
}

/** The signed-in guest's Backstage token, for the API calls the test makes beside the UI. */
async function backstageToken(page: Page): Promise<string> {
  const res = await page.request.get(
    '/api/auth/guest/refresh?env=development',
    { headers: { 'X-Requested-With': 'XMLHttpRequest' } },
  );
  expect(res.ok()).toBe(true);
  return (await res.json()).backstageIdentity.token;
}

interface ClusterForm {
  name: string;
  delivery: 'apply' | 'git' | 'pull-request';
  /** For pull-request: the repository as the RepoUrlPicker writes it (host?owner=o&repo=r). */
  gitopsRepo?: { host: string; owner: string; repo: string };
  /** A Kubernetes version other than AKS's default, as the picker names it (e.g. v1.33.1). */
  version?: string;
}

/** The owner chosen in the form's CapzOwnerPicker (the catalog's groups). */
const OWNER = 'group:default/payments';

/** What the form sends, for the dry run: the template's parameters as fillForm fills them (the pickers' choices). */
function values(f: ClusterForm): Record<string, unknown> {
  return {
    managementCluster: MC,
    namespace: NS,
    credentialSecretName: 'aso-credential',
    name: f.name,
    location: 'westeurope',
    kubernetesVersion: 'v1.33.2',
    owner: OWNER,
    entraOnly: true,
    adminGroupObjectIDs: [],
    tags: {},
    pools: [
      {
        name: 'system',
        mode: 'System',
        vmSize: 'Standard_D2s_v3',
        replicas: 1,
      },
    ],
    delivery: f.delivery,
    ...(f.gitopsRepo
      ? {
          gitopsRepo: `${f.gitopsRepo.host}?owner=${f.gitopsRepo.owner}&repo=${f.gitopsRepo.repo}`,
          baseBranch: 'main',
          includeCatalogEntity: false,
        }
      : {}),
  };
}

/** A capz picker (a BUI select: a button named by its value and label, a listbox of options). */
async function choose(page: Page, label: string, option: string | RegExp) {
  const select = page.getByRole('button', { name: new RegExp(`${label}$`) });
  await expect(select).toBeEnabled();
  await select.click();
  await page
    .getByRole('listbox', { name: label })
    .getByRole('option', { name: option })
    .click();
  await expect(select).toHaveAccessibleName(
    typeof option === 'string' ? new RegExp(option) : option,
  );
}

/** Fills the template's form as a person does, with its pickers, by the fields' labels, up to its Review step. */
async function fillForm(page: Page, f: ClusterForm) {
  await page.goto('/create');
  await page
    .getByRole('article')
    .filter({ has: page.getByRole('heading', { name: 'New AKS cluster' }) })
    .getByRole('button', { name: 'Choose' })
    .click();
  await expect(
    page.getByRole('heading', { level: 2, name: 'New AKS cluster' }),
  ).toBeVisible();

  // Where: the only management cluster is chosen already; the namespace's one credential too.
  await expect(
    page.getByRole('button', { name: /^Local management cluster/ }),
  ).toBeVisible();
  await choose(page, 'Namespace', NS);
  await expect(
    page.getByRole('button', {
      name: /^aso-credential — subscription .* ASO credential$/,
    }),
  ).toBeVisible();
  await page.getByRole('button', { name: 'Next' }).click();

  // Cluster: name, region (the credential's subscription's), AKS's default version, owner, Entra ID only (default).
  await page.getByRole('textbox', { name: 'Name', exact: true }).fill(f.name);
  await choose(page, 'Azure region', /\(westeurope\)/);
  await expect(
    page.getByRole('button', { name: 'v1.33.2 (default) Kubernetes version' }),
  ).toBeVisible();
  if (f.version)
    await choose(
      page,
      'Kubernetes version',
      new RegExp(`^${f.version.replace(/\./g, '\\.')}\\b`),
    );
  await choose(page, 'Owner', 'payments');
  await expect(
    page.getByRole('checkbox', { name: 'Entra ID only' }),
  ).toBeChecked();
  await page.getByRole('button', { name: 'Next' }).click();

  // Node pools: the default system pool, one node.
  const pool = page.getByRole('group', { name: 'Node pool 1' });
  await expect(pool.getByRole('textbox', { name: 'Pool 1 name' })).toHaveValue(
    'system',
  );
  await pool.getByRole('textbox', { name: 'Pool 1 nodes' }).fill('1');
  await page.getByRole('button', { name: 'Next' }).click();

  // Delivery.
  await page
    .getByRole('radio', {
      name:
        f.delivery === 'git'
          ? /^Propose through git/
          : f.delivery === 'pull-request'
          ? /^Open a pull request on the GitOps repository/
          : 'Apply now on the management cluster',
    })
    .check();
  if (f.gitopsRepo) {
    // CapzGitopsRepoPicker: the host among the configured integrations, then the owner and the repository.
    await choose(
      page,
      'GitOps repository: host',
      new RegExp(`^${f.gitopsRepo.host.replace(/\./g, '\\.')} \\(gitea\\)`),
    );
    await page
      .getByRole('textbox', { name: 'Owner', exact: true })
      .fill(f.gitopsRepo.owner);
    await page
      .getByRole('textbox', { name: 'Repository', exact: true })
      .fill(f.gitopsRepo.repo);
  }
  await page.getByRole('button', { name: 'Next' }).click();

  // Check: the create's dry run on everything chosen; the objects the management cluster accepts are listed, and
  // the verdict is what Review shows.
  await expect(
    page.getByText(/accepts the cluster: 5 objects would be created/),
  ).toBeVisible({ timeout: 30_000 });
  await expect(
    page.getByRole('list', { name: 'Objects to create' }).getByRole('listitem'),
  ).toHaveCount(5);
  await saveScreenshot(page, `scaffolder-check-${f.delivery}`);
  await page.getByRole('button', { name: 'Review' }).click();
  await expect(page.getByRole('button', { name: 'Create' })).toBeVisible();
  await expect(
    page.getByText(/^5 objects accepted by local \(dry run, nothing written\)/),
  ).toBeVisible();
}

/** The template as the catalog has it. */
async function templateEntity(page: Page, token: string) {
  const res = await page.request.get(
    '/api/catalog/entities/by-name/template/default/new-aks-cluster',
    { headers: { Authorization: `Bearer ${token}` } },
  );
  expect(res.ok()).toBe(true);
  return res.json();
}

/**
 * A template dry run, as the scaffolder's template editor runs one (`POST /api/scaffolder/v2/dry-run`): every step with
 * `isDryRun`, so capz:cluster:create asks the API server with dryRun=All and capz:cluster:propose does not push.
 */
async function dryRun(page: Page, token: string, f: ClusterForm) {
  const auth = { Authorization: `Bearer ${token}` };
  const template = await templateEntity(page, token);
  const res = await page.request.post('/api/scaffolder/v2/dry-run', {
    headers: auth,
    data: {
      template,
      values: values(f),
      secrets: {},
      directoryContents: [],
    },
  });
  const body = await res.json();
  expect(res.status(), JSON.stringify(body)).toBe(200);
  return body as {
    log: Array<{ body: { message: string; stepId?: string; status?: string } }>;
    steps: Array<{ id: string; name: string; action: string }>;
    output: Record<string, unknown>;
    directoryContents: Array<{ path: string; base64Content: string }>;
  };
}

/**
 * Polls the management cluster for the Cluster and the catalog for its entity, from now until the entity is there:
 * resolves with the entity and the time from the Cluster's first sight to the entity's (the catalog's delta latency,
 * within the 50 ms poll).
 */
async function clusterToEntity(
  page: Page,
  token: string,
  name: string,
  timeoutMs: number,
) {
  const t0 = Date.now();
  let clusterAt: number | undefined;
  for (;;) {
    if (clusterAt === undefined && (await clusterExists(name)))
      clusterAt = Date.now();
    const res = await page.request.get(
      `/api/catalog/entities/by-name/resource/default/${MC}-${NS}-${name}`,
      { headers: { Authorization: `Bearer ${token}` } },
    );
    if (res.ok())
      return {
        entity: await res.json(),
        ms: Date.now() - (clusterAt ?? t0),
      };
    if (Date.now() - t0 > timeoutMs)
      throw new Error(
        `no catalog entity for cluster ${name} after ${timeoutMs} ms`,
      );
    await new Promise(r => setTimeout(r, 50));
  }
}

const clusterPath = (name: string) =>
  `/apis/cluster.x-k8s.io/v1beta2/namespaces/${NS}/clusters/${name}`;

async function clusterExists(name: string): Promise<boolean> {
  return kube('GET', clusterPath(name)).then(
    () => true,
    e => {
      if (/ 404 /.test(String(e))) return false;
      throw e;
    },
  );
}

test.beforeAll(async () => {
  await ensureNamespaceWithCredential(NS);
});

test('New AKS cluster: form → dry run → create → open the cluster → Healthy → catalog entity with its owner', async ({
  page,
}) => {
  test.setTimeout(240_000);
  const name = `e2e-${RUN}`;
  const form: ClusterForm = { name, delivery: 'apply' };
  await signInAsGuest(page);
  const token = await backstageToken(page);

  await fillForm(page, form);
  for (const size of [
    { width: 1280, height: 800 },
    { width: 1920, height: 1080 },
  ]) {
    await page.setViewportSize(size);
    await saveScreenshot(page, `tour-${size.width}-scaffolder-review`);
  }

  // Dry run: every step passes, the API server validated the objects (dryRun=All) and nothing was written.
  const dry = await dryRun(page, token, form);
  const messages = dry.log.map(l => l.body.message).join('\n');
  expect(messages).toContain(
    `Validating (dry run, nothing is written) cluster ${MC}/${NS}/${name}`,
  );
  expect(messages).toMatch(/The API server accepted 5 objects/);
  expect(await clusterExists(name)).toBe(false);

  // Create.
  // The catalog hears the change from the capz backend (a delta mutation, not the 60 s full refresh).
  const entity = clusterToEntity(page, token, name, 60_000);
  const t0 = Date.now();
  await page.getByRole('button', { name: 'Create' }).click();
  const open = page.getByRole('link', { name: 'Open the cluster' });
  await expect(open).toBeVisible({ timeout: 60_000 });
  const created = Date.now();
  timing(
    `template run (render + create) to the "Open the cluster" link: ${
      created - t0
    } ms`,
  );
  expect(await clusterExists(name)).toBe(true);
  await saveScreenshot(page, 'scaffolder-task-done');

  // An output link opens in a new window.
  expect(await open.getAttribute('href')).toMatch(
    new RegExp(`/capz/clusters/${MC}/${NS}/${name}$`),
  );
  const [clusterPage] = await Promise.all([
    page.context().waitForEvent('page'),
    open.click(),
  ]);
  await expect(clusterPage).toHaveURL(
    new RegExp(`/capz/clusters/${MC}/${NS}/${name}$`),
  );
  await expect(
    clusterPage.getByRole('heading', { level: 2, name }),
  ).toBeVisible();
  await expect(clusterPage.getByText(/1\/1 pools ready/)).toBeVisible({
    timeout: READY_TIMEOUT,
  });
  await expect(
    clusterPage.getByText('Healthy', { exact: true }).first(),
  ).toBeVisible({
    timeout: READY_TIMEOUT,
  });
  timing(`create to Healthy on the cluster page: ${Date.now() - created} ms`);
  await saveScreenshot(clusterPage, 'scaffolder-cluster-healthy');

  const { entity: e, ms } = await entity;
  timing(
    `the Cluster on the management cluster to its catalog entity (delta mutation): ${ms} ms`,
  );
  expect(ms).toBeLessThan(15_000);
  expect(e.spec.type).toBe('kubernetes-cluster');
  expect(e.metadata.annotations['capz.io/cluster']).toBe(`${MC}/${NS}/${name}`);
  // The owner chosen in the form, through the Cluster's capz.io/owner annotation.
  expect(
    (await kube('GET', clusterPath(name))).metadata.annotations[
      'capz.io/owner'
    ],
  ).toBe(OWNER);
  expect(e.spec.owner).toBe(OWNER);

  // The entity's page in the catalog, as people find it: its owner in the About card.
  await page.goto(`/catalog/default/resource/${MC}-${NS}-${name}`);
  const about = page.getByRole('article').filter({
    has: page.getByRole('heading', { name: 'About' }),
  });
  await expect(about.getByRole('link', { name: 'payments' })).toBeVisible();
  await saveScreenshot(page, 'scaffolder-catalog-entity');
});

test('New AKS cluster: delivery git → the branch with its manifests is on the Git server, nothing applied', async ({
  page,
}) => {
  test.setTimeout(180_000);
  const repoUrl = process.env.CAPZ_GITOPS_REPO_URL;
  expect(
    repoUrl,
    'CAPZ_GITOPS_REPO_URL: scripts/test.sh starts the Git server for the e2e stage',
  ).toBeTruthy();
  const name = `e2e-git-${RUN}`;
  const branch = `capz/new-cluster-${NS}-${name}`;
  const form: ClusterForm = { name, delivery: 'git' };
  await signInAsGuest(page);
  const token = await backstageToken(page);
  await fillForm(page, form);

  // Dry run: committed in a clone, not pushed.
  const dry = await dryRun(page, token, form);
  expect(dry.log.map(l => l.body.message).join('\n')).toMatch(
    /Dry run: committed [0-9a-f]{12} on .* the branch is NOT pushed/,
  );
  const remoteBranches = async () =>
    (await run('git', ['ls-remote', '--heads', repoUrl!])).stdout;
  expect(await remoteBranches()).not.toContain(branch);

  const t0 = Date.now();
  await page.getByRole('button', { name: 'Create' }).click();
  await expect(
    page.getByRole('heading', { name: `Proposal on branch ${branch}` }),
  ).toBeVisible({ timeout: 60_000 });
  timing(
    `template run with git delivery (render + propose: clone, commit, push): ${
      Date.now() - t0
    } ms`,
  );
  await saveScreenshot(page, 'scaffolder-git-done');
  expect(await remoteBranches()).toContain(`refs/heads/${branch}`);
  expect(await clusterExists(name)).toBe(false);

  // The branch as a reviewer gets it.
  const dir = mkdtempSync(join(tmpdir(), 'e2e-gitops-'));
  try {
    await run('git', ['clone', '--quiet', '--branch', branch, repoUrl!, dir]);
    const docs = parseAllDocuments(
      readFileSync(join(dir, 'clusters', NS, name, 'cluster.yaml'), 'utf8'),
    ).map(d => d.toJS());
    expect(docs.map(d => `${d.kind}/${d.metadata.name}`)).toEqual([
      `Cluster/${name}`,
      `AzureASOManagedControlPlane/${name}`,
      `AzureASOManagedCluster/${name}`,
      `MachinePool/${name}-system`,
      `AzureASOManagedMachinePool/${name}-system`,
    ]);
    expect(docs[0].metadata.annotations['capz.io/owner']).toBe(OWNER);
    expect(
      readFileSync(
        join(dir, 'clusters', NS, name, 'kustomization.yaml'),
        'utf8',
      ),
    ).toContain('- cluster.yaml');
    const { stdout: subject } = await run('git', [
      '-C',
      dir,
      'log',
      '-1',
      '--format=%s',
    ]);
    expect(subject.trim()).toBe(
      `Add AKS cluster ${NS}/${name} (management cluster ${MC})`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('capz:cluster:propose in the running backend: a dry run clones the configured GitOps repository and pushes nothing', async ({
  page,
}) => {
  const repoUrl = process.env.CAPZ_GITOPS_REPO_URL;
  expect(
    repoUrl,
    'CAPZ_GITOPS_REPO_URL: scripts/test.sh starts the Git server for the e2e stage',
  ).toBeTruthy();
  await signInAsGuest(page);
  const token = await backstageToken(page);
  const name = `e2e-dry-${RUN}`;
  // The template editor's dry run of a one-step template: no repoUrl, so the backend's scaffolder.capz.gitops.repoUrl.
  const res = await page.request.post('/api/scaffolder/v2/dry-run', {
    headers: { Authorization: `Bearer ${token}` },
    data: {
      template: {
        apiVersion: 'scaffolder.backstage.io/v1beta3',
        kind: 'Template',
        metadata: { name: 'propose-dry-run' },
        spec: {
          type: 'cluster',
          parameters: [],
          steps: [
            {
              id: 'propose',
              name: 'Propose the cluster',
              action: 'capz:cluster:propose',
              input: {
                managementCluster: MC,
                name,
                namespace: NS,
                location: 'westeurope',
                kubernetesVersion: 'v1.33.2',
                credentialSecretName: 'aso-credential',
                pools: [
                  {
                    name: 'pool0',
                    mode: 'System',
                    vmSize: 'Standard_D2s_v3',
                    replicas: 1,
                  },
                ],
              },
            },
          ],
          output: { branch: '${{ steps.propose.output.branch }}' },
        },
      },
      values: {},
      secrets: {},
      directoryContents: [],
    },
  });
  const body = await res.json();
  expect(res.status(), JSON.stringify(body)).toBe(200);
  const log = body.log.map((l: any) => l.body.message).join('\n');
  expect(log).toContain(`Cloning ${repoUrl} at main`);
  expect(log).toMatch(
    /Dry run: committed [0-9a-f]{12} on capz\/new-cluster-.* the branch is NOT pushed/,
  );
  expect(body.output.branch).toBe(`capz/new-cluster-${NS}-${name}`);
  const { stdout } = await run('git', ['ls-remote', '--heads', repoUrl!]);
  expect(stdout).not.toContain(name);
});

/** The Gitea scripts/test.sh starts (packages/git-server/src/gitea-cli.ts's info file) and its admin's credentials. */
function giteaInfo() {
  const file = process.env.CAPZ_GITEA_INFO;
  expect(
    file,
    'CAPZ_GITEA_INFO: scripts/test.sh starts Gitea for the e2e stage',
  ).toBeTruthy();
  const info = JSON.parse(readFileSync(file!, 'utf8')) as {
    url: string;
    host: string;
    credentials: string;
  };
  const { username, password } = JSON.parse(
    readFileSync(info.credentials, 'utf8'),
  ) as { username: string; password: string };
  const headers = {
    Authorization: `Basic ${Buffer.from(`${username}:${password}`).toString(
      'base64',
    )}`,
  };
  return { ...info, username, password, headers };
}

test('New AKS cluster: delivery pull-request on Gitea → the pull request is open with the rendered files, linked from the output', async ({
  page,
}) => {
  test.setTimeout(180_000);
  const gitea = giteaInfo();
  const name = `e2e-pr-${RUN}`;
  const branch = `capz/new-cluster-${NS}-${name}`;
  const form: ClusterForm = {
    name,
    delivery: 'pull-request',
    gitopsRepo: { host: gitea.host, owner: gitea.username, repo: 'gitops' },
  };
  const api = `${gitea.url}/api/v1/repos/${gitea.username}/gitops`;
  const openPulls = async () => {
    const res = await page.request.get(`${api}/pulls?state=open&limit=50`, {
      headers: gitea.headers,
    });
    expect(res.status()).toBe(200);
    return ((await res.json()) as any[]).filter(p => p.head.ref === branch);
  };
  await signInAsGuest(page);
  const token = await backstageToken(page);
  await fillForm(page, form);

  // Dry run: render writes the files into the workspace (the dry run returns them); propose commits in a clone and
  // neither pushes nor opens a pull request.
  const dry = await dryRun(page, token, form);
  expect(dry.log.map(l => l.body.message).join('\n')).toMatch(
    /Dry run: committed [0-9a-f]{12} on .* the branch is NOT pushed/,
  );
  const rendered = dry.directoryContents.filter(f =>
    f.path.startsWith(`clusters/${NS}/${name}/`),
  );
  expect(rendered.map(f => f.path).sort()).toEqual([
    `clusters/${NS}/${name}/cluster.yaml`,
    `clusters/${NS}/${name}/kustomization.yaml`,
  ]);
  expect(await openPulls()).toEqual([]);

  const t0 = Date.now();
  await page.getByRole('button', { name: 'Create' }).click();
  await expect(
    page.getByRole('heading', { name: `Pull request from branch ${branch}` }),
  ).toBeVisible({ timeout: 60_000 });
  timing(
    `template run with pull-request delivery on Gitea (render + propose: clone, commit, push, open): ${
      Date.now() - t0
    } ms`,
  );
  await saveScreenshot(page, 'scaffolder-gitea-pr-done');
  expect(await clusterExists(name)).toBe(false);

  // The pull request as Gitea has it: open, from the branch into main, and the output's link.
  const pulls = await openPulls();
  expect(pulls.length).toBe(1);
  const pr = pulls[0];
  expect(pr.state).toBe('open');
  expect(pr.base.ref).toBe('main');
  expect(pr.title).toBe(
    `Add AKS cluster ${NS}/${name} (management cluster ${MC})`,
  );
  await expect(
    page.getByRole('link', { name: 'Open the pull request' }),
  ).toHaveAttribute('href', pr.html_url);

  // The branch's files, byte for byte what capz:cluster:render wrote for the same parameters.
  for (const f of rendered) {
    const res = await page.request.get(
      `${api}/raw/${f.path}?ref=${encodeURIComponent(branch)}`,
      { headers: gitea.headers },
    );
    expect(res.status(), f.path).toBe(200);
    expect(
      Buffer.compare(await res.body(), Buffer.from(f.base64Content, 'base64')),
      f.path,
    ).toBe(0);
  }
});

/** Where Flux takes the template's clusters from in this run: flux-system/e2e-clusters, the namespace's folder. */
const KS = 'e2e-clusters';
const FLUX = '/apis/source.toolkit.fluxcd.io/v1/namespaces/flux-system';
const KUSTOMIZE = '/apis/kustomize.toolkit.fluxcd.io/v1/namespaces/flux-system';

/**
 * Flux following Gitea's `gitops` repository (scripts/test.sh starts Flux on the run's management cluster), set up as
 * the demo does it, through `capz-mgmt-cluster flux follow` (packages/mgmt-cluster/src/flux.ts followGitRepository): a
 * GitRepository with the admin's basic auth and a Kustomization, both named `e2e-clusters`, applying the template's
 * folder of this namespace (`clusters/<namespace>`, the layout capz:cluster:render writes). Their intervals are long:
 * the test asks for each reconcile it waits for, as `flux reconcile` does (docs/flux-facts.md#flux-reconcile-triggers).
 */
async function fluxFollows(gitea: ReturnType<typeof giteaInfo>) {
  const cluster = process.env.CAPZ_TEST_CLUSTER_NAME;
  expect(
    cluster,
    'CAPZ_TEST_CLUSTER_NAME: scripts/test.sh names its management cluster for the e2e stage',
  ).toBeTruthy();
  await run(
    process.execPath,
    [
      'packages/mgmt-cluster/src/cli.ts',
      'flux',
      'follow',
      '--name',
      cluster!,
      '--url',
      `${gitea.url}/${gitea.username}/gitops.git`,
      '--credentials',
      gitea.credentials,
      '--path',
      `./clusters/${NS}`,
      '--kustomization',
      KS,
      '--interval',
      '1h',
    ],
    { cwd: join(__dirname, '..', '..') },
  );
}

/**
 * Merges a pull request as a reviewer would, fetches main into Flux now, and waits until Flux has applied it; returns
 * the merged commit.
 */
async function mergeAndApply(
  page: Page,
  gitea: ReturnType<typeof giteaInfo>,
  number: number,
): Promise<string> {
  const api = `${gitea.url}/api/v1/repos/${gitea.username}/gitops`;
  const merged = await page.request.post(`${api}/pulls/${number}/merge`, {
    headers: gitea.headers,
    data: { Do: 'merge' },
  });
  expect(merged.status(), await merged.text()).toBe(200);
  const head = await page.request.get(`${api}/branches/main`, {
    headers: gitea.headers,
  });
  const commit: string = (await head.json()).commit.id;
  await kube('PATCH', `${FLUX}/gitrepositories/${KS}`, {
    metadata: {
      annotations: { 'reconcile.fluxcd.io/requestedAt': `e2e-${Date.now()}` },
    },
  });
  await expect
    .poll(
      async () => {
        const k = await kube('GET', `${KUSTOMIZE}/kustomizations/${KS}`);
        const ready = (k.status?.conditions ?? []).find(
          (c: any) => c.type === 'Ready',
        );
        return `${ready?.status} ${k.status?.lastAppliedRevision}`;
      },
      { timeout: 120_000, message: `Flux to apply main@sha1:${commit}` },
    )
    .toBe(`True main@sha1:${commit}`);
  return commit;
}

/** The lines a diff adds and removes, in order: what two diffs of one change share whatever their context. */
const changedLines = (diff: string) =>
  diff
    .split('\n')
    .slice(diff.split('\n').findIndex(l => l.startsWith('@@')))
    .filter(
      l =>
        (l.startsWith('+') || l.startsWith('-')) &&
        !l.startsWith('+++ ') &&
        !l.startsWith('--- '),
    );

test('New AKS cluster through Gitea and Flux: the merged pull request becomes a Healthy cluster applied by Flux; its scale and its upgrade are pull requests whose diffs are the previews, and once merged the page shows the new count and version; its delete is a pull request too, and once merged the cluster is gone', async ({
  page,
}) => {
  test.setTimeout(600_000);
  const gitea = giteaInfo();
  await fluxFollows(gitea);
  const name = `e2e-flux-${RUN}`;
  const api = `${gitea.url}/api/v1/repos/${gitea.username}/gitops`;
  await signInAsGuest(page);
  await fillForm(page, {
    name,
    delivery: 'pull-request',
    gitopsRepo: { host: gitea.host, owner: gitea.username, repo: 'gitops' },
    // One patch behind the default, so that the upgrade below has somewhere to go.
    version: 'v1.33.1',
  });
  await page.getByRole('button', { name: 'Create' }).click();
  const link = page.getByRole('link', { name: 'Open the pull request' });
  await expect(link).toBeVisible({ timeout: 60_000 });
  const created = Number(
    /\/pulls\/(\d+)$/.exec((await link.getAttribute('href')) ?? '')?.[1],
  );
  expect(created).toBeGreaterThan(0);
  expect(await clusterExists(name)).toBe(false);

  // Merged: Flux applies the template's files, the controllers make the cluster, the page shows it applied by Flux.
  const t0 = Date.now();
  const merged = await mergeAndApply(page, gitea, created);
  await expect.poll(() => clusterExists(name), { timeout: 60_000 }).toBe(true);
  await page.goto(`/capz/clusters/${MC}/${NS}/${name}`);
  await expect(page.getByRole('heading', { level: 2, name })).toBeVisible();
  await expect(page.getByText('Healthy', { exact: true }).first()).toBeVisible({
    timeout: READY_TIMEOUT,
  });
  timing(
    `merged template pull request to Healthy on the cluster page: ${
      Date.now() - t0
    } ms`,
  );
  // Where it comes from, read from Flux's Kustomization and GitRepository: the repository (its URL as the
  // GitRepository has it, no credentials in it), branch, path, the applied commit, and Flux in sync with its source.
  await expect(
    page.getByText(
      `Applied by Flux's Kustomization flux-system/${KS} from ${gitea.url}/${
        gitea.username
      }/gitops.git, branch main, path ./clusters/${NS}, at revision ${merged.slice(
        0,
        7,
      )} — in sync. Change it in Git.`,
    ),
  ).toBeVisible();
  const cluster = await kube('GET', clusterPath(name));
  expect(cluster.metadata.labels['kustomize.toolkit.fluxcd.io/name']).toBe(KS);

  // Scale system 1 → 2: the preview is the change of the cluster's file; the confirm opens a pull request.
  await page.getByRole('button', { name: 'Cluster actions' }).click();
  await page.getByRole('menuitem', { name: 'Scale pool' }).click();
  const dialog = page.getByRole('dialog', { name: 'Scale a node pool' });
  await dialog.getByRole('button', { name: /Node pool/ }).click();
  await page.getByRole('option', { name: /^system/ }).click();
  await dialog.getByRole('textbox', { name: /Nodes/ }).fill('2');
  const previewed = page.waitForResponse(
    r => r.request().method() === 'POST' && /\/preview$/.test(r.url()),
  );
  await dialog.getByRole('button', { name: 'Preview' }).click();
  const preview = await (await previewed).json();
  expect(preview.git.proposable).toBe(true);
  expect(preview.git.files.map((f: any) => f.path)).toEqual([
    `clusters/${NS}/${name}/cluster.yaml`,
  ]);
  await expect(
    dialog.getByRole('button', { name: 'Open pull request' }),
  ).toBeEnabled();
  await expectAxeClean(page, '[role="dialog"]');
  await saveScreenshot(page, 'gitops-scale-preview');
  await dialog.getByRole('button', { name: 'Open pull request' }).click();
  const opened = dialog.getByText(/^Pull request #(\d+) opened/);
  await expect(opened).toBeVisible({ timeout: 60_000 });
  const number = Number(/#(\d+)/.exec((await opened.textContent()) ?? '')![1]);
  const pool = `/apis/cluster.x-k8s.io/v1beta2/namespaces/${NS}/machinepools/${name}-system`;
  // Nothing live: the MachinePool keeps Git's count until the merge.
  expect((await kube('GET', pool)).spec.replicas).toBe(1);
  const diff = await page.request.get(`${api}/pulls/${number}.diff`, {
    headers: gitea.headers,
  });
  expect(diff.status()).toBe(200);
  expect(changedLines(await diff.text())).toEqual(
    changedLines(preview.git.files[0].diff),
  );
  await dialog.getByRole('button', { name: 'Done' }).click();

  // Merged: Flux applies it, the controllers follow, the page's pool table shows the new count.
  const t1 = Date.now();
  await mergeAndApply(page, gitea, number);
  await page.getByRole('tab', { name: 'Node pools' }).click();
  const table = page.getByRole('table', {
    name: `Node pools of cluster ${name}`,
  });
  await expect(table.getByRole('row', { name: /^system/ })).toContainText(
    '2 of 2 nodes ready',
    { timeout: READY_TIMEOUT },
  );
  timing(
    `merged scale pull request to 2 of 2 nodes on the page: ${
      Date.now() - t1
    } ms`,
  );
  expect((await kube('GET', pool)).spec.replicas).toBe(2);
  await saveScreenshot(page, 'gitops-scale-merged');

  // Upgrade the control plane v1.33.1 → v1.33.2: the same dialog and preview, the change of the cluster's file, a pull
  // request on confirm; nothing live until the merge; merged, AKS upgrades and the page shows the version.
  await page.getByRole('button', { name: 'Cluster actions' }).click();
  await page.getByRole('menuitem', { name: 'Upgrade Kubernetes' }).click();
  const up = page.getByRole('dialog', { name: 'Upgrade Kubernetes' });
  await expect(
    up.getByRole('radio', { name: 'The control plane (first)' }),
  ).toBeChecked();
  await chooseInDialog(page, up, /Control plane version/, /^v1\.33\.2/);
  const upPreviewed = page.waitForResponse(
    r => r.request().method() === 'POST' && /\/preview$/.test(r.url()),
  );
  await up.getByRole('button', { name: 'Preview' }).click();
  const upPreview = await (await upPreviewed).json();
  expect(upPreview.git.proposable).toBe(true);
  expect(upPreview.git.files.map((f: any) => f.path)).toEqual([
    `clusters/${NS}/${name}/cluster.yaml`,
  ]);
  // Exactly the control plane's version changes in the file.
  expect(
    changedLines(upPreview.git.files[0].diff).map(l => l.replace(/\s+/g, ' ')),
  ).toEqual(['- version: v1.33.1', '+ version: v1.33.2']);
  await expect(
    up.getByRole('button', { name: 'Open pull request' }),
  ).toBeEnabled();
  await expectAxeClean(page, '[role="dialog"]');
  await up.getByRole('button', { name: 'Open pull request' }).click();
  const upOpened = up.getByText(/^Pull request #(\d+) opened/);
  await expect(upOpened).toBeVisible({ timeout: 60_000 });
  const upNumber = Number(
    /#(\d+)/.exec((await upOpened.textContent()) ?? '')![1],
  );
  const controlPlane = `/apis/infrastructure.cluster.x-k8s.io/v1beta1/namespaces/${NS}/azureasomanagedcontrolplanes/${name}`;
  expect((await kube('GET', controlPlane)).spec.version).toBe('v1.33.1');
  const upDiff = await page.request.get(`${api}/pulls/${upNumber}.diff`, {
    headers: gitea.headers,
  });
  expect(upDiff.status()).toBe(200);
  expect(changedLines(await upDiff.text())).toEqual(
    changedLines(upPreview.git.files[0].diff),
  );
  await up.getByRole('button', { name: 'Done' }).click();
  const t3 = Date.now();
  await mergeAndApply(page, gitea, upNumber);
  await expect(page.getByText(new RegExp(`^${NS} · `))).toContainText(
    'v1.33.2',
    { timeout: READY_TIMEOUT },
  );
  timing(
    `merged upgrade pull request to v1.33.2 on the page: ${Date.now() - t3} ms`,
  );
  expect((await kube('GET', controlPlane)).spec.version).toBe('v1.33.2');

  // Delete through Git (docs/flux-facts.md#git-delete): the dialog's pull request removes the Cluster's document and
  // marks the others; nothing is deleted live until the merge; merged, Flux prunes the Cluster and it leaves the list.
  await page.getByRole('button', { name: 'Cluster actions' }).click();
  await page.getByRole('menuitem', { name: 'Delete cluster' }).click();
  const del = page.getByRole('dialog', { name: `Delete cluster ${name}` });
  await expect(
    del.getByRole('list', { name: 'Deleted in Azure' }),
  ).toBeVisible();
  await expect(
    del.getByLabel(`Diff of clusters/${NS}/${name}/cluster.yaml`),
  ).toContainText('kustomize.toolkit.fluxcd.io/reconcile: disabled');
  await expectAxeClean(page);
  await del
    .getByRole('textbox', { name: `Type ${name} to confirm` })
    .fill(name);
  await del.getByRole('button', { name: 'Open pull request' }).click();
  const deleting = del.getByText(/^Pull request #(\d+) opened/);
  await expect(deleting).toBeVisible({ timeout: 60_000 });
  const deleteNumber = Number(
    /#(\d+)/.exec((await deleting.textContent()) ?? '')![1],
  );
  await saveScreenshot(page, 'gitops-delete-proposed');
  // Nothing deleted live: the Cluster is not being deleted until the merge.
  expect(
    (await kube('GET', clusterPath(name))).metadata.deletionTimestamp,
  ).toBeUndefined();
  await del.getByRole('button', { name: /^(Done|Cancel)$/ }).click();
  const t2 = Date.now();
  await mergeAndApply(page, gitea, deleteNumber);
  await expect
    .poll(() => clusterExists(name), { timeout: READY_TIMEOUT })
    .toBe(false);
  timing(
    `merged delete pull request to the Cluster gone: ${Date.now() - t2} ms`,
  );
  // Searched for: the table shows one page of 50, so only a search makes a missing row mean a cluster gone.
  await page.goto(`/capz?q=${encodeURIComponent(name)}`);
  await expect(
    page
      .getByRole('region', { name: 'Clusters' })
      .getByRole('link', { name, exact: true }),
  ).toHaveCount(0);
});
