/**
 * A legacy cluster's page for a user the policy denies capz.cluster.migrate: no "Migrate to ASO API" button. A file of
 * its own: the permission hook keeps every answer in a cache for the whole file (keyed by the permission alone).
 */
import { AuthorizeResult } from '@backstage/plugin-permission-common';
import { permissionApiRef } from '@backstage/plugin-permission-react';
import { screen, waitFor } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import {
  BASE,
  SEARCH_PROD,
  searchProdTree,
} from '../../__testUtils__/fixtures';
import { renderCapz, setupCapzServer } from '../../__testUtils__/harness';
import { CapzPage } from '../CapzPage';

const server = setupCapzServer();
const CLUSTER = `${BASE}/clusters/local/team-search/search-prod`;

describe('ClusterPage for a user the policy denies migrations', () => {
  it('offers no migration wizard on a legacy cluster', async () => {
    server.use(
      http.get(`${CLUSTER}/tree`, () =>
        HttpResponse.json({
          summary: {
            ...SEARCH_PROD,
            api: 'azure-managed',
            migrationCandidate: true,
          },
          tree: searchProdTree(),
        }),
      ),
      http.get(`${BASE}/jobs`, () => HttpResponse.json({ items: [] })),
    );
    const asked: string[] = [];
    renderCapz(<CapzPage />, {
      path: '/capz/clusters/local/team-search/search-prod',
      mountPath: '/capz/*',
      apis: [
        [
          permissionApiRef,
          {
            authorize: async (req: { permission: { name: string } }) => {
              asked.push(req.permission.name);
              return { result: AuthorizeResult.DENY };
            },
          },
        ],
      ],
    });
    await screen.findByRole('treegrid');
    await waitFor(() => expect(asked).toContain('capz.cluster.migrate'));
    expect(
      screen.queryByRole('link', { name: 'Migrate to ASO API' }),
    ).not.toBeInTheDocument();
  });
});
