import { mockServices } from '@backstage/backend-test-utils';
import type { NotificationService } from '@backstage/plugin-notifications-node';
import type { Job } from '@capz-backstage/plugin-capz-common';
import { ownerNotifications } from './ownerNotifications';

const job = (over: Partial<Job>): Job => ({
  id: 'j-1',
  type: 'migrate',
  target: {
    managementCluster: 'local',
    namespace: 'team-data',
    name: 'data-lake',
  },
  params: {
    managementCluster: 'local',
    namespace: 'team-data',
    name: 'data-lake',
  } as Job['params'],
  createdBy: 'user:default/ada',
  state: 'running',
  steps: [],
  createdAt: '2026-12-03T10:00:00Z',
  updatedAt: '2026-12-03T10:00:00Z',
  ...over,
});

function sink(fail = false) {
  const sent: any[] = [];
  const notifications: NotificationService = {
    send: async n => {
      sent.push(n);
      if (fail) throw new Error('notifications is not installed');
    },
  };
  return { sent, notifications };
}

describe('ownerNotifications', () => {
  it("tells the cluster entity's owners and the job's starter that a job failed, with why and what it left, one notification per job", async () => {
    const { sent, notifications } = sink();
    const n = ownerNotifications({
      notifications,
      logger: mockServices.logger.mock(),
    });
    n.jobStateChanged(
      job({
        state: 'failed',
        error: 'Delete the old objects: the API server refused.',
        leftBehind: 'The AKS cluster is untouched.',
      }),
    );
    n.jobStateChanged(job({ state: 'succeeded' }));
    await new Promise(r => setImmediate(r));
    expect(sent).toEqual([
      {
        recipients: {
          type: 'entity',
          entityRef: [
            'resource:default/local-team-data-data-lake',
            'user:default/ada',
          ],
        },
        payload: {
          title: 'Migration of team-data/data-lake failed',
          description:
            'Delete the old objects: the API server refused. The AKS cluster is untouched.',
          severity: 'high',
          link: '/capz/jobs/j-1',
          topic: 'capz-jobs',
          scope: 'capz:job:j-1',
        },
      },
      {
        recipients: {
          type: 'entity',
          entityRef: [
            'resource:default/local-team-data-data-lake',
            'user:default/ada',
          ],
        },
        payload: {
          title: 'Migration of team-data/data-lake succeeded',
          severity: 'normal',
          link: '/capz/jobs/j-1',
          topic: 'capz-jobs',
          scope: 'capz:job:j-1',
        },
      },
    ]);
  });

  it('says nothing of a job that starts or is queued', async () => {
    const { sent, notifications } = sink();
    const n = ownerNotifications({
      notifications,
      logger: mockServices.logger.mock(),
    });
    n.jobStateChanged(job({ state: 'running' }));
    n.jobStateChanged(job({ state: 'queued' }));
    await new Promise(r => setImmediate(r));
    expect(sent).toEqual([]);
  });

  it('goes on without the notifications backend: the failure is logged', async () => {
    const { notifications } = sink(true);
    const logger = mockServices.logger.mock();
    const n = ownerNotifications({ notifications, logger });
    expect(() => n.jobStateChanged(job({ state: 'cancelled' }))).not.toThrow();
    await new Promise(r => setImmediate(r));
    expect(logger.warn).toHaveBeenCalledWith(
      'could not notify the owners of team-data/data-lake that job j-1 is cancelled: notifications is not installed',
    );
  });
});

describe('day-2 outcomes', () => {
  const place = {
    managementCluster: 'local',
    namespace: 'team-payments',
    name: 'payments-prod',
  };

  it("tells the cluster entity's owners what a confirmed action changed, and who confirmed it", async () => {
    const { sent, notifications } = sink();
    const n = ownerNotifications({
      notifications,
      logger: mockServices.logger.mock(),
    });
    n.day2Done({
      place,
      action: 'scale',
      actor: 'user:default/ada',
      changes: ['update MachinePool team-payments/payments-prod-api'],
    });
    n.day2Done({
      place,
      action: 'upgrade',
      actor: 'user:default/ada',
      proposed: {
        branch: 'capz/upgrade-payments-prod',
        pullRequest: 'https://git.example/platform/gitops/pulls/7',
      },
    });
    n.day2Done({
      place,
      action: 'removePool',
      actor: 'user:default/ada',
      error: Object.assign(
        new Error('AKS refused the delete: the pool is the last system pool'),
        {
          name: 'ServiceUnavailableError',
        },
      ),
    });
    await new Promise(r => setImmediate(r));
    expect(sent).toEqual([
      {
        recipients: {
          type: 'entity',
          entityRef: 'resource:default/local-team-payments-payments-prod',
        },
        payload: {
          title:
            'Scale of team-payments/payments-prod applied by user:default/ada',
          description: 'update MachinePool team-payments/payments-prod-api',
          severity: 'low',
          link: '/capz/clusters/local/team-payments/payments-prod',
          topic: 'capz-day2',
        },
      },
      expect.objectContaining({
        payload: expect.objectContaining({
          title:
            'Upgrade of team-payments/payments-prod proposed by user:default/ada',
          description:
            'It waits for its merge: https://git.example/platform/gitops/pulls/7.',
          link: 'https://git.example/platform/gitops/pulls/7',
        }),
      }),
      expect.objectContaining({
        payload: expect.objectContaining({
          title: 'Node pool removal of team-payments/payments-prod failed',
          description:
            'AKS refused the delete: the pool is the last system pool (confirmed by user:default/ada)',
          severity: 'high',
        }),
      }),
    ]);
  });

  it('says nothing of a refusal that changed nothing (bad input, a policy, a plan that moved on)', async () => {
    const { sent, notifications } = sink();
    const n = ownerNotifications({
      notifications,
      logger: mockServices.logger.mock(),
    });
    for (const name of ['InputError', 'NotAllowedError', 'ConflictError'])
      n.day2Done({
        place,
        action: 'scale',
        error: Object.assign(new Error('no'), { name }),
      });
    await new Promise(r => setImmediate(r));
    expect(sent).toEqual([]);
  });
});

describe('fleet runs', () => {
  it("tells a cluster's owners and the run's creator that its step waits for a person, in the cluster's own notification", async () => {
    const { sent, notifications } = sink();
    const n = ownerNotifications({
      notifications,
      logger: mockServices.logger.mock(),
    });
    const cluster = {
      managementCluster: 'local',
      namespace: 'team-data',
      name: 'data-lake',
    };
    const message =
      "migrate to the ASO API in namespace team-data-aso: waiting for the merge of pull request #3 (https://git.example/pr/3) and Flux's fetch of it (job j-1)";
    n.fleetRun({
      runId: '3f0c8a52-6d1e-4c1a-9f2b-0a1b2c3d4e5f',
      createdBy: 'user:default/ada',
      kind: 'person-needed',
      cluster,
      message,
    });
    n.fleetRun({
      runId: '3f0c8a52-6d1e-4c1a-9f2b-0a1b2c3d4e5f',
      createdBy: 'user:default/ada',
      kind: 'cluster-failed',
      cluster,
      message: 'the job failed',
    });
    await new Promise(r => setImmediate(r));
    expect(sent[0]).toEqual({
      recipients: {
        type: 'entity',
        entityRef: [
          'resource:default/local-team-data-data-lake',
          'user:default/ada',
        ],
      },
      payload: {
        title: 'Fleet run 3f0c8a52: team-data/data-lake waits for a person',
        description: message,
        severity: 'normal',
        link: '/capz/fleet-runs/3f0c8a52-6d1e-4c1a-9f2b-0a1b2c3d4e5f',
        topic: 'capz-fleet-runs',
        scope:
          'capz:fleet-run:3f0c8a52-6d1e-4c1a-9f2b-0a1b2c3d4e5f:local-team-data-data-lake',
      },
    });
    // The cluster's later news replaces it (one notification per cluster of a run).
    expect(sent[1].payload.scope).toBe(sent[0].payload.scope);
  });
});
