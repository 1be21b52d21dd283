/**
 * The day-2 routes' HTTP contract with a scripted management cluster (objects in memory, every write recorded): a
 * denied permission is a 403 before anything is read, a broken rule is a 400 naming it with nothing written, a
 * preview writes only dry runs, an apply writes after its dry run, a changed object is a 409, the delete needs the
 * typed name, and each write is audited. The real API server's side is day2.integration.test.ts.
 */
import { MiddlewareFactory } from '@backstage/backend-defaults/rootHttpRouter';
import { mockCredentials, mockServices } from '@backstage/backend-test-utils';
import {
  AuthorizeResult,
  type PolicyDecision,
} from '@backstage/plugin-permission-common';
import {
  generateAksAsoClusterManifests,
  type Day2Target,
  type KubeObject,
  type ObservedObject,
} from '@capz-backstage/plugin-capz-common';
import express from 'express';
import request from 'supertest';
import { KubeRequestError } from '../cluster/ManagementClusterClient';
import { createDay2Router } from './day2Router';
import { clusterOwnerOf } from '../cluster/clusterOwners';
import { ClusterConnect } from '../connect/ClusterConnect';
import { Day2Service } from '../day2/Day2Service';
import type { Day2Client } from '../cluster/clientViews';
import type { Day2Outcome } from '../notify/ownerNotifications';

/** AKS's user kubeconfig of an Entra ID cluster with format=exec: kubelogin, no secret. */
const execKubeconfig = `apiVersion: v1
kind: Config
clusters:
- name: alpha
  cluster:
    server: https://alpha-dns.hcp.westeurope.azmk8s.io:443
    certificate-authority-data: TFMwdExTMUNSVWRKVGc9PQ==
contexts:
- name: alpha
  context: {cluster: alpha, user: clusterUser_alpha_alpha}
current-context: alpha
users:
- name: clusterUser_alpha_alpha
  user:
    exec:
      apiVersion: client.authentication.k8s.io/v1beta1
      command: kubelogin
      args: [get-token, --login, devicecode, --server-id, 6dae42f8-4368-4678-94ff-3960e28e3630]
`;

const auth = { Authorization: mockCredentials.user.header() };
const base = '/clusters/east/team-a/alpha';

/** The aks-aso objects of cluster alpha as the API server would hold them (uids, resourceVersions). */
function objects(): ObservedObject[] {
  const rendered = generateAksAsoClusterManifests({
    name: 'alpha',
    namespace: 'team-a',
    location: 'westeurope',
    kubernetesVersion: 'v1.33.2',
    credentialSecretName: 'aso-credential',
    pools: [
      {
        name: 'system',
        mode: 'System',
        vmSize: 'Standard_D2s_v3',
        replicas: 1,
      },
      { name: 'user', mode: 'User', vmSize: 'Standard_D2s_v3', replicas: 2 },
    ],
  });
  return rendered.map((o, i) => ({
    ...(o as ObservedObject),
    metadata: { ...o.metadata, uid: `u${i}`, resourceVersion: `${i + 1}` },
  }));
}

async function setup(
  o: {
    decision?: PolicyDecision;
    onWrite?: (what: string, dryRun: boolean) => void;
    offered?: string[];
    /** What the simulated listClusterUserCredential answers. */
    kubeconfig?: string;
    allowLocalAccountKubeconfig?: boolean;
    /** The management cluster's API server does not answer (connection refused) any live read. */
    down?: boolean;
    /** The root error handler as in development (it adds a stack trace to every error it serializes). */
    showStackTraces?: boolean;
    /** The Cluster's `capz.io/owner` annotation, read through the router's ownerOf as in the plugin. */
    owner?: string;
    /** capz.actions.allowServicePrincipalApply */
    allowServicePrincipalApply?: boolean;
  } = {},
) {
  const store = new Map<string, ObservedObject>(
    objects().map(x => [`${x.kind}/${x.metadata!.name}`, x]),
  );
  if (o.owner) {
    const c = store.get('Cluster/alpha')!;
    c.metadata = {
      ...c.metadata,
      annotations: { ...c.metadata?.annotations, 'capz.io/owner': o.owner },
    };
  }
  const writes: string[] = [];
  const reads: string[] = [];
  const audits: Array<{ eventId: string; outcome?: string }> = [];
  const record = (what: string, dryRun: boolean) => {
    o.onWrite?.(what, dryRun);
    writes.push(`${dryRun ? 'dry-run ' : ''}${what}`);
  };
  const client: Day2Client = {
    get: async (t: Day2Target) => {
      reads.push(`${t.kind}/${t.name}`);
      if (o.down)
        throw new KubeRequestError(
          0,
          `reading ${t.kind} team-a/${t.name}: the API server did not answer (connection refused (ECONNREFUSED))`,
          { reason: 'connection refused (ECONNREFUSED)', maybeSent: false },
        );
      return store.get(`${t.kind}/${t.name}`);
    },
    list: async t => {
      reads.push(`list ${t.kind}`);
      return [...store.values()].filter(
        x => x.kind === t.kind && x.metadata?.namespace === t.namespace,
      );
    },
    apply: async (obj: KubeObject, x) => {
      record(
        `apply ${obj.kind}/${obj.metadata.name} ${JSON.stringify(obj.spec)}`,
        x.dryRun,
      );
      return obj as ObservedObject;
    },
    mergePatch: async (t, _p, x) => {
      record(`merge ${t.kind}/${t.name}`, x.dryRun);
      return {};
    },
    delete: async (t, x) => record(`delete ${t.kind}/${t.name}`, x.dryRun),
  };
  const logger = mockServices.logger.mock();
  const credentialReads: unknown[] = [];
  const service = new Day2Service({
    logger,
    managementClusters: ['east'],
    cache: {
      list: (_mc: string, kind: string, ns?: string) =>
        [...store.values()].filter(
          x => x.kind === kind && (!ns || x.metadata?.namespace === ns),
        ) as never,
    },
    client: async () => client,
    azure: {
      listKubernetesVersions: async q => ({
        subscriptionId: 's',
        location: q.location,
        previewsHidden: 0,
        items: (o.offered ?? ['v1.34.1', 'v1.33.2']).map(version => ({
          version,
          minor: version.slice(1, 5),
          isDefault: false,
          supportPlans: [],
        })),
      }),
    },
  });
  const notified: Day2Outcome[] = [];
  const router = await createDay2Router({
    httpAuth: mockServices.httpAuth(),
    permissions: mockServices.permissions.mock({
      authorizeConditional: async reqs =>
        reqs.map(() => o.decision ?? { result: AuthorizeResult.ALLOW }),
    }),
    auditor: mockServices.auditor.mock({
      createEvent: async (e: { eventId: string }) => {
        const a: { eventId: string; outcome?: string } = { eventId: e.eventId };
        audits.push(a);
        return {
          success: async () => {
            a.outcome = 'success';
          },
          fail: async () => {
            a.outcome = 'fail';
          },
        };
      },
    }),
    service,
    notify: n => notified.push(n),
    ownerOf: clusterOwnerOf(
      { get: (_mc, kind, _ns, name) => store.get(`${kind}/${name}`) as never },
      'group:default/platform',
    ),
    connect: new ClusterConnect({
      logger,
      cluster: p => service.cluster(p),
      azure: {
        listClusterUserCredential: async q => {
          credentialReads.push(q);
          return o.kubeconfig ?? execKubeconfig;
        },
      },
      allowLocalAccountKubeconfig: o.allowLocalAccountKubeconfig ?? false,
    }),
    allowServicePrincipalApply: o.allowServicePrincipalApply,
    validateResponses: true,
  });
  const app = express()
    .use(router)
    .use(
      MiddlewareFactory.create({
        config: mockServices.rootConfig(),
        logger,
      }).error({ showStackTraces: o.showStackTraces }),
    );
  return { app, writes, reads, audits, store, credentialReads, notified };
}

/** Any well-formed digest: the rules are checked before the digest is compared. */
const SOME_DIGEST = '0'.repeat(64);

/**
 * The action as the dialog's Confirm sends it: with the planDigest of its preview. The preview's dry runs, reads and
 * audit event are taken out of the records, so that a test sees the confirm's alone.
 */
async function previewed(
  s: Awaited<ReturnType<typeof setup>>,
  body: Record<string, unknown>,
) {
  const r = await request(s.app)
    .post(`${base}/actions/preview`)
    .set(auth)
    .send(body);
  expect(r.status).toBe(200);
  expect(r.body.planDigest).toMatch(/^[0-9a-f]{64}$/);
  s.writes.length = 0;
  s.reads.length = 0;
  s.audits.length = 0;
  return { ...body, planDigest: r.body.planDigest as string };
}

describe('day-2 routes', () => {
  it('previews a scale with a dry run only, and applies it after its dry run', async () => {
    const { app, writes, audits, notified } = await setup();
    const preview = await request(app)
      .post(`${base}/actions/preview`)
      .set(auth)
      .send({ action: 'scale', pool: 'user', replicas: 5 });
    expect(preview.status).toBe(200);
    expect(preview.body).toMatchObject({
      applied: false,
      changes: [
        {
          kind: 'MachinePool',
          name: 'alpha-user',
          operation: 'update',
          fields: [{ path: 'spec.replicas', before: 2, after: 5 }],
        },
      ],
    });
    expect(writes).toEqual([
      'dry-run apply MachinePool/alpha-user {"replicas":5}',
    ]);
    const applied = await request(app).post(`${base}/actions`).set(auth).send({
      action: 'scale',
      pool: 'user',
      replicas: 5,
      planDigest: preview.body.planDigest,
    });
    expect(applied.status).toBe(200);
    expect(applied.body.applied).toBe(true);
    expect(applied.body.planDigest).toBe(preview.body.planDigest);
    expect(writes.slice(1)).toEqual([
      'dry-run apply MachinePool/alpha-user {"replicas":5}',
      'apply MachinePool/alpha-user {"replicas":5}',
    ]);
    expect(audits).toEqual([
      { eventId: 'capz-cluster-day2', outcome: 'success' },
      { eventId: 'capz-cluster-day2', outcome: 'success' },
    ]);
    // The owners hear of the confirm, not of the preview.
    expect(notified).toEqual([
      {
        place: {
          managementCluster: 'east',
          namespace: 'team-a',
          name: 'alpha',
        },
        action: 'scale',
        actor: 'user:default/mock',
        changes: ['update MachinePool team-a/alpha-user'],
      },
    ]);
  });

  it("takes a service principal's preview, and its confirm only where the operator allows it", async () => {
    const service = { Authorization: mockCredentials.service.header() };
    const body = { action: 'scale', pool: 'user', replicas: 5 };
    for (const allowServicePrincipalApply of [false, true]) {
      const s = await setup({ allowServicePrincipalApply });
      const preview = await request(s.app)
        .post(`${base}/actions/preview`)
        .set(service)
        .send(body);
      expect(preview.status).toBe(200);
      s.writes.length = 0;
      const applied = await request(s.app)
        .post(`${base}/actions`)
        .set(service)
        .send({ ...body, planDigest: preview.body.planDigest });
      expect(applied.status).toBe(allowServicePrincipalApply ? 200 : 403);
      expect(s.writes).toEqual(
        allowServicePrincipalApply
          ? [
              'dry-run apply MachinePool/alpha-user {"replicas":5}',
              'apply MachinePool/alpha-user {"replicas":5}',
            ]
          : [],
      );
      // Deletes stay with users either way.
      const deleted = await request(s.app)
        .delete(base)
        .set(service)
        .send({ confirmName: 'alpha' });
      expect(deleted.status).toBe(403);
    }
  });

  it('answers 400 naming the broken rule, and writes nothing', async () => {
    const { app, writes, audits } = await setup();
    const res = await request(app)
      .post(`${base}/actions`)
      .set(auth)
      .send({ action: 'removePool', pool: 'system', planDigest: SOME_DIGEST });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({
      name: 'InputError',
      message: expect.stringMatching(
        /^last-system-pool: pool "system" is the last System pool/,
      ),
    });
    expect(writes).toEqual([]);
    expect(audits).toEqual([{ eventId: 'capz-cluster-day2', outcome: 'fail' }]);
  });

  it('refuses a version the region does not offer, through the ARM list', async () => {
    const { app, writes } = await setup({ offered: ['v1.34.2'] });
    const res = await request(app).post(`${base}/actions`).set(auth).send({
      action: 'upgrade',
      version: 'v1.34.1',
      target: 'controlPlane',
      planDigest: SOME_DIGEST,
    });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toBe(
      'offered-in-region: AKS does not offer v1.34.1 in westeurope; from v1.33.2 it offers v1.34.2',
    );
    expect(writes).toEqual([]);
  });

  it("answers 403 without the action's permission, before reading anything", async () => {
    const { app, writes, reads, audits } = await setup({
      decision: { result: AuthorizeResult.DENY },
    });
    const res = await request(app)
      .post(`${base}/actions`)
      .set(auth)
      .send({ action: 'pause' });
    expect(res.status).toBe(403);
    expect(res.body.error.message).toMatch(/capz\.cluster\.pause/);
    expect([writes, reads, audits]).toEqual([[], [], []]);
  });

  it("applies a conditional decision to the cluster's namespace", async () => {
    const conditional = (namespaces: string[]): PolicyDecision => ({
      result: AuthorizeResult.CONDITIONAL,
      pluginId: 'capz',
      resourceType: 'capz-cluster',
      conditions: {
        rule: 'IS_IN_NAMESPACE',
        resourceType: 'capz-cluster',
        params: { namespaces },
      },
    });
    const denied = await setup({ decision: conditional(['team-b']) });
    expect(
      (
        await request(denied.app)
          .post(`${base}/actions`)
          .set(auth)
          .send({ action: 'pause' })
      ).status,
    ).toBe(403);
    const allowed = await setup({ decision: conditional(['team-a']) });
    const res = await request(allowed.app)
      .post(`${base}/actions`)
      .set(auth)
      .send(await previewed(allowed, { action: 'pause' }));
    expect(res.status).toBe(200);
    expect(allowed.writes).toEqual([
      'dry-run apply Cluster/alpha {"paused":true}',
      'apply Cluster/alpha {"paused":true}',
    ]);
  });

  it("applies an IS_CLUSTER_OWNER decision with the cluster's owner from the watch cache", async () => {
    const ownerDecision = (claims: string[]): PolicyDecision => ({
      result: AuthorizeResult.CONDITIONAL,
      pluginId: 'capz',
      resourceType: 'capz-cluster',
      conditions: {
        rule: 'IS_CLUSTER_OWNER',
        resourceType: 'capz-cluster',
        params: { claims },
      },
    });
    const other = await setup({
      owner: 'team-payments',
      decision: ownerDecision(['user:default/bob', 'group:default/team-data']),
    });
    const refused = await request(other.app)
      .post(`${base}/actions`)
      .set(auth)
      .send({ action: 'pause' });
    expect(refused.status).toBe(403);
    expect(refused.body.error.message).toMatch(/capz\.cluster\.pause/);
    expect([other.writes, other.reads]).toEqual([[], []]);
    const owner = await setup({
      owner: 'team-payments',
      decision: ownerDecision([
        'user:default/alice',
        'group:default/team-payments',
      ]),
    });
    const res = await request(owner.app)
      .post(`${base}/actions`)
      .set(auth)
      .send(await previewed(owner, { action: 'pause' }));
    expect(res.status).toBe(200);
    expect(owner.writes).toEqual([
      'dry-run apply Cluster/alpha {"paused":true}',
      'apply Cluster/alpha {"paused":true}',
    ]);
  });

  it('answers 409 when the object changed since it was read, and writes nothing for real', async () => {
    let refuse = false;
    const s = await setup({
      onWrite: () => {
        if (refuse)
          throw new KubeRequestError(
            409,
            'validating MachinePool team-a/alpha-user: the object has been modified',
          );
      },
    });
    const { app, writes } = s;
    const body = await previewed(s, {
      action: 'scale',
      pool: 'user',
      replicas: 3,
    });
    refuse = true;
    const res = await request(app).post(`${base}/actions`).set(auth).send(body);
    expect(res.status).toBe(409);
    expect(res.body.error.message).toMatch(/changed since it was read/);
    expect(writes).toEqual([]);
  });

  it('plans again from a new read when a precondition fails once (a controller wrote status meanwhile)', async () => {
    let conflicts = 0;
    const s = await setup({
      onWrite: (_what, dryRun) => {
        if (!dryRun && conflicts++ === 0)
          throw new KubeRequestError(
            409,
            'applying MachinePool team-a/alpha-user: the object has been modified',
          );
      },
    });
    const { app, writes, reads } = s;
    const body = await previewed(s, {
      action: 'scale',
      pool: 'user',
      replicas: 3,
    });
    const res = await request(app).post(`${base}/actions`).set(auth).send(body);
    expect(res.status).toBe(200);
    expect(writes).toEqual([
      'dry-run apply MachinePool/alpha-user {"replicas":3}',
      'dry-run apply MachinePool/alpha-user {"replicas":3}',
      'apply MachinePool/alpha-user {"replicas":3}',
    ]);
    expect(reads.filter(r => r === 'Cluster/alpha')).toHaveLength(2);
  });

  it.each([
    ['gone', undefined],
    ['being deleted', '2026-11-25T20:00:00Z'],
  ])(
    'answers 200 to a pool removal whose delete went through but answered 409, the pool then %s',
    async (_state, deletionTimestamp) => {
      let conflicts = 0;
      const setupResult = await setup({
        onWrite: (what, dryRun) => {
          if (dryRun || conflicts++ > 0) return;
          // The API server removed (or began removing) the MachinePool, then refused the call.
          const key = 'MachinePool/alpha-user';
          const mp = setupResult.store.get(key)!;
          if (deletionTimestamp)
            setupResult.store.set(key, {
              ...mp,
              metadata: { ...mp.metadata, deletionTimestamp },
            });
          else setupResult.store.delete(key);
          throw new KubeRequestError(
            409,
            `${what}: Precondition failed: UID in precondition: u9, UID in object meta: `,
          );
        },
      });
      const { app, writes, audits } = setupResult;
      const body = await previewed(setupResult, {
        action: 'removePool',
        pool: 'user',
      });
      const res = await request(app)
        .post(`${base}/actions`)
        .set(auth)
        .send(body);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        applied: true,
        changes: [
          { kind: 'MachinePool', name: 'alpha-user', operation: 'delete' },
          {
            kind: 'AzureASOManagedMachinePool',
            name: 'alpha-user',
            operation: 'delete',
          },
        ],
      });
      // The refused call is not recorded; the retry writes nothing more.
      expect(writes).toEqual(['dry-run delete MachinePool/alpha-user']);
      expect(audits).toEqual([
        { eventId: 'capz-cluster-day2', outcome: 'success' },
      ]);
    },
  );

  it('refuses an unknown action with a 400', async () => {
    const { app } = await setup();
    const res = await request(app)
      .post(`${base}/actions`)
      .set(auth)
      .send({ action: 'explode' });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toBe(
      'action is "explode": it must be one of scale, autoscale, upgrade, addPool, removePool, pause, resume',
    );
  });

  it('deletes only with the typed name, answering 202 with the preview', async () => {
    const { app, writes, audits, notified } = await setup();
    const wrong = await request(app)
      .delete(base)
      .set(auth)
      .send({ confirmName: 'alpha2' });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error.message).toBe(
      'confirmName: type the cluster\'s name "alpha" to delete it',
    );
    expect(writes).toEqual([]);
    const res = await request(app)
      .delete(base)
      .set(auth)
      .send({ confirmName: 'alpha' });
    expect(res.status).toBe(202);
    expect(res.body.accepted).toBe(true);
    expect(res.body.preview.cluster).toEqual({
      managementCluster: 'east',
      namespace: 'team-a',
      name: 'alpha',
      paused: false,
    });
    expect(writes).toEqual([
      'dry-run delete Cluster/alpha',
      'delete Cluster/alpha',
    ]);
    expect(audits.map(a => `${a.eventId} ${a.outcome}`)).toEqual([
      'capz-cluster-delete fail',
      'capz-cluster-delete success',
    ]);
    expect(
      notified.map(n => `${n.action} ${n.error?.name ?? 'started'}`),
    ).toEqual(['delete InputError', 'delete started']);
  });

  it('refuses to delete a paused cluster with a 409', async () => {
    const { app, store, writes } = await setup();
    const c = store.get('Cluster/alpha')!;
    store.set('Cluster/alpha', { ...c, spec: { ...c.spec, paused: true } });
    const res = await request(app)
      .delete(base)
      .set(auth)
      .send({ confirmName: 'alpha' });
    expect(res.status).toBe(409);
    expect(res.body.error.message).toMatch(/is paused/);
    expect(writes).toEqual([]);
  });

  it('serves upgrade options, the delete preview and connect commands', async () => {
    const { app } = await setup({
      offered: ['v1.35.0', 'v1.34.1', 'v1.33.5', 'v1.33.2', 'v1.32.1'],
    });
    const up = await request(app).get(`${base}/upgrades`).set(auth);
    expect(up.status).toBe(200);
    expect(up.body).toEqual({
      controlPlane: 'v1.33.2',
      pools: [
        { name: 'system', version: 'v1.33.2' },
        { name: 'user', version: 'v1.33.2' },
      ],
      available: ['v1.34.1', 'v1.33.5'],
      problems: [],
    });
    const del = await request(app).get(`${base}/delete-preview`).set(auth);
    expect(del.status).toBe(200);
    expect(del.body.blockers).toEqual([]);
    const connect = await request(app).get(`${base}/connect`).set(auth);
    expect(connect.status).toBe(200);
    expect(connect.body.commands).toContain(
      'clusterctl get kubeconfig alpha --namespace team-a > alpha.kubeconfig',
    );
    expect(
      (await request(app).get('/clusters/east/team-a/nope/connect').set(auth))
        .status,
    ).toBe(404);
  });

  it('hands out an Entra ID kubeconfig under capz.cluster.connect, audited without the kubeconfig', async () => {
    const { app, audits, credentialReads, writes } = await setup();
    const res = await request(app).get(`${base}/kubeconfig`).set(auth);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      fileName: 'alpha.kubeconfig',
      kubeconfig: execKubeconfig,
      server: 'https://alpha-dns.hcp.westeurope.azmk8s.io:443',
      auth: 'exec',
    });
    expect(credentialReads).toEqual([
      {
        managementCluster: 'east',
        namespace: 'team-a',
        credentialSecret: 'aso-credential',
        resourceGroup: 'alpha',
        name: 'alpha',
      },
    ]);
    expect(audits).toEqual([
      { eventId: 'capz-cluster-kubeconfig', outcome: 'success' },
    ]);
    expect(writes).toEqual([]);
  });

  it('refuses a kubeconfig with a secret (409 naming the config key) unless the operator allows it', async () => {
    const local = execKubeconfig.replace(
      / {4}exec:[\s\S]*$/,
      '    client-certificate-data: Y2VydA==\n    client-key-data: a2V5\n    token: t0ps3cret\n',
    );
    const denied = await setup({ kubeconfig: local });
    const res = await request(denied.app).get(`${base}/kubeconfig`).set(auth);
    expect(res.status).toBe(409);
    expect(res.body.error.message).toContain(
      'capz.connect.allowLocalAccountKubeconfig: true',
    );
    expect(res.body.error.message).toContain('users[0].user.client-key-data');
    expect(JSON.stringify(res.body)).not.toContain('t0ps3cret');
    expect(denied.audits).toEqual([
      { eventId: 'capz-cluster-kubeconfig', outcome: 'fail' },
    ]);
    const allowed = await setup({
      kubeconfig: local,
      allowLocalAccountKubeconfig: true,
    });
    const ok = await request(allowed.app).get(`${base}/kubeconfig`).set(auth);
    expect(ok.status).toBe(200);
    expect(ok.body.auth).toBe('local-account');
  });

  it('answers 403 to a user denied capz.cluster.connect, before ARM is asked', async () => {
    const { app, credentialReads } = await setup({
      decision: { result: AuthorizeResult.DENY },
    });
    const res = await request(app).get(`${base}/kubeconfig`).set(auth);
    expect(res.status).toBe(403);
    expect(res.body.error.message).toContain('capz.cluster.connect');
    expect(credentialReads).toEqual([]);
  });
});

/** The body of an action is checked whole at the edge, before the permission, a read or a write. */
describe('day-2 routes: a management cluster that does not answer', () => {
  it('answers a confirm with a 503 in words, without a stack trace even in development, and writes nothing', async () => {
    const { app, writes, audits } = await setup({
      down: true,
      showStackTraces: true,
    });
    const res = await request(app).post(`${base}/actions`).set(auth).send({
      action: 'scale',
      pool: 'user',
      replicas: 5,
      planDigest: SOME_DIGEST,
    });
    expect(res.status).toBe(503);
    expect(res.body.error).toEqual({
      name: 'ServiceUnavailableError',
      message:
        'Management cluster east did not answer (connection refused (ECONNREFUSED)), so nothing was written. The page shows the cluster as last seen; try again once the management cluster answers.',
    });
    expect(writes).toEqual([]);
    expect(audits).toEqual([{ eventId: 'capz-cluster-day2', outcome: 'fail' }]);
    // The same handler still adds a stack to other errors in development: the 503 leaves it out on purpose.
    const conflict = await request(app)
      .delete(base)
      .set(auth)
      .send({ confirmName: 'not-alpha' });
    expect(conflict.status).toBe(400);
    expect(conflict.body.error.stack).toEqual(expect.any(String));
  });

  it('answers a delete whose live read gets no answer with a 503 too', async () => {
    const { app, writes } = await setup({ down: true });
    const res = await request(app)
      .delete(base)
      .set(auth)
      .send({ confirmName: 'alpha' });
    expect({ status: res.status, message: res.body.error?.message }).toEqual({
      status: 503,
      message: expect.stringMatching(
        /^Management cluster east did not answer \(connection refused/,
      ),
    });
    expect(writes).toEqual([]);
  });
});

describe('day-2 actions: what the edge refuses, in words', () => {
  const refused = async (
    body: unknown,
    o: { path?: string; raw?: boolean } = {},
  ) => {
    const { app, reads, writes, audits } = await setup();
    let req = request(app)
      .post(o.path ?? `${base}/actions/preview`)
      .set(auth);
    if (o.raw) req = req.set('Content-Type', 'application/json');
    const res = await req.send(body as object);
    // Nothing was read, written or audited: the validator answered before the route ran.
    expect({ reads, writes, audits }).toEqual({
      reads: [],
      writes: [],
      audits: [],
    });
    expect(res.status).toBe(400);
    return res.body.error.message as string;
  };

  it('refuses a field the action does not take, naming it and the fields it takes', async () => {
    expect(await refused({ action: 'pause', extra: 1 })).toBe(
      'Unknown field "extra" for the pause action: it takes only action, planDigest',
    );
    expect(await refused({ action: 'pause', replicas: 3 })).toBe(
      'Unknown field "replicas" for the pause action: it takes only action, planDigest',
    );
    expect(
      await refused(JSON.parse('{"action":"resume","__proto__":{"x":1}}')),
    ).toBe(
      'Unknown field "__proto__" for the resume action: it takes only action, planDigest',
    );
    expect(
      await refused(
        { action: 'scale', pool: 'user', replicas: 2, enabled: true },
        { path: `${base}/actions` },
      ),
    ).toBe(
      'Unknown field "enabled" for the scale action: it takes only action, pool, replicas, planDigest',
    );
  });

  it('says a scale without a pool needs one, instead of looking for pool "undefined"', async () => {
    expect(await refused({ action: 'scale', replicas: 3 })).toBe(
      "pool is required for the scale action: set it to the name of one of the cluster's pools",
    );
  });

  it("says in one sentence what an upgrade's target may be", async () => {
    const want = (v: string) =>
      `target is ${v}: it must be "controlPlane", or an object whose pools field lists the pools to upgrade (1 to 100 pool names)`;
    expect(
      await refused({
        action: 'upgrade',
        version: 'v1.34.1',
        target: { pools: [] },
      }),
    ).toBe(want('{"pools":[]}'));
    expect(
      await refused({ action: 'upgrade', version: 'v1.34.1', target: 'nodes' }),
    ).toBe(want('"nodes"'));
  });

  it('says the body must be a JSON object when it is a string or a list', async () => {
    expect(await refused('"just a string"', { raw: true })).toBe(
      'The request body must be a JSON object, not "just a string"',
    );
    expect(await refused([{ action: 'pause' }])).toBe(
      'The request body must be a JSON object',
    );
  });

  it('refuses a cluster name that is not one before anything is read', async () => {
    for (const name of ['..', 'Alpha_1'])
      expect(
        await refused(
          { action: 'pause' },
          { path: `/clusters/east/team-a/${name}/actions/preview` },
        ),
      ).toBe(
        `Cluster name "${name}" is not a Cluster API Cluster name: lowercase letters, digits, '-' and '.', starting and ending with a letter or digit, with a letter or digit on each side of every '.', at most 63 characters`,
      );
  });

  it('takes a planDigest on every action', async () => {
    const { app } = await setup();
    const res = await request(app)
      .post(`${base}/actions/preview`)
      .set(auth)
      .send({
        action: 'scale',
        pool: 'user',
        replicas: 3,
        planDigest: 'a'.repeat(64),
      });
    expect(res.status).toBe(200);
    expect(await refused({ action: 'pause', planDigest: 'not-a-digest' })).toBe(
      'planDigest is "not-a-digest": it must be the planDigest of the preview the user saw (64 lowercase hexadecimal digits)',
    );
  });
});
