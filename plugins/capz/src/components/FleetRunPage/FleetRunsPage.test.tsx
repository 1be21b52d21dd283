/**
 * The list of fleet runs: each run in words (what it upgrades, its state, how far it got, who started it), linked to
 * its page, read again on a fleet run signal; the words for none; reached from the clusters page.
 */
import { screen, waitFor, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import {
  CAPZ_FLEET_RUNS_SIGNAL_CHANNEL,
  type CapzChangeSignal,
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

const cluster = (name: string, state: string) => ({
  managementCluster: 'local',
  namespace: 'team-a',
  name,
  state,
  steps: [],
  step: 0,
  written: false,
});

const record = (
  id: string,
  state: FleetRunRecord['run']['state'],
  clusters: ReturnType<typeof cluster>[],
  target: FleetRunRecord['run']['target'] = { kind: 'next-minor' },
): FleetRunRecord =>
  ({
    id,
    createdBy: 'user:default/pat',
    createdAt: '2026-12-04T10:00:00Z',
    updatedAt: '2026-12-04T10:05:00Z',
    run: {
      state,
      target,
      concurrency: 1,
      maxFailures: 0,
      stepTimeoutSeconds: 14400,
      failures: 0,
      stages: [
        {
          name: 'dev',
          soakSeconds: 0,
          approval: false,
          state: 'running',
          clusters,
        },
      ],
    },
  } as FleetRunRecord);

const NEW = '9a1b2c3d-0000-4000-8000-000000000001';
const OLD = '1f2e3d4c-0000-4000-8000-000000000002';

function serve(items: FleetRunRecord[]) {
  const state = { items, reads: 0 };
  server.use(
    http.get(`${BASE}/fleet-runs`, () => {
      state.reads++;
      return HttpResponse.json({ items: state.items });
    }),
  );
  return state;
}

describe('fleet runs page', () => {
  it('lists each run in words, linked to its page, and reads them again on a fleet run signal', async () => {
    const signals = new FakeSignals();
    const served = serve([
      record(NEW, 'running', [
        cluster('a', 'succeeded'),
        cluster('b', 'running'),
        cluster('c', 'waiting'),
      ]),
      record(
        OLD,
        'failed',
        [cluster('d', 'failed'), cluster('e', 'cancelled')],
        { kind: 'version', version: 'v1.34.3' },
      ),
    ]);
    renderCapz(<CapzPage />, {
      path: '/capz/fleet-runs',
      mountPath: '/capz/*',
      signals,
    });
    const table = await screen.findByRole('table', { name: 'Fleet runs' });
    const rows = within(table).getAllByTestId('fleet-run-row');
    expect(rows).toHaveLength(2);
    expect(
      within(rows[0]).getByRole('link', {
        name: 'Fleet upgrade to the next minor: 3 clusters in 1 stage',
      }),
    ).toHaveAttribute('href', `/capz/fleet-runs/${NEW}`);
    expect(rows[0]).toHaveTextContent('Run 9a1b2c3d');
    expect(rows[0]).toHaveTextContent('Running');
    expect(rows[0]).toHaveTextContent('1 of 3 upgraded, 1 upgrading');
    expect(rows[0]).toHaveTextContent('by user:default/pat');
    expect(
      within(rows[1]).getByRole('link', {
        name: 'Fleet upgrade to v1.34.3: 2 clusters in 1 stage',
      }),
    ).toHaveAttribute('href', `/capz/fleet-runs/${OLD}`);
    expect(rows[1]).toHaveTextContent('Failed');
    expect(rows[1]).toHaveTextContent(
      '0 of 2 upgraded, 1 failed, 1 skipped or not started',
    );

    const reads = served.reads;
    signals.publish(CAPZ_FLEET_RUNS_SIGNAL_CHANNEL, {
      runId: NEW,
      state: 'succeeded',
    } as unknown as CapzChangeSignal);
    await waitFor(() => expect(served.reads).toBe(reads + 1));
  });

  it('says how to start one when there is none', async () => {
    serve([]);
    renderCapz(<CapzPage />, {
      path: '/capz/fleet-runs',
      mountPath: '/capz/*',
    });
    expect(
      await screen.findByText(
        'No fleet run yet. On the clusters page, filter the clusters to upgrade, then Plan an upgrade of these.',
      ),
    ).toBeInTheDocument();
    expect(screen.queryByRole('table')).toBeNull();
  });
});
