/**
 * The CAPZ actions through the app's MCP endpoint, with a real MCP client (@modelcontextprotocol/sdk's Streamable HTTP
 * client) against a real backend process (packages/backend, @backstage/plugin-mcp-actions-backend in it) on a
 * management cluster of the test's own (capz-sim simulating Azure, ASO, CAPZ and CAPI on it):
 * - with a bare service token (backend.auth.externalAccess, static): the tools are listed, a degraded cluster's
 *   reason is read, a scale is previewed, and its confirm is refused with nothing written;
 * - with a signed-in user's token (the guest sign-in, a platform member under the app's policy): the previewed scale
 *   is carried out, and the backend's audit event of the day-2 write names that user.
 */
import { Client } from '@modelcontextprotocol/sdk/client';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { randomBytes } from 'node:crypto';
import { signIn, type BackendProcess } from '../testing/backendProcess';
import { createDay2Cluster } from '../testing/day2Fixtures';
import { JobsWorld } from '../testing/jobsWorld';

const w = new JobsWorld('mcp');
const ns = 'agents';
const staticToken = randomBytes(24).toString('hex');
let b: BackendProcess;

/** An MCP client of the backend's default MCP server, sending this bearer token. */
async function mcpClient(token: string): Promise<Client> {
  const client = new Client({ name: 'capz-mcp-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${b.url}/api/mcp-actions/v1`), {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    }),
  );
  return client;
}

/** A tool's answer: its text (an error's words) and whether it is an error. */
async function call(
  client: Client,
  name: string,
  args: Record<string, unknown>,
): Promise<{ isError: boolean; text: string; output?: any }> {
  const r = (await client.callTool({ name, arguments: args })) as {
    isError?: boolean;
    content: { type: string; text?: string }[];
    structuredContent?: unknown;
  };
  const text = r.content.map(c => c.text ?? '').join('\n');
  return {
    isError: !!r.isError,
    text,
    output: r.isError ? undefined : r.structuredContent ?? JSON.parse(text),
  };
}

const where = { managementCluster: '', namespace: ns, name: 'steady' };
const scaleTo = (replicas: number) => ({
  action: 'scale',
  pool: 'user',
  replicas,
});

/** The user pool's count as the API server holds it. */
const userReplicas = async () =>
  (await w.c.get('MachinePool', ns, 'steady-user')).spec.replicas;

beforeAll(async () => {
  await w.start({ scenarios: 'none' });
  where.managementCluster = w.mcName;
  await w.namespaceWithCredential(ns);
  for (const name of ['steady', 'stuck'])
    await createDay2Cluster(w, {
      namespace: ns,
      name,
      kubernetesVersion: 'v1.33.2',
      userReplicas: 2,
    });
  b = await w.backend('mcp', w.sqlite('mcp'), {
    // A static token as an operator configures one for an MCP client (docs/install.md#mcp): a service principal.
    APP_CONFIG_backend_auth_externalAccess: JSON.stringify([
      {
        type: 'static',
        options: { token: staticToken, subject: 'mcp-agent' },
      },
    ]),
  });
  await w.waitFor(
    'both clusters healthy on the backend',
    async () => {
      const r = await b.request('GET', 'capz/clusters');
      const health = (r.body.items ?? [])
        .filter((c: any) => c.namespace === ns)
        .map((c: any) => `${c.name} ${c.health} ${c.pools?.replicas}`)
        .sort();
      return (
        health.join(', ') === 'steady healthy 3, stuck healthy 3' ||
        health.join(', ')
      );
    },
    180_000,
  );
  // Azure refuses the stuck cluster's ManagedCluster from now on, as a missing resource group would.
  await w.forceAsoFailure('ManagedCluster', ns, 'stuck', {
    reason: 'ReconciliationBlocked',
    // A Warning is degraded (an Error would be failed: capz-common's health).
    severity: 'Warning',
    message: 'resource group agents-stuck could not be found',
  });
  await w.waitFor('the stuck cluster degraded on the backend', async () => {
    const r = await b.request('GET', 'capz/clusters');
    const stuck = r.body.items.find(
      (c: any) => c.namespace === ns && c.name === 'stuck',
    );
    return stuck?.health === 'degraded' || `stuck: ${stuck?.health}`;
  });
}, 600_000);

afterAll(async () => {
  await w.stop();
}, 180_000);

describe('the CAPZ actions through the MCP endpoint', () => {
  it('with a bare service token: lists the tools, reads why a cluster is degraded, previews a scale, and is refused its confirm with nothing written', async () => {
    const client = await mcpClient(staticToken);
    try {
      const { tools } = await client.listTools();
      const capz = tools
        .map(t => t.name)
        .filter(n => n.startsWith('capz'))
        .sort();
      expect(capz).toEqual([
        'capz.apply-cluster-action',
        'capz.get-cluster',
        'capz.get-fleet-runs',
        'capz.list-clusters-needing-attention',
        'capz.preview-cluster-action',
        'capz.preview-fleet-upgrade',
      ]);
      const apply = tools.find(t => t.name === 'capz.apply-cluster-action')!;
      expect(apply.annotations).toMatchObject({
        destructiveHint: true,
        readOnlyHint: false,
      });
      // The actions the request takes, as openapi.yaml's Day2Action says (generated, not written twice).
      expect(
        tools.find(t => t.name === 'capz.preview-cluster-action')!.description,
      ).toContain('scale {pool: string, replicas: number}');

      const attention = await call(
        client,
        'capz.list-clusters-needing-attention',
        { namespace: ns },
      );
      expect(attention.isError).toBe(false);
      // Both need attention for their version's support (v1.33 on today's calendar); stuck for its health first.
      const byName = Object.fromEntries(
        attention.output.clusters.map((c: any) => [c.name, c]),
      );
      expect(byName.stuck).toMatchObject({ health: 'degraded' });
      expect(byName.stuck.reasons[0]).toEqual({
        severity: 'now',
        message: expect.stringMatching(
          /^degraded: .*ReconciliationBlocked.*resource group agents-stuck could not be found/,
        ),
      });
      expect(
        (byName.steady?.reasons ?? []).map((r: any) => r.message),
      ).not.toContainEqual(expect.stringMatching(/^degraded/));

      const stuck = await call(client, 'capz.get-cluster', {
        ...where,
        name: 'stuck',
      });
      expect(stuck.isError).toBe(false);
      expect(stuck.output.notReady).toEqual(
        expect.arrayContaining([
          expect.objectContaining({
            kind: 'ManagedCluster',
            name: 'stuck',
            reason: 'ReconciliationBlocked',
            message: expect.stringContaining(
              'resource group agents-stuck could not be found',
            ),
          }),
        ]),
      );

      const preview = await call(client, 'capz.preview-cluster-action', {
        ...where,
        request: scaleTo(3),
      });
      expect(preview.isError).toBe(false);
      expect(preview.output.plan).toMatchObject({
        applied: false,
        planDigest: expect.stringMatching(/^[0-9a-f]{64}$/),
        changes: [
          expect.objectContaining({ kind: 'MachinePool', name: 'steady-user' }),
        ],
      });

      // A fleet upgrade's preview with the service token: steady already runs the target, stuck is left out for its
      // health; nothing written.
      const fleet = await call(client, 'capz.preview-fleet-upgrade', {
        target: { kind: 'version', version: 'v1.33.2' },
        stages: [
          { name: 'first', clusters: [where] },
          { name: 'then', clusters: [{ ...where, name: 'stuck' }] },
        ],
      });
      expect(fleet.isError).toBe(false);
      expect(
        fleet.output.preview.stages.flatMap((st: any) =>
          st.clusters.map((c: any) => [st.name, c.name, c.outcome, c.problems]),
        ),
      ).toEqual([
        ['first', 'steady', 'current', []],
        [
          'then',
          'stuck',
          'refused',
          [expect.stringMatching(/^it is degraded \(/)],
        ],
      ]);

      // The route's own validation and words reach the agent (a pool the cluster does not have).
      const wrongPool = await call(client, 'capz.preview-cluster-action', {
        ...where,
        request: { action: 'scale', pool: 'gpu', replicas: 3 },
      });
      expect(wrongPool).toMatchObject({ isError: true });
      expect(wrongPool.text).toMatch(/^InputError: .*"gpu"/);

      const refused = await call(client, 'capz.apply-cluster-action', {
        ...where,
        request: { ...scaleTo(3), planDigest: preview.output.plan.planDigest },
      });
      expect(refused.isError).toBe(true);
      expect(refused.text).toBe(
        'NotAllowedError: Carrying out a day-2 action needs a signed-in user: these credentials are a service principal (such as an MCP client with a static token), which may preview but not change a cluster. Nothing was written.',
      );
      expect(await userReplicas()).toBe(2);
    } finally {
      await client.close();
    }
  }, 120_000);

  it("with a signed-in user's token: the previewed scale is carried out and audited with that user", async () => {
    // The guest sign-in's token, as the app gets it (the demo's platform member under the app's policy).
    const guest = await signIn(b.url, 'guest');
    const userToken = guest.token;
    const user = guest.identity.userEntityRef;
    expect(user).toBe('user:default/guest');
    const client = await mcpClient(userToken);
    try {
      const preview = await call(client, 'capz.preview-cluster-action', {
        ...where,
        request: scaleTo(4),
      });
      expect(preview.isError).toBe(false);
      const applied = await call(client, 'capz.apply-cluster-action', {
        ...where,
        request: { ...scaleTo(4), planDigest: preview.output.plan.planDigest },
      });
      expect(applied.text).not.toMatch(/Error/);
      expect(applied.output.plan).toMatchObject({ applied: true });
      expect(await userReplicas()).toBe(4);

      // The day-2 route's audit event: the write, by the signed-in user, not by the MCP plugin or this one.
      const audits = b
        .log()
        .split('\n')
        .filter(
          l =>
            l.includes('capz-cluster-day2') &&
            l.includes('"dryRun":false') &&
            l.includes('succeeded'),
        );
      expect(audits).toHaveLength(1);
      expect(audits[0]).toContain(`"actorId":"${user}"`);
    } finally {
      await client.close();
    }
  }, 120_000);
});
