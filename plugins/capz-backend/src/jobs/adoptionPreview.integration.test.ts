/**
 * The adoption preview agrees with the job ("previews and results must agree everywhere, jobs included"):
 * an AKS cluster whose resource group a `manage` ResourceGroup object in another namespace already points at. Before,
 * the preview was all green and only the job's first write refused it (its live one-owner check). Here, on the real
 * API server through the real jobs router, with the backend running as the ServiceAccount bound to the shipped RBAC
 * (rbac/read.yaml + rbac/jobs.yaml) and AKS discovery reading the simulated ARM and Entra ID in process: the preview
 * fails the check with the very words of that live check (read from the API server), POST /jobs refuses it (422) and
 * nothing is written; with the object set to `skip` the check passes.
 */
import { MiddlewareFactory } from '@backstage/backend-defaults/rootHttpRouter';
import { mockCredentials, mockServices } from '@backstage/backend-test-utils';
import type {
  JobPlanResult,
  LiveCondition,
  PreflightCheck,
} from '@capz-backstage/plugin-capz-common';
import express from 'express';
import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import YAML from 'yaml';
import { WatchCache } from '../cluster/WatchCache';
import type { ManagementClusterConfig } from '../config/managementClusters';
import { createJobsRouter } from '../routers/jobsRouter';
import {
  applyManifest,
  createObjects,
  deleteTestNamespace,
  kube,
  loadClientForTests,
  serviceAccountToken,
  testClusterInfo,
  until,
} from '../testing/realCluster';
import {
  startSimulatedAzure,
  type SimulatedAzure,
} from '../testing/simulatedAzure';
import { jobClient, type JobClient } from '../cluster/clientViews';
import { ManagementClusterClient } from '../cluster/ManagementClusterClient';
import { DatabaseJobStore } from './DatabaseJobStore';
import { JobEngine } from './JobEngine';
import { JobPlanner } from './JobPlanner';
import { evaluateLive } from './StepRunner';

const info = testClusterInfo();
const hex = randomBytes(3).toString('hex');
// Not team-*: the test stage simulates the demo world in those namespaces.
const ns = `adopt-preview-${hex}`;
const ops = `ops-${hex}`;
const SUB = randomUUID();
const RG = `rg-shop-${hex}`;
const AKS = 'shop-aks';
const auth = { Authorization: mockCredentials.user.header() };
const rbac = (file: string) =>
  YAML.parseAllDocuments(
    readFileSync(join(__dirname, '..', '..', 'rbac', file), 'utf8'),
  ).map(d => d.toJS());

let azure: SimulatedAzure;
let knex: { destroy(): Promise<void> } | undefined;
let cache: WatchCache;
let app: express.Express;
let client: (managementCluster: string) => Promise<JobClient>;

const adopt = {
  type: 'adopt',
  params: {
    managementCluster: 'local',
    namespace: ns,
    credentialSecret: 'aso-credential',
    subscriptionId: SUB,
    resourceGroup: RG,
    clusterName: AKS,
  },
};

/** A ResourceGroup object for the AKS cluster's group in the `ops` namespace, as another team wrote it. */
const opsGroup = {
  apiVersion: 'resources.azure.com/v1api20200601',
  kind: 'ResourceGroup',
  metadata: { name: 'shop-group' },
  spec: { azureName: RG, location: 'westeurope' },
};
const RG_PATH = `/apis/resources.azure.com/v1api20200601/namespaces/${ops}/resourcegroups/shop-group`;

beforeAll(async () => {
  // The simulated Azure: one AKS cluster, in its own group.
  azure = await startSimulatedAzure(info, SUB);
  const { world } = azure;
  world.putResourceGroup(SUB, RG, { location: 'westeurope' });
  world.putManagedCluster(SUB, RG, AKS, {
    location: 'westeurope',
    agentPoolProfiles: [{ name: 'system', mode: 'System', count: 1 }],
  });
  await until(
    'the simulated AKS cluster to be created',
    () =>
      world.getManagedCluster(SUB, RG, AKS)?.provisioningState === 'Succeeded',
    30_000,
  );

  await applyManifest(info, [
    ...rbac('read.yaml'),
    ...rbac('jobs.yaml'),
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } },
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ops } },
  ]);
  // The namespace's ASO credential: the simulated service principal, which the simulated ARM lets read SUB.
  const secret = await kube(info, 'POST', `/api/v1/namespaces/${ns}/secrets`, {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'aso-credential' },
    stringData: azure.credentialData,
  });
  if (secret.status !== 201) throw new Error(`create Secret: ${secret.status}`);
  const token = await serviceAccountToken(
    info,
    'capz-system',
    'capz-backstage',
  );
  const managementClusters: ManagementClusterConfig[] = [
    {
      name: 'local',
      authMethod: 'serviceAccountToken',
      url: info.url,
      caData: info.caPem,
      serviceAccountToken: token,
    },
  ];
  const logger = mockServices.logger.mock();
  cache = new WatchCache(managementClusters, logger, loadClientForTests);
  await cache.start();
  const k8s = await loadClientForTests();
  const { kubeConfigFor } = require('../cluster/kubeConfig');
  const live = jobClient(
    new ManagementClusterClient(
      k8s,
      await kubeConfigFor(managementClusters[0], k8s),
    ),
  );
  client = async () => live;
  const aks = azure.discovery({
    logger,
    managedClusters: mc => cache.list(mc, 'ManagedCluster') as never,
    resourceGroups: mc => cache.list(mc, 'ResourceGroup') as never,
  });
  knex = require('knex')({
    client: 'better-sqlite3',
    connection: ':memory:',
    useNullAsDefault: true,
  });
  const store = await DatabaseJobStore.create({
    database: mockServices.database({ knex: knex as never }),
  });
  // Never started: every request here is refused before a job exists, or only previewed.
  const engine = new JobEngine({
    store,
    logger,
    client,
    waker: () => () => () => undefined,
    azure: aks,
  });
  app = express()
    .use(
      await createJobsRouter({
        logger,
        httpAuth: mockServices.httpAuth(),
        permissions: mockServices.permissions(),
        auditor: mockServices.auditor.mock(),
        managementClusters,
        cache,
        store,
        engine,
        planner: new JobPlanner({ managementClusters, cache, client, aks }),
        client,
        aks,
      }),
    )
    .use(
      MiddlewareFactory.create({
        config: mockServices.rootConfig(),
        logger,
      }).error(),
    );
  await until(
    'the watch cache to be synced',
    () => cache.status('local').synced,
    60_000,
  );
}, 120_000);

afterAll(async () => {
  await cache?.stop();
  await deleteTestNamespace(info, ns);
  await deleteTestNamespace(info, ops);
  await knex?.destroy();
  await azure?.stop();
}, 90_000);

const preview = async (): Promise<JobPlanResult> => {
  const res = await request(app).post('/jobs/preview').set(auth).send(adopt);
  expect(res.status).toBe(200);
  return res.body;
};
const groupCheck = (p: JobPlanResult) =>
  p.preflight.find((c: PreflightCheck) => c.id === 'group-not-managed');

/** The job's first write's live one-owner check, on the plan's own condition, read from the API server. */
async function firstWriteCheck(p: JobPlanResult) {
  const condition = p.plan
    .flatMap(s => s.preconditions)
    .find(c => c.type === 'sole-manager') as LiveCondition;
  expect(condition).toBeDefined();
  return evaluateLive(condition, {
    jobId: 'not-started',
    managementCluster: 'local',
    client: await client('local'),
    waker: () => () => undefined,
    signal: new AbortController().signal,
    log: async () => undefined,
    progress: async () => undefined,
    clusters: async () => [{ name: 'local', client: await client('local') }],
  });
}

/** What the adoption would write, in its namespace: nothing may be there after a refusal. */
const written = async () =>
  (
    await Promise.all(
      [
        `/apis/resources.azure.com/v1api20200601/namespaces/${ns}/resourcegroups`,
        `/apis/containerservice.azure.com/v1api20240901/namespaces/${ns}/managedclusters`,
      ].map(async path => (await kube(info, 'GET', path)).body.items ?? []),
    )
  ).flat();

it("shows the refusal of the job's first write in the preview when a manage ResourceGroup in another namespace points at the group; POST /jobs refuses it and writes nothing; set to skip, it passes", async () => {
  // Another team's ResourceGroup object for the same group, without a reconcile-policy: ASO's default, manage.
  await createObjects(info, ops, [opsGroup]);
  await until(
    'the watch cache to hold the ResourceGroup in the other namespace',
    () => cache.list('local', 'ResourceGroup', ops).length === 1,
    30_000,
  );

  const refused = await preview();
  const live = await firstWriteCheck(refused);
  expect(live).toEqual({
    holds: false,
    observed: `ResourceGroup local/${ops}/shop-group (reconcile-policy manage) would delete its resource group ${RG}`,
  });
  expect(groupCheck(refused)).toEqual({
    id: 'group-not-managed',
    title: 'No other ResourceGroup object can delete its resource group',
    status: 'fail',
    message: `The job's first write would be refused: ${live.observed}.`,
    fix: expect.stringContaining(
      'serviceoperator.azure.com/reconcile-policy: skip',
    ),
  });

  const start = await request(app).post('/jobs').set(auth).send(adopt);
  expect(start.status).toBe(422);
  expect(
    start.body.preflight.find(
      (c: PreflightCheck) => c.id === 'group-not-managed',
    )?.status,
  ).toBe('fail');
  expect((await request(app).get('/jobs').set(auth)).body.items).toEqual([]);
  expect(await written()).toEqual([]);

  // The other team lets go of the group: the preview and the live check agree again.
  const patched = await kube(
    info,
    'PATCH',
    RG_PATH,
    {
      metadata: {
        annotations: { 'serviceoperator.azure.com/reconcile-policy': 'skip' },
      },
    },
    'application/merge-patch+json',
  );
  expect(patched.status).toBe(200);
  await until(
    'the watch cache to see the skip policy',
    () =>
      cache.list('local', 'ResourceGroup', ops)[0]?.metadata.annotations?.[
        'serviceoperator.azure.com/reconcile-policy'
      ] === 'skip',
    30_000,
  );
  const passes = await preview();
  expect(groupCheck(passes)?.status).toBe('pass');
  expect(passes.preflight.filter(c => c.status === 'fail')).toEqual([]);
  expect((await firstWriteCheck(passes)).holds).toBe(true);
}, 120_000);
