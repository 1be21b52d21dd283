/**
 * The migration candidates' wizard links when the policy allows migrating and answers after the rows are drawn (as it
 * does in a browser: the clusters come from the backend's cache, the answer from the permission backend). A file of
 * its own: the permission hook caches its answers for the whole file.
 */
import { permissionApiRef } from '@backstage/plugin-permission-react';
import { AuthorizeResult } from '@backstage/plugin-permission-common';
import { act, screen } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { clustersAnswer } from '../../__testUtils__/clustersView';
import { BASE, CLUSTERS } from '../../__testUtils__/fixtures';
import { renderCapz, setupCapzServer } from '../../__testUtils__/harness';
import { hintFor } from '@capz-backstage/plugin-capz-common';
import { ClustersPage } from './ClustersPage';

// The reason cells' words (columns.tsx reasonText): counted, to see which cells a permission answer draws again.
jest.mock('@capz-backstage/plugin-capz-common', () => {
  const actual = jest.requireActual('@capz-backstage/plugin-capz-common');
  return { ...actual, hintFor: jest.fn(actual.hintFor) };
});

const server = setupCapzServer();

describe('ClustersPage for a user the policy allows to migrate', () => {
  it("links a migration candidate to the wizard once the policy answers, after the rows are drawn, and leaves the other rows' cells as they were", async () => {
    server.use(
      http.get(`${BASE}/clusters`, ({ request }) =>
        HttpResponse.json(clustersAnswer(CLUSTERS, request.url)),
      ),
    );
    let answer: (result: AuthorizeResult.ALLOW) => void = () => {};
    const answered = new Promise<AuthorizeResult.ALLOW>(resolve => {
      answer = resolve;
    });
    renderCapz(<ClustersPage />, {
      apis: [
        [
          permissionApiRef,
          { authorize: async () => ({ result: await answered }) },
        ],
      ],
    });
    const candidate = 'Migration candidate: migrate legacy-web to the ASO API';
    expect(await screen.findByText('legacy-web')).toBeInTheDocument();
    expect(
      screen.queryByRole('link', { name: candidate }),
    ).not.toBeInTheDocument();
    const otherRow = screen.getByText('search-prod');
    const reasonsDrawn = jest.mocked(hintFor).mock.calls.length;
    expect(reasonsDrawn).toBeGreaterThan(0);

    await act(async () => answer(AuthorizeResult.ALLOW));
    expect(
      await screen.findByRole('link', { name: candidate }),
    ).toHaveAttribute(
      'href',
      '/capz/clusters/local/team-legacy-web/legacy-web/migrate',
    );
    // The answer drew the candidate's cell again, not the table: no reason cell was drawn again.
    expect(jest.mocked(hintFor).mock.calls.length).toBe(reasonsDrawn);
    expect(screen.getByText('search-prod')).toBe(otherRow);
  });
});
