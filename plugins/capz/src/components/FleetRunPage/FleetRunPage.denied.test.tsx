/**
 * The fleet run page for a user the policy denies capz.fleet.run.approve: no Approve button, also while the policy has
 * not answered. A file of its own: the permission hook keeps its answers for the whole file.
 */
import { permissionApiRef } from '@backstage/plugin-permission-react';
import { AuthorizeResult } from '@backstage/plugin-permission-common';
import { act, screen, waitFor } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import type { FleetRunRecord } from '@capz-backstage/plugin-capz-common';
import { BASE } from '../../__testUtils__/fixtures';
import { renderCapz, setupCapzServer } from '../../__testUtils__/harness';
import { CapzPage } from '../CapzPage';

const server = setupCapzServer();
const ID = '3f0c8a52-6d1e-4c1a-9f2b-0a1b2c3d4e5f';

const run: FleetRunRecord = {
  id: ID,
  createdBy: 'user:default/pat',
  createdAt: '2026-12-04T10:00:00Z',
  updatedAt: '2026-12-04T10:05:00Z',
  run: {
    state: 'running',
    target: { kind: 'version', version: 'v1.34.3' },
    concurrency: 1,
    maxFailures: 0,
    stepTimeoutSeconds: 14400,
    failures: 0,
    stages: [
      {
        name: 'dev',
        soakSeconds: 0,
        approval: true,
        state: 'awaiting-approval',
        clusters: [
          {
            managementCluster: 'local',
            namespace: 'team-a',
            name: 'dev-a',
            state: 'succeeded',
            steps: [],
            step: 0,
            written: false,
          },
        ],
      },
    ],
  },
};

describe('fleet run page for a user the policy denies approvals', () => {
  it('shows no Approve button, before and after the policy answers', async () => {
    server.use(
      http.get(`${BASE}/fleet-runs/${ID}`, () => HttpResponse.json(run)),
    );
    const asked: string[] = [];
    let answer: (result: AuthorizeResult.DENY) => void = () => {};
    const answered = new Promise<AuthorizeResult.DENY>(resolve => {
      answer = resolve;
    });
    renderCapz(<CapzPage />, {
      path: `/capz/fleet-runs/${ID}`,
      mountPath: '/capz/*',
      apis: [
        [
          permissionApiRef,
          {
            authorize: async (req: { permission: { name: string } }) => {
              asked.push(req.permission.name);
              return { result: await answered };
            },
          },
        ],
      ],
    });
    expect(
      await screen.findByRole('heading', {
        name: 'Fleet upgrade to v1.34.3: 1 cluster in 1 stage',
      }),
    ).toBeInTheDocument();
    await waitFor(() => expect(asked).toEqual(['capz.fleet.run.approve']));
    expect(screen.queryByRole('button', { name: 'Approve dev' })).toBeNull();
    await act(async () => answer(AuthorizeResult.DENY));
    expect(screen.queryByRole('button', { name: 'Approve dev' })).toBeNull();
    expect(
      screen.getByRole('region', { name: 'Stage 1: dev' }),
    ).toHaveTextContent('Waiting for approval');
  });
});
