/**
 * On the real API server: a Secret name that is not one never reaches it. `GET .../secrets/.` is a LIST of
 * every Secret in the namespace and `.../secrets/..` reads the Namespace, so the backend must not ask at all: the
 * routes that take a Secret name (the wizard's credential Secrets, AKS discovery, the adoption job) refuse `.` and
 * `..` at the edge. The proof is the API server's own audit log (packages/mgmt-cluster starts it with a
 * metadata-level policy, written before each response returns): no request about Secrets, or about the namespace,
 * from the moment the refused requests are sent; and a name that is one is read with one GET by name, never a list.
 * The backend runs as the ServiceAccount bound to the shipped RBAC (rbac/read.yaml + rbac/jobs.yaml), through the
 * real jobs router, the real Secret reader over the real ManagementClusterClient, and the real AksDiscovery.
 */
import { auditLogEnd, auditLogEntries } from '@internal/mgmt-cluster';
import { MiddlewareFactory } from '@backstage/backend-defaults/rootHttpRouter';
import { mockCredentials, mockServices } from '@backstage/backend-test-utils';
import { ConfigReader } from '@backstage/config';
import express from 'express';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import YAML from 'yaml';
import { AksDiscovery } from '../azure/AksDiscovery';
import { kubeConfigFor } from '../cluster/kubeConfig';
import type { ManagementClusterConfig } from '../config/managementClusters';
import { jobClient, secretReader } from '../cluster/clientViews';
import { ManagementClusterClient } from '../cluster/ManagementClusterClient';
import { DatabaseJobStore } from '../jobs/DatabaseJobStore';
import type { JobEngine } from '../jobs/JobEngine';
import { JobPlanner } from '../jobs/JobPlanner';
import {
  applyManifest,
  deleteTestNamespace,
  kube,
  loadClientForTests,
  serviceAccountToken,
  testClusterInfo,
} from '../testing/realCluster';
import { createJobsRouter } from './jobsRouter';

const info = testClusterInfo();
// Not team-*: the test stage simulates the demo world in those namespaces.
const ns = `secret-names-${randomBytes(3).toString('hex')}`;
const auth = { Authorization: mockCredentials.user.header() };
const rbac = (file: string) =>
  YAML.parseAllDocuments(
    readFileSync(join(__dirname, '..', '..', 'rbac', file), 'utf8'),
  ).map(d => d.toJS());

let app: express.Express;
let knex: { destroy(): Promise<void> } | undefined;

/** The audit log's entries from `fromByte` on about the test namespace's Secrets or the namespace itself. */
interface AuditEntry {
  verb: string;
  requestURI: string;
  objectRef?: { resource?: string; namespace?: string; name?: string };
}
const auditFrom = (fromByte: number): AuditEntry[] =>
  auditLogEntries<AuditEntry>(info.auditLog, fromByte).filter(
    e =>
      (e.objectRef?.resource === 'secrets' && e.objectRef.namespace === ns) ||
      (e.objectRef?.resource === 'namespaces' && e.objectRef.name === ns) ||
      e.requestURI.startsWith(`/api/v1/namespaces/${ns}/secrets`),
  );
const auditSize = () => auditLogEnd(info.auditLog);

beforeAll(async () => {
  await applyManifest(info, [
    ...rbac('read.yaml'),
    ...rbac('jobs.yaml'),
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } },
  ]);
  for (const name of ['aso-credential', 'other-credential']) {
    const res = await kube(info, 'POST', `/api/v1/namespaces/${ns}/secrets`, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name },
      stringData: {
        AZURE_SUBSCRIPTION_ID: 'sub',
        AUTH_MODE: 'workloadidentity',
      },
    });
    if (res.status !== 201) throw new Error(`create Secret: ${res.status}`);
  }
  const managementClusters: ManagementClusterConfig[] = [
    {
      name: 'local',
      authMethod: 'serviceAccountToken',
      url: info.url,
      caData: info.caPem,
      serviceAccountToken: await serviceAccountToken(
        info,
        'capz-system',
        'capz-backstage',
      ),
    },
  ];
  const k8s = await loadClientForTests();
  const live = new ManagementClusterClient(
    k8s,
    await kubeConfigFor(managementClusters[0], k8s),
  );
  const clients = async () => live;
  const client = async () => jobClient(live);
  const logger = mockServices.logger.mock();
  // The Azure side is never reached here: every request that would reach it is refused first.
  const aks = new AksDiscovery({
    config: new ConfigReader({
      capz: {
        azureDiscovery: {
          resourceManagerEndpoint: 'https://127.0.0.1:9',
          authorityHost: 'https://127.0.0.1:9',
          disableInstanceDiscovery: true,
        },
      },
    }),
    logger,
    readSecret: secretReader(clients),
    managedClusters: () => [],
  });
  knex = require('knex')({
    client: 'better-sqlite3',
    connection: ':memory:',
    useNullAsDefault: true,
  });
  const store = await DatabaseJobStore.create({
    database: mockServices.database({ knex: knex as never }),
  });
  const cache = { list: () => [] };
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
        engine: {
          kick: () => undefined,
          interrupt: () => undefined,
        } as unknown as JobEngine,
        planner: new JobPlanner({
          managementClusters,
          cache: cache as never,
          client,
          aks,
        }),
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
}, 120_000);

afterAll(async () => {
  await deleteTestNamespace(info, ns);
  await knex?.destroy();
}, 90_000);

describe('a Secret name that is not one never reaches the API server', () => {
  it('refuses "." and ".." on every route that takes a Secret name, and the API server hears nothing of it', async () => {
    const start = auditSize();
    const answers: string[] = [];
    const answer = (what: string, res: request.Response) =>
      answers.push(`${what}: ${res.status} ${res.body.error?.message}`);
    const rule =
      "lowercase letters, digits, '-' and '.', starting and ending with a letter or digit, with a letter or digit on each side of every '.', at most 253 characters";
    const want: string[] = [];
    for (const name of ['.', '..']) {
      answer(
        `credential-secrets ${name}`,
        await request(app)
          .get('/credential-secrets')
          .query({ managementCluster: 'local', namespace: ns, name })
          .set(auth),
      );
      answer(
        `azure/clusters ${name}`,
        await request(app)
          .get('/azure/clusters')
          .query({
            managementCluster: 'local',
            namespace: ns,
            credentialSecret: name,
          })
          .set(auth),
      );
      answer(
        `jobs/preview ${name}`,
        await request(app)
          .post('/jobs/preview')
          .set(auth)
          .send({
            type: 'adopt',
            params: {
              managementCluster: 'local',
              namespace: ns,
              credentialSecret: name,
              subscriptionId: '00000000-0000-0000-0000-000000000001',
              resourceGroup: 'rg',
              clusterName: 'aks',
            },
          }),
      );
      want.push(
        `credential-secrets ${name}: 400 Secret name "${name}" is not a Kubernetes Secret name: ${rule}`,
        `azure/clusters ${name}: 400 Credential Secret name "${name}" is not a Kubernetes Secret name: ${rule}`,
        `jobs/preview ${name}: 400 Credential Secret name "${name}" is not a Kubernetes Secret name: ${rule}`,
      );
    }
    // Written before each response returned (--audit-log-mode=blocking): nothing about Secrets or the namespace.
    expect({
      answers,
      apiServerHeard: auditFrom(start).map(e => `${e.verb} ${e.requestURI}`),
    }).toEqual({ answers: want, apiServerHeard: [] });
  });

  it('reads a name that is one with a GET by name, never a list (the audit log does record)', async () => {
    const start = auditSize();
    const res = await request(app)
      .get('/credential-secrets')
      .query({
        managementCluster: 'local',
        namespace: ns,
        name: 'other-credential',
      })
      .set(auth);
    expect(res.status).toBe(200);
    expect(res.body.items.map((i: { name: string }) => i.name)).toEqual([
      'aso-credential',
      'other-credential',
    ]);
    expect(
      auditFrom(start)
        .map(e => `${e.verb} ${e.objectRef?.name}`)
        .sort(),
    ).toEqual(['get aso-credential', 'get other-credential']);
  });
});
