/**
 * The real CAPI, CAPZ and ASO managers on a management cluster of their own (issue 12, first slice). A lane of its own,
 * outside the default suite: the managers take ~15 min (idle machine) to ~47 min (busy) to build cold
 * (scripts/build-controllers.sh) and ~1.5 GB of memory to run. It never touches the run's shared cluster: it replaces CRDs (conversion webhooks)
 * and installs admission webhooks, which would change what every other test sees.
 *
 *   yarn workspace @internal/mgmt-cluster test:real-controllers   (builds the managers first, cached)
 */
import assert from 'node:assert/strict';
import { get as httpGet } from 'node:http';
import { after, before, test } from 'node:test';
import {
  apiRequest,
  startManagementCluster,
  stopManagementCluster,
  type ClusterInfo,
} from '../src/cluster.ts';
import {
  MANAGERS,
  startControllers,
  stopControllers,
  type RunningControllers,
} from '../src/controllers.ts';

let info: ClusterInfo;
let running: RunningControllers;
const ns = 'real-controllers';

const status = (url: string) =>
  new Promise<number>(res => {
    const r = httpGet(url, { timeout: 2000 }, x => {
      x.resume();
      res(x.statusCode ?? 0);
    });
    r.on('error', () => res(0));
  });

before(async () => {
  info = await startManagementCluster({
    name: `real-${process.pid}`,
    ephemeral: true,
  });
  running = await startControllers(info);
  await apiRequest(info, 'POST', '/api/v1/namespaces', {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: ns },
  });
});

after(async () => {
  if (!info) return;
  await stopControllers(info);
  await stopManagementCluster(info);
});

test('each real manager answers /healthz and /readyz', async () => {
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
});

test("CAPZ's real validating webhook refuses an invalid AzureManagedControlPlane", async () => {
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
});

test("an AzureASOManagedControlPlane is admitted through CAPZ's webhook and fails closed without it", async () => {
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
});

test("a v1api20250801 ManagedCluster round-trips through v1api20240901 via ASO's conversion webhook", async () => {
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
});
