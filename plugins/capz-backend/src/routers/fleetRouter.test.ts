/**
 * The fleet routes' HTTP contract with clusters in memory (the watch cache's reads) and a scripted ARM.
 * POST /fleet-runs/preview: each cluster planned as its single-cluster upgrade, ARM asked once per region and
 * credential, nothing read live or written, capz.cluster.upgrade applied per cluster, bad runs a 400 in the request's
 * words, ARM throttling a 503. The runs (on SQLite): created by users only and audited, seen by whoever may read every
 * cluster of one, commanded under capz.cluster.upgrade and approved under capz.fleet.run.approve.
 */
import { MiddlewareFactory } from '@backstage/backend-defaults/rootHttpRouter';
import { mockCredentials, mockServices } from '@backstage/backend-test-utils';
import {
  AuthorizeResult,
  type PolicyDecision,
} from '@backstage/plugin-permission-common';
import {
  generateAksAsoClusterManifests,
  type ClusterPlace,
  type FleetClusterFacts,
  type ObservedObject,
} from '@capz-backstage/plugin-capz-common';
import express from 'express';
import request from 'supertest';
import { FleetRuns } from '../day2/fleetRuns';
import { FleetRunStore } from '../day2/fleetRunStore';
import { migratedDatabase } from '../testing/storeDatabases';
import { AzureServiceError } from '../azure/errors';
import { clusterOwnerOf } from '../cluster/clusterOwners';
import type { Day2Client } from '../cluster/clientViews';
import { Day2Service } from '../day2/Day2Service';
import { FleetPreview } from '../day2/fleetPreview';
import {
  capzClusterConditions,
  createCapzClusterConditionalDecision,
} from '../permissions/rules';
import {
  capzClusterReadPermission,
  capzClusterUpgradePermission,
  capzFleetRunApprovePermission,
} from '@capz-backstage/plugin-capz-common';
// Test-only: Backstage's test databases.
// eslint-disable-next-line @backstage/no-undeclared-imports
import { TestDatabases } from '@backstage/backend-test-utils';

const databases = TestDatabases.create({ ids: ['SQLITE_3'] });
import { createFleetRouter } from './fleetRouter';

const auth = { Authorization: mockCredentials.user.header() };

/** A cluster as the API server holds it after CAPZ made it (uids), on `version`. */
function cluster(namespace: string, name: string, version: string) {
  return generateAksAsoClusterManifests({
    name,
    namespace,
    location: 'westeurope',
    kubernetesVersion: version,
    credentialSecretName: 'aso-credential',
    pools: [
      {
        name: 'system',
        mode: 'System',
        vmSize: 'Standard_D2s_v3',
        replicas: 1,
      },
    ],
  }).map(
    (o, i) =>
      ({
        ...o,
        metadata: { ...o.metadata, uid: `${name}-${i}`, resourceVersion: '1' },
      } as ObservedObject),
  );
}

async function setup(
  o: {
    /** Every cluster permission's decision, unless `decisions` names it. */
    decision?: PolicyDecision;
    decisions?: Record<string, PolicyDecision>;
    /** capz.fleet.run.approve (default: allowed). */
    approve?: AuthorizeResult.ALLOW | AuthorizeResult.DENY;
    facts?: Record<string, FleetClusterFacts>;
    arm?: () => Promise<string[]>;
  } = {},
) {
  const objects = [
    ...cluster('team-a', 'alpha', 'v1.33.2'),
    ...cluster('team-a', 'gamma', 'v1.33.2'),
    ...cluster('team-b', 'beta', 'v1.33.2'),
  ];
  const live: string[] = [];
  const client = new Proxy({} as Day2Client, {
    get: (_t, method) => async () => {
      live.push(String(method));
      throw new Error('a preview reads nothing live');
    },
  });
  const armAsked: string[] = [];
  /** Each read of the cache, `<kind> <namespace>`. */
  const listed: string[] = [];
  const service = new Day2Service({
    logger: mockServices.logger.mock(),
    managementClusters: ['east'],
    cache: {
      list: (_mc: string, kind: string, ns?: string) => {
        listed.push(`${kind} ${ns}`);
        return objects.filter(
          x => x.kind === kind && (!ns || x.metadata?.namespace === ns),
        ) as never;
      },
    },
    client: async () => client,
    azure: {
      listKubernetesVersions: async q => {
        armAsked.push(`${q.namespace}/${q.credentialSecret}/${q.location}`);
        const versions = await (
          o.arm ?? (async () => ['v1.33.2', 'v1.34.1', 'v1.34.3'])
        )();
        return {
          subscriptionId: 's',
          location: q.location,
          previewsHidden: 0,
          items: versions.map(version => ({
            version,
            minor: version.slice(1, 5),
            isDefault: false,
            supportPlans: [],
          })),
        };
      },
    },
  });
  const fleet = new FleetPreview({
    day2: service,
    factsOf: (p: ClusterPlace) => o.facts?.[p.name] ?? { health: 'healthy' },
  });
  const audits: Array<{ eventId: string; meta: unknown; outcome: string }> = [];
  const auditor = mockServices.auditor.mock({
    createEvent: async e => ({
      success: async () => {
        audits.push({ eventId: e.eventId, meta: e.meta, outcome: 'success' });
      },
      fail: async () => {
        audits.push({ eventId: e.eventId, meta: e.meta, outcome: 'fail' });
      },
    }),
  });
  const knex = await migratedDatabase(databases, 'SQLITE_3');
  const store = new FleetRunStore(knex);
  const runs = new FleetRuns({
    store,
    preview: fleet,
    day2: service,
    observe: () => ({ stepDone: false, health: 'healthy' }),
    logger: mockServices.logger.mock(),
  });
  const router = await createFleetRouter({
    httpAuth: mockServices.httpAuth(),
    auditor,
    runs,
    permissions: mockServices.permissions.mock({
      authorizeConditional: async reqs =>
        reqs.map(
          r =>
            o.decisions?.[r.permission.name] ??
            o.decision ?? { result: AuthorizeResult.ALLOW },
        ),
      authorize: async reqs =>
        reqs.map(r => ({
          result:
            r.permission.name === capzFleetRunApprovePermission.name
              ? o.approve ?? AuthorizeResult.ALLOW
              : AuthorizeResult.DENY,
        })),
    }),
    ownerOf: clusterOwnerOf(
      {
        get: (_mc, kind, ns, name) =>
          objects.find(
            x =>
              x.kind === kind &&
              x.metadata?.namespace === ns &&
              x.metadata?.name === name,
          ) as never,
      },
      'group:default/platform',
    ),
    fleet,
    validateResponses: true,
  });
  // No body parser before the router: it parses its own bodies, with its own limit, as in the backend.
  const app = express()
    .use(router)
    .use(
      MiddlewareFactory.create({
        config: mockServices.rootConfig(),
        logger: mockServices.logger.mock(),
      }).error(),
    );
  return { app, live, armAsked, listed, audits, runs, store };
}

const at = (namespace: string, name: string) => ({
  managementCluster: 'east',
  namespace,
  name,
});
const RUN = {
  target: { kind: 'next-minor' },
  stages: [
    { name: 'dev', clusters: [at('team-a', 'alpha'), at('team-a', 'gamma')] },
    { name: 'prod', clusters: [at('team-b', 'beta')] },
  ],
};

describe('POST /fleet-runs/preview', () => {
  it("plans every cluster as its single-cluster upgrade, in the stages' order, asking ARM once per region and credential, reading nothing live", async () => {
    const s = await setup({
      facts: {
        gamma: {
          health: 'degraded',
          reason: 'ManagedCluster gamma: ReconciliationBlocked',
        },
      },
    });
    const r = await request(s.app)
      .post('/fleet-runs/preview')
      .set(auth)
      .send(RUN);
    expect(r.status).toBe(200);
    expect(r.body.counts).toEqual({ upgrade: 2, current: 0, refused: 1 });
    expect(
      r.body.stages.map((st: any) => [
        st.name,
        st.clusters.map((c: any) => [c.name, c.outcome, c.from, c.to]),
      ]),
    ).toEqual([
      [
        'dev',
        [
          ['alpha', 'upgrade', 'v1.33.2', 'v1.34.3'],
          ['gamma', 'refused', 'v1.33.2', 'v1.34.3'],
        ],
      ],
      ['prod', [['beta', 'upgrade', 'v1.33.2', 'v1.34.3']]],
    ]);
    const alpha = r.body.stages[0].clusters[0];
    expect(alpha.steps.map((x: any) => x.target)).toEqual([
      'controlPlane',
      { pools: ['system'] },
    ]);
    expect(r.body.stages[0].clusters[1].problems).toEqual([
      expect.stringMatching(/^it is degraded \(ManagedCluster gamma: /),
    ]);
    // alpha and gamma share team-a's credential and region: one ARM call for both.
    expect(s.armAsked.sort()).toEqual([
      'team-a/aso-credential/westeurope',
      'team-b/aso-credential/westeurope',
    ]);
    expect(s.live).toEqual([]);
    // And one read of each namespace's objects per kind, whatever number of its clusters the run names (at 10,000
    // clusters a namespace holds 500: copying its 7,000 objects for each was 1.5 GiB of garbage per preview).
    const reads = new Map<string, number>();
    for (const l of s.listed) reads.set(l, (reads.get(l) ?? 0) + 1);
    expect([...reads].filter(([, n]) => n > 1)).toEqual([]);
    expect(reads.get('Cluster team-a')).toBe(1);
  });

  it('plans a run of 10,000 clusters (past the 100 kB a body may have elsewhere), and refuses a larger body in words', async () => {
    const s = await setup();
    const many = Array.from({ length: 10_000 }, (_, i) =>
      at(`team-${i % 20}`, `cluster-${String(i).padStart(5, '0')}`),
    );
    const r = await request(s.app)
      .post('/fleet-runs/preview')
      .set(auth)
      .send({ target: RUN.target, stages: [{ name: 'all', clusters: many }] });
    expect(r.status).toBe(200);
    expect(r.body.counts.refused).toBe(10_000); // none of them exists here
    const huge = {
      target: RUN.target,
      stages: Array.from({ length: 5 }, (_, k) => ({
        name: `s${k}`,
        clusters: many.map(c => ({
          ...c,
          name: `${c.name}-${'x'.repeat(60)}`,
        })),
      })),
    };
    expect(JSON.stringify(huge).length).toBeGreaterThan(4 * 1024 * 1024);
    const big = await request(s.app)
      .post('/fleet-runs/preview')
      .set(auth)
      .send(huge);
    expect(big.status).toBe(400);
    expect(big.body.error.message).toMatch(
      /^The request body is larger than this request takes: send less at once/,
    );
  });

  it("keeps each cluster's group from the request in its plan", async () => {
    const s = await setup();
    const grouped = {
      ...RUN,
      stages: RUN.stages.map(st => ({
        ...st,
        clusters: st.clusters.map(c => ({ ...c, group: c.namespace })),
      })),
    };
    const r = await request(s.app)
      .post('/fleet-runs/preview')
      .set(auth)
      .send(grouped);
    expect(r.status).toBe(200);
    expect(
      r.body.stages.flatMap((st: any) =>
        st.clusters.map((c: any) => [c.name, c.group]),
      ),
    ).toEqual([
      ['alpha', 'team-a'],
      ['gamma', 'team-a'],
      ['beta', 'team-b'],
    ]);
  });

  it('refuses a cluster the caller may not upgrade in the words of one that does not exist, and plans the others', async () => {
    const s = await setup({
      decision: createCapzClusterConditionalDecision(
        capzClusterUpgradePermission,
        capzClusterConditions.isInNamespace({ namespaces: ['team-a'] }),
      ),
    });
    const r = await request(s.app)
      .post('/fleet-runs/preview')
      .set(auth)
      .send({
        ...RUN,
        stages: [
          ...RUN.stages,
          { name: 'late', clusters: [at('team-a', 'nope')] },
        ],
      });
    expect(r.status).toBe(200);
    const all = r.body.stages.flatMap((st: any) => st.clusters);
    expect(all.map((c: any) => [c.name, c.outcome])).toEqual([
      ['alpha', 'upgrade'],
      ['gamma', 'upgrade'],
      ['beta', 'refused'],
      ['nope', 'refused'],
    ]);
    expect(all[2].problems).toEqual([
      'no cluster team-b/beta that you may upgrade on management cluster east (capz.cluster.upgrade)',
    ]);
    expect(all[3].problems).toEqual([
      'No cluster team-a/nope on management cluster east',
    ]);
    // Nothing of team-b was read from ARM.
    expect(s.armAsked).toEqual(['team-a/aso-credential/westeurope']);
  });

  it('answers a run that cannot run with a 400 in its words, asking nothing', async () => {
    const s = await setup();
    const bad = async (body: unknown) => {
      const r = await request(s.app)
        .post('/fleet-runs/preview')
        .set(auth)
        .send(body as object);
      expect(r.status).toBe(400);
      return r.body.error.message as string;
    };
    expect(
      await bad({
        ...RUN,
        stages: [
          ...RUN.stages,
          { name: 'again', clusters: [at('team-a', 'alpha')] },
        ],
      }),
    ).toBe(
      'stages[2].clusters: east/team-a/alpha is already in stage "dev": a cluster is upgraded once per run',
    );
    expect(await bad({ ...RUN, extra: 1 })).toMatch(/extra/);
    expect(await bad({ ...RUN, stages: [] })).toMatch(/stages/);
    expect(
      await bad({ ...RUN, target: { kind: 'version', version: 'latest' } }),
    ).toMatch(/version/);
    expect(
      await bad({
        ...RUN,
        stages: [{ name: 'dev', clusters: [at('team-a', '..')] }],
      }),
    ).toMatch(/name/);
    expect(s.armAsked).toEqual([]);
    expect(s.live).toEqual([]);
  });

  it('answers 503 with Retry-After while ARM throttles', async () => {
    const s = await setup({
      arm: async () => {
        throw new AzureServiceError('ARM', 'ARM is throttling requests', {
          statusCode: 503,
          retryAfterSeconds: 17,
        });
      },
    });
    const r = await request(s.app)
      .post('/fleet-runs/preview')
      .set(auth)
      .send(RUN);
    expect(r.status).toBe(503);
    expect(r.headers['retry-after']).toBe('17');
  });
});

describe('the fleet runs', () => {
  const onlyTeamA = createCapzClusterConditionalDecision(
    capzClusterReadPermission,
    capzClusterConditions.isInNamespace({ namespaces: ['team-a'] }),
  );

  it("starts a run for a user, audited with the run; the preview's refusals are skipped with their reasons; nothing is written before the scheduler advances it", async () => {
    const s = await setup({
      facts: { gamma: { health: 'degraded', reason: 'ReconciliationBlocked' } },
    });
    const r = await request(s.app)
      .post('/fleet-runs')
      .set(auth)
      .send({
        spec: RUN,
        options: { gates: { dev: { soakSeconds: 600, approval: true } } },
      });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      createdBy: 'user:default/mock',
      run: { state: 'running', failures: 0, maxFailures: 0 },
    });
    expect(r.body.version).toBeUndefined();
    expect(
      r.body.run.stages.map((st: any) => [
        st.name,
        st.soakSeconds,
        st.approval,
        st.clusters.map((c: any) => [c.name, c.state]),
      ]),
    ).toEqual([
      [
        'dev',
        600,
        true,
        [
          ['alpha', 'waiting'],
          ['gamma', 'skipped'],
        ],
      ],
      ['prod', 0, false, [['beta', 'waiting']]],
    ]);
    expect(r.body.run.stages[0].clusters[1].message).toMatch(
      /^left out by the preview: it is degraded \(ReconciliationBlocked\)/,
    );
    expect(s.audits).toEqual([
      {
        eventId: 'capz-fleet-run',
        meta: { command: 'create', target: { kind: 'next-minor' } },
        outcome: 'success',
      },
    ]);
    expect(s.live).toEqual([]);
    const listed = await request(s.app).get('/fleet-runs').set(auth);
    expect(listed.body.items.map((x: any) => x.id)).toEqual([r.body.id]);
    const one = await request(s.app).get(`/fleet-runs/${r.body.id}`).set(auth);
    expect(one.body).toEqual(r.body);
  });

  it("keeps the caller's policy decision with the run (applied again before each write) and never answers it", async () => {
    const inTeamA = createCapzClusterConditionalDecision(
      capzClusterUpgradePermission,
      capzClusterConditions.isInNamespace({ namespaces: ['team-a'] }),
    );
    const s = await setup({ decision: inTeamA });
    const r = await request(s.app)
      .post('/fleet-runs')
      .set(auth)
      .send({ spec: RUN });
    expect(r.status).toBe(201);
    expect((await s.store.get(r.body.id)).decision).toEqual(inTeamA);
    expect(r.body.decision).toBeUndefined();
    const one = await request(s.app).get(`/fleet-runs/${r.body.id}`).set(auth);
    expect(one.body.decision).toBeUndefined();
  });

  it('refuses a run to a service principal, and a body that is not a run, storing nothing', async () => {
    const s = await setup();
    const svc = await request(s.app)
      .post('/fleet-runs')
      .set({ Authorization: mockCredentials.service.header() })
      .send({ spec: RUN });
    expect(svc.status).toBe(403);
    const bad = await request(s.app)
      .post('/fleet-runs')
      .set(auth)
      .send({ spec: RUN, options: { maxFailures: -1 } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toMatch(/maxFailures/);
    expect(await s.runs.list()).toEqual([]);
  });

  it('shows a run only to whoever may read every cluster of it, in the words of one that does not exist', async () => {
    const narrow = await setup({
      decisions: { [capzClusterReadPermission.name]: onlyTeamA },
    });
    const mine = await request(narrow.app)
      .post('/fleet-runs')
      .set(auth)
      .send({
        spec: { ...RUN, stages: [RUN.stages[0]] },
      });
    const theirs = await request(narrow.app)
      .post('/fleet-runs')
      .set(auth)
      .send({ spec: RUN });
    expect([mine.status, theirs.status]).toEqual([201, 201]);
    const listed = await request(narrow.app).get('/fleet-runs').set(auth);
    expect(listed.body.items.map((x: any) => x.id)).toEqual([mine.body.id]);
    const hidden = await request(narrow.app)
      .get(`/fleet-runs/${theirs.body.id}`)
      .set(auth);
    expect(hidden.status).toBe(404);
    expect(hidden.body.error.message).toBe(`No fleet run ${theirs.body.id}`);
    const command = await request(narrow.app)
      .post(`/fleet-runs/${theirs.body.id}/commands`)
      .set(auth)
      .send({ command: 'cancel' });
    expect(command.status).toBe(404);
  });

  it('shows a run whose cluster a migration wave moved to whoever may read it where it now is', async () => {
    const narrow = await setup({
      decisions: { [capzClusterReadPermission.name]: onlyTeamA },
    });
    const created = await request(narrow.app)
      .post('/fleet-runs')
      .set(auth)
      .send({ spec: RUN });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    const shown = async () =>
      (await request(narrow.app).get(`/fleet-runs/${id}`).set(auth)).status;
    expect(await shown()).toBe(404);
    // beta (team-b) migrated into team-a: readable where it now is.
    const stored = await narrow.store.get(id);
    stored.run.stages[1].clusters[0].movedTo = at('team-a', 'beta');
    expect(await narrow.store.save(id, stored.version, stored.run)).toBe(true);
    expect(await shown()).toBe(200);
    const listed = await request(narrow.app).get('/fleet-runs').set(auth);
    expect(listed.body.items.map((x: any) => x.id)).toEqual([id]);
  });

  it('takes commands under capz.cluster.upgrade and approvals under capz.fleet.run.approve, audited; a 409 in words when the run cannot take one', async () => {
    const s = await setup({
      approve: AuthorizeResult.DENY,
      decisions: {
        [capzClusterUpgradePermission.name]:
          createCapzClusterConditionalDecision(
            capzClusterUpgradePermission,
            capzClusterConditions.isInNamespace({ namespaces: ['team-a'] }),
          ),
      },
    });
    // The run is team-a's only: the user may upgrade every cluster of it.
    const r = await request(s.app)
      .post('/fleet-runs')
      .set(auth)
      .send({ spec: { ...RUN, stages: [RUN.stages[0]] } });
    expect(r.status).toBe(201);
    const cmd = (body: object) =>
      request(s.app)
        .post(`/fleet-runs/${r.body.id}/commands`)
        .set(auth)
        .send(body);
    const approve = await cmd({ command: 'approve', stage: 'dev' });
    expect(approve.status).toBe(403);
    expect(approve.body.error.message).toBe(
      "Not allowed to approve a fleet run's stage (capz.fleet.run.approve)",
    );
    const paused = await cmd({ command: 'pause' });
    expect(paused.status).toBe(200);
    expect(paused.body.run.state).toBe('paused');
    const again = await cmd({ command: 'pause' });
    expect(again.status).toBe(409);
    expect(again.body.error.message).toBe(
      `Fleet run ${r.body.id}: the run is paused: only a running run pauses`,
    );
    const skip = await cmd({ command: 'skip', cluster: at('team-a', 'gamma') });
    expect(skip.status).toBe(200);
    expect(
      skip.body.run.stages[0].clusters.map((c: any) => [
        c.name,
        c.state,
        c.message,
      ]),
    ).toEqual([
      ['alpha', 'waiting', undefined],
      ['gamma', 'skipped', 'skipped by user:default/mock'],
    ]);
    const otherTeam = await cmd({
      command: 'skip',
      cluster: at('team-b', 'beta'),
    });
    expect(otherTeam.status).toBe(403);
    expect((await cmd({ command: 'explode' })).status).toBe(400);
    expect(
      (
        await request(s.app)
          .post('/fleet-runs/00000000-0000-4000-8000-000000000000/commands')
          .set(auth)
          .send({ command: 'pause' })
      ).status,
    ).toBe(404);
    expect(
      s.audits
        .filter(a => (a.meta as any).run)
        .map(a => [(a.meta as any).command.command, a.outcome]),
    ).toEqual([
      ['pause', 'success'],
      ['pause', 'fail'],
      ['skip', 'success'],
    ]);
  });
});
