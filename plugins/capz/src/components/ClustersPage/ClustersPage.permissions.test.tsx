/**
 * The clusters page's links to the jobs (adopt, migrate) for a user the policy denies them. A file of its own: the
 * permission hook keeps every answer in a cache for the whole file (keyed by the permission alone, with no resource),
 * so a page rendered earlier with another answer would show that one.
 */
import { permissionApiRef } from '@backstage/plugin-permission-react';
import { AuthorizeResult } from '@backstage/plugin-permission-common';
import { act, screen, waitFor } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { clustersAnswer } from '../../__testUtils__/clustersView';
import { BASE, CLUSTERS } from '../../__testUtils__/fixtures';
import { renderCapz, setupCapzServer } from '../../__testUtils__/harness';
import { createClusterRouteRef } from '../../routes';
import { ClustersPage } from './ClustersPage';

const server = setupCapzServer();

const link = (name: string) => screen.queryByRole('link', { name });

describe('ClustersPage for a user the policy denies the jobs', () => {
  it("hides Adopt AKS cluster, Jobs and the migration candidates' wizard links, also while the policy has not answered, and keeps New AKS cluster", async () => {
    server.use(
      http.get(`${BASE}/clusters`, ({ request }) =>
        HttpResponse.json(clustersAnswer(CLUSTERS, request.url)),
      ),
    );
    const asked: string[] = [];
    let answer: (result: AuthorizeResult.DENY) => void = () => {};
    const answered = new Promise<AuthorizeResult.DENY>(resolve => {
      answer = resolve;
    });
    renderCapz(<ClustersPage />, {
      routes: {
        '/create/templates/:namespace/:templateName': createClusterRouteRef,
      },
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
    await screen.findByRole('region', { name: 'Clusters' });
    // Asked, not answered yet: no link that might vanish.
    expect(link('Adopt AKS cluster')).not.toBeInTheDocument();
    expect(link('Jobs')).not.toBeInTheDocument();
    const candidate = 'Migration candidate: migrate legacy-web to the ASO API';
    expect(await screen.findByText('legacy-web')).toBeInTheDocument();
    expect(link(candidate)).not.toBeInTheDocument();
    await waitFor(() =>
      expect([...asked].sort()).toEqual([
        'capz.cluster.adopt',
        'capz.cluster.migrate',
      ]),
    );
    // Denied (act flushes the answers into the page).
    await act(async () => answer(AuthorizeResult.DENY));
    expect(link('Adopt AKS cluster')).not.toBeInTheDocument();
    expect(link('Jobs')).not.toBeInTheDocument();
    // A migration candidate stays marked, without the wizard's link.
    expect(link(candidate)).not.toBeInTheDocument();
    // Creating is decided per cluster by the scaffolder's action (a team may create clusters it will own).
    expect(link('New AKS cluster')).toHaveAttribute(
      'href',
      '/create/templates/default/new-aks-cluster',
    );
  });
});
