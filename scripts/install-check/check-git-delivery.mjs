#!/usr/bin/env node
/**
 * The New AKS cluster template's Git delivery in the installed app: signs in as the guest (the backend's guest
 * provider, as the sign-in page does), runs `template:default/new-aks-cluster` with `delivery: git` and no
 * repository (so `capz:cluster:propose` pushes to `scaffolder.capz.gitops.repoUrl`, docs/install.md's configuration)
 * through the scaffolder's API (`POST /api/scaffolder/v2/tasks`, as the form's Create does), waits for the task, and
 * checks the Git server's bare repository: the branch `capz/new-cluster-<namespace>-<name>` exists, adds exactly the
 * files `capz:cluster:render` writes for the same values (asked of the same backend in a dry run of a one-step
 * template), byte for byte, with render's commit message; and the cluster is not on the management cluster.
 *
 * Usage: check-git-delivery.mjs <base url> <bare repository dir> --management-cluster M --namespace N --name C
 *        [--owner group:default/x] [--timeout-seconds 300]
 * Needs `git` (reads the bare repository) and `kubectl` with KUBECONFIG at the management cluster.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { parseArgs } from 'node:util';

const { positionals, values: opts } = parseArgs({
  allowPositionals: true,
  options: {
    'management-cluster': { type: 'string' },
    namespace: { type: 'string' },
    name: { type: 'string' },
    owner: { type: 'string' },
    'timeout-seconds': { type: 'string', default: '300' },
  },
});
const [baseUrl, bareRepo] = positionals;
const mc = opts['management-cluster'];
const { namespace, name } = opts;
if (!baseUrl || !bareRepo || !mc || !namespace || !name) {
  console.error(
    'usage: check-git-delivery.mjs <base url> <bare repository dir> --management-cluster M --namespace N --name C [--owner REF] [--timeout-seconds S]',
  );
  process.exit(2);
}
const owner = opts.owner ?? `group:default/${namespace}`;
/** A hang detector: the task takes seconds (render, then clone, commit, push on localhost). */
const timeoutMs = Number(opts['timeout-seconds']) * 1000;
const branch = `capz/new-cluster-${namespace}-${name}`;
const dir = `clusters/${namespace}/${name}`;

const log = m => console.error(`check-git-delivery: ${m}`);
class CheckError extends Error {}
const fail = m => {
  throw new CheckError(m);
};

/** The template's parameters, as its form fills them for a new cluster in the namespace. */
const cluster = {
  managementCluster: mc,
  namespace,
  credentialSecretName: 'aso-credential',
  name,
  location: 'westeurope',
  kubernetesVersion: 'v1.33.2',
  owner,
  entraOnly: true,
  adminGroupObjectIDs: [],
  tags: {},
  pools: [
    { name: 'system', mode: 'System', vmSize: 'Standard_D2s_v3', replicas: 2 },
  ],
};

async function api(method, path, token, body) {
  const res = await fetch(`${baseUrl}${path}`, {
    method,
    headers: {
      'X-Requested-With': 'XMLHttpRequest',
      ...(token ? { Authorization: `Bearer ${token}` } : {}),
      ...(body ? { 'Content-Type': 'application/json' } : {}),
    },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  if (!res.ok)
    fail(`${method} ${path}: HTTP ${res.status} ${text.slice(0, 2000)}`);
  return text ? JSON.parse(text) : undefined;
}

const git = (...args) =>
  execFileSync('git', ['--git-dir', bareRepo, ...args], {
    encoding: 'buffer',
    maxBuffer: 64 << 20,
  });
const gitText = (...args) => git(...args).toString('utf8');

async function main() {
  // The guest's Backstage token, as the sign-in page gets it.
  const identity = await api('GET', '/api/auth/guest/refresh?env=development');
  const token =
    identity?.backstageIdentity?.token ??
    fail('the guest refresh returned no backstageIdentity.token');
  log(
    `signed in as ${
      identity.backstageIdentity.identity?.userEntityRef ?? '(guest)'
    }`,
  );

  // The catalog ingests docs/install.md's template location in its first processing rounds after start-up.
  const entityPath =
    '/api/catalog/entities/by-name/template/default/new-aks-cluster';
  for (const t = Date.now(); ; ) {
    const res = await fetch(`${baseUrl}${entityPath}`, {
      headers: { Authorization: `Bearer ${token}` },
    });
    if (res.ok) break;
    if (res.status !== 404)
      fail(
        `GET ${entityPath}: HTTP ${res.status} ${(await res.text()).slice(
          0,
          2000,
        )}`,
      );
    if (Date.now() - t > timeoutMs)
      fail(
        `the catalog has no template:default/new-aks-cluster ${Math.round(
          (Date.now() - t) / 1000,
        )}s after the backend was ready: docs/install.md's catalog location of the template was not ingested (see the backend log)`,
      );
    await new Promise(r => setTimeout(r, 1000));
  }
  log(`template:default/new-aks-cluster is in the catalog`);

  const before = gitText('for-each-ref', '--format=%(refname)', 'refs/heads/');
  if (before.includes(`refs/heads/${branch}`))
    fail(
      `branch ${branch} is in ${bareRepo} before the task ran (the Git server's root is not fresh)`,
    );

  // The template run, as the form's Create sends it (no repoUrl: the configured scaffolder.capz.gitops.repoUrl).
  const t0 = Date.now();
  const { id } = await api('POST', '/api/scaffolder/v2/tasks', token, {
    templateRef: 'template:default/new-aks-cluster',
    values: { ...cluster, delivery: 'git' },
    secrets: {},
  });
  log(`task ${id} created`);
  let task;
  for (;;) {
    task = await api(
      'GET',
      `/api/scaffolder/v2/tasks/${encodeURIComponent(id)}`,
      token,
    );
    if (['completed', 'failed', 'cancelled'].includes(task.status)) break;
    if (Date.now() - t0 > timeoutMs) break;
    await new Promise(r => setTimeout(r, 500));
  }
  const events = await api(
    'GET',
    `/api/scaffolder/v2/tasks/${encodeURIComponent(id)}/events`,
    token,
  );
  const taskLog = () =>
    events
      .map(
        e =>
          `  ${e.body?.stepId ? `[${e.body.stepId}] ` : ''}${
            e.body?.message ?? JSON.stringify(e.body)
          }`,
      )
      .join('\n');
  if (task.status !== 'completed')
    fail(
      `task ${id} is ${task.status} after ${Math.round(
        (Date.now() - t0) / 1000,
      )}s (want completed); its log:\n${taskLog()}`,
    );
  const completion = events.find(e => e.type === 'completion');
  const output = completion?.body?.output ?? {};
  log(
    `task completed in ${Date.now() - t0} ms: ${
      (output.text ?? [])[0]?.title ?? '(no output text)'
    }`,
  );

  // What capz:cluster:render writes for the same values and user, from the same backend (a dry run writes nothing).
  const dry = await api('POST', '/api/scaffolder/v2/dry-run', token, {
    template: {
      apiVersion: 'scaffolder.backstage.io/v1beta3',
      kind: 'Template',
      metadata: { name: 'install-check-render', namespace: 'default' },
      spec: {
        type: 'cluster',
        parameters: [],
        steps: [
          {
            id: 'render',
            name: 'Render',
            action: 'capz:cluster:render',
            input: { ...cluster, writeFiles: true },
          },
        ],
        output: {
          branchName: '${{ steps.render.output.branchName }}',
          commitMessage: '${{ steps.render.output.commitMessage }}',
        },
      },
    },
    values: {},
    secrets: {},
    directoryContents: [],
  });
  const rendered = new Map(
    (dry.directoryContents ?? []).map(f => [
      f.path,
      Buffer.from(f.base64Content, 'base64'),
    ]),
  );
  if (rendered.size === 0)
    fail(
      `the dry run of capz:cluster:render wrote no files; its log:\n${dry.log
        ?.map(l => `  ${l.body?.message}`)
        .join('\n')}`,
    );
  if (dry.output?.branchName !== branch)
    fail(
      `capz:cluster:render names the branch ${dry.output?.branchName}, want ${branch}`,
    );

  // The Git server's repository.
  const heads = gitText('for-each-ref', '--format=%(refname)', 'refs/heads/')
    .split('\n')
    .filter(Boolean);
  if (!heads.includes(`refs/heads/${branch}`))
    fail(
      `no branch ${branch} in ${bareRepo} after the task completed (branches: ${
        heads.join(', ') || 'none'
      })`,
    );
  const changed = gitText(
    'diff',
    '--name-only',
    '--no-renames',
    'refs/heads/main',
    `refs/heads/${branch}`,
  )
    .split('\n')
    .filter(Boolean)
    .sort();
  const want = [...rendered.keys()].sort();
  if (JSON.stringify(changed) !== JSON.stringify(want))
    fail(
      `branch ${branch} changes [${changed.join(
        ', ',
      )}] from main; capz:cluster:render writes [${want.join(', ')}]`,
    );
  for (const path of want) {
    if (!path.startsWith(`${dir}/`))
      fail(`capz:cluster:render wrote ${path}, outside ${dir}/`);
    const pushed = git('show', `refs/heads/${branch}:${path}`);
    if (!pushed.equals(rendered.get(path))) {
      const a = pushed.toString('utf8').split('\n');
      const b = rendered.get(path).toString('utf8').split('\n');
      let i = 0;
      while (i < a.length && a[i] === b[i]) i++;
      const around = (l, n) =>
        l
          .slice(Math.max(0, n - 3), n + 4)
          .map((t, k) => `  ${Math.max(0, n - 3) + k + 1}: ${t}`)
          .join('\n');
      fail(
        `${path} on ${branch} differs from what capz:cluster:render writes, first at line ${
          i + 1
        }:\n pushed (${a.length} lines):\n${around(a, i)}\n rendered (${
          b.length
        } lines):\n${around(b, i)}`,
      );
    }
  }
  const message = gitText(
    'log',
    '-1',
    '--format=%B',
    `refs/heads/${branch}`,
  ).trimEnd();
  if (message !== String(dry.output?.commitMessage ?? '').trimEnd())
    fail(
      `the commit message on ${branch} differs from capz:cluster:render's:\n${message}\n---\n${dry.output?.commitMessage}`,
    );
  const parent = gitText('rev-parse', `refs/heads/${branch}^`).trim();
  if (parent !== gitText('rev-parse', 'refs/heads/main').trim())
    fail(`branch ${branch} does not start from main`);
  log(
    `branch ${branch}: ${
      want.length
    } files under ${dir}/ equal capz:cluster:render's (${want.join(', ')})`,
  );

  // Nothing applied: the git delivery only proposes.
  const get = spawnSync(
    'kubectl',
    ['get', '-n', namespace, 'clusters.cluster.x-k8s.io', name, '-o', 'name'],
    {
      encoding: 'utf8',
    },
  );
  if (get.status === 0)
    fail(
      `Cluster ${namespace}/${name} is on the management cluster: the git delivery applied it`,
    );
  if (!/NotFound/.test(get.stderr))
    fail(`kubectl get cluster ${namespace}/${name}: ${get.stderr.trim()}`);
  log(
    `Cluster ${namespace}/${name} is not on the management cluster (nothing applied)`,
  );
}

main().catch(e => {
  console.error(
    `check-git-delivery: ${e instanceof CheckError ? e.message : e.stack}`,
  );
  process.exitCode = 1;
});
