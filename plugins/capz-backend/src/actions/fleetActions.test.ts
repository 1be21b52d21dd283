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
