import {
  mockCredentials,
  mockServices,
  startTestBackend,
} from '@backstage/backend-test-utils';
import { AuthorizeResult } from '@backstage/plugin-permission-common';
import request from 'supertest';
import { capzPlugin } from './plugin';

const config = {
  capz: {
    managementClusters: [
      {
        name: 'local',
        title: 'Local',
        kubeconfig: { path: '/secret/path/kubeconfig' },
      },
      {
        name: 'prod',
        url: 'https://prod.example',
        serviceAccountToken: 'tok-123',
      },
    ],
  },
};

describe('capz backend plugin', () => {
  it('lists management clusters to an authenticated user, without secrets', async () => {
    const { server } = await startTestBackend({
      features: [capzPlugin, mockServices.rootConfig.factory({ data: config })],
    });
    const res = await request(server)
      .get('/api/capz/management-clusters')
      .set('Authorization', mockCredentials.user.header());
    expect(res.status).toBe(200);
    expect(res.body.items.map((c: { name: string }) => c.name)).toEqual([
      'local',
      'prod',
    ]);
    expect(JSON.stringify(res.body)).not.toMatch(/tok-123|\/secret\/path/);
  });

  it('rejects unauthenticated requests but serves /health', async () => {
    const { server } = await startTestBackend({
      features: [
        capzPlugin,
        mockServices.rootConfig.factory({ data: config }),
        // The mock httpAuth treats a request without a token as a user unless told otherwise.
        mockServices.httpAuth.factory({
          defaultCredentials: mockCredentials.none(),
        }),
      ],
    });
    expect(
      (await request(server).get('/api/capz/management-clusters')).status,
    ).toBe(401);
    expect((await request(server).get('/api/capz/health')).status).toBe(200);
  });

  it('answers 403 when the read permission is denied', async () => {
    const { server } = await startTestBackend({
      features: [
        capzPlugin,
        mockServices.rootConfig.factory({ data: config }),
        mockServices.permissions.mock({
          authorizeConditional: async () => [{ result: AuthorizeResult.DENY }],
        }).factory,
      ],
    });
    const res = await request(server)
      .get('/api/capz/management-clusters')
      .set('Authorization', mockCredentials.user.header());
    expect(res.status).toBe(403);
  });

  it('refuses to start on a capz.lifecycle.calendar entry that is not valid, in the config words', async () => {
    await expect(
      startTestBackend({
        features: [
          capzPlugin,
          mockServices.rootConfig.factory({
            data: {
              capz: {
                ...config.capz,
                lifecycle: {
                  calendar: [
                    { minor: '1.38', ga: '2027-02', endOfLife: '2028-02-29' },
                    { minor: '1.39', ga: '2027-06', endOfLife: '2027-06-31' },
                  ],
                },
              },
            },
          }),
        ],
      }),
    ).rejects.toThrow(
      'capz.lifecycle.calendar is not valid: capz.lifecycle.calendar[1] (1.39): endOfLife must be the last day of community support, "YYYY-MM-DD" (got "2027-06-31").',
    );
  });
});
