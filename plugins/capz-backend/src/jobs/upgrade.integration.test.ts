/**
 * The v1alpha1 -> v1beta1 upgrade job on the real API server, through the real router and engine, with the backend
 * running as the ServiceAccount bound to exactly the shipped RBAC (rbac/read.yaml + rbac/jobs.yaml). A cluster written
 * at v1alpha1 by "kubectl" (a field manager) ends up with no v1alpha1 writer recorded, so the read path shows it as
 * v1beta1, and the job tells the user which manifests they must change.
 */
import { MiddlewareFactory } from '@backstage/backend-defaults/rootHttpRouter';
import { mockCredentials, mockServices } from '@backstage/backend-test-utils';
import {
  detectClusterApi,
  generateAksAsoClusterManifests,
  kinds,
  type Job,
  type ObservedObject,
} from '@capz-backstage/plugin-capz-common';
import express from 'express';
import { randomBytes } from 'node:crypto';
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
import { jobClient, type JobClient } from '../cluster/clientViews';
import { ManagementClusterClient } from '../cluster/ManagementClusterClient';
import { JobEngine } from './JobEngine';
import { JobPlanner } from './JobPlanner';
import { DatabaseJobStore } from './DatabaseJobStore';

const info = testClusterInfo();
const ns = `team-upgrade-${randomBytes(3).toString('hex')}`;
const CAPZ_ALPHA = 'infrastructure.cluster.x-k8s.io/v1alpha1';
const rbac = (file: string) =>
  YAML.parseAllDocuments(
    readFileSync(join(__dirname, '..', '..', 'rbac', file), 'utf8'),
  ).map(d => d.toJS());

let cache: WatchCache;
let engine: JobEngine;
let app: express.Express;
const auth = { Authorization: mockCredentials.user.header() };

beforeAll(async () => {
  await applyManifest(info, [...rbac('read.yaml'), ...rbac('jobs.yaml')]);
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
      namespaces: [ns],
    },
  ];
  // A cluster as the user applied it with kubectl before the upgrade: every CAPZ object at v1alpha1.
  const created = await kube(info, 'POST', '/api/v1/namespaces', {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: ns },
  });
  if (created.status !== 201)
    throw new Error(`create namespace ${ns}: ${created.status}`);
  const manifests = generateAksAsoClusterManifests({
    name: 'alpha',
    namespace: ns,
    location: 'westeurope',
    kubernetesVersion: 'v1.33.2',
    credentialSecretName: 'aso-credential',
    pools: [
      { name: 'pool0', mode: 'System', vmSize: 'Standard_D2s_v3', replicas: 1 },
    ],
  });
  await createObjects(
    info,
    ns,
    manifests.map(m =>
      m.apiVersion.startsWith('infrastructure.cluster.x-k8s.io/')
        ? { ...m, apiVersion: CAPZ_ALPHA }
        : m,
    ),
    'kubectl-client-side-apply',
  );

  const k8s = await loadClientForTests();
  cache = new WatchCache(
    managementClusters,
    mockServices.logger.mock(),
    loadClientForTests,
  );
  await cache.start();
  const knex = require('knex')({
    client: 'better-sqlite3',
    connection: ':memory:',
    useNullAsDefault: true,
  });
  const store = await DatabaseJobStore.create({
    database: mockServices.database({ knex }),
  });
  const clients = new Map<string, JobClient>();
  const client = async (name: string) => {
    if (!clients.has(name)) {
      const { kubeConfigFor } = require('../cluster/kubeConfig');
      clients.set(
        name,
        jobClient(
          new ManagementClusterClient(
            k8s,
            await kubeConfigFor(
              managementClusters.find(c => c.name === name)!,
              k8s,
            ),
          ),
        ),
      );
    }
    return clients.get(name)!;
  };
  engine = new JobEngine({
    store,
    logger: mockServices.logger.mock(),
    client,
    waker: mc => onChange => {
      const l = (c: { managementCluster: string }) =>
        c.managementCluster === mc && onChange();
      cache.on('change', l);
      return () => cache.off('change', l);
    },
    recheckMs: 500,
  });
  const logger = mockServices.logger.mock();
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
        planner: new JobPlanner({ managementClusters, cache, client }),
        client,
      }),
    )
    .use(
      MiddlewareFactory.create({
        config: mockServices.rootConfig(),
        logger,
      }).error(),
    );
  await until(
    'the cache to hold the cluster',
    () => cache.list('local', 'AzureASOManagedControlPlane', ns).length === 1,
    30_000,
  );
}, 120_000);

afterAll(async () => {
  await engine?.stop();
  await cache?.stop();
  await deleteTestNamespace(info, ns);
}, 90_000);

const capzObjects = async () => {
  const out: ObservedObject[] = [];
  for (const kind of [
    'AzureASOManagedCluster',
    'AzureASOManagedControlPlane',
    'AzureASOManagedMachinePool',
  ] as const) {
    const res = await kube(
      info,
      'GET',
      `/apis/infrastructure.cluster.x-k8s.io/v1beta1/namespaces/${ns}/${kinds[kind].plural}`,
    );
    out.push(...res.body.items.map((o: ObservedObject) => ({ ...o, kind })));
  }
  return out;
};

it('rewrites what still says v1alpha1 and names the manifests to change', async () => {
  const before = await capzObjects();
  const cluster = (
    await kube(
      info,
      'GET',
      `/apis/cluster.x-k8s.io/v1beta2/namespaces/${ns}/clusters/alpha`,
    )
  ).body;
  expect(detectClusterApi({ ...cluster, kind: 'Cluster' }, before)).toBe(
    'aso-v1alpha1',
  );

  const body = {
    type: 'upgrade-api-version',
    params: { managementCluster: 'local', namespace: ns, name: 'alpha' },
  };
  const preview = await request(app).post('/jobs/preview').set(auth).send(body);
  expect(preview.status).toBe(200);
  expect(
    preview.body.preflight.filter(
      (c: { status: string }) => c.status === 'fail',
    ),
  ).toEqual([]);
  expect(preview.body.plan.map((s: { id: string }) => s.id)).toContain(
    'rewrite-managed-fields',
  );

  const started = await request(app).post('/jobs').set(auth).send(body);
  expect(started.status).toBe(201);
  const job: Job = await until(
    'the upgrade job to finish',
    async () => {
      const j = (await request(app).get(`/jobs/${started.body.id}`).set(auth))
        .body;
      return j.state === 'succeeded' || j.state === 'failed' ? j : undefined;
    },
    60_000,
  );
  expect(job.error).toBeUndefined();
  expect(job.state).toBe('succeeded');

  // No field manager is recorded at v1alpha1 any more (outside status), and the read path now says v1beta1.
  const after = await capzObjects();
  for (const o of after) {
    const alphaWriters = (o.metadata?.managedFields ?? []).filter(
      m => m.apiVersion === CAPZ_ALPHA && m.subresource !== 'status',
    );
    expect({ object: `${o.kind}/${o.metadata?.name}`, alphaWriters }).toEqual({
      object: `${o.kind}/${o.metadata?.name}`,
      alphaWriters: [],
    });
  }
  expect(detectClusterApi({ ...cluster, kind: 'Cluster' }, after)).toBe(
    'aso-v1beta1',
  );
  // The same owners still hold the same fields: only the version they are recorded at changed.
  const owners = (objs: ObservedObject[]) =>
    objs.map(o => (o.metadata?.managedFields ?? []).map(m => m.manager).sort());
  expect(owners(after)).toEqual(owners(before));
  // And the user learns which of their manifests to change.
  expect(
    job.result?.manifestsToChange
      ?.map(m => `${m.kind}/${m.name}:${m.manager}`)
      .sort(),
  ).toEqual(
    before
      .map(o => `${o.kind}/${o.metadata?.name}:kubectl-client-side-apply`)
      .sort(),
  );
}, 120_000);
