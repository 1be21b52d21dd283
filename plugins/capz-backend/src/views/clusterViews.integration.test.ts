/**
 * The read path against the real API server with the simulated demo scenarios running on it (scripts/test.sh
 * starts `capz-sim run --scenarios all` on the run's cluster before this stage): expected trees written out, and
 * page views served without a single request to the API server.
 */
import { auditLogEnd, auditLogEntries } from '@internal/mgmt-cluster';
import { mockCredentials, mockServices } from '@backstage/backend-test-utils';
import { MiddlewareFactory } from '@backstage/backend-defaults/rootHttpRouter';
import {
  ClusterSummary,
  treeToLines,
} from '@capz-backstage/plugin-capz-common';
import express from 'express';
import { readFileSync } from 'node:fs';
import https from 'node:https';
import { once } from 'node:events';
import request from 'supertest';
import { ConnectionMonitor } from '../cluster/ConnectionMonitor';
import { WatchCache } from '../cluster/WatchCache';
import { createRouter } from '../routers/router';
import { ManagementClusterConfig } from '../config/managementClusters';
import {
  applyManifest,
  loadClientForTests,
  serviceAccountToken,
  testClusterInfo,
} from '../testing/realCluster';
import YAML from 'yaml';
import { join } from 'node:path';

const info = testClusterInfo();
// The backend runs as a ServiceAccount bound to the minimal read RBAC shipped in rbac/read.yaml (and documented in
// the README): every read in these tests proves that RBAC is enough.
const BACKEND_USER = 'system:serviceaccount:capz-system:capz-backstage';
let managementClusters: ManagementClusterConfig[];

let cache: WatchCache;
let app: express.Express;
const auth = { Authorization: mockCredentials.user.header() };

beforeAll(async () => {
  await applyManifest(
    info,
    YAML.parseAllDocuments(
      readFileSync(join(__dirname, '..', '..', 'rbac', 'read.yaml'), 'utf8'),
    ).map(d => d.toJS()),
  );
  const token = await serviceAccountToken(
    info,
    'capz-system',
    'capz-backstage',
  );
  managementClusters = [
    {
      name: 'local',
      authMethod: 'serviceAccountToken',
      url: info.url,
      caData: info.caPem,
      serviceAccountToken: token,
    },
  ];
  cache = new WatchCache(
    managementClusters,
    mockServices.logger.mock(),
    loadClientForTests,
  );
  await cache.start();
  const logger = mockServices.logger.mock();
  app = express()
    .use(
      await createRouter({
        logger,
        httpAuth: mockServices.httpAuth(),
        permissions: mockServices.permissions(),
        managementClusters,
        connections: new ConnectionMonitor(
          managementClusters,
          logger,
          loadClientForTests,
        ),
        cache,
      }),
    )
    .use(
      MiddlewareFactory.create({
        config: mockServices.rootConfig(),
        logger,
      }).error(),
    );
}, 120_000);
afterAll(() => cache?.stop());

/** Waits on the cache (pushed by the watch) until the scenario clusters settle; no fixed sleep. */
async function settled(): Promise<ClusterSummary[]> {
  const deadline = Date.now() + 90_000;
  for (;;) {
    const res = await request(app).get('/clusters').set(auth);
    // Only the demo scenarios' clusters: other suites make clusters of their own in team-* namespaces too.
    const want = [
      'apps-alpha',
      'data-lake',
      'data-secure',
      'payments-dev',
      'payments-prod',
      'search-prod',
    ];
    const scenarioNamespaces = [
      'team-data',
      'team-legacy-apps',
      'team-payments',
      'team-search',
    ];
    const items = (res.body.items as ClusterSummary[]).filter(c =>
      scenarioNamespaces.includes(c.namespace),
    );
    const done =
      want.every(n => items.some(c => c.name === n)) &&
      items
        .filter(c => c.name !== 'search-prod')
        .every(c => c.health === 'healthy') &&
      items.find(c => c.name === 'search-prod')?.reason ===
        'ManagedCluster search-prod: ReconciliationBlocked' &&
      items.find(c => c.name === 'search-prod')?.pools?.total === 2;
    if (done) return items.sort((a, b) => a.name.localeCompare(b.name));
    if (Date.now() > deadline)
      throw new Error(
        `scenarios did not settle: ${JSON.stringify(
          items.map(c => [c.name, c.health, c.reason]),
        )}`,
      );
    // Woken by the next change, or after a second to re-check the deadline (so a stuck state fails with its reason).
    await Promise.race([
      once(cache, 'change'),
      new Promise(r => setTimeout(r, 1000)),
    ]);
  }
}

const tree = async (ns: string, name: string, group = 3) => {
  const res = await request(app)
    .get(`/clusters/local/${ns}/${name}/tree?group=${group}`)
    .set(auth);
  expect(res.status).toBe(200);
  return treeToLines(res.body.tree);
};

describe('the clusters list and trees of the demo scenarios', () => {
  it('summarises every cluster as a person reading its objects would', async () => {
    const items = await settled();
    expect(
      items.map(c => [
        c.name,
        c.api,
        c.health,
        c.migrationCandidate,
        c.pools,
        c.kubernetesVersion,
      ]),
    ).toEqual([
      [
        'apps-alpha',
        'aso-v1alpha1',
        'healthy',
        false,
        { total: 1, ready: 1, replicas: 2 },
        'v1.33.2',
      ],
      [
        'data-lake',
        'azure-managed',
        'healthy',
        true,
        { total: 3, ready: 3, replicas: 10 },
        'v1.33.2',
      ],
      [
        'data-secure',
        'azure-managed',
        'healthy',
        true,
        { total: 2, ready: 2, replicas: 4 },
        'v1.33.2',
      ],
      [
        'payments-dev',
        'aso-v1beta1',
        'healthy',
        false,
        { total: 1, ready: 1, replicas: 1 },
        'v1.33.2',
      ],
      [
        'payments-prod',
        'aso-v1beta1',
        'healthy',
        false,
        { total: 3, ready: 3, replicas: 9 },
        'v1.33.2',
      ],
      [
        'search-prod',
        'aso-v1beta1',
        'degraded',
        false,
        { total: 2, ready: 0, updating: 2, replicas: 0 },
        'v1.33.2',
      ],
    ]);
    expect(items.find(c => c.name === 'search-prod')?.message).toMatch(
      /in provisioning state 'Upgrading'/,
    );
  }, 120_000);

  it('builds the trees, with the failing ManagedCluster as the reason and similar pools grouped', async () => {
    await settled();
    expect(await tree('team-search', 'search-prod')).toEqual([
      'Cluster/search-prod degraded ManagedCluster search-prod: ReconciliationBlocked',
      '  AzureASOManagedCluster/search-prod progressing NotReady',
      '    ResourceGroup/search-prod healthy Succeeded',
      '  AzureASOManagedControlPlane/search-prod degraded ReconciliationBlocked',
      '    ManagedCluster/search-prod degraded ReconciliationBlocked',
      '  Workers/Workers progressing ManagedClustersAgentPool search-prod-index: WaitingForOwner',
      '    MachinePool/search-prod-index progressing NotAvailable',
      '      AzureASOManagedMachinePool/search-prod-index progressing WaitingForOwner',
      '        ManagedClustersAgentPool/search-prod-index progressing WaitingForOwner',
      '    MachinePool/search-prod-system progressing NotAvailable',
      '      AzureASOManagedMachinePool/search-prod-system progressing WaitingForOwner',
      '        ManagedClustersAgentPool/search-prod-system progressing WaitingForOwner',
    ]);
    expect(await tree('team-payments', 'payments-prod')).toEqual([
      'Cluster/payments-prod healthy Available',
      '  AzureASOManagedCluster/payments-prod healthy',
      '    ResourceGroup/payments-prod healthy Succeeded',
      '  AzureASOManagedControlPlane/payments-prod healthy',
      '    ManagedCluster/payments-prod healthy Succeeded',
      '  Workers/Workers healthy',
      '    MachinePool/3 MachinePools healthy Available [3: payments-prod-api, payments-prod-batch, payments-prod-system]',
    ]);
    expect(await tree('team-data', 'data-secure')).toEqual([
      'Cluster/data-secure healthy Available',
      '  AzureManagedCluster/data-secure healthy',
      '  AzureManagedControlPlane/data-secure healthy',
      '    ResourceGroup/rg-data-secure healthy Succeeded',
      // The legacy control plane's network, as real CAPZ v1.26.0 creates it (docs/real-controllers.md#findings, 10).
      '    VirtualNetwork/data-secure healthy Succeeded',
      '    VirtualNetworksSubnet/data-secure-data-secure healthy Succeeded',
      '    ManagedCluster/data-secure healthy Succeeded',
      '  Workers/Workers healthy',
      '    MachinePool/data-secure-jobs healthy Available',
      '      AzureManagedMachinePool/data-secure-jobs healthy',
      '        ManagedClustersAgentPool/data-secure-jobs healthy Succeeded',
      '    MachinePool/data-secure-system healthy Available',
      '      AzureManagedMachinePool/data-secure-system healthy',
      '        ManagedClustersAgentPool/data-secure-system healthy Succeeded',
    ]);
    // Grouping off shows every pool.
    expect(
      (await tree('team-payments', 'payments-prod', 0)).filter(l =>
        l.includes('ManagedClustersAgentPool/'),
      ),
    ).toHaveLength(3);
  }, 120_000);

  it('answers bad input with 400 and unknown clusters with 404, naming what was wrong', async () => {
    const bad = await request(app)
      .get('/clusters/local/Team_Search/x/tree')
      .set(auth);
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toMatch(
      /^Namespace "Team_Search" is not a Kubernetes namespace name: lowercase letters, digits and .-., starting and ending with a letter or digit/,
    );
    const group = await request(app)
      .get('/clusters/local/team-search/search-prod/tree?group=-1')
      .set(auth);
    expect(group.status).toBe(400);
    const missing = await request(app)
      .get('/clusters/local/team-search/nope/tree')
      .set(auth);
    expect(missing.status).toBe(404);
    expect(missing.body.error.message).toBe(
      'No Cluster team-search/nope on management cluster "local"',
    );
    const mc = await request(app)
      .get('/clusters/elsewhere/team-search/search-prod/tree')
      .set(auth);
    expect(mc.status).toBe(404);
  });

  it('serves the clusters list and trees with zero requests to the API server', async () => {
    await settled();
    // apiserver_request_total counts every resource request; watches stay open and are left out.
    const scrape = async (): Promise<number> => {
      const body = await new Promise<string>((resolve, reject) =>
        https
          .get(
            `${info.url}/metrics`,
            {
              ca: info.caPem,
              headers: { Authorization: `Bearer ${info.adminToken}` },
            },
            res => {
              let text = '';
              res.on('data', d => (text += d));
              res.on('end', () => resolve(text));
            },
          )
          .on('error', reject),
      );
      return body
        .split('\n')
        .filter(
          l =>
            l.startsWith('apiserver_request_total{') &&
            !l.includes('verb="WATCH"'),
        )
        .reduce((n, l) => n + Number(l.split(' ').pop()), 0);
    };
    // apiserver_request_total is cluster-wide (controllers and the simulator write too) and has no user label, so
    // the backend's own share is read from the API server's audit log: every non-watch request by the backend's ServiceAccount.
    const backendRequests = (fromByte: number) =>
      auditLogEntries(info.auditLog, fromByte).filter(
        e => e.user?.username === BACKEND_USER && e.verb !== 'watch',
      );
    const auditStart = auditLogEnd(info.auditLog);
    const before = await scrape();
    for (let i = 0; i < 20; i++) {
      expect((await request(app).get('/clusters').set(auth)).status).toBe(200);
      expect(
        (
          await request(app)
            .get('/clusters/local/team-search/search-prod/tree')
            .set(auth)
        ).status,
      ).toBe(200);
    }
    const after = await scrape();
    const made = backendRequests(auditStart);
    // eslint-disable-next-line no-console
    console.log(
      `40 page views: ${
        made.length
      } API requests by the backend; apiserver_request_total moved by ${
        after - before
      } cluster-wide`,
    );
    expect(made.map(e => `${e.verb} ${e.requestURI}`)).toEqual([]);
  }, 120_000);

  it('shows a missing RBAC grant as a per-kind error, not as an empty cluster', async () => {
    await applyManifest(info, [
      {
        apiVersion: 'v1',
        kind: 'ServiceAccount',
        metadata: { name: 'capz-unbound', namespace: 'capz-system' },
      },
    ]);
    const token = await serviceAccountToken(
      info,
      'capz-system',
      'capz-unbound',
    );
    const unbound = new WatchCache(
      [
        {
          name: 'unbound',
          authMethod: 'serviceAccountToken',
          url: info.url,
          caData: info.caPem,
          serviceAccountToken: token,
        },
      ],
      mockServices.logger.mock(),
      loadClientForTests,
    );
    try {
      await unbound.start();
      const status = unbound.status('unbound');
      expect(status.synced).toBe(false);
      expect(status.kinds.Cluster.error).toMatch(/forbidden|403/i);
      expect(unbound.list('unbound', 'Cluster')).toEqual([]);
    } finally {
      await unbound.stop();
    }
  });
});
