import { mockCredentials, mockServices } from '@backstage/backend-test-utils';
import { actionsRegistryServiceMock } from '@backstage/backend-test-utils/alpha';
import { routeStandIn } from '../testing/routeStandIn';
import { registerFleetActions } from './fleetActions';

const registry = (base: string) => {
  const r = actionsRegistryServiceMock();
  registerFleetActions({
    actionsRegistry: r,
    auth: mockServices.auth(),
    discovery: {
      getBaseUrl: async plugin => `${base}/api/${plugin}`,
      getExternalBaseUrl: async plugin => `${base}/api/${plugin}`,
    },
  });
  return r;
};

const RUN = {
  target: { kind: 'next-minor' },
  stages: [
    {
      name: 'dev',
      clusters: [
        { managementCluster: 'local', namespace: 'team-a', name: 'alpha' },
      ],
    },
  ],
};

describe('capz:preview-fleet-upgrade', () => {
  it('is read-only, and asks the route on behalf of the caller with the run as given', async () => {
    const preview = { counts: { upgrade: 1, current: 0, refused: 0 } };
    const r = await routeStandIn({ status: 200, body: preview });
    try {
      const reg = registry(r.base);
      const { actions } = await reg.list();
      expect(actions.map(a => [a.id, a.attributes])).toEqual([
        [
          'test:preview-fleet-upgrade',
          { readOnly: true, destructive: false, idempotent: true },
        ],
        [
          'test:get-fleet-runs',
          { readOnly: true, destructive: false, idempotent: true },
        ],
      ]);
      const { output } = await reg.invoke({
        id: 'test:preview-fleet-upgrade',
        input: RUN,
        credentials: mockCredentials.user('user:default/ada'),
      });
      expect(output).toEqual({ preview });
      expect(r.seen).toEqual([
        {
          path: '/api/capz/fleet-runs/preview',
          authorization: expect.stringMatching(/^Bearer /),
          body: RUN,
        },
      ]);
    } finally {
      r.close();
    }
  });

  it("refuses a cluster name the route would refuse before asking, and hands the route's refusal back in its words", async () => {
    const r = await routeStandIn({
      status: 400,
      body: {
        error: {
          name: 'InputError',
          message:
            'stages[1].clusters: local/team-a/alpha is already in stage "dev"',
        },
        response: { statusCode: 400 },
      },
    });
    try {
      const reg = registry(r.base);
      await expect(
        reg.invoke({
          id: 'test:preview-fleet-upgrade',
          input: {
            ...RUN,
            stages: [
              {
                name: 'dev',
                clusters: [
                  {
                    managementCluster: 'local',
                    namespace: 'team-a',
                    name: '..',
                  },
                ],
              },
            ],
          },
          credentials: mockCredentials.user('user:default/ada'),
        }),
      ).rejects.toMatchObject({ name: 'InputError' });
      expect(r.seen).toEqual([]);
      await expect(
        reg.invoke({
          id: 'test:preview-fleet-upgrade',
          input: RUN,
          credentials: mockCredentials.user('user:default/ada'),
        }),
      ).rejects.toMatchObject({
        name: 'ResponseError',
        statusCode: 400,
        cause: {
          name: 'InputError',
          message: expect.stringMatching(/already in stage "dev"/),
        },
      });
    } finally {
      r.close();
    }
  });
});

const ID = '3f0c8a52-6d1e-4c1a-9f2b-0a1b2c3d4e5f';
const RECORD = {
  id: ID,
  createdBy: 'user:default/pat',
  createdAt: '2026-12-04T10:00:00Z',
  updatedAt: '2026-12-04T10:05:00Z',
  run: {
    state: 'running',
    target: { kind: 'next-minor' },
    concurrency: 1,
    maxFailures: 0,
    stepTimeoutSeconds: 14400,
    failures: 0,
    stages: [
      {
        name: 'dev',
        soakSeconds: 600,
        approval: true,
        state: 'awaiting-approval',
        clusters: [
          {
            managementCluster: 'local',
            namespace: 'team-a',
            name: 'alpha',
            state: 'succeeded',
            steps: [
              {
                target: 'controlPlane',
                version: 'v1.34.3',
                changes: [{ kind: 'X' }],
                warnings: [],
              },
            ],
            step: 1,
            written: false,
            message: 'upgraded to v1.34.3',
          },
        ],
      },
    ],
  },
};
const SUMMARY = {
  id: ID,
  state: 'running',
  target: { kind: 'next-minor' },
  createdBy: 'user:default/pat',
  createdAt: '2026-12-04T10:00:00Z',
  updatedAt: '2026-12-04T10:05:00Z',
  failures: 0,
  maxFailures: 0,
  stages: [
    {
      name: 'dev',
      state: 'awaiting-approval',
      clusters: [
        {
          managementCluster: 'local',
          namespace: 'team-a',
          name: 'alpha',
          state: 'succeeded',
          message: 'upgraded to v1.34.3',
        },
      ],
    },
  ],
};

describe('capz:get-fleet-runs', () => {
  it('reads the newest runs on behalf of the caller, each stage and cluster in words without the previewed changes', async () => {
    const r = await routeStandIn({ status: 200, body: { items: [RECORD] } });
    try {
      const { output } = await registry(r.base).invoke({
        id: 'test:get-fleet-runs',
        input: {},
        credentials: mockCredentials.user('user:default/ada'),
      });
      expect(output).toEqual({ runs: [SUMMARY] });
      expect(r.seen).toEqual([
        {
          path: '/api/capz/fleet-runs',
          authorization: expect.stringMatching(/^Bearer /),
          body: undefined,
        },
      ]);
    } finally {
      r.close();
    }
  });

  it("reads one run by its id; an id that is not one is refused before asking, and the route's 404 is handed back", async () => {
    const r = await routeStandIn({ status: 200, body: RECORD });
    try {
      const reg = registry(r.base);
      const { output } = await reg.invoke({
        id: 'test:get-fleet-runs',
        input: { id: ID },
        credentials: mockCredentials.user('user:default/ada'),
      });
      expect(output).toEqual({ runs: [SUMMARY] });
      expect(r.seen.map(x => x.path)).toEqual([`/api/capz/fleet-runs/${ID}`]);
      await expect(
        reg.invoke({
          id: 'test:get-fleet-runs',
          input: { id: '../clusters' },
          credentials: mockCredentials.user('user:default/ada'),
        }),
      ).rejects.toMatchObject({ name: 'InputError' });
      expect(r.seen).toHaveLength(1);
    } finally {
      r.close();
    }
    const missing = await routeStandIn({
      status: 404,
      body: {
        error: { name: 'NotFoundError', message: `No fleet run ${ID}` },
        response: { statusCode: 404 },
      },
    });
    try {
      await expect(
        registry(missing.base).invoke({
          id: 'test:get-fleet-runs',
          input: { id: ID },
          credentials: mockCredentials.user('user:default/ada'),
        }),
      ).rejects.toMatchObject({
        name: 'ResponseError',
        statusCode: 404,
        cause: { name: 'NotFoundError', message: `No fleet run ${ID}` },
      });
    } finally {
      missing.close();
    }
  });
});
