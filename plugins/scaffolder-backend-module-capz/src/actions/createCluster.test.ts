/**
 * capz:cluster:create against a real HTTP server standing in for the capz backend: what the action sends (the
 * route, the user's token for the capz plugin, the body with dryRun), what it outputs, and how it fails.
 */
import { mockCredentials, mockServices } from '@backstage/backend-test-utils';
import { createMockActionContext } from '@backstage/plugin-scaffolder-node-test-utils';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parse } from 'yaml';
import { createCreateClusterAction } from './createCluster';
import { examples } from './createCluster.examples';

interface Seen {
  method?: string;
  url?: string;
  authorization?: string;
  body: any;
}

let server: Server;
let baseUrl: string;
const seen: Seen[] = [];
let reply: (body: any) => { status: number; body: unknown };

const readBody = async (req: IncomingMessage) => {
  let text = '';
  for await (const chunk of req) text += chunk;
  return text ? JSON.parse(text) : undefined;
};

beforeAll(async () => {
  server = createServer(async (req, res) => {
    const body = await readBody(req);
    seen.push({
      method: req.method,
      url: req.url,
      authorization: req.headers.authorization,
      body,
    });
    const r = reply(body);
    res
      .writeHead(r.status, { 'Content-Type': 'application/json' })
      .end(JSON.stringify(r.body));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  baseUrl = `http://127.0.0.1:${
    (server.address() as AddressInfo).port
  }/api/capz`;
});
afterAll(() => server.close());
beforeEach(() => {
  seen.length = 0;
});

const input = parse(examples[0].example).steps[0].input;
const created = (dryRun: boolean) => ({
  status: dryRun ? 200 : 201,
  body: {
    dryRun,
    managementCluster: 'prod-weu',
    namespace: 'team-a',
    name: 'team-a-dev',
    path: '/capz/clusters/prod-weu/team-a/team-a-dev',
    objects: [
      {
        apiVersion: 'cluster.x-k8s.io/v1beta2',
        kind: 'Cluster',
        namespace: 'team-a',
        name: 'team-a-dev',
      },
      {
        apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1',
        kind: 'AzureASOManagedControlPlane',
        namespace: 'team-a',
        name: 'team-a-dev',
      },
    ],
  },
});

function setup(appBaseUrl?: string) {
  const discovery = {
    getBaseUrl: async (id: string) =>
      id === 'capz' ? baseUrl : 'http://nowhere.invalid',
    getExternalBaseUrl: async () => 'http://nowhere.invalid',
  };
  return createCreateClusterAction({
    auth: mockServices.auth(),
    discovery,
    config: mockServices.rootConfig({
      data: appBaseUrl ? { app: { baseUrl: appBaseUrl } } : {},
    }),
  });
}

describe('capz:cluster:create', () => {
  it('asks the capz backend to create the cluster as the user who runs the template, and links to its page', async () => {
    reply = body => created(body.dryRun);
    const ctx = createMockActionContext({ input });
    await setup('http://backstage.example/').handler(ctx);
    expect(seen).toEqual([
      {
        method: 'POST',
        url: '/api/capz/clusters',
        authorization: `Bearer ${mockCredentials.service.token({
          onBehalfOf: await ctx.getInitiatorCredentials(),
          targetPluginId: 'capz',
        })}`,
        body: { ...input, dryRun: false },
      },
    ]);
    // The token is the initiating user's, not the scaffolder's own.
    expect(seen[0].authorization).toContain(
      mockCredentials.user().principal.userEntityRef,
    );
    expect(ctx.output).toHaveBeenCalledWith(
      'clusterUrl',
      'http://backstage.example/capz/clusters/prod-weu/team-a/team-a-dev',
    );
    expect(ctx.output).toHaveBeenCalledWith(
      'clusterPath',
      '/capz/clusters/prod-weu/team-a/team-a-dev',
    );
    expect(ctx.output).toHaveBeenCalledWith('objects', [
      'Cluster/team-a-dev',
      'AzureASOManagedControlPlane/team-a-dev',
    ]);
  });

  it('sends dryRun: true in a template dry run (the backend applies with dryRun=All)', async () => {
    reply = body => created(body.dryRun);
    // createMockActionContext does not take isDryRun; the scaffolder sets it on the context it passes.
    const ctx = { ...createMockActionContext({ input }), isDryRun: true };
    await setup().handler(ctx);
    expect(seen.map(s => s.body.dryRun)).toEqual([true]);
    expect(ctx.output).toHaveBeenCalledWith(
      'clusterUrl',
      '/capz/clusters/prod-weu/team-a/team-a-dev',
    );
  });

  it("shows the backend's warnings in the run's log (the version not checked against ARM)", async () => {
    const warning =
      'kubernetesVersion: v1.33.2 was not checked against the versions AKS offers in westeurope: Azure discovery is not configured on this backend (capz.azureDiscovery). AKS refuses a version it does not offer (AgentPoolK8sVersionNotSupported) only after the objects are written.';
    reply = body => {
      const r = created(body.dryRun);
      return { ...r, body: { ...r.body, warnings: [warning] } };
    };
    const ctx = { ...createMockActionContext({ input }), isDryRun: true };
    const warn = jest.spyOn(ctx.logger, 'warn');
    await setup().handler(ctx);
    expect(warn).toHaveBeenCalledWith(warning);
  });

  it.each([
    [
      409,
      'name: cluster team-a-dev cannot be created, these objects exist already: Cluster team-a/team-a-dev',
    ],
    [
      403,
      'Not allowed to create clusters in prod-weu/team-a (capz.cluster.create)',
    ],
    [400, 'Invalid cluster: name: "x" is 55 characters'],
  ])(
    "fails with the backend's %s and its message, and outputs nothing",
    async (status, message) => {
      reply = () => ({
        status,
        body: {
          error: { name: 'Error', message },
          response: { statusCode: status },
        },
      });
      const ctx = createMockActionContext({ input });
      await expect(setup().handler(ctx)).rejects.toThrow(
        `Cannot create cluster prod-weu/team-a/team-a-dev: ${status}: ${message}`,
      );
      expect(ctx.output).not.toHaveBeenCalled();
    },
  );

  it('fails with the status and text when the answer is not a Backstage error', async () => {
    reply = () => ({ status: 502, body: 'upstream gone' });
    const ctx = createMockActionContext({ input });
    await expect(setup().handler(ctx)).rejects.toThrow(
      /^Cannot create cluster prod-weu\/team-a\/team-a-dev: 502 Bad Gateway: "upstream gone"$/,
    );
  });
});
