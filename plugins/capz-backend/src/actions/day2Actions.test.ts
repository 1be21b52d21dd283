import { mockCredentials, mockServices } from '@backstage/backend-test-utils';
import { actionsRegistryServiceMock } from '@backstage/backend-test-utils/alpha';
import { routeStandIn } from '../testing/routeStandIn';
import { day2ActionsInWords, registerDay2Actions } from './day2Actions';

function setUp(
  base: string,
  auditor = mockServices.auditor.mock(),
  allowServicePrincipalApply = false,
) {
  const registry = actionsRegistryServiceMock();
  registerDay2Actions({
    allowServicePrincipalApply,
    actionsRegistry: registry,
    auth: mockServices.auth(),
    discovery: {
      getBaseUrl: async plugin => `${base}/api/${plugin}`,
      getExternalBaseUrl: async plugin => `${base}/api/${plugin}`,
    },
    auditor,
  });
  return registry;
}

const where = {
  managementCluster: 'local',
  namespace: 'team-payments',
  name: 'payments-prod',
};

describe('the day-2 actions', () => {
  it("describe every action of openapi.yaml's Day2Action with its fields", () => {
    const words = day2ActionsInWords();
    expect(words.split('; ').map(a => a.split(' ')[0])).toEqual([
      'scale',
      'autoscale',
      'upgrade',
      'addPool',
      'removePool',
      'pause',
      'resume',
    ]);
    expect(words).toContain('scale {pool: string, replicas: number}');
    expect(words).toContain('autoscale {pool: string, enabled: boolean');
  });

  it('preview through the route on behalf of the caller, and hand its plan back', async () => {
    const r = await routeStandIn({
      status: 200,
      body: { applied: false, planDigest: 'a'.repeat(64) },
    });
    try {
      const { output } = await setUp(r.base).invoke({
        id: 'test:preview-cluster-action',
        input: {
          ...where,
          request: { action: 'scale', pool: 'api', replicas: 5 },
        },
        credentials: mockCredentials.user('user:default/ada'),
      });
      expect(output).toEqual({
        plan: { applied: false, planDigest: 'a'.repeat(64) },
      });
      expect(r.seen).toEqual([
        {
          path: '/api/capz/clusters/local/team-payments/payments-prod/actions/preview',
          // The caller's identity travels with the request (mock auth's on-behalf-of token names the user).
          authorization: expect.stringContaining('user:default/ada'),
          body: { action: 'scale', pool: 'api', replicas: 5 },
        },
      ]);
    } finally {
      r.close();
    }
  });

  it("answer the route's refusal as its own error, status and words", async () => {
    const r = await routeStandIn({
      status: 409,
      body: {
        error: {
          name: 'ConflictError',
          message: 'The cluster changed since the preview',
        },
        response: { statusCode: 409 },
      },
    });
    try {
      const invoked = setUp(r.base).invoke({
        id: 'test:apply-cluster-action',
        input: {
          ...where,
          request: {
            action: 'scale',
            pool: 'api',
            replicas: 5,
            planDigest: 'b'.repeat(64),
          },
        },
        credentials: mockCredentials.user('user:default/ada'),
      });
      await expect(invoked).rejects.toMatchObject({
        name: 'ResponseError',
        statusCode: 409,
        cause: {
          name: 'ConflictError',
          message: 'The cluster changed since the preview',
        },
      });
      expect(r.seen.map(s => s.path)).toEqual([
        '/api/capz/clusters/local/team-payments/payments-prod/actions',
      ]);
    } finally {
      r.close();
    }
  });

  it("refuse a service principal's confirm without asking the route, and audit the refusal", async () => {
    const r = await routeStandIn({ status: 200, body: {} });
    const auditor = mockServices.auditor.mock();
    try {
      const invoked = setUp(r.base, auditor).invoke({
        id: 'test:apply-cluster-action',
        input: {
          ...where,
          request: {
            action: 'pause',
            planDigest: 'c'.repeat(64),
          },
        },
        credentials: mockCredentials.service('external:mcp-agent'),
      });
      await expect(invoked).rejects.toMatchObject({
        name: 'NotAllowedError',
        message: expect.stringMatching(
          /^Carrying out a day-2 action needs a signed-in user/,
        ),
      });
      expect(r.seen).toEqual([]);
      expect(auditor.createEvent).toHaveBeenCalledTimes(1);
      expect(auditor.createEvent).toHaveBeenCalledWith({
        eventId: 'capz-permission-denied',
        severityLevel: 'medium',
        meta: {
          action: 'capz:apply-cluster-action',
          principal: 'external:mcp-agent',
          target: where,
        },
      });
      const event = await (auditor.createEvent as jest.Mock).mock.results[0]
        .value;
      expect(event.fail).toHaveBeenCalledWith({
        error: expect.objectContaining({ name: 'NotAllowedError' }),
      });
    } finally {
      r.close();
    }
  });

  it("pass a service principal's confirm on to the route where the operator allows it", async () => {
    const r = await routeStandIn({ status: 200, body: { applied: true } });
    const auditor = mockServices.auditor.mock();
    try {
      const invoked = await setUp(r.base, auditor, true).invoke({
        id: 'test:apply-cluster-action',
        input: {
          ...where,
          request: { action: 'pause', planDigest: 'c'.repeat(64) },
        },
        credentials: mockCredentials.service('external:mcp-agent'),
      });
      expect(invoked.output).toEqual({ plan: { applied: true } });
      expect(r.seen.map(s => s.path)).toEqual([
        '/api/capz/clusters/local/team-payments/payments-prod/actions',
      ]);
      expect(auditor.createEvent).not.toHaveBeenCalled();
    } finally {
      r.close();
    }
  });

  it('refuse names the routes would not take before any request', async () => {
    const r = await routeStandIn({ status: 200, body: {} });
    try {
      await expect(
        setUp(r.base).invoke({
          id: 'test:preview-cluster-action',
          input: { ...where, namespace: '..', request: { action: 'pause' } },
          credentials: mockCredentials.user(),
        }),
      ).rejects.toMatchObject({ name: 'InputError' });
      expect(r.seen).toEqual([]);
    } finally {
      r.close();
    }
  });
});
