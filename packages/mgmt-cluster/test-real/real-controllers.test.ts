/**
 * The real CAPI, CAPZ and ASO managers on a management cluster of their own. A lane of its own,
 * outside the default suite: the managers take ~15 min (idle machine) to ~47 min (busy) to build cold
 * (scripts/build-controllers.sh) and ~1.5 GB of memory to run. It never touches the run's shared cluster: it replaces CRDs (conversion webhooks)
 * and installs admission webhooks, which would change what every other test sees.
 *
 * The simulated Entra ID and ARM run in this process, served under their real names by capz-sim's HTTPS proxy, and
 * the managers get the proxy's environment (docs/real-controllers.md#plan, step 2): real ASO then authenticates and
 * calls ARM exactly as against the public cloud, and nothing can reach real Azure (the proxy refuses other hosts).
 *
 *   yarn workspace @internal/mgmt-cluster test:real-controllers   (builds the managers first, cached)
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { get as httpGet, request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
// capz-sim depends on this package, so it is not declared back as a dependency (a workspace cycle); the lane test
// reaches it through the workspace's node_modules like any consumer.
import {
  ARM_RESOURCE,
  AzureWorld,
  SIM_SERVICE_PRINCIPAL,
  entraAuthorizer,
  servicePrincipalSecretData,
  startArmServer,
  startEntraSim,
  type ArmServer,
  type EntraSim,
} from '@internal/capz-sim/azure';
import {
  ARM_HOST,
  ENTRA_HOST,
  startSimProxy,
  type SimProxy,
} from '@internal/capz-sim/proxy';
import {
  apiRequest,
  startManagementCluster,
  stopManagementCluster,
  type ClusterInfo,
} from '../src/cluster.ts';
import {
  MANAGERS,
  runningControllers,
  startControllers,
  stopControllers,
  type RunningControllers,
} from '../src/controllers/index.ts';
import { until } from './wait.ts';
import { fileHooks } from './hooks.ts';

// Hang detectors, at least 3x the longest each took in the lane beside stress-ng on both cores
// (scripts/test-under-load.sh --stages real, 2 cores, load 8-18; three runs).
/** The simulated Entra ID, ARM and proxy, the management cluster and the three managers: 64.3-93.7 s. */
const SETUP_TIMEOUT = 400_000;
/** Stopping them: 2.9-12.3 s. */
const TEARDOWN_TIMEOUT = 90_000;
/** Requests to the API server and the managers' webhooks: 1.2 s at most (stopping CAPZ). */
const QUICK_TIMEOUT = 60_000;
/**
 * ASO's token, its ARM request and Ready: 1.3-1.4 s (2.5-3.3 s in earlier runs at load ~7); the bounds of its three
 * waits add up to it.
 */
const ASO_TIMEOUT = 180_000;

let info: ClusterInfo;
let running: RunningControllers;
const ns = 'real-controllers';

/** azcore Go's public-cloud ARM audience, what ASO asks tokens for (sdk/azcore@v1.21.0/arm/runtime/runtime.go line 18). */
const GO_ARM_AUDIENCE = 'https://management.core.windows.net/';
const SUBSCRIPTION = '00000000-0000-4000-8000-0000000000c1';
const sp = SIM_SERVICE_PRINCIPAL;
let simDir: string | undefined;
let world: AzureWorld | undefined;
let entra: EntraSim | undefined;
let arm: ArmServer | undefined;
let proxy: SimProxy | undefined;
/** Every bearer token ARM was shown: whether the simulated Entra ID's signature, issuer, lifetime and aud hold. */
const armTokens: Array<{ valid: boolean; accepted: boolean }> = [];

const status = (url: string) =>
  new Promise<number>(res => {
    const r = httpGet(url, { timeout: 2000 }, x => {
      x.resume();
      res(x.statusCode ?? 0);
    });
    r.on('error', () => res(0));
  });

fileHooks({
  setup: async () => {
    // The simulated Azure first: the managers' environment names the proxy, which must be listening when they start.
    simDir = mkdtempSync(join(tmpdir(), 'capz-real-sim-'));
    world = new AzureWorld({ operationMs: 300, subscriptions: [SUBSCRIPTION] });
    entra = await startEntraSim({
      stateDir: simDir,
      applications: [ARM_RESOURCE, GO_ARM_AUDIENCE],
      servicePrincipals: [sp],
    });
    const authorizer = entraAuthorizer(entra, {
      [sp.clientId]: [SUBSCRIPTION],
    });
    const verifier = entra;
    arm = await startArmServer({
      world,
      stateDir: simDir,
      authorize: token => {
        const caller = authorizer(token);
        armTokens.push({
          valid: Boolean(verifier.verify(token, GO_ARM_AUDIENCE)),
          accepted: Boolean(caller),
        });
        return caller;
      },
    });
    proxy = await startSimProxy({
      stateDir: simDir,
      upstreams: { [ENTRA_HOST]: entra, [ARM_HOST]: arm },
      log: line => process.stderr.write(`[capz-sim proxy] ${line}\n`),
    });
    const env = proxy.clientEnv(
      proxy.writeCaBundle(join(simDir, 'ca-bundle.pem')),
    );

    info = await startManagementCluster({
      name: `real-${process.pid}`,
      ephemeral: true,
    });
    running = await startControllers(info, { env });
    await apiRequest(info, 'POST', '/api/v1/namespaces', {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: ns },
    });
  },
  setupTimeoutMs: SETUP_TIMEOUT,
  teardown: async () => {
    // Everything started is stopped, also when `before` failed half-way.
    try {
      if (info) {
        await stopControllers(info);
        await stopManagementCluster(info);
      }
    } finally {
      await proxy?.close();
      await arm?.close();
      await entra?.close();
      world?.close();
      if (simDir) rmSync(simDir, { recursive: true, force: true });
    }
  },
  teardownTimeoutMs: TEARDOWN_TIMEOUT,
});

test(
  'each real manager answers /healthz and /readyz',
  { timeout: QUICK_TIMEOUT },
  async () => {
    for (const m of MANAGERS) {
      const { health } = running.managers[m].ports;
      assert.equal(
        await status(`http://127.0.0.1:${health}/healthz`),
        200,
        `${m} /healthz`,
      );
      assert.equal(
        await status(`http://127.0.0.1:${health}/readyz`),
        200,
        `${m} /readyz`,
      );
    }
  },
);

test(
  "CAPZ's real validating webhook refuses an invalid AzureManagedControlPlane",
  { timeout: QUICK_TIMEOUT },
  async () => {
    const res = await apiRequest(
      info,
      'POST',
      `/apis/infrastructure.cluster.x-k8s.io/v1beta1/namespaces/${ns}/azuremanagedcontrolplanes`,
      {
        apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1',
        kind: 'AzureManagedControlPlane',
        metadata: { name: 'bad' },
        spec: {
          version: 'not-a-version',
          location: 'westeurope',
          resourceGroupName: 'rg',
          subscriptionID: '00000000-0000-0000-0000-000000000000',
          identityRef: {
            name: 'id',
            namespace: ns,
            kind: 'AzureClusterIdentity',
          },
        },
      },
    );
    assert.ok(
      res.status >= 400 && res.status < 500,
      `HTTP ${res.status}: ${res.body}`,
    );
    assert.match(
      (JSON.parse(res.body) as { message: string }).message,
      /admission webhook "validation\.azuremanagedcontrolplanes\.infrastructure\.cluster\.x-k8s\.io" denied/,
    );
  },
);

test(
  "an AzureASOManagedControlPlane is admitted through CAPZ's webhook and fails closed without it",
  { timeout: QUICK_TIMEOUT },
  async () => {
    const body = (name: string) => ({
      apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1',
      kind: 'AzureASOManagedControlPlane',
      metadata: { name },
      spec: { version: 'v1.33.2', resources: [] },
    });
    const path = `/apis/infrastructure.cluster.x-k8s.io/v1beta1/namespaces/${ns}/azureasomanagedcontrolplanes`;
    const ok = await apiRequest(info, 'POST', path, body('aso-ok'));
    assert.equal(ok.status, 201, ok.body);

    // Proof that the API server called CAPZ's server: with CAPZ stopped, the same create fails closed
    // (failurePolicy Fail). The ASO test below does not need CAPZ.
    const pid = running.managers.capz.pid;
    process.kill(-pid, 'SIGTERM');
    for (let i = 0; i < 200; i++) {
      try {
        process.kill(pid, 0);
      } catch {
        break;
      }
      await new Promise(r => setTimeout(r, 50));
    }
    const closed = await apiRequest(info, 'POST', path, body('aso-closed'));
    assert.equal(closed.status, 500, closed.body);
    assert.match(
      (JSON.parse(closed.body) as { message: string }).message,
      /failed calling webhook "validation\.azureasomanagedcontrolplane\.infrastructure\.cluster\.x-k8s\.io"/,
    );
  },
);

test(
  "a v1api20250801 ManagedCluster round-trips through v1api20240901 via ASO's conversion webhook",
  { timeout: QUICK_TIMEOUT },
  async () => {
    const base = '/apis/containerservice.azure.com';
    const created = await apiRequest(
      info,
      'POST',
      `${base}/v1api20250801/namespaces/${ns}/managedclusters`,
      {
        apiVersion: 'containerservice.azure.com/v1api20250801',
        kind: 'ManagedCluster',
        metadata: { name: 'aks-one' },
        spec: {
          location: 'westeurope',
          owner: { name: 'rg-one' },
          dnsPrefix: 'aks-one',
          kubernetesVersion: '1.33.2',
          identity: { type: 'SystemAssigned' },
          agentPoolProfiles: [
            {
              name: 'pool0',
              count: 1,
              vmSize: 'Standard_D2s_v3',
              mode: 'System',
            },
          ],
        },
      },
    );
    assert.equal(created.status, 201, created.body);
    const c = JSON.parse(created.body);
    assert.equal(
      c.spec.azureName,
      'aks-one',
      "ASO's defaulting webhook sets azureName",
    );

    const old = await apiRequest(
      info,
      'GET',
      `${base}/v1api20240901/namespaces/${ns}/managedclusters/aks-one`,
    );
    assert.equal(old.status, 200, old.body);
    const o = JSON.parse(old.body);
    assert.equal(o.apiVersion, 'containerservice.azure.com/v1api20240901');
    assert.equal(o.spec.kubernetesVersion, '1.33.2');
    assert.equal(o.spec.agentPoolProfiles[0].vmSize, 'Standard_D2s_v3');

    // Write at the old version, read back at the new one: ASO's property bag keeps what v1api20240901 lacks.
    // ASO's controller writes the object too (conditions): re-read and retry on a conflict.
    let put = { status: 0, body: '' };
    for (let attempt = 0, cur = o; attempt < 5; attempt++) {
      cur.spec.dnsPrefix = 'aks-one-b';
      put = await apiRequest(
        info,
        'PUT',
        `${base}/v1api20240901/namespaces/${ns}/managedclusters/aks-one`,
        cur,
      );
      if (put.status !== 409) break;
      cur = JSON.parse(
        (
          await apiRequest(
            info,
            'GET',
            `${base}/v1api20240901/namespaces/${ns}/managedclusters/aks-one`,
          )
        ).body,
      );
    }
    assert.equal(put.status, 200, put.body);
    const back = JSON.parse(
      (
        await apiRequest(
          info,
          'GET',
          `${base}/v1api20250801/namespaces/${ns}/managedclusters/aks-one`,
        )
      ).body,
    );
    assert.equal(back.apiVersion, 'containerservice.azure.com/v1api20250801');
    assert.equal(back.spec.dnsPrefix, 'aks-one-b');
    assert.equal(back.spec.kubernetesVersion, '1.33.2');
  },
);

/** CONNECT through the proxy from this process; resolves with the status the proxy answered. */
const connectStatus = (target: string) =>
  new Promise<number>((resolve, reject) => {
    const u = new URL(proxy!.url);
    const req = httpRequest({
      host: u.hostname,
      port: u.port,
      method: 'CONNECT',
      path: target,
      headers: { Host: target },
    });
    req.on('connect', (res, socket) => {
      socket.destroy();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end();
  });

test(
  'real ASO gets a token from the simulated Entra ID and creates a ResourceGroup at the simulated ARM, both through the proxy',
  { timeout: ASO_TIMEOUT },
  async t => {
    const secret = await apiRequest(
      info,
      'POST',
      `/api/v1/namespaces/${ns}/secrets`,
      {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 'aso-sim-credential' },
        type: 'Opaque',
        // internal/identity/credential_provider.go (ASO v2.18.0): AZURE_SUBSCRIPTION_ID, AZURE_TENANT_ID,
        // AZURE_CLIENT_ID required; AZURE_CLIENT_SECRET selects azidentity.NewClientSecretCredential.
        data: servicePrincipalSecretData(SUBSCRIPTION),
      },
    );
    assert.equal(secret.status, 201, secret.body);
    const started = Date.now();
    const rgPath = `/apis/resources.azure.com/v1api20200601/namespaces/${ns}/resourcegroups`;
    const rg = await apiRequest(info, 'POST', rgPath, {
      apiVersion: 'resources.azure.com/v1api20200601',
      kind: 'ResourceGroup',
      metadata: {
        name: 'rg-sim',
        annotations: {
          'serviceoperator.azure.com/credential-from': 'aso-sim-credential',
        },
      },
      spec: { location: 'westeurope' },
    });
    assert.equal(rg.status, 201, rg.body);

    const token = await until(
      "a token for ARM issued to the credential Secret's client",
      () =>
        entra!.issued.find(
          i => i.clientId === sp.clientId && i.audience === GO_ARM_AUDIENCE,
        ),
      60_000,
    );
    const tokenAfter = Date.now() - started;
    // MSAL Go's order through the proxy: AAD instance discovery at the (trusted) authority host, which its token
    // cache asks for whenever discovery is enabled (apps/internal/base/storage/storage.go lines 128-136 and
    // apps/internal/oauth/ops/authority/authority.go lines 599-609, v1.6.0), then the tenant's OpenID configuration
    // there (trusted host: apps/internal/oauth/resolvers.go line 155), then the token endpoint it names.
    // Entra records the token when it answers; the proxy records the status when that answer reaches it, a moment later.
    const entraCalls = await until(
      'the first three Entra ID answers through the proxy',
      () => {
        const calls = proxy!.requests.filter(r => r.host === ENTRA_HOST);
        return calls.length >= 3 && calls.slice(0, 3).every(r => r.status !== 0)
          ? calls
          : undefined;
      },
      10_000,
    );
    const entraPaths = entraCalls.map(
      r => `${r.method} ${r.path.split('?')[0]}`,
    );
    assert.deepEqual(
      entraPaths.slice(0, 3),
      [
        'GET /common/discovery/instance',
        `GET /${sp.tenantId}/v2.0/.well-known/openid-configuration`,
        `POST /${sp.tenantId}/oauth2/v2.0/token`,
      ],
      entraPaths.join(', '),
    );
    assert.deepEqual(
      entraCalls.slice(0, 3).map(r => r.status),
      [200, 200, 200],
    );
    const discovery = new URL(entraCalls[0].path, `https://${ENTRA_HOST}`);
    assert.equal(discovery.searchParams.get('api-version'), '1.1');
    assert.equal(
      discovery.searchParams.get('authorization_endpoint'),
      `https://${ENTRA_HOST}/${sp.tenantId}/oauth2/v2.0/authorize`,
    );
    assert.equal(token.tenantId, sp.tenantId);

    const rgArmPath = `/subscriptions/${SUBSCRIPTION}/resourcegroups/rg-sim?`;
    const armCall = await until(
      "ASO's request for the resource group at ARM",
      () =>
        proxy!.requests.find(
          r =>
            r.host === ARM_HOST &&
            r.path.toLowerCase().startsWith(rgArmPath) &&
            r.status !== 0,
        ),
      60_000,
    );
    assert.ok(
      armTokens.some(x => x.valid),
      `ARM was shown a token the simulated Entra ID issued for ${GO_ARM_AUDIENCE}: ${JSON.stringify(
        armTokens,
      )}`,
    );
    assert.notEqual(armCall.status, 401, 'ARM accepted the token');

    // With the ARM write API (PUT, Azure-AsyncOperation polling), ASO finishes: Ready=True, and the group exists.
    const ready = await until(
      'the ResourceGroup Ready=True',
      async () => {
        const r = JSON.parse(
          (await apiRequest(info, 'GET', `${rgPath}/rg-sim`)).body,
        ) as {
          status?: { conditions?: Array<Record<string, string>> };
        };
        const c = r.status?.conditions?.find(x => x.type === 'Ready');
        return c?.status === 'True' ? c : undefined;
      },
      60_000,
    ).catch(async e => {
      const r = await apiRequest(info, 'GET', `${rgPath}/rg-sim`);
      throw new Error(
        `${(e as Error).message}; ResourceGroup status: ${JSON.stringify(
          JSON.parse(r.body).status,
        )}; ARM requests: ${JSON.stringify(
          proxy!.requests.filter(x => x.host === ARM_HOST),
        )}`,
      );
    });
    const readyAfter = Date.now() - started;
    assert.ok(ready);
    const group = world!.getResourceGroup(SUBSCRIPTION, 'rg-sim');
    assert.ok(group, 'the resource group exists in the simulated Azure');
    t.diagnostic(
      `token after ${tokenAfter} ms, Ready after ${readyAfter} ms; proxied requests per host ${JSON.stringify(
        proxy!.counts(),
      )}; Entra ID: ${entraPaths.join(', ')}; ARM: ${proxy!.requests
        .filter(r => r.host === ARM_HOST)
        .map(r => `${r.method} ${r.path} ${r.status}`)
        .join(', ')}; tokens issued ${entra!.tokensIssued}`,
    );
  },
);

test(
  'the proxy refuses a third host, and no manager tried one',
  { timeout: QUICK_TIMEOUT },
  async () => {
    const before = proxy!.refused.length;
    assert.deepEqual(
      proxy!.refused,
      [],
      'nothing the managers sent was for a host other than the simulated two',
    );
    assert.equal(await connectStatus('graph.microsoft.com:443'), 403);
    assert.deepEqual(proxy!.refused.slice(before), [
      {
        target: 'graph.microsoft.com:443',
        host: 'graph.microsoft.com',
        reason: 'not a simulated host',
      },
    ]);
  },
);

test(
  'a start whose proxy does not listen and whose CA bundle is missing fails with both causes, touching nothing',
  { timeout: QUICK_TIMEOUT },
  async () => {
    const before = runningControllers(info);
    await assert.rejects(
      startControllers(info, {
        env: {
          HTTPS_PROXY: 'http://127.0.0.1:1',
          SSL_CERT_FILE: '/nonexistent/ca-bundle.pem',
        },
      }),
      (e: Error) => {
        assert.match(
          e.message,
          /HTTPS_PROXY http:\/\/127\.0\.0\.1:1 does not accept connections/,
        );
        assert.match(
          e.message,
          /SSL_CERT_FILE \/nonexistent\/ca-bundle\.pem does not exist/,
        );
        assert.match(e.message, /nothing was started/);
        return true;
      },
    );
    // The running managers were not stopped or replaced.
    assert.deepEqual(runningControllers(info), before);
    process.kill(running.managers.aso.pid, 0);
  },
);
