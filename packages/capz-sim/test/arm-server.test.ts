/**
 * The simulated ARM endpoint, driven by the real `@azure/arm-containerservice` client (api-version 2024-09-01), with
 * static tokens and with tokens the simulated Entra ID issued for ARM.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:https';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ContainerServiceClient } from '@azure/arm-containerservice';
import type { TokenCredential } from '@azure/core-auth';
import { isRestError } from '@azure/core-rest-pipeline';
import { AzureWorld } from '../src/azure/model.ts';
import {
  entraAuthorizer,
  startArmServer,
  type ArmServer,
} from '../src/arm/server.ts';
import {
  AKS_SERVER_APPLICATION_ID,
  ARM_RESOURCE,
  startEntraSim,
  type EntraSim,
} from '../src/entra/server.ts';

const SUB = '6f1c2d3e-0000-4000-8000-0000000000a1';
const OTHER_SUB = '6f1c2d3e-0000-4000-8000-0000000000b2';
const UNKNOWN_SUB = '6f1c2d3e-0000-4000-8000-0000000000ff';
const TOKEN = 'token-team-a';
const OTHER_TOKEN = 'token-team-b';

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: { error?: { code: string; message: string } } & Record<string, unknown>;
}

/** A plain HTTPS request, for what the SDK cannot send (other api-versions, no token, writes). */
function raw(
  url: string,
  opts: { method?: string; token?: string | null; ca?: string },
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = opts.token
      ? { authorization: `Bearer ${opts.token}` }
      : {};
    const req = request(
      url,
      { method: opts.method ?? 'GET', headers, ca: opts.ca, agent: false },
      res => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: JSON.parse(text),
          }),
        );
      },
    );
    req.on('error', reject);
    req.end();
  });
}

describe('simulated ARM endpoint with @azure/arm-containerservice', () => {
  const stateDir = mkdtempSync(join(tmpdir(), 'capz-arm-'));
  const world = new AzureWorld({
    operationMs: 1,
    subscriptions: [SUB, OTHER_SUB],
  });
  const scopesAsked: string[][] = [];
  const urlsSent: string[] = [];
  let server: ArmServer;

  const credential = (token: string): TokenCredential => ({
    getToken: async scopes => {
      scopesAsked.push([scopes].flat());
      return { token, expiresOnTimestamp: Date.now() + 3600_000 };
    },
  });

  const client = (token = TOKEN, sub = SUB) =>
    new ContainerServiceClient(credential(token), sub, {
      endpoint: server.url,
      apiVersion: '2024-09-01',
      // Trusting the simulator's CA: `tlsOptions` is a standard core-rest-pipeline client option. It adds the tlsPolicy,
      // which puts these settings on every request, and the Node HTTP client builds (and caches) an https.Agent from them.
      // TLS verification stays on (hostname and chain are checked against this CA only); nothing global such as
      // NODE_EXTRA_CA_CERTS or NODE_TLS_REJECT_UNAUTHORIZED is touched.
      tlsOptions: { ca: server.caPem },
      retryOptions: { maxRetries: 0 },
      additionalPolicies: [
        {
          position: 'perCall',
          policy: {
            name: 'record-url',
            sendRequest: (req, next) => (urlsSent.push(req.url), next(req)),
          },
        },
      ],
    });

  before(async () => {
    world.putResourceGroup(SUB, 'rg-alpha', { location: 'westeurope' });
    world.putResourceGroup(SUB, 'rg-beta', {
      location: 'northeurope',
      tags: { team: 'beta' },
    });
    world.putManagedCluster(SUB, 'rg-alpha', 'alpha-1', {
      location: 'westeurope',
      kubernetesVersion: '1.32.5',
      tags: { env: 'prod' },
      agentPoolProfiles: [
        { name: 'system', mode: 'System', count: 3, vmSize: 'Standard_D4s_v5' },
        {
          name: 'user',
          mode: 'User',
          count: 2,
          vmSize: 'Standard_D8s_v5',
          enableAutoScaling: true,
          minCount: 1,
          maxCount: 5,
          osSKU: 'AzureLinux',
          availabilityZones: ['1', '3'],
          maxPods: 60,
          osDiskSizeGB: 256,
          nodeLabels: { workload: 'web' },
          nodeTaints: ['workload=web:NoSchedule'],
          tags: { 'cost-center': 'web' },
        },
      ],
    });
    world.putManagedCluster(SUB, 'rg-alpha', 'alpha-entra', {
      location: 'westeurope',
      disableLocalAccounts: true,
      aadProfile: {
        managed: true,
        enableAzureRBAC: true,
        adminGroupObjectIDs: ['0d9a4f1e-1111-4222-8333-444455556666'],
      },
      agentPoolProfiles: [{ name: 'system', mode: 'System', count: 1 }],
    });
    world.putManagedCluster(SUB, 'rg-beta', 'beta-1', {
      location: 'northeurope',
      agentPoolProfiles: [{ name: 'pool0', mode: 'System', count: 2 }],
    });
    world.putResourceGroup(OTHER_SUB, 'rg-other', { location: 'eastus' });
    world.putManagedCluster(OTHER_SUB, 'rg-other', 'other-1', {
      location: 'eastus',
      agentPoolProfiles: [{ name: 'np', mode: 'System' }],
    });
    await world.settled();
    server = await startArmServer({
      world,
      tokens: { [TOKEN]: [SUB], [OTHER_TOKEN]: [OTHER_SUB] },
      stateDir,
    });
  });

  after(async () => {
    await server?.close();
    world.close();
    rmSync(stateDir, { recursive: true, force: true });
  });

  it('lists every cluster of the subscription, with AKS-style ids', async () => {
    const clusters = await collect(client().managedClusters.list());
    assert.deepEqual(clusters.map(c => c.name).sort(), [
      'alpha-1',
      'alpha-entra',
      'beta-1',
    ]);
    const beta = clusters.find(c => c.name === 'beta-1');
    assert.equal(
      beta?.id,
      `/subscriptions/${SUB}/resourcegroups/rg-beta/providers/Microsoft.ContainerService/managedClusters/beta-1`,
    );
    assert.equal(beta?.type, 'Microsoft.ContainerService/ManagedClusters');
    assert.equal(beta?.location, 'northeurope');
    // What the SDK sent: the api-version we asked for, and ARM's default scope although the endpoint is not ARM's.
    assert.equal(
      urlsSent.at(-1),
      `${server.url}/subscriptions/${SUB}/providers/Microsoft.ContainerService/managedClusters?api-version=2024-09-01`,
    );
    assert.deepEqual(scopesAsked.at(-1), [
      'https://management.azure.com/.default',
    ]);
  });

  it('lists clusters by resource group, matching the group name case-insensitively', async () => {
    const alpha = await collect(
      client().managedClusters.listByResourceGroup('rg-alpha'),
    );
    assert.deepEqual(alpha.map(c => c.name).sort(), ['alpha-1', 'alpha-entra']);
    const beta = await collect(
      client().managedClusters.listByResourceGroup('RG-BETA'),
    );
    assert.deepEqual(
      beta.map(c => c.name),
      ['beta-1'],
    );
  });

  it('only shows the caller its own subscription', async () => {
    const other = await collect(
      client(OTHER_TOKEN, OTHER_SUB).managedClusters.list(),
    );
    assert.deepEqual(
      other.map(c => c.name),
      ['other-1'],
    );
  });

  it('gets a cluster with the fields the SDK flattens', async () => {
    const model = world.getManagedCluster(SUB, 'rg-alpha', 'alpha-1');
    assert.ok(model);
    const mc = await client().managedClusters.get('rg-alpha', 'alpha-1');
    assert.equal(mc.provisioningState, 'Succeeded');
    assert.equal(mc.powerState?.code, 'Running');
    assert.equal(mc.kubernetesVersion, '1.32.5');
    assert.equal(mc.currentKubernetesVersion, '1.32.5');
    assert.equal(mc.fqdn, model.fqdn);
    assert.match(
      mc.fqdn ?? '',
      /^alpha-1-[0-9a-f]{8}\.hcp\.westeurope\.azmk8s\.io$/,
    );
    assert.match(
      mc.azurePortalFqdn ?? '',
      /^alpha-1-[0-9a-f]{8}\.portal\.hcp\.westeurope\.azmk8s\.io$/,
    );
    assert.equal(mc.nodeResourceGroup, 'MC_rg-alpha_alpha-1_westeurope');
    assert.equal(mc.enableRbac, true);
    assert.equal(mc.disableLocalAccounts, false);
    assert.equal(mc.aadProfile, undefined);
    assert.equal(mc.resourceUID, model.resourceUID);
    assert.deepEqual(mc.tags, { env: 'prod' });
    assert.equal(mc.identity?.type, 'SystemAssigned');
    assert.equal(mc.networkProfile?.networkPlugin, 'azure');
    const pools = Object.fromEntries(
      (mc.agentPoolProfiles ?? []).map(p => [p.name, p]),
    );
    assert.deepEqual(Object.keys(pools).sort(), ['system', 'user']);
    assert.equal(pools.system.count, 3);
    assert.equal(pools.system.mode, 'System');
    assert.equal(pools.system.vmSize, 'Standard_D4s_v5');
    assert.equal(pools.system.enableAutoScaling, false);
    assert.equal(pools.system.minCount, undefined);
    assert.equal(pools.user.count, 2);
    assert.equal(pools.user.enableAutoScaling, true);
    assert.equal(pools.user.minCount, 1);
    assert.equal(pools.user.maxCount, 5);
    // Inline profiles keep the wire's `type`; only the agentPools resource renames it to `typePropertiesType`.
    assert.equal(pools.user.type, 'VirtualMachineScaleSets');
    assert.equal(pools.user.currentOrchestratorVersion, '1.32.5');
    assert.equal(pools.user.provisioningState, 'Succeeded');
    // The fields adoption writes back: what the PUT gave, and AKS's defaults where it gave nothing.
    assert.deepEqual(
      [
        pools.user.osType,
        pools.user.osSKU,
        pools.user.availabilityZones,
        pools.user.maxPods,
        pools.user.osDiskSizeGB,
        pools.user.nodeLabels,
        pools.user.nodeTaints,
        pools.user.tags,
      ],
      [
        'Linux',
        'AzureLinux',
        ['1', '3'],
        60,
        256,
        { workload: 'web' },
        ['workload=web:NoSchedule'],
        { 'cost-center': 'web' },
      ],
    );
    assert.deepEqual(
      [
        pools.system.osSKU,
        pools.system.availabilityZones,
        pools.system.maxPods,
        pools.system.osDiskSizeGB,
        pools.system.nodeLabels,
        pools.system.nodeTaints,
        pools.system.tags,
      ],
      ['Ubuntu', undefined, 30, 128, undefined, undefined, undefined],
    );
  });

  it('gets an Entra-only cluster', async () => {
    const mc = await client().managedClusters.get('rg-alpha', 'ALPHA-ENTRA');
    assert.equal(mc.name, 'alpha-entra');
    assert.equal(mc.disableLocalAccounts, true);
    assert.equal(mc.aadProfile?.managed, true);
    assert.equal(mc.aadProfile?.enableAzureRbac, true);
    assert.deepEqual(mc.aadProfile?.adminGroupObjectIDs, [
      '0d9a4f1e-1111-4222-8333-444455556666',
    ]);
  });

  it('lists and gets agent pools', async () => {
    const pools = await collect(
      client().agentPools.list('rg-alpha', 'alpha-1'),
    );
    assert.deepEqual(pools.map(p => p.name).sort(), ['system', 'user']);
    const user = await client().agentPools.get('rg-alpha', 'alpha-1', 'user');
    assert.equal(
      user.id,
      `/subscriptions/${SUB}/resourcegroups/rg-alpha/providers/Microsoft.ContainerService/managedClusters/alpha-1/agentPools/user`,
    );
    assert.equal(
      user.type,
      'Microsoft.ContainerService/managedClusters/agentPools',
    );
    assert.equal(user.count, 2);
    assert.equal(user.vmSize, 'Standard_D8s_v5');
    assert.equal(user.mode, 'User');
    assert.equal(user.osType, 'Linux');
    assert.equal(user.enableAutoScaling, true);
    assert.equal(user.minCount, 1);
    assert.equal(user.maxCount, 5);
    assert.equal(user.typePropertiesType, 'VirtualMachineScaleSets');
    assert.equal(user.orchestratorVersion, '1.32.5');
    assert.equal(user.provisioningState, 'Succeeded');
    assert.equal(user.powerState?.code, 'Running');
    assert.match(user.nodeImageVersion ?? '', /^AKSUbuntu-/);
    assert.equal(user.osSKU, 'AzureLinux');
    assert.deepEqual(user.availabilityZones, ['1', '3']);
    assert.equal(user.maxPods, 60);
    assert.equal(user.osDiskSizeGB, 256);
    assert.deepEqual(user.nodeLabels, { workload: 'web' });
    assert.deepEqual(user.nodeTaints, ['workload=web:NoSchedule']);
    assert.deepEqual(user.tags, { 'cost-center': 'web' });
  });

  it('reports missing resources with the ARM codes of the model', async () => {
    const err = await client()
      .managedClusters.get('rg-alpha', 'nope')
      .then(
        () => assert.fail('expected a 404'),
        (e: unknown) => e,
      );
    assert.ok(isRestError(err), 'a RestError');
    assert.equal(err.statusCode, 404);
    assert.equal(err.code, 'ResourceNotFound');
    assert.match(
      err.message,
      /managedClusters\/nope' under resource group 'rg-alpha' was not found/,
    );
    await assert.rejects(
      client().managedClusters.get('rg-missing', 'alpha-1'),
      {
        statusCode: 404,
        code: 'ResourceGroupNotFound',
      },
    );
    await assert.rejects(
      collect(client().managedClusters.listByResourceGroup('rg-missing')),
      {
        statusCode: 404,
        code: 'ResourceGroupNotFound',
      },
    );
    await assert.rejects(
      client().agentPools.get('rg-alpha', 'alpha-1', 'gpu'),
      { statusCode: 404, code: 'ResourceNotFound' },
    );
  });

  it('rejects an unknown token with 401', async () => {
    await assert.rejects(
      client('forged-token').managedClusters.get('rg-alpha', 'alpha-1'),
      {
        name: 'RestError',
        statusCode: 401,
        code: 'InvalidAuthenticationToken',
      },
    );
  });

  it('rejects a token of another subscription with 403', async () => {
    await assert.rejects(
      client(OTHER_TOKEN, SUB).managedClusters.get('rg-alpha', 'alpha-1'),
      (e: unknown) => {
        assert.ok(isRestError(e));
        assert.equal(e.statusCode, 403);
        assert.equal(e.code, 'AuthorizationFailed');
        assert.match(
          e.message,
          new RegExp(
            `'Microsoft\\.ContainerService/managedClusters/read' over scope '/subscriptions/${SUB}/resourceGroups/rg-alpha/`,
          ),
        );
        return true;
      },
    );
    // Paged operations keep the ARM code but replace ARM's message with their own.
    await assert.rejects(
      collect(client(OTHER_TOKEN, SUB).managedClusters.list()),
      {
        statusCode: 403,
        code: 'AuthorizationFailed',
        message: 'Pagination failed with unexpected statusCode 403',
      },
    );
    await assert.rejects(
      client(OTHER_TOKEN, SUB).agentPools.get('rg-alpha', 'alpha-1', 'user'),
      {
        statusCode: 403,
        code: 'AuthorizationFailed',
        message:
          /'Microsoft\.ContainerService\/managedClusters\/agentPools\/read'/,
      },
    );
  });

  it('reports an unknown subscription with 404', async () => {
    await assert.rejects(
      collect(client(TOKEN, UNKNOWN_SUB).managedClusters.list()),
      {
        statusCode: 404,
        code: 'SubscriptionNotFound',
      },
    );
  });

  it('shows a cluster that is still being created as Creating', async () => {
    world.operationMs = 600_000; // never completes within the test; world.close() drops the timer
    try {
      world.putManagedCluster(OTHER_SUB, 'rg-other', 'other-new', {
        location: 'eastus',
        agentPoolProfiles: [{ name: 'np' }],
      });
    } finally {
      world.operationMs = 1;
    }
    const mc = await client(OTHER_TOKEN, OTHER_SUB).managedClusters.get(
      'rg-other',
      'other-new',
    );
    assert.equal(mc.provisioningState, 'Creating');
    assert.equal(mc.agentPoolProfiles?.[0].provisioningState, 'Creating');
  });

  describe('raw HTTPS', () => {
    const path = () =>
      `${server.url}/subscriptions/${SUB}/resourceGroups/rg-alpha/providers/Microsoft.ContainerService/managedClusters/alpha-1`;

    it("requires one of AKS's registered api-versions", async () => {
      const wrong = await raw(`${path()}?api-version=2023-01-01`, {
        token: TOKEN,
        ca: server.caPem,
      });
      assert.equal(wrong.status, 400);
      assert.equal(wrong.body.error?.code, 'NoRegisteredProviderFound');
      assert.match(
        wrong.body.error?.message ?? '',
        /location 'westeurope' and API version '2023-01-01' for type 'managedClusters'\. The supported api-versions are '2025-08-01, 2024-09-01, 2025-10-02-preview, 2024-04-02-preview'/,
      );
      const missing = await raw(path(), { token: TOKEN, ca: server.caPem });
      assert.equal(missing.status, 400);
      assert.equal(missing.body.error?.code, 'MissingApiVersionParameter');
      const ok = await raw(
        `${path().replace(
          'resourceGroups',
          'RESOURCEGROUPS',
        )}?API-Version=2024-09-01`,
        {
          token: TOKEN,
          ca: server.caPem,
        },
      );
      assert.equal(ok.status, 200);
      assert.equal(ok.body.name, 'alpha-1');
      assert.equal(
        (ok.body.properties as { enableRBAC?: boolean }).enableRBAC,
        true,
      );
      assert.equal(
        ok.headers['content-type'],
        'application/json; charset=utf-8',
      );
    });

    it("gets a resource group with its location (Microsoft.Resources api-versions), with the AKS routes' auth rules", async () => {
      const rg = (sub: string, name: string, v = '2021-04-01') =>
        `${server.url}/subscriptions/${sub}/resourcegroups/${name}?api-version=${v}`;
      const ok = await raw(rg(SUB, 'RG-Beta'), {
        token: TOKEN,
        ca: server.caPem,
      });
      assert.equal(ok.status, 200);
      assert.deepEqual(ok.body, {
        id: `/subscriptions/${SUB}/resourceGroups/rg-beta`,
        name: 'rg-beta',
        type: 'Microsoft.Resources/resourceGroups',
        location: 'northeurope',
        tags: { team: 'beta' },
        properties: { provisioningState: 'Succeeded' },
      });
      // ASO's version is accepted too; the AKS version is not one of Microsoft.Resources'.
      assert.equal(
        (
          await raw(rg(SUB, 'rg-alpha', '2020-06-01'), {
            token: TOKEN,
            ca: server.caPem,
          })
        ).body.location,
        'westeurope',
      );
      const wrongVersion = await raw(rg(SUB, 'rg-alpha', '2024-09-01'), {
        token: TOKEN,
        ca: server.caPem,
      });
      assert.equal(wrongVersion.status, 400);
      assert.equal(wrongVersion.body.error?.code, 'InvalidApiVersionParameter');
      const missing = await raw(rg(SUB, 'rg-missing'), {
        token: TOKEN,
        ca: server.caPem,
      });
      assert.equal(missing.status, 404);
      assert.equal(missing.body.error?.code, 'ResourceGroupNotFound');
      assert.match(
        missing.body.error?.message ?? '',
        /'rg-missing' could not be found/,
      );
      const anonymous = await raw(rg(SUB, 'rg-alpha'), {
        token: null,
        ca: server.caPem,
      });
      assert.equal(anonymous.status, 401);
      assert.equal(anonymous.body.error?.code, 'AuthenticationFailed');
      const forged = await raw(rg(SUB, 'rg-alpha'), {
        token: 'forged-token',
        ca: server.caPem,
      });
      assert.equal(forged.status, 401);
      assert.equal(forged.body.error?.code, 'InvalidAuthenticationToken');
      const otherTeam = await raw(rg(SUB, 'rg-alpha'), {
        token: OTHER_TOKEN,
        ca: server.caPem,
      });
      assert.equal(otherTeam.status, 403);
      assert.equal(otherTeam.body.error?.code, 'AuthorizationFailed');
      assert.match(
        otherTeam.body.error?.message ?? '',
        /'Microsoft\.Resources\/subscriptions\/resourceGroups\/read' over scope/,
      );
      const unknownSub = await raw(rg(UNKNOWN_SUB, 'rg-alpha'), {
        token: TOKEN,
        ca: server.caPem,
      });
      assert.equal(unknownSub.status, 404);
      assert.equal(unknownSub.body.error?.code, 'SubscriptionNotFound');
      // A PUT is a write now: without a body it is ARM's InvalidRequestContent.
      const put = await raw(rg(SUB, 'rg-alpha'), {
        method: 'PUT',
        token: TOKEN,
        ca: server.caPem,
      });
      assert.equal(put.status, 400);
      assert.equal(put.body.error?.code, 'InvalidRequestContent');
    });

    it('answers like ARM without a token, for a method the route lacks and for unknown types', async () => {
      const anonymous = await raw(`${path()}?api-version=2024-09-01`, {
        token: null,
        ca: server.caPem,
      });
      assert.equal(anonymous.status, 401);
      assert.equal(anonymous.body.error?.code, 'AuthenticationFailed');
      assert.match(
        String(anonymous.headers['www-authenticate']),
        /^Bearer authorization_uri=/,
      );
      const post = await raw(`${path()}?api-version=2024-09-01`, {
        method: 'POST',
        token: TOKEN,
        ca: server.caPem,
      });
      assert.equal(post.status, 405);
      assert.equal(post.body.error?.code, 'MethodNotAllowed');
      assert.equal(post.headers.allow, 'GET, PUT, DELETE');
      const unknown = await raw(
        `${path()}/maintenanceConfigurations?api-version=2024-09-01`,
        { token: TOKEN, ca: server.caPem },
      );
      assert.equal(unknown.status, 404);
      assert.equal(unknown.body.error?.code, 'InvalidResourceType');
      assert.match(
        unknown.body.error?.message ?? '',
        /'managedClusters\/maintenanceConfigurations'/,
      );
    });

    it('is only trusted through its CA, whose material is reused from the state directory', async () => {
      await assert.rejects(
        raw(`${path()}?api-version=2024-09-01`, { token: TOKEN }),
        { code: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' },
      );
      const again = await startArmServer({ world, tokens: {}, stateDir });
      try {
        assert.equal(again.caPem, server.caPem);
        assert.notEqual(again.url, server.url);
        const res = await raw(
          `${again.url}/subscriptions/${SUB}/providers/Microsoft.ContainerService/managedClusters?api-version=2024-09-01`,
          {
            token: TOKEN,
            ca: again.caPem,
          },
        );
        assert.equal(res.status, 401); // this second server knows no tokens
        assert.equal(res.body.error?.code, 'InvalidAuthenticationToken');
      } finally {
        await again.close();
      }
    });
  });
});

describe('simulated ARM endpoint with the simulated Entra ID tokens', () => {
  const stateDir = mkdtempSync(join(tmpdir(), 'capz-arm-entra-'));
  const world = new AzureWorld({
    operationMs: 1,
    subscriptions: [SUB, OTHER_SUB],
  });
  const TENANT = '72f988bf-0000-4000-8000-0000000000c1';
  const READER = {
    tenantId: TENANT,
    clientId: '3b1f0a2c-0000-4000-8000-0000000000c2',
    clientSecret: 'reader-secret',
  };
  const NOBODY = {
    tenantId: TENANT,
    clientId: '3b1f0a2c-0000-4000-8000-0000000000c3',
    clientSecret: 'nobody-secret',
  };
  let entra: EntraSim;
  let server: ArmServer;
  let nobodyObjectId: string;

  /** A client-credentials token straight from the Entra ID's token endpoint, as MSAL would ask for it. */
  const tokenFor = (sp: typeof READER, resource: string): Promise<string> =>
    new Promise((resolve, reject) => {
      const form = new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: sp.clientId,
        client_secret: sp.clientSecret,
        scope: `${resource}/.default openid profile offline_access`,
      }).toString();
      const req = request(
        `${entra.url}/${sp.tenantId}/oauth2/v2.0/token`,
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

  const client = (token: string, sub = SUB) =>
    new ContainerServiceClient(
      {
        getToken: async () => ({
          token,
          expiresOnTimestamp: Date.now() + 600_000,
        }),
      },
      sub,
      {
        endpoint: server.url,
        apiVersion: '2024-09-01',
        tlsOptions: { ca: server.caPem },
        retryOptions: { maxRetries: 0 },
      },
    );

  before(async () => {
    world.putResourceGroup(SUB, 'rg-entra', { location: 'westeurope' });
    world.putManagedCluster(SUB, 'rg-entra', 'entra-1', {
      location: 'westeurope',
      agentPoolProfiles: [{ name: 'system', mode: 'System' }],
    });
    await world.settled();
    entra = await startEntraSim({
      stateDir,
      applications: [ARM_RESOURCE, AKS_SERVER_APPLICATION_ID],
      servicePrincipals: [READER],
    });
    nobodyObjectId = entra.addServicePrincipal(NOBODY);
    server = await startArmServer({
      world,
      authorize: entraAuthorizer(entra, { [READER.clientId]: [SUB] }),
      stateDir,
    });
  });

  after(async () => {
    await server?.close();
    await entra?.close();
    world.close();
    rmSync(stateDir, { recursive: true, force: true });
  });

  it('lets a client read the subscriptions it is granted with a token issued for ARM', async () => {
    const clusters = await collect(
      client(await tokenFor(READER, ARM_RESOURCE)).managedClusters.list(),
    );
    assert.deepEqual(
      clusters.map(c => c.name),
      ['entra-1'],
    );
  });

  it('names the caller by its object id when it may not read the subscription', async () => {
    const token = await tokenFor(NOBODY, ARM_RESOURCE);
    await assert.rejects(
      client(token).managedClusters.get('rg-entra', 'entra-1'),
      (e: unknown) => {
        assert.ok(isRestError(e));
        assert.equal(e.statusCode, 403);
        assert.equal(e.code, 'AuthorizationFailed');
        assert.match(
          e.message,
          new RegExp(
            `^The client '${nobodyObjectId}' with object id '${nobodyObjectId}' does not have authorization`,
          ),
        );
        return true;
      },
    );
    // A granted client still cannot read a subscription it was not granted.
    await assert.rejects(
      collect(
        client(
          await tokenFor(READER, ARM_RESOURCE),
          OTHER_SUB,
        ).managedClusters.list(),
      ),
      {
        statusCode: 403,
        code: 'AuthorizationFailed',
      },
    );
  });

  it('refuses tokens for another resource, with a forged signature, or of another issuer', async () => {
    const aks = await tokenFor(READER, AKS_SERVER_APPLICATION_ID);
    await assert.rejects(
      client(aks).managedClusters.get('rg-entra', 'entra-1'),
      { statusCode: 401, code: 'InvalidAuthenticationToken' },
    );
    const good = await tokenFor(READER, ARM_RESOURCE);
    const [h, p] = good.split('.');
    const claims = JSON.parse(Buffer.from(p, 'base64url').toString());
    const widened = Buffer.from(
      JSON.stringify({ ...claims, azp: NOBODY.clientId }),
    ).toString('base64url');
    await assert.rejects(
      client(`${h}.${widened}.${good.split('.')[2]}`).managedClusters.get(
        'rg-entra',
        'entra-1',
      ),
      {
        statusCode: 401,
        code: 'InvalidAuthenticationToken',
      },
    );
    // Another Entra ID (its own key) issues a token that is well-formed but not trusted here.
    const otherDir = mkdtempSync(join(tmpdir(), 'capz-entra-other-'));
    const other = await startEntraSim({
      stateDir: otherDir,
      applications: [ARM_RESOURCE],
      servicePrincipals: [READER],
    });
    try {
      const saved = entra;
      entra = other;
      const foreign = await tokenFor(READER, ARM_RESOURCE).finally(
        () => (entra = saved),
      );
      await assert.rejects(
        client(foreign).managedClusters.get('rg-entra', 'entra-1'),
        { statusCode: 401, code: 'InvalidAuthenticationToken' },
      );
    } finally {
      await other.close();
      rmSync(otherDir, { recursive: true, force: true });
    }
  });
});
