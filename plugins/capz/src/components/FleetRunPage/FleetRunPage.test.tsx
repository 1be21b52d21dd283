/**
 * The fleet run page: the run's stages and clusters in words, read again on each of its signals (and not on another
 * run's), the commands the run can take now, the approval for a user the policy allows it (FleetRunPage.denied.test:
 * the other), a 409 in words.
 */
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http, HttpResponse } from 'msw';
import { mockApis } from '@backstage/frontend-test-utils';
import { AuthorizeResult } from '@backstage/plugin-permission-common';
import {
  CAPZ_FLEET_RUNS_SIGNAL_CHANNEL,
  type CapzChangeSignal,
  type FleetRunCommand,
  type FleetRunRecord,
} from '@capz-backstage/plugin-capz-common';
import { BASE } from '../../__testUtils__/fixtures';
import {
  FakeSignals,
  renderCapz,
  setupCapzServer,
} from '../../__testUtils__/harness';
import { CapzPage } from '../CapzPage';

const server = setupCapzServer();
const ID = '3f0c8a52-6d1e-4c1a-9f2b-0a1b2c3d4e5f';

const step = (target: 'controlPlane' | { pools: string[] }) => ({
  target,
  version: 'v1.34.3',
  changes: [],
  warnings: [],
});
const cluster = (name: string, over: object = {}) => ({
  managementCluster: 'local',
  namespace: 'team-a',
  name,
  state: 'waiting' as const,
  steps: [step('controlPlane'), step({ pools: ['system'] })],
  step: 0,
  written: false,
  ...over,
});

const record = (over: Partial<FleetRunRecord['run']> = {}): FleetRunRecord => ({
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
          cluster('dev-a', {
            state: 'succeeded',
            step: 2,
            message: 'upgraded to v1.34.3',
          }),
        ],
      },
      {
        name: 'prod',
        soakSeconds: 600,
        approval: false,
        state: 'waiting',
        clusters: [cluster('prod-a'), cluster('prod-b')],
      },
    ],
    ...over,
  },
});

function serve(initial: FleetRunRecord) {
  const state = { run: initial, reads: 0, commands: [] as FleetRunCommand[] };
  server.use(
    http.get(`${BASE}/fleet-runs/${ID}`, () => {
      state.reads++;
      return HttpResponse.json(state.run);
    }),
    http.post(`${BASE}/fleet-runs/${ID}/commands`, async ({ request }) => {
      const c = (await request.json()) as FleetRunCommand;
      state.commands.push(c);
      if (c.command === 'pause')
        return HttpResponse.json(
          {
            error: {
              name: 'ConflictError',
              message: `Fleet run ${ID}: the run is paused: only a running run pauses`,
            },
          },
          { status: 409 },
        );
      if (c.command === 'approve') {
        state.run = record({
          stages: [
            {
              ...state.run.run.stages[0],
              state: 'succeeded',
              approvedBy: 'user:default/lead',
            },
            { ...state.run.run.stages[1], state: 'running' },
          ],
        });
        state.run = { ...state.run, updatedAt: '2026-12-04T10:06:00Z' };
      }
      return HttpResponse.json(state.run);
    }),
  );
  return state;
}

const signal = (runId: string) =>
  ({ runId, state: 'running' } as unknown as CapzChangeSignal);

const allowApprove = (result: AuthorizeResult.ALLOW | AuthorizeResult.DENY) =>
  mockApis.permission({ authorize: result });

describe('fleet run page', () => {
  it('shows each stage and cluster in words, and reads the run again on its own signal only', async () => {
    const signals = new FakeSignals();
    const served = serve(record());
    renderCapz(<CapzPage />, {
      path: `/capz/fleet-runs/${ID}`,
      mountPath: '/capz/*',
      signals,
      apis: [allowApprove(AuthorizeResult.ALLOW)],
    });
    expect(
      await screen.findByRole('heading', {
        name: 'Fleet upgrade to the next minor: 3 clusters in 2 stages',
      }),
    ).toBeInTheDocument();
    expect(screen.getByTestId('fleet-run-state')).toHaveTextContent('Running');
    const dev = screen.getByRole('region', { name: 'Stage 1: dev' });
    expect(dev).toHaveTextContent('Waiting for approval');
    expect(dev).toHaveTextContent(
      'Its clusters are upgraded and healthy: the next stage starts once someone approves.',
    );
    expect(
      screen.getByRole('region', { name: 'Stage 2: prod' }),
    ).toHaveTextContent('Waiting · then soak 10 min');
    expect(within(dev).getByRole('row', { name: /dev-a/ })).toHaveTextContent(
      'Upgradedupgraded to v1.34.3',
    );
    const prod = screen.getByRole('region', { name: 'Stage 2: prod' });
    expect(within(prod).getAllByTestId('fleet-cluster')).toHaveLength(2);
    expect(
      within(prod).getByRole('button', { name: 'Skip team-a/prod-a' }),
    ).toBeInTheDocument();
    const reads = served.reads;
    signals.publish(CAPZ_FLEET_RUNS_SIGNAL_CHANNEL, signal('another-run'));
    signals.publish(CAPZ_FLEET_RUNS_SIGNAL_CHANNEL, signal(ID));
    await waitFor(() => expect(served.reads).toBe(reads + 1));
  });

  it('approves the waiting stage for a user the policy allows, and shows what the backend answered', async () => {
    const served = serve(record());
    renderCapz(<CapzPage />, {
      path: `/capz/fleet-runs/${ID}`,
      mountPath: '/capz/*',
      apis: [allowApprove(AuthorizeResult.ALLOW)],
    });
    await userEvent.click(
      await screen.findByRole('button', { name: 'Approve dev' }),
    );
    await waitFor(() =>
      expect(
        screen.getByRole('region', { name: 'Stage 2: prod' }),
      ).toHaveTextContent('Upgrading'),
    );
    expect(served.commands).toEqual([{ command: 'approve', stage: 'dev' }]);
    expect(
      screen.getByRole('region', { name: 'Stage 1: dev' }),
    ).toHaveTextContent('Approved by user:default/lead.');
    expect(screen.queryByRole('button', { name: 'Approve dev' })).toBeNull();
  });

  it('says a command the run refused in words', async () => {
    const served = serve(record());
    renderCapz(<CapzPage />, {
      path: `/capz/fleet-runs/${ID}`,
      mountPath: '/capz/*',
      apis: [allowApprove(AuthorizeResult.ALLOW)],
    });
    await screen.findByRole('region', { name: 'Stage 1: dev' });
    await userEvent.click(screen.getByRole('button', { name: 'Pause' }));
    expect(
      await screen.findByText(
        `Fleet run ${ID}: the run is paused: only a running run pauses`,
      ),
    ).toBeInTheDocument();
    expect(screen.getByText('Could not pause the run')).toBeInTheDocument();
    expect(served.commands).toEqual([{ command: 'pause' }]);
  });

  it('offers no control on a failed run, and a retry or a skip for its failed cluster', async () => {
    const served = serve(
      record({
        state: 'failed',
        failures: 1,
        stages: [
          {
            name: 'dev',
            soakSeconds: 0,
            approval: false,
            state: 'cancelled',
            clusters: [
              cluster('dev-a', {
                state: 'failed',
                message:
                  'control plane to v1.34.3: offered-in-region: AKS does not offer v1.34.3 in westeurope',
              }),
              cluster('dev-b', {
                state: 'cancelled',
                message: 'not started: the run stopped after 1 failure',
              }),
            ],
          },
        ],
      }),
    );
    renderCapz(<CapzPage />, {
      path: `/capz/fleet-runs/${ID}`,
      mountPath: '/capz/*',
      apis: [allowApprove(AuthorizeResult.ALLOW)],
    });
    expect(await screen.findByTestId('fleet-run-state')).toHaveTextContent(
      'Failed',
    );
    expect(screen.queryByRole('group', { name: 'Run controls' })).toBeNull();
    expect(
      screen.getByRole('button', { name: 'Retry team-a/dev-a' }),
    ).toBeInTheDocument();
    // The cluster the stop left unstarted cannot be skipped on its own: the run goes on with it once dev-a is dealt with.
    expect(
      screen.queryByRole('button', { name: 'Skip team-a/dev-b' }),
    ).toBeNull();
    expect(screen.getByRole('row', { name: /dev-a/ })).toHaveTextContent(
      'offered-in-region: AKS does not offer v1.34.3 in westeurope',
    );
    await userEvent.click(
      screen.getByRole('button', { name: 'Skip team-a/dev-a' }),
    );
    await waitFor(() =>
      expect(served.commands).toEqual([
        {
          command: 'skip',
          cluster: {
            managementCluster: 'local',
            namespace: 'team-a',
            name: 'dev-a',
          },
        },
      ]),
    );
  });

  it("says once what a running cluster's step waits for, and that a person's wait is not timed", async () => {
    const waiting =
      "migrate to the ASO API in namespace team-a-aso: waiting for the merge of pull request #3 (https://git.example/pr/3) and Flux's fetch of it (job j1)";
    serve(
      record({
        target: { kind: 'migrate', targetNamespace: 'team-a-aso' },
        stages: [
          {
            name: 'git',
            soakSeconds: 0,
            approval: false,
            state: 'running',
            clusters: [
              cluster('legacy-a', {
                state: 'running',
                steps: [
                  {
                    kind: 'job',
                    request: {
                      type: 'migrate',
                      params: {
                        managementCluster: 'local',
                        namespace: 'team-a',
                        name: 'legacy-a',
                        targetNamespace: 'team-a-aso',
                      },
                    },
                    title: 'migrate to the ASO API in namespace team-a-aso',
                    plan: [],
                    warnings: [],
                  },
                ],
                written: true,
                jobId: 'j1',
                waitingForPersonSince: '2026-12-04T10:06:00Z',
                message: waiting,
              }),
              cluster('legacy-b', {
                state: 'running',
                written: true,
                message: 'control plane to v1.34.3',
              }),
            ],
          },
        ],
      }),
    );
    renderCapz(<CapzPage />, {
      path: `/capz/fleet-runs/${ID}`,
      mountPath: '/capz/*',
      apis: [allowApprove(AuthorizeResult.ALLOW)],
    });
    const a = await screen.findByRole('row', { name: /legacy-a/ });
    expect(a).toHaveTextContent(`Now: ${waiting}`);
    expect(a.textContent!.split('migrate to the ASO API').length - 1).toBe(1);
    expect(a).toHaveTextContent(
      "this wait does not count against the step's timeout",
    );
    const b = screen.getByRole('row', { name: /legacy-b/ });
    expect(b).toHaveTextContent('Now: control plane to v1.34.3');
    expect(b.textContent!.split('control plane to v1.34.3').length - 1).toBe(1);
    expect(b).not.toHaveTextContent('Waiting for a person');
  });

  it('offers neither retry nor skip for a failed cluster of a cancelled run', async () => {
    serve(
      record({
        state: 'cancelled',
        stopReason: 'cancelled',
        failures: 1,
        stages: [
          {
            name: 'dev',
            soakSeconds: 0,
            approval: false,
            state: 'cancelled',
            clusters: [
              cluster('dev-a', {
                state: 'failed',
                message: 'control plane to v1.34.3: denied',
              }),
            ],
          },
        ],
      }),
    );
    renderCapz(<CapzPage />, {
      path: `/capz/fleet-runs/${ID}`,
      mountPath: '/capz/*',
      apis: [allowApprove(AuthorizeResult.ALLOW)],
    });
    expect(await screen.findByTestId('fleet-run-state')).toHaveTextContent(
      'Cancelled',
    );
    expect(screen.getByRole('row', { name: /dev-a/ })).toHaveTextContent(
      'denied',
    );
    expect(screen.queryByRole('button', { name: /^Retry / })).toBeNull();
    expect(screen.queryByRole('button', { name: /^Skip / })).toBeNull();
  });
});
