/**
 * The clusters page with 1,000 clusters: how often its rows render and how many it mounts. Counts, never
 * times.
 */
import { Profiler } from 'react';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http, HttpResponse } from 'msw';
import { clustersAnswer } from '../../__testUtils__/clustersView';
import { ClusterSummary } from '@capz-backstage/plugin-capz-common';
import { BASE, summary } from '../../__testUtils__/fixtures';
import { renderCapz, setupCapzServer } from '../../__testUtils__/harness';
import { ClustersPage } from './ClustersPage';

// Counts the renders of the rows' health cells: one per row each time a row renders.
const healthCells = { renders: 0 };
jest.mock('../shared/health', () => {
  const actual = jest.requireActual('../shared/health');
  return {
    ...actual,
    HealthLabel: (props: any) => {
      healthCells.renders++;
      const Label = actual.HealthLabel;
      return <Label {...props} />;
    },
  };
});

const server = setupCapzServer();
// A hang detector: typing a search over 1,000 clusters in jsdom took 24 s of the default 60 s under stress-ng.
jest.setTimeout(180_000);

const HEALTHS = ['healthy', 'progressing', 'degraded', 'failed'] as const;
const MANY: ClusterSummary[] = Array.from({ length: 1000 }, (_, i) =>
  summary({
    name: `cluster-${String(i).padStart(4, '0')}`,
    managementCluster: i % 2 ? 'mc-b' : 'mc-a',
    health: HEALTHS[i % 4],
  }),
);

function serve() {
  server.use(
    http.get(`${BASE}/clusters`, ({ request }) =>
      HttpResponse.json(clustersAnswer(MANY, request.url)),
    ),
    http.get(`${BASE}/management-clusters`, () =>
      HttpResponse.json({
        items: ['mc-a', 'mc-b'].map(name => ({
          name,
          authMethod: 'kubeconfig',
          status: { state: 'connected', version: 'v1.35.4' },
          watch: { synced: true, kinds: {} },
        })),
      }),
    ),
  );
}

const bodyRows = (region: HTMLElement) =>
  within(region).getAllByRole('row').slice(1);

describe('ClustersPage with 1,000 clusters', () => {
  it('renders each row once when the clusters and the management clusters arrive', async () => {
    serve();
    healthCells.renders = 0;
    let commits = 0;
    renderCapz(
      <Profiler id="page" onRender={() => commits++}>
        <ClustersPage />
      </Profiler>,
    );
    const region = await screen.findByRole('region', { name: 'Clusters' });
    await screen.findByRole('list', { name: 'Management clusters' });
    await screen.findByText('1000 clusters');
    expect(bodyRows(region)).toHaveLength(50);
    // Let any update the page still has queued commit before counting.
    const settled = commits;
    await waitFor(() => expect(commits).toBe(settled));
    expect(healthCells.renders).toBe(50);
  });

  it('mounts the one page it shows, while search, filters and sorting cover all 1,000', async () => {
    serve();
    renderCapz(<ClustersPage />);
    const region = await screen.findByRole('region', { name: 'Clusters' });
    await screen.findByText('1000 clusters');
    expect(bodyRows(region)).toHaveLength(50);
    // A table of that page's rows for assistive technology, sorted the way its header says.
    expect(
      within(region).getByRole('columnheader', { name: 'Health' }),
    ).toHaveAttribute('aria-sort', 'ascending');

    // Sorting covers every cluster: by name, descending, the last one comes first.
    const nameHeader = within(region).getByRole('columnheader', {
      name: 'Cluster',
    });
    await userEvent.click(within(nameHeader).getByRole('button'));
    await waitFor(() =>
      expect(nameHeader).toHaveAttribute('aria-sort', 'ascending'),
    );
    await userEvent.click(within(nameHeader).getByRole('button'));
    await waitFor(() =>
      expect(
        within(bodyRows(region)[0]).getAllByRole('rowheader')[0],
      ).toHaveTextContent(/^cluster-0999/),
    );
    expect(nameHeader).toHaveAttribute('aria-sort', 'descending');
    expect(bodyRows(region)).toHaveLength(50);

    // And so does the search.
    await userEvent.type(
      screen.getByRole('searchbox', { name: 'Search' }),
      'cluster-0998',
    );
    await waitFor(() => expect(bodyRows(region)).toHaveLength(1));
    expect(screen.getByText('1 of 1000 clusters')).toBeInTheDocument();
  });
});
