/**
 * POST /fleet-runs/preview's HTTP contract with clusters in memory (the watch cache's reads) and a scripted ARM: each
 * cluster planned as its single-cluster upgrade, ARM asked once per region and credential, nothing read live or
 * written, capz.cluster.upgrade applied per cluster, bad runs a 400 in the request's words, ARM throttling a 503.
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
import { AzureServiceError } from '../azure/errors';
import { clusterOwnerOf } from '../cluster/clusterOwners';
import type { Day2Client } from '../cluster/clientViews';
import { Day2Service } from '../day2/Day2Service';
import { FleetPreview } from '../day2/fleetPreview';
import {
  capzClusterConditions,
  createCapzClusterConditionalDecision,
} from '../permissions/rules';
import { capzClusterUpgradePermission } from '@capz-backstage/plugin-capz-common';
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
    decision?: PolicyDecision;
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
  const service = new Day2Service({
    logger: mockServices.logger.mock(),
    managementClusters: ['east'],
    cache: {
      list: (_mc: string, kind: string, ns?: string) =>
        objects.filter(
          x => x.kind === kind && (!ns || x.metadata?.namespace === ns),
        ) as never,
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
  const router = await createFleetRouter({
    httpAuth: mockServices.httpAuth(),
    permissions: mockServices.permissions.mock({
      authorizeConditional: async reqs =>
        reqs.map(() => o.decision ?? { result: AuthorizeResult.ALLOW }),
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
    fleet: new FleetPreview({
      day2: service,
      factsOf: (p: ClusterPlace) => o.facts?.[p.name] ?? { health: 'healthy' },
    }),
    validateResponses: true,
  });
  const app = express()
    .use(express.json())
    .use(router)
    .use(
      MiddlewareFactory.create({
        config: mockServices.rootConfig(),
        logger: mockServices.logger.mock(),
      }).error(),
    );
  return { app, live, armAsked };
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
