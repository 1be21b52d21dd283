/**
 * The simulated ARM endpoint's write API, as ASO v2.18.0's generic ARM client uses it
 * (`v2/internal/genericarmclient/generic_client.go`: PUT/GET/HEAD/DELETE by id, azcore's pollers on the answers) and
 * as the real `@azure/arm-containerservice` 25.5.0 client drives it (its poller is a second, independent reading of
 * ARM's LRO headers). See docs/azure-facts.md#arm-write-api.
 *
 * The first world's operations never end on their own (`operationMs` of an hour): each test ends them with
 * `completePendingOperations()`, so "in progress" and "done" are observed without a clock.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:https';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ContainerServiceClient } from '@azure/arm-containerservice';
import { isRestError } from '@azure/core-rest-pipeline';
import { AzureError } from '../src/azure/errors.ts';
import { AzureWorld } from '../src/azure/model.ts';
import {
  ARM_AUDIENCES,
  entraAuthorizer,
  startArmServer,
  type ArmRequestLog,
  type ArmServer,
} from '../src/arm/server.ts';
import {
  AKS_SERVER_APPLICATION_ID,
  startEntraSim,
  type EntraSim,
} from '../src/entra/server.ts';

const SUB = '0b5e7c1d-0000-4000-8000-0000000000a1';
const OTHER_SUB = '0b5e7c1d-0000-4000-8000-0000000000b2';
const TOKEN = 'token-writer';
const OTHER_TOKEN = 'token-other';
const NEVER = 3_600_000;

interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  body: { error?: { code: string; message: string } } & Record<string, unknown>;
}

/** One HTTPS request as ASO's Go client sends it: bearer token, JSON body, optionally another Host header. */
function call(
  server: ArmServer,
  method: string,
  pathOrUrl: string,
  opts: {
    body?: unknown;
    raw?: string;
    token?: string | null;
    host?: string;
  } = {},
): Promise<Reply> {
  const url = pathOrUrl.startsWith('https://')
    ? // an LRO URL answered for another Host: the same path on this server
      `${server.url}${new URL(pathOrUrl).pathname}${new URL(pathOrUrl).search}`
    : `${server.url}${pathOrUrl}`;
  const payload =
    opts.raw ?? (opts.body === undefined ? '' : JSON.stringify(opts.body));
  const token = opts.token === undefined ? TOKEN : opts.token;
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method,
        ca: server.caPem,
        agent: false,
        // With another Host header, TLS still checks the loopback certificate's name.
        ...(opts.host ? { servername: 'localhost' } : {}),
        headers: {
          ...(token ? { authorization: `Bearer ${token}` } : {}),
          ...(payload ? { 'content-type': 'application/json' } : {}),
          ...(opts.host ? { host: opts.host } : {}),
        },
      },
      res => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            text,
            body: text ? JSON.parse(text) : {},
          }),
        );
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

const rgPath = (rg: string, v = '2020-06-01', sub = SUB) =>
  `/subscriptions/${sub}/resourceGroups/${rg}?api-version=${v}`;
const mcPath = (rg: string, name: string, v = '2025-08-01', sub = SUB) =>
  `/subscriptions/${sub}/resourceGroups/${rg}/providers/Microsoft.ContainerService/managedClusters/${name}?api-version=${v}`;
const poolPath = (rg: string, mc: string, pool: string, v = '2025-08-01') =>
  mcPath(rg, mc, v).replace('?', `/agentPools/${pool}?`);

/** A ManagedCluster PUT body in the shape ASO v2.18.0 `v1api20250801/arm.ManagedCluster_Spec` marshals. */
const clusterBody = (extra: Record<string, unknown> = {}) => ({
  name: 'aks-1',
  location: 'westeurope',
  tags: { owner: 'team-a' },
  identity: { type: 'SystemAssigned' },
  sku: { name: 'Base', tier: 'Free' },
  properties: {
    dnsPrefix: 'aks-1',
    kubernetesVersion: '1.33.2',
    enableRBAC: true,
    aadProfile: { managed: true, enableAzureRBAC: true },
    networkProfile: { networkPlugin: 'azure', networkPluginMode: 'overlay' },
    oidcIssuerProfile: { enabled: true },
    agentPoolProfiles: [
      {
        name: 'system',
        mode: 'System',
        count: 2,
        vmSize: 'Standard_D4s_v5',
        osType: 'Linux',
        type: 'VirtualMachineScaleSets',
        nodeLabels: { role: 'system' },
        upgradeSettings: { maxSurge: '33%' },
      },
    ],
    ...extra,
  },
});

type Props = Record<string, unknown>;
const props = (r: Reply) => r.body.properties as Props;

describe('simulated ARM write API (raw HTTPS, as ASO v2.18.0 sends it)', () => {
  const stateDir = mkdtempSync(join(tmpdir(), 'capz-arm-write-'));
  const world = new AzureWorld({
    operationMs: NEVER,
    subscriptions: [SUB, OTHER_SUB],
  });
  const log: ArmRequestLog[] = [];
  let server: ArmServer;

  before(async () => {
    server = await startArmServer({
      world,
      tokens: { [TOKEN]: [SUB], [OTHER_TOKEN]: [OTHER_SUB] },
      onRequest: e => log.push(e),
      stateDir,
    });
  });

  after(async () => {
    await server?.close();
    world.close();
    rmSync(stateDir, { recursive: true, force: true });
  });

  it('resource groups: PUT 201 then 200 (tags replaced), GET, HEAD 204/404, DELETE 202 + Location, then 404', async () => {
    const created = await call(server, 'PUT', rgPath('rg-w1'), {
      body: { location: 'westeurope', tags: { a: '1', b: '2' } },
    });
    assert.equal(created.status, 201);
    assert.deepEqual(created.body, {
      id: `/subscriptions/${SUB}/resourceGroups/rg-w1`,
      name: 'rg-w1',
      type: 'Microsoft.Resources/resourceGroups',
      location: 'westeurope',
      tags: { a: '1', b: '2' },
      properties: { provisioningState: 'Succeeded' },
    });
    // Synchronous: no polling header (azcore's body poller ends on the 2xx's terminal provisioningState).
    assert.equal(created.headers['azure-asyncoperation'], undefined);
    const updated = await call(server, 'PUT', rgPath('RG-W1'), {
      body: { location: 'westeurope', tags: { a: '1' } },
    });
    assert.equal(updated.status, 200);
    assert.deepEqual(updated.body.tags, { a: '1' });
    assert.deepEqual(world.getResourceGroup(SUB, 'rg-w1')?.tags, { a: '1' });
    assert.equal((await call(server, 'GET', rgPath('rg-w1'))).status, 200);

    const head = await call(server, 'HEAD', rgPath('rg-w1'));
    assert.equal(head.status, 204);
    assert.equal(head.text, '');
    assert.equal((await call(server, 'HEAD', rgPath('rg-none'))).status, 404);

    const moved = await call(server, 'PUT', rgPath('rg-w1'), {
      body: { location: 'eastus' },
    });
    assert.equal(moved.status, 409);
    assert.equal(moved.body.error?.code, 'InvalidResourceGroupLocation');
    const noLocation = await call(server, 'PUT', rgPath('rg-w2'), {
      body: { tags: {} },
    });
    assert.equal(noLocation.status, 400);
    assert.equal(noLocation.body.error?.code, 'LocationRequired');

    const del = await call(server, 'DELETE', rgPath('rg-w1'));
    assert.equal(del.status, 202);
    const location = String(del.headers.location);
    assert.match(
      location,
      new RegExp(
        `^${server.url}/subscriptions/${SUB}/operationresults/[0-9a-f-]{36}\\?api-version=2020-06-01$`,
      ),
    );
    assert.equal((await call(server, 'GET', location)).status, 200);
    assert.equal((await call(server, 'HEAD', rgPath('rg-w1'))).status, 404);
    const again = await call(server, 'DELETE', rgPath('rg-w1'));
    assert.equal(again.status, 404);
    assert.equal(again.body.error?.code, 'ResourceGroupNotFound');
  });

  it('managed clusters: PUT 201 + Azure-AsyncOperation, InProgress until the model finishes, GET echoes what the PUT sent', async () => {
    await call(server, 'PUT', rgPath('rg-mc'), {
      body: { location: 'westeurope' },
    });
    const put = await call(server, 'PUT', mcPath('rg-mc', 'aks-1'), {
      body: clusterBody(),
      host: 'management.azure.com',
    });
    assert.equal(put.status, 201, put.text);
    assert.equal(props(put).provisioningState, 'Creating');
    // The status URL is on the host the client used (a proxy under management.azure.com keeps its Host header).
    const asyncUrl = String(put.headers['azure-asyncoperation']);
    assert.match(
      asyncUrl,
      new RegExp(
        `^https://management\\.azure\\.com/subscriptions/${SUB}/providers/Microsoft\\.ContainerService/locations/westeurope/operations/[0-9a-f-]{36}\\?api-version=2025-08-01$`,
      ),
    );
    const running = await call(server, 'GET', asyncUrl);
    assert.equal(running.status, 200);
    assert.equal(running.body.status, 'InProgress');
    assert.equal(
      props(await call(server, 'GET', mcPath('rg-mc', 'aks-1')))
        .provisioningState,
      'Creating',
    );
    // AKS refuses another PUT while the cluster is busy.
    const busy = await call(server, 'PUT', mcPath('rg-mc', 'aks-1'), {
      body: clusterBody(),
    });
    assert.equal(busy.status, 409);
    assert.equal(busy.body.error?.code, 'OperationNotAllowed');

    world.completePendingOperations();
    const done = await call(server, 'GET', asyncUrl);
    assert.equal(done.body.status, 'Succeeded');
    assert.equal(done.body.name, asyncUrl.split('/').pop()?.split('?')[0]);

    const got = await call(server, 'GET', mcPath('rg-mc', 'AKS-1'));
    assert.equal(got.status, 200);
    const model = world.getManagedCluster(SUB, 'rg-mc', 'aks-1');
    assert.ok(model);
    assert.equal(got.body.name, 'aks-1');
    assert.deepEqual(got.body.tags, { owner: 'team-a' });
    assert.deepEqual(got.body.identity, { type: 'SystemAssigned' });
    // Not modelled field by field, echoed verbatim: sku, oidcIssuerProfile, a pool's upgradeSettings.
    assert.deepEqual(got.body.sku, { name: 'Base', tier: 'Free' });
    const p = props(got);
    // ... with AKS's read-only issuerURL added to an enabled OIDC issuer.
    const oidc = p.oidcIssuerProfile as { enabled: boolean; issuerURL: string };
    assert.equal(oidc.enabled, true);
    assert.match(
      oidc.issuerURL,
      /^https:\/\/westeurope\.oic\.prod-aks\.azure\.com\/[0-9a-f-]+\/[0-9a-f-]+\/$/,
    );
    assert.equal(p.provisioningState, 'Succeeded');
    assert.equal(p.kubernetesVersion, '1.33.2');
    assert.equal(p.currentKubernetesVersion, '1.33.2');
    assert.equal(p.fqdn, model.fqdn);
    assert.equal(p.nodeResourceGroup, 'MC_rg-mc_aks-1_westeurope');
    assert.deepEqual(p.aadProfile, { managed: true, enableAzureRBAC: true });
    assert.equal((p.networkProfile as Props).networkPluginMode, 'overlay');
    const [pool] = p.agentPoolProfiles as Props[];
    assert.equal(pool.name, 'system');
    assert.equal(pool.count, 2);
    assert.equal(pool.vmSize, 'Standard_D4s_v5');
    assert.deepEqual(pool.nodeLabels, { role: 'system' });
    assert.deepEqual(pool.upgradeSettings, { maxSurge: '33%' });
    assert.equal(pool.provisioningState, 'Succeeded');

    // An update: 200 + Updating; a PUT replaces (tags and unmapped fields left out are gone).
    const body = clusterBody({ kubernetesVersion: '1.33.2' });
    delete (body as Partial<typeof body>).tags;
    delete (body as Partial<typeof body>).sku;
    const update = await call(server, 'PUT', mcPath('rg-mc', 'aks-1'), {
      body,
    });
    assert.equal(update.status, 200);
    assert.equal(props(update).provisioningState, 'Updating');
    assert.ok(update.headers['azure-asyncoperation']);
    world.completePendingOperations();
    const after1 = await call(server, 'GET', mcPath('rg-mc', 'aks-1'));
    assert.deepEqual(after1.body.tags, {});
    assert.equal(after1.body.sku, undefined);
    assert.equal(props(after1).provisioningState, 'Succeeded');
  });

  it('refuses bad cluster PUTs with the codes ASO classifies', async () => {
    const missingGroup = await call(server, 'PUT', mcPath('rg-nope', 'x'), {
      body: clusterBody(),
    });
    assert.equal(missingGroup.status, 404);
    assert.equal(missingGroup.body.error?.code, 'ResourceGroupNotFound');

    await call(server, 'PUT', rgPath('rg-bad'), {
      body: { location: 'westeurope' },
    });
    const cases: Array<[unknown, number, string]> = [
      ['{not json', 400, 'InvalidRequestContent'],
      [[], 400, 'InvalidRequestContent'],
      [{ properties: {} }, 400, 'LocationRequired'],
      [
        clusterBody({ agentPoolProfiles: [{ name: 'p', count: 'three' }] }),
        400,
        'InvalidRequestContent',
      ],
      [
        clusterBody({ agentPoolProfiles: [{ name: 'p', mode: 'Gateway' }] }),
        400,
        'InvalidParameter',
      ],
      [
        clusterBody({
          agentPoolProfiles: [{ name: 'p', enableAutoScaling: true }],
        }),
        400,
        'InvalidParameter',
      ],
      [clusterBody({ agentPoolProfiles: [] }), 400, 'InvalidParameter'],
    ];
    for (const [body, status, code] of cases) {
      const r = await call(server, 'PUT', mcPath('rg-bad', 'bad'), {
        ...(typeof body === 'string' ? { raw: body } : { body }),
      });
      assert.equal(r.status, status, JSON.stringify(body));
      assert.equal(r.body.error?.code, code, JSON.stringify(body));
    }
    assert.equal(world.getManagedCluster(SUB, 'rg-bad', 'bad'), undefined);

    const version = await call(
      server,
      'PUT',
      mcPath('rg-bad', 'bad', '2023-01-01'),
      { body: clusterBody() },
    );
    assert.equal(version.status, 400);
    assert.equal(version.body.error?.code, 'NoRegisteredProviderFound');
    assert.match(
      version.body.error?.message ?? '',
      /location 'westeurope' and API version '2023-01-01'/,
    );
  });

  it("refuses a Kubernetes version the region does not offer with AKS's AgentPoolK8sVersionNotSupported, on create and on upgrade, cluster and pool", async () => {
    await call(server, 'PUT', rgPath('rg-ver'), {
      body: { location: 'westeurope' },
    });
    const refused = (r: Reply, version: string) => {
      assert.equal(r.status, 400);
      assert.deepEqual(r.body.error, {
        code: 'AgentPoolK8sVersionNotSupported',
        message: `Version ${version} is not supported in this region. Please use [az aks get-versions] command to get the supported version list in this region. For more information, please check https://aka.ms/supported-version-list`,
      });
    };
    refused(
      await call(server, 'PUT', mcPath('rg-ver', 'old'), {
        body: clusterBody({ kubernetesVersion: '1.29.0' }),
      }),
      '1.29.0',
    );
    refused(
      await call(server, 'PUT', mcPath('rg-ver', 'old'), {
        body: clusterBody({
          agentPoolProfiles: [
            { name: 'system', mode: 'System', orchestratorVersion: '1.29.0' },
          ],
        }),
      }),
      '1.29.0',
    );
    assert.equal(world.getManagedCluster(SUB, 'rg-ver', 'old'), undefined);

    // An offered version is taken; then an upgrade to one that is not is refused and changes nothing.
    const ok = await call(server, 'PUT', mcPath('rg-ver', 'ok'), {
      body: clusterBody({ kubernetesVersion: '1.32.6' }),
    });
    assert.equal(ok.status, 201);
    world.completePendingOperations();
    refused(
      await call(server, 'PUT', mcPath('rg-ver', 'ok'), {
        body: clusterBody({ kubernetesVersion: '1.33.9' }),
      }),
      '1.33.9',
    );
    refused(
      await call(server, 'PUT', poolPath('rg-ver', 'ok', 'user'), {
        body: {
          properties: { mode: 'User', count: 1, orchestratorVersion: '1.30.0' },
        },
      }),
      '1.30.0',
    );
    const mc = world.getManagedCluster(SUB, 'rg-ver', 'ok')!;
    assert.equal(mc.kubernetesVersion, '1.32.6');
    assert.deepEqual(Object.keys(mc.agentPools), ['system']);
  });

  it('agent pools: PUT 201/200 + Azure-AsyncOperation, DELETE 202 with both polling headers, 204 when absent, never the last System pool', async () => {
    await call(server, 'PUT', rgPath('rg-ap'), {
      body: { location: 'northeurope' },
    });
    await call(server, 'PUT', mcPath('rg-ap', 'aks-p'), {
      body: { ...clusterBody(), location: 'northeurope' },
    });
    world.completePendingOperations();

    const put = await call(server, 'PUT', poolPath('rg-ap', 'aks-p', 'user1'), {
      body: {
        name: 'user1',
        properties: {
          mode: 'User',
          count: 1,
          vmSize: 'Standard_D2s_v5',
          osType: 'Linux',
          enableAutoScaling: true,
          minCount: 1,
          maxCount: 4,
          nodeTaints: ['gpu=true:NoSchedule'],
          scaleSetPriority: 'Regular',
        },
      },
    });
    assert.equal(put.status, 201, put.text);
    assert.equal(props(put).provisioningState, 'Creating');
    const asyncUrl = String(put.headers['azure-asyncoperation']);
    assert.match(asyncUrl, /\/locations\/northeurope\/operations\//);
    assert.equal(
      (await call(server, 'GET', asyncUrl)).body.status,
      'InProgress',
    );
    world.completePendingOperations();
    assert.equal(
      (await call(server, 'GET', asyncUrl)).body.status,
      'Succeeded',
    );

    const got = await call(server, 'GET', poolPath('rg-ap', 'aks-p', 'user1'));
    assert.equal(got.status, 200);
    assert.equal(
      got.body.id,
      `/subscriptions/${SUB}/resourcegroups/rg-ap/providers/Microsoft.ContainerService/managedClusters/aks-p/agentPools/user1`,
    );
    assert.deepEqual(
      {
        ...props(got),
        currentOrchestratorVersion: undefined,
        nodeImageVersion: undefined,
      },
      {
        count: 1,
        vmSize: 'Standard_D2s_v5',
        osType: 'Linux',
        osSKU: 'Ubuntu',
        osDiskSizeGB: 128,
        maxPods: 30,
        nodeTaints: ['gpu=true:NoSchedule'],
        mode: 'User',
        type: 'VirtualMachineScaleSets',
        orchestratorVersion: '1.33.2',
        currentOrchestratorVersion: undefined,
        provisioningState: 'Succeeded',
        powerState: { code: 'Running' },
        enableAutoScaling: true,
        minCount: 1,
        maxCount: 4,
        nodeImageVersion: undefined,
        scaleSetPriority: 'Regular',
      },
    );
    const update = await call(
      server,
      'PUT',
      poolPath('rg-ap', 'aks-p', 'user1'),
      { body: { properties: { mode: 'User', count: 3 } } },
    );
    assert.equal(update.status, 200);
    assert.equal(props(update).provisioningState, 'Updating');
    assert.equal(props(update).enableAutoScaling, false); // a PUT replaces
    world.completePendingOperations();

    const lastSystem = await call(
      server,
      'DELETE',
      poolPath('rg-ap', 'aks-p', 'system'),
    );
    assert.equal(lastSystem.status, 400);
    assert.equal(lastSystem.body.error?.code, 'OperationNotAllowed');

    const del = await call(
      server,
      'DELETE',
      poolPath('rg-ap', 'aks-p', 'user1'),
    );
    assert.equal(del.status, 202);
    assert.equal(del.text, '');
    const status = String(del.headers['azure-asyncoperation']);
    const result = String(del.headers.location);
    assert.match(result, /\/locations\/northeurope\/operationresults\//);
    assert.equal((await call(server, 'GET', status)).body.status, 'InProgress');
    assert.equal((await call(server, 'GET', result)).status, 202);
    world.completePendingOperations();
    assert.equal((await call(server, 'GET', status)).body.status, 'Succeeded');
    assert.equal((await call(server, 'GET', result)).status, 204);
    const gone = await call(server, 'GET', poolPath('rg-ap', 'aks-p', 'user1'));
    assert.equal(gone.status, 404);
    assert.equal(gone.body.error?.code, 'ResourceNotFound');
    assert.equal(
      (await call(server, 'DELETE', poolPath('rg-ap', 'aks-p', 'user1')))
        .status,
      204,
    );
  });

  it('a failed operation: the PUT is accepted, the status says Failed with the error, the resource is Failed', async () => {
    await call(server, 'PUT', rgPath('rg-fail'), {
      body: { location: 'westeurope' },
    });
    world.failNextOperation(
      `/subscriptions/${SUB}/resourceGroups/rg-fail/providers/Microsoft.ContainerService/managedClusters/aks-f`,
      new AzureError(
        400,
        'K8sVersionNotSupported',
        'Version 1.20.0 is not supported in this region.',
      ),
    );
    const put = await call(server, 'PUT', mcPath('rg-fail', 'aks-f'), {
      body: clusterBody(),
    });
    assert.equal(put.status, 201);
    const asyncUrl = String(put.headers['azure-asyncoperation']);
    world.completePendingOperations();
    const failed = await call(server, 'GET', asyncUrl);
    assert.equal(failed.body.status, 'Failed');
    assert.deepEqual(failed.body.error, {
      code: 'K8sVersionNotSupported',
      message: 'Version 1.20.0 is not supported in this region.',
    });
    assert.equal(
      props(await call(server, 'GET', mcPath('rg-fail', 'aks-f')))
        .provisioningState,
      'Failed',
    );
    // A Failed cluster takes a new PUT (ASO's nonBlocking states: succeeded, failed, canceled).
    const retry = await call(server, 'PUT', mcPath('rg-fail', 'aks-f'), {
      body: clusterBody(),
    });
    assert.equal(retry.status, 200);
    world.completePendingOperations();
    assert.equal(
      (await call(server, 'GET', String(retry.headers['azure-asyncoperation'])))
        .body.status,
      'Succeeded',
    );
  });

  it('managed cluster DELETE: 202 + both headers, InProgress until the model removes it, then 204 when absent', async () => {
    await call(server, 'PUT', rgPath('rg-del'), {
      body: { location: 'westeurope' },
    });
    await call(server, 'PUT', mcPath('rg-del', 'aks-d'), {
      body: clusterBody(),
    });
    world.completePendingOperations();
    const del = await call(server, 'DELETE', mcPath('rg-del', 'aks-d'));
    assert.equal(del.status, 202);
    const status = String(del.headers['azure-asyncoperation']);
    assert.ok(del.headers.location);
    assert.equal((await call(server, 'GET', status)).body.status, 'InProgress');
    assert.equal(
      props(await call(server, 'GET', mcPath('rg-del', 'aks-d')))
        .provisioningState,
      'Deleting',
    );
    world.completePendingOperations();
    assert.equal((await call(server, 'GET', status)).body.status, 'Succeeded');
    assert.equal(
      (await call(server, 'GET', mcPath('rg-del', 'aks-d'))).status,
      404,
    );
    assert.equal(
      (await call(server, 'DELETE', mcPath('rg-del', 'aks-d'))).status,
      204,
    );
    const unknownOp = await call(
      server,
      'GET',
      status.replace(/operations\/[0-9a-f-]+/, `operations/${'0'.repeat(8)}`),
    );
    assert.equal(unknownOp.status, 404);
  });

  it('credentials: POST listClusterAdminCredential / listClusterUserCredential (also at 2022-04-01, what ASO sends)', async () => {
    await call(server, 'PUT', rgPath('rg-cred'), {
      body: { location: 'westeurope' },
    });
    await call(server, 'PUT', mcPath('rg-cred', 'aks-c'), {
      body: clusterBody({ aadProfile: undefined }),
    });
    world.completePendingOperations();
    for (const [action, which, name] of [
      ['listClusterAdminCredential', 'admin', 'clusterAdmin'],
      ['listClusterUserCredential', 'user', 'clusterUser'],
    ] as const) {
      const r = await call(
        server,
        'POST',
        mcPath('rg-cred', 'aks-c', '2022-04-01').replace('?', `/${action}?`),
      );
      assert.equal(r.status, 200, r.text);
      const kubeconfigs = r.body.kubeconfigs as Array<{
        name: string;
        value: string;
      }>;
      assert.equal(kubeconfigs.length, 1);
      assert.equal(kubeconfigs[0].name, name);
      assert.equal(
        Buffer.from(kubeconfigs[0].value, 'base64').toString(),
        world.listClusterCredentials(SUB, 'rg-cred', 'aks-c', which),
      );
    }
    // 2022-04-01 is only for the credential actions here.
    assert.equal(
      (await call(server, 'GET', mcPath('rg-cred', 'aks-c', '2022-04-01'))).body
        .error?.code,
      'NoRegisteredProviderFound',
    );
    const get = await call(
      server,
      'GET',
      mcPath('rg-cred', 'aks-c').replace('?', '/listClusterAdminCredential?'),
    );
    assert.equal(get.status, 405);
    assert.equal(get.headers.allow, 'POST');
  });

  it('authorizes writes per subscription and names the write action', async () => {
    const anonymous = await call(server, 'PUT', rgPath('rg-x'), {
      body: { location: 'westeurope' },
      token: null,
    });
    assert.equal(anonymous.status, 401);
    const other = await call(server, 'PUT', rgPath('rg-x'), {
      body: { location: 'westeurope' },
      token: OTHER_TOKEN,
    });
    assert.equal(other.status, 403);
    assert.equal(other.body.error?.code, 'AuthorizationFailed');
    assert.match(
      other.body.error?.message ?? '',
      /'Microsoft\.Resources\/subscriptions\/resourceGroups\/write'/,
    );
    const del = await call(server, 'DELETE', mcPath('rg-mc', 'aks-1'), {
      token: OTHER_TOKEN,
    });
    assert.equal(del.status, 403);
    assert.match(
      del.body.error?.message ?? '',
      /'Microsoft\.ContainerService\/managedClusters\/delete'/,
    );
    assert.equal(world.getResourceGroup(SUB, 'rg-x'), undefined);
    assert.equal(
      world.getManagedCluster(SUB, 'rg-mc', 'aks-1')?.provisioningState,
      'Succeeded',
    );
  });

  it('logs every api-version it sees, per method and type', () => {
    const seen = server.apiVersionsSeen();
    assert.ok(
      seen['PUT Microsoft.ContainerService/managedClusters 2025-08-01'] > 0,
    );
    assert.ok(
      seen['PUT Microsoft.ContainerService/managedClusters 2023-01-01'] > 0,
    );
    assert.ok(
      seen['POST Microsoft.ContainerService/managedClusters 2022-04-01'] > 0,
    );
    assert.ok(
      seen['HEAD Microsoft.Resources/subscriptions/resourceGroups 2020-06-01'] >
        0,
    );
    assert.ok(
      log.some(e => e.code === 'NoRegisteredProviderFound' && e.status === 400),
    );
  });
});

describe('simulated ARM write API with @azure/arm-containerservice 25.5.0 and Entra tokens for both ARM audiences', () => {
  const stateDir = mkdtempSync(join(tmpdir(), 'capz-arm-write-sdk-'));
  const world = new AzureWorld({ operationMs: NEVER, subscriptions: [SUB] });
  const TENANT = '72f988bf-0000-4000-8000-0000000000d1';
  const WRITER = {
    tenantId: TENANT,
    clientId: '3b1f0a2c-0000-4000-8000-0000000000d2',
    clientSecret: 'writer-secret',
  };
  let entra: EntraSim;
  let server: ArmServer;
  const sent: string[] = [];

  const tokenFor = (audience: string): Promise<string> =>
    new Promise((resolve, reject) => {
      const form = new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: WRITER.clientId,
        client_secret: WRITER.clientSecret,
        scope: `${audience}/.default`,
      }).toString();
      const req = request(
        `${entra.url}/${TENANT}/oauth2/v2.0/token`,
        {
          method: 'POST',
          ca: entra.caPem,
          agent: false,
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
        },
        res => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (c: string) => (text += c));
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

  const client = (token: string) =>
    new ContainerServiceClient(
      {
        getToken: async () => ({
          token,
          expiresOnTimestamp: Date.now() + 600_000,
        }),
      },
      SUB,
      {
        endpoint: server.url,
        apiVersion: '2025-08-01',
        tlsOptions: { ca: server.caPem },
        retryOptions: { maxRetries: 0 },
        additionalPolicies: [
          {
            position: 'perCall',
            policy: {
              name: 'record',
              sendRequest: (req, next) => (
                sent.push(`${req.method} ${new URL(req.url).pathname}`),
                next(req)
              ),
            },
          },
        ],
      },
    );

  before(async () => {
    world.putResourceGroup(SUB, 'rg-sdk', { location: 'westeurope' });
    entra = await startEntraSim({
      stateDir,
      // the two audiences ARM accepts: the JS SDK's and azcore's public-cloud one (what ASO's Go client asks for)
      applications: [...ARM_AUDIENCES, AKS_SERVER_APPLICATION_ID],
      servicePrincipals: [WRITER],
    });
    server = await startArmServer({
      world,
      authorize: entraAuthorizer(entra, { [WRITER.clientId]: [SUB] }),
      stateDir,
    });
  });

  after(async () => {
    await server?.close();
    await entra?.close();
    world.close();
    rmSync(stateDir, { recursive: true, force: true });
  });

  it("the SDK's poller follows our LRO headers: create, update, credentials, pool delete", async () => {
    // azcore's audience (`https://management.core.windows.net/` + `/.default`), as ASO's Go client asks for it.
    const sdk = client(await tokenFor('https://management.core.windows.net/'));
    const poller = sdk.managedClusters.createOrUpdate('rg-sdk', 'aks-sdk', {
      location: 'westeurope',
      dnsPrefix: 'aks-sdk',
      kubernetesVersion: '1.33.2',
      agentPoolProfiles: [
        { name: 'system', mode: 'System', count: 1, vmSize: 'Standard_D2s_v5' },
        { name: 'user', mode: 'User', count: 2, vmSize: 'Standard_D2s_v5' },
      ],
    });
    await poller.submitted();
    await poller.poll();
    assert.equal(poller.isDone, false);
    assert.equal(poller.operationState?.status, 'running');
    world.completePendingOperations();
    const mc = await poller.pollUntilDone();
    assert.equal(mc.provisioningState, 'Succeeded');
    assert.equal(mc.currentKubernetesVersion, '1.33.2');
    assert.equal(mc.agentPoolProfiles?.length, 2);
    // PUT, the status URL, then the final GET of the resource (azcore and core-lro both do it for a PUT).
    assert.deepEqual(
      sent.slice(-3).map(s => s.split(' ')[0]),
      ['GET', 'GET', 'GET'],
    );
    assert.match(sent.at(-1) ?? '', /managedClusters\/aks-sdk$/);
    assert.ok(sent.some(s => /^PUT .*managedClusters\/aks-sdk$/.test(s)));

    // beginCreateOrUpdateAndWait (the deprecated API the brief names) for an update, with the other audience.
    const sdk2 = client(await tokenFor('https://management.azure.com'));
    const updating = sdk2.managedClusters.beginCreateOrUpdateAndWait(
      'rg-sdk',
      'aks-sdk',
      { ...mc, tags: { env: 'test' } },
      { updateIntervalInMs: 5 },
    );
    // The update's PUT and first poll happen without the model moving: end the operation when the model has it.
    await new Promise<void>(resolve => {
      const check = () => {
        if (
          world.getManagedCluster(SUB, 'rg-sdk', 'aks-sdk')
            ?.provisioningState === 'Updating'
        ) {
          world.off('change', check);
          resolve();
        }
      };
      world.on('change', check);
      check();
    });
    world.completePendingOperations();
    const updated = await updating;
    assert.deepEqual(updated.tags, { env: 'test' });
    assert.equal(updated.provisioningState, 'Succeeded');

    const creds = await sdk.managedClusters.listClusterAdminCredentials(
      'rg-sdk',
      'aks-sdk',
    );
    assert.equal(creds.kubeconfigs?.[0].name, 'clusterAdmin');
    assert.match(
      Buffer.from(creds.kubeconfigs?.[0].value ?? new Uint8Array()).toString(),
      /^apiVersion: v1\nkind: Config/,
    );

    const deleting = sdk.agentPools.beginDeleteAndWait(
      'rg-sdk',
      'aks-sdk',
      'user',
      { updateIntervalInMs: 5 },
    );
    await new Promise<void>(resolve => {
      const check = () => {
        if (
          world.getAgentPool(SUB, 'rg-sdk', 'aks-sdk', 'user')
            ?.provisioningState === 'Deleting'
        ) {
          world.off('change', check);
          resolve();
        }
      };
      world.on('change', check);
      check();
    });
    world.completePendingOperations();
    await deleting;
    assert.equal(
      world.getAgentPool(SUB, 'rg-sdk', 'aks-sdk', 'user'),
      undefined,
    );
  });

  it("a failed LRO reaches the SDK with AKS's code and message from the status body", async () => {
    const sdk = client(await tokenFor('https://management.core.windows.net/'));
    world.failNextOperation(
      `/subscriptions/${SUB}/resourceGroups/rg-sdk/providers/Microsoft.ContainerService/managedClusters/aks-sdk/agentPools/extra`,
      new AzureError(400, 'InvalidParameter', 'vmSize is not available.'),
    );
    const poller = sdk.agentPools.createOrUpdate('rg-sdk', 'aks-sdk', 'extra', {
      mode: 'User',
      count: 1,
    });
    await poller.submitted();
    world.completePendingOperations();
    // @azure/core-lro reports a Failed status as an Error built from the status body's `error.code` and `message`.
    await assert.rejects(poller.pollUntilDone(), {
      message:
        'The long-running operation has failed. InvalidParameter. vmSize is not available.',
    });
    assert.equal(
      world.getAgentPool(SUB, 'rg-sdk', 'aks-sdk', 'extra')?.provisioningState,
      'Failed',
    );
  });

  it('refuses a valid token issued for another audience (the AKS server application)', async () => {
    const token = await tokenFor(AKS_SERVER_APPLICATION_ID);
    await assert.rejects(
      client(token).managedClusters.get('rg-sdk', 'aks-sdk'),
      (e: unknown) =>
        isRestError(e) &&
        e.statusCode === 401 &&
        e.code === 'InvalidAuthenticationToken',
    );
  });
});
