/**
 * Microsoft Entra ID auth to a management cluster, end to end: a real kube-apiserver of its own that validates
 * Entra-like JWTs (a JWT authenticator, as an AKS cluster with local accounts disabled has), the simulated Entra ID
 * token service, the real @azure/identity ClientSecretCredential, and the backend's WatchCache and
 * ConnectionMonitor. Tokens live a few seconds, so refreshes, expiry and watch reconnections happen within the test.
 * Needs no CAPZ_TEST_CLUSTER: it starts (and stops) its own cluster.
 */
import { mockServices } from '@backstage/backend-test-utils';
import { ConfigReader } from '@backstage/config';
import {
  AKS_SERVER_APPLICATION_ID,
  startEntraSim,
  type EntraSim,
} from '@internal/capz-sim/entra';
import {
  apiRequest,
  restartApiServer,
  startManagementCluster,
  stopManagementCluster,
  type ClusterInfo,
} from '@internal/mgmt-cluster';
import { testStateDir, until } from '@internal/mgmt-cluster/testing';
import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { request } from 'node:https';
import { join } from 'node:path';
import YAML from 'yaml';
import { readManagementClusters } from '../config/managementClusters';
import { ConnectionMonitor } from './ConnectionMonitor';
import { WatchCache } from './WatchCache';

const TENANT = randomUUID();
const GOOD = {
  clientId: randomUUID(),
  clientSecret: `good-${randomBytes(8).toString('hex')}`,
};
const BAD = {
  clientId: randomUUID(),
  clientSecret: `real-${randomBytes(8).toString('hex')}`,
};
const WRONG_SECRET = `wrong-${randomBytes(8).toString('hex')}`;
/** Short enough that the test sees several refreshes and an expiry, long enough for a loaded machine. */
const TOKEN_LIFETIME_S = 8;
const CAPZ = 'infrastructure.cluster.x-k8s.io/v1beta1';

let tmp: string;
let entra: EntraSim;
let cluster: ClusterInfo;
let goodObjectId: string;
let cache: WatchCache | undefined;
let monitor: ConnectionMonitor;
const ns = `t-entra-${randomBytes(3).toString('hex')}`;
const loadClient = async () => require('@kubernetes/client-node');

const admin = (method: string, path: string, body?: unknown) =>
  apiRequest(cluster, method, path, body);
async function mustCreate(path: string, body: unknown) {
  const res = await admin('POST', path, body);
  if (res.status !== 201)
    throw new Error(`POST ${path}: HTTP ${res.status} ${res.body}`);
}

/** Who the API server says a bearer token is (SelfSubjectReview needs no permission beyond being authenticated). */
function whoAmI(token: string): Promise<{ status: number; username?: string }> {
  return new Promise((resolve, reject) => {
    const body = JSON.stringify({
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'SelfSubjectReview',
    });
    const req = request(
      `${cluster.url}/apis/authentication.k8s.io/v1/selfsubjectreviews`,
      {
        method: 'POST',
        ca: cluster.caPem,
        agent: false,
        headers: {
          Authorization: `Bearer ${token}`,
          'Content-Type': 'application/json',
        },
      },
      res => {
        let text = '';
        res.on('data', d => (text += d));
        res.on('end', () => {
          const status = res.statusCode ?? 0;
          resolve({
            status,
            username:
              status === 201
                ? JSON.parse(text).status?.userInfo?.username
                : undefined,
          });
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** A token straight from the token endpoint, as a probe of what the API server accepts. */
function tokenFromEntra(): Promise<string> {
  return new Promise((resolve, reject) => {
    const form = new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: GOOD.clientId,
      client_secret: GOOD.clientSecret,
      scope: `${AKS_SERVER_APPLICATION_ID}/.default`,
    }).toString();
    const req = request(
      `${entra.url}/${TENANT}/oauth2/v2.0/token`,
      {
        method: 'POST',
        ca: entra.caPem,
        agent: false,
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      },
      res => {
        let text = '';
        res.on('data', d => (text += d));
        res.on('end', () =>
          res.statusCode === 200
            ? resolve(JSON.parse(text).access_token)
            : reject(new Error(text)),
        );
      },
    );
    req.on('error', reject);
    req.end(form);
  });
}

const tokensFor = (clientId: string) =>
  entra.issued.filter(t => t.clientId === clientId);

beforeAll(async () => {
  tmp = testStateDir('capz-entra-auth-');
  entra = await startEntraSim({
    stateDir: tmp,
    tokenLifetimeSeconds: TOKEN_LIFETIME_S,
  });
  goodObjectId = entra.addServicePrincipal({ tenantId: TENANT, ...GOOD });
  entra.addServicePrincipal({ tenantId: TENANT, ...BAD });
  // The issuer must be up first: the API server fetches its discovery document and keys.
  cluster = await startManagementCluster({
    name: `entra-${process.pid}`,
    stateDir: join(tmp, 'cluster'),
    ephemeral: true,
    crds: true,
    jwtAuthenticators: [
      {
        issuer: entra.issuer(TENANT),
        certificateAuthority: entra.caPem,
        audiences: [AKS_SERVER_APPLICATION_ID],
        username: { claim: 'oid', prefix: 'entra:' },
      },
    ],
  });

  // The shipped read RBAC (rbac/read.yaml: list+watch of the cached kinds), its ClusterRole bound to the service
  // principal as Entra ID users appear here (`entra:<object id>`): what the README asks of a real AKS cluster.
  const role = YAML.parseAllDocuments(
    readFileSync(join(__dirname, '..', '..', 'rbac', 'read.yaml'), 'utf8'),
  )
    .map(d => d.toJS())
    .find(o => o?.kind === 'ClusterRole');
  await mustCreate('/apis/rbac.authorization.k8s.io/v1/clusterroles', role);
  await mustCreate('/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name: 'capz-backstage-read-entra' },
    roleRef: {
      apiGroup: 'rbac.authorization.k8s.io',
      kind: 'ClusterRole',
      name: role.metadata.name,
    },
    subjects: [
      {
        apiGroup: 'rbac.authorization.k8s.io',
        kind: 'User',
        name: `entra:${goodObjectId}`,
      },
    ],
  });
  await mustCreate('/api/v1/namespaces', {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: ns },
  });
  await loadClient(); // Jest's transform of client-node takes a while on a cold cache: not inside a test's timeout
}, 240_000);

afterAll(async () => {
  await cache?.stop();
  if (cluster) await stopManagementCluster(cluster);
  await entra?.close();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
}, 60_000);

const azure = (secret: { clientId: string; clientSecret: string }) => ({
  credential: 'clientSecret',
  tenantId: TENANT,
  ...secret,
  authorityHost: entra.url,
  disableInstanceDiscovery: true,
  authorityCaData: entra.caPem,
});

describe('Entra ID auth to a management cluster', () => {
  it('the API server maps the token to the service principal and refuses it once expired', async () => {
    const token = await tokenFromEntra();
    expect(await whoAmI(token)).toEqual({
      status: 201,
      username: `entra:${goodObjectId}`,
    });
    const expiresOn = tokensFor(GOOD.clientId).at(-1)!.expiresOn;
    // Once expired, the server must refuse the token, else the refresh tests below prove nothing. It caches a
    // successful authentication for 10 s (kube-apiserver's token success cache), so a refusal may come that late.
    const refusedAt = await until(
      'the API server to refuse the expired probe token',
      async () => (await whoAmI(token)).status === 401 && Date.now(),
      (TOKEN_LIFETIME_S + 20) * 1000,
    );
    expect(refusedAt).toBeGreaterThan(expiresOn);
    expect((await whoAmI('not-a-token')).status).toBe(401);
  }, 60_000);

  it("syncs the watch cache with a client secret, while a wrong secret shows as that cluster's error", async () => {
    const clusters = readManagementClusters(
      new ConfigReader({
        capz: {
          managementClusters: [
            {
              name: 'entra',
              url: cluster.url,
              caData: cluster.caPem,
              azure: azure(GOOD),
            },
            {
              name: 'wrong-secret',
              url: cluster.url,
              caData: cluster.caPem,
              azure: azure({
                clientId: BAD.clientId,
                clientSecret: WRONG_SECRET,
              }),
            },
          ],
        },
      }),
    );
    const logger = mockServices.logger.mock();
    cache = new WatchCache(clusters, logger, loadClient);
    monitor = new ConnectionMonitor(clusters, logger, loadClient);
    await cache.start();
    await until(
      'the entra cluster to sync',
      async () => cache!.status('entra').synced,
      60_000,
    );
    expect(
      cache.status('entra').kinds.AzureASOManagedControlPlane,
    ).toMatchObject({ version: 'v1beta1', synced: true });
    expect(tokensFor(GOOD.clientId).length).toBeGreaterThanOrEqual(2); // the probe above, and the backend's

    const wrong = cache.status('wrong-secret');
    expect(wrong.synced).toBe(false);
    expect(wrong.kinds.Cluster.error).toMatch(
      /Entra ID token for management cluster wrong-secret: .*AADSTS7000215/,
    );
    expect(tokensFor(BAD.clientId)).toEqual([]);

    await monitor.probeAll();
    expect(monitor.status('entra')).toMatchObject({
      state: 'connected',
      version: expect.stringMatching(/^v1\.35\./),
    });
    expect(monitor.status('wrong-secret')).toMatchObject({
      state: 'unreachable',
      message: expect.stringContaining('AADSTS7000215'),
    });
    // Neither secret nor token reaches a status or the log.
    const everything = JSON.stringify([
      cache.status('entra'),
      wrong,
      monitor.status('wrong-secret'),
      logger.warn.mock.calls,
      logger.info.mock.calls,
    ]);
    expect(everything).not.toContain(WRONG_SECRET);
    expect(everything).not.toContain(GOOD.clientSecret);
    expect(everything).not.toMatch(/eyJ[\w-]+\.eyJ/); // no JWT
  }, 120_000);

  it('keeps requests and watches working past the expiry of the first tokens, across an API-server restart', async () => {
    const first = tokensFor(GOOD.clientId)[1]; // [0] was the probe's
    const issuedBefore = tokensFor(GOOD.clientId).length;
    // Requests keep coming (the monitor's probes); the provider refreshes ahead of expiry, in the background.
    await until(
      'the first backend token to expire and a fresh one to be used',
      async () => {
        await monitor.probeAll();
        return (
          Date.now() > first.expiresOn + 1000 &&
          monitor.status('entra').state === 'connected' &&
          tokensFor(GOOD.clientId).length > issuedBefore
        );
      },
      (TOKEN_LIFETIME_S + 20) * 1000,
    );

    // The API server drops every watch; the informers must relist and watch again, with the token current by then.
    const restartsBefore =
      cache!.status('entra').kinds.AzureASOManagedControlPlane.restarts;
    const issuedAtRestart = tokensFor(GOOD.clientId).length;
    cluster = await restartApiServer(cluster);
    await mustCreate(
      `/apis/${CAPZ}/namespaces/${ns}/azureasomanagedcontrolplanes`,
      {
        apiVersion: CAPZ,
        kind: 'AzureASOManagedControlPlane',
        metadata: { name: 'after-restart' },
        spec: { resources: [] },
      },
    );
    await until(
      'the object created after the restart to reach the cache',
      async () =>
        cache!
          .list('entra', 'AzureASOManagedControlPlane', ns)
          .some(o => o.metadata.name === 'after-restart'),
      90_000,
    );
    const status = cache!.status('entra');
    expect(status.kinds.AzureASOManagedControlPlane.restarts).toBeGreaterThan(
      restartsBefore,
    );
    await until(
      'every kind to sync again',
      async () => cache!.status('entra').synced,
      60_000,
    );
    // The relist may still have used the token current at the restart (it was valid); renewal goes on after it.
    await until(
      'a token issued after the restart',
      async () => {
        await monitor.probeAll();
        return (
          monitor.status('entra').state === 'connected' &&
          tokensFor(GOOD.clientId).length > issuedAtRestart
        );
      },
      (TOKEN_LIFETIME_S + 20) * 1000,
    );
    // Every token went to the server application, and the wrong secret never got one.
    expect(new Set(entra.issued.map(t => t.audience))).toEqual(
      new Set([AKS_SERVER_APPLICATION_ID]),
    );
    expect(tokensFor(BAD.clientId)).toEqual([]);
    expect(cache!.status('wrong-secret').synced).toBe(false);
  }, 180_000);
});
