import { withDay } from '../../__testUtils__/clock';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http, HttpResponse } from 'msw';
import { clustersAnswer } from '../../__testUtils__/clustersView';
import {
  CAPZ_SIGNAL_CHANNEL,
  ManagementClustersResponse,
} from '@capz-backstage/plugin-capz-common';
import { BASE, CLUSTERS, summary } from '../../__testUtils__/fixtures';
import {
  FakeSignals,
  renderCapz,
  setupCapzServer,
} from '../../__testUtils__/harness';
import { ClustersPage, sortFromParams, withSort } from './ClustersPage';
import { createClusterRouteRef } from '../../routes';
import { useLocation } from 'react-router-dom';

const server = setupCapzServer();

const MCS: ManagementClustersResponse = {
  items: [
    {
      name: 'local',
      authMethod: 'kubeconfig',
      status: { state: 'connected', version: 'v1.35.4' },
      watch: { synced: true, kinds: {} },
    },
    {
      name: 'demo-2',
      authMethod: 'kubeconfig',
      status: { state: 'connected', version: 'v1.35.4' },
      watch: { synced: true, kinds: {} },
    },
  ],
};

function serve(
  opts: { clusters?: typeof CLUSTERS; mcs?: ManagementClustersResponse } = {},
) {
  const calls = { clusters: 0, mcs: 0 };
  server.use(
    http.get(`${BASE}/clusters`, ({ request }) => {
      calls.clusters++;
      return HttpResponse.json(
        clustersAnswer(opts.clusters ?? CLUSTERS, request.url),
      );
    }),
    http.get(`${BASE}/management-clusters`, () => {
      calls.mcs++;
      return HttpResponse.json(opts.mcs ?? MCS);
    }),
  );
  return calls;
}

const table = () =>
  within(screen.getByRole('region', { name: 'Clusters' })).getByRole('table');
const clusterNames = () =>
  within(table())
    .getAllByRole('row')
    .slice(1)
    .map(r => within(r).getAllByRole('rowheader')[0]?.textContent ?? '');

/** A column header's sort button. */
const sortButton = (column: string) =>
  within(screen.getByRole('columnheader', { name: column })).getByRole(
    'button',
  );

describe('ClustersPage', () => {
  it('lists every cluster with health, reason and a link to its page, worst first', async () => {
    serve();
    renderCapz(<ClustersPage />);
    await screen.findByRole('region', { name: 'Clusters' });
    expect(clusterNames().map(n => n.replace(/team-.*$/, ''))).toEqual([
      'search-prod',
      'analytics',
      'legacy-web',
      'payments',
    ]);
    const row = screen.getByRole('row', { name: /search-prod/ });
    expect(within(row).getByText('Degraded')).toBeInTheDocument();
    // The why in plain words, then the deciding object and its message on the row itself (not only in a tooltip).
    expect(
      within(row).getByText('Azure is busy with another operation'),
    ).toBeInTheDocument();
    expect(
      within(row).getByText(
        'Managed cluster is busy with another operation (provisioningState Updating)',
      ),
    ).toBeInTheDocument();
    // The deciding object where there is no message.
    const analytics = screen.getByRole('row', { name: /analytics/ });
    expect(
      within(analytics).getByText('Being created or updated'),
    ).toBeInTheDocument();
    expect(
      within(analytics).getByText('MachinePool analytics-pool0'),
    ).toBeInTheDocument();
    expect(
      within(row).getByRole('link', { name: /search-prod/ }),
    ).toHaveAttribute('href', '/capz/clusters/local/team-search/search-prod');
    expect(
      within(screen.getByRole('row', { name: /legacy-web/ })).getByText(
        'Migration candidate',
      ),
    ).toBeInTheDocument();
    expect(screen.getByText('4 clusters')).toBeInTheDocument();
  });

  it('filters by search text', async () => {
    serve();
    renderCapz(<ClustersPage />);
    await screen.findByRole('region', { name: 'Clusters' });
    await userEvent.type(
      screen.getByRole('searchbox', { name: 'Search' }),
      'reconciliationblocked',
    );
    await waitFor(() => expect(clusterNames()).toHaveLength(1));
    expect(clusterNames()[0]).toMatch(/^search-prod/);
    expect(screen.getByText('1 of 4 clusters')).toBeInTheDocument();
  });

  it('filters by health from the at-a-glance counts, and clears filters', async () => {
    serve();
    renderCapz(<ClustersPage />);
    const glance = await screen.findByRole('group', {
      name: 'Health at a glance',
    });
    await userEvent.click(
      within(glance).getByRole('button', { name: /1 progressing/ }),
    );
    await waitFor(() => expect(clusterNames()).toHaveLength(1));
    expect(clusterNames()[0]).toMatch(/^analytics/);
    await userEvent.click(
      screen.getByRole('button', { name: 'Clear filters' }),
    );
    await waitFor(() => expect(clusterNames()).toHaveLength(4));
  });

  it.each([
    ['managementCluster=demo-2', ['analytics']],
    ['namespace=team-payments', ['payments']],
    ['health=healthy', ['legacy-web', 'payments']],
    ['api=azure-managed', ['legacy-web']],
    ['migration=yes', ['legacy-web']],
    ['migration=no', ['search-prod', 'analytics', 'payments']],
    ['location=northeurope', ['search-prod']],
  ])(
    'filters from the address (%s), so a filtered view is a link',
    async (query, expected) => {
      serve();
      renderCapz(<ClustersPage />, { path: `/?${query}` });
      await screen.findByRole('region', { name: 'Clusters' });
      await waitFor(() =>
        expect(clusterNames().map(n => n.replace(/team-.*$/, ''))).toEqual(
          expected,
        ),
      );
    },
  );

  it('keeps the filter selects behind "Filters" until asked, then filters by one', async () => {
    serve();
    renderCapz(<ClustersPage />);
    await screen.findByRole('region', { name: 'Clusters' });
    expect(
      screen.queryByRole('group', { name: 'Filters' }),
    ).not.toBeInTheDocument();
    const toggle = screen.getByRole('button', { name: 'Filters' });
    expect(toggle).toHaveAttribute('aria-expanded', 'false');
    await userEvent.click(toggle);
    const group = screen.getByRole('group', { name: 'Filters' });
    expect(
      screen.getByRole('button', { name: 'Hide filters' }),
    ).toHaveAttribute('aria-expanded', 'true');
    await userEvent.click(
      within(group).getByRole('button', { name: /Namespace/ }),
    );
    await userEvent.click(
      await screen.findByRole('option', { name: 'team-payments' }),
    );
    await waitFor(() =>
      expect(clusterNames().map(n => n.replace(/team-.*$/, ''))).toEqual([
        'payments',
      ]),
    );
    expect(
      screen.getByRole('button', { name: 'Hide filters (1 set)' }),
    ).toBeInTheDocument();
  });

  it('shows the filter selects from the start when the address sets one', async () => {
    serve();
    renderCapz(<ClustersPage />, { path: '/?location=northeurope' });
    const group = await screen.findByRole('group', { name: 'Filters' });
    // Its option arrives with the first answer's facets.
    await waitFor(() =>
      expect(
        within(group).getByRole('button', { name: /Location/ }),
      ).toHaveTextContent('northeurope'),
    );
    expect(
      screen.getByRole('button', { name: 'Hide filters (1 set)' }),
    ).toHaveAttribute('aria-expanded', 'true');
  });

  it('sorts by a column', async () => {
    serve();
    renderCapz(<ClustersPage />);
    await screen.findByRole('region', { name: 'Clusters' });
    await userEvent.click(sortButton('Cluster'));
    await waitFor(() =>
      expect(clusterNames().map(n => n.replace(/team-.*$/, ''))).toEqual([
        'analytics',
        'legacy-web',
        'payments',
        'search-prod',
      ]),
    );
  });

  it("opens a cluster's page from a click anywhere on its row, and leaves its other links to themselves", async () => {
    serve();
    function At() {
      return <output aria-label="Address">{useLocation().pathname}</output>;
    }
    renderCapz(
      <>
        <ClustersPage />
        <At />
      </>,
    );
    await screen.findByRole('region', { name: 'Clusters' });
    const address = screen.getByRole('status', { name: 'Address' });
    expect(address).toHaveTextContent(/^\/$/);
    // A migration candidate's link opens the wizard, not the row's cluster page.
    const legacy = screen.getByRole('row', { name: /legacy-web/ });
    await userEvent.click(
      within(legacy).getByRole('link', { name: /Migration candidate/ }),
    );
    expect(address).toHaveTextContent(
      '/capz/clusters/local/team-legacy-web/legacy-web/migrate',
    );
    // A click on the row's reason (no link there) opens the cluster's page.
    await userEvent.click(
      within(screen.getByRole('row', { name: /search-prod/ })).getByText(
        'Azure is busy with another operation',
      ),
    );
    expect(address).toHaveTextContent(
      '/capz/clusters/local/team-search/search-prod',
    );
  });

  it('offers New AKS cluster (the template) beside Adopt when the scaffolder is there, and not without it', async () => {
    serve();
    const { unmount } = renderCapz(<ClustersPage />, {
      routes: {
        '/create/templates/:namespace/:templateName': createClusterRouteRef,
      },
    });
    await screen.findByRole('region', { name: 'Clusters' });
    expect(
      screen.getByRole('link', { name: 'New AKS cluster' }),
    ).toHaveAttribute('href', '/create/templates/default/new-aks-cluster');
    // The test app's permission API allows everything: the jobs' links once it has answered (a user the policy
    // denies them: ClustersPage.permissions.test.tsx).
    expect(
      await screen.findByRole('link', { name: 'Adopt AKS cluster' }),
    ).toHaveAttribute('href', '/capz/adopt');
    expect(screen.getByRole('link', { name: 'Jobs' })).toHaveAttribute(
      'href',
      '/capz/jobs',
    );
    expect(screen.getByRole('link', { name: 'Fleet runs' })).toHaveAttribute(
      'href',
      '/capz/fleet-runs',
    );
    unmount();
    serve();
    renderCapz(<ClustersPage />);
    await screen.findByRole('region', { name: 'Clusters' });
    expect(
      screen.queryByRole('link', { name: 'New AKS cluster' }),
    ).not.toBeInTheDocument();
  });

  it('sorts from the address (sort, dir), so a sorted view is a link', async () => {
    serve();
    renderCapz(<ClustersPage />, {
      path: '/?health=healthy&sort=name&dir=descending',
    });
    await screen.findByRole('region', { name: 'Clusters' });
    await waitFor(() =>
      expect(clusterNames().map(n => n.replace(/team-.*$/, ''))).toEqual([
        'payments',
        'legacy-web',
      ]),
    );
  });

  it('writes the sort into the address, keeping the filters, and leaves the default sort out', () => {
    const filtered = new URLSearchParams('health=healthy&q=pay');
    const sorted = withSort(filtered, {
      column: 'name',
      direction: 'descending',
    });
    expect(sorted.toString()).toBe(
      'health=healthy&q=pay&sort=name&dir=descending',
    );
    expect(sortFromParams(sorted)).toEqual({
      column: 'name',
      direction: 'descending',
    });
    expect(
      withSort(sorted, { column: 'health', direction: 'ascending' }).toString(),
    ).toBe('health=healthy&q=pay');
    // Not a column: the page's own sort.
    expect(sortFromParams(new URLSearchParams('sort=__proto__'))).toEqual({
      column: 'health',
      direction: 'ascending',
    });
  });

  it('says which management cluster is unreachable and what to do', async () => {
    serve({
      mcs: {
        items: [
          ...MCS.items,
          {
            name: 'weu',
            authMethod: 'azure',
            status: {
              state: 'unreachable',
              message: 'connect ECONNREFUSED 10.0.0.1:443',
            },
          },
        ],
      },
    });
    renderCapz(<ClustersPage />);
    expect(
      await screen.findByText('Management cluster weu is unreachable'),
    ).toBeInTheDocument();
    expect(
      screen.getByText(
        /connect ECONNREFUSED 10.0.0.1:443\. Its clusters are missing/,
      ),
    ).toBeInTheDocument();
    expect(
      screen.getByText(/credentials under capz.managementClusters \(azure\)/),
    ).toBeInTheDocument();
    const list = screen.getByRole('list', { name: 'Management clusters' });
    expect(
      within(list)
        .getAllByRole('listitem')
        .map(li => li.textContent),
    ).toEqual([
      'local Connected · v1.35.4',
      'demo-2 Connected · v1.35.4',
      'weu Unreachable',
    ]);
  });

  it('explains an empty list', async () => {
    serve({ clusters: [] });
    renderCapz(<ClustersPage />);
    expect(
      await screen.findByText(/No Cluster API clusters were found/),
    ).toBeInTheDocument();
    expect(
      screen.getByRole('link', { name: 'New AKS cluster' }),
    ).toBeInTheDocument();
  });

  it('explains a missing management cluster configuration', async () => {
    serve({ clusters: [], mcs: { items: [] } });
    renderCapz(<ClustersPage />);
    expect(
      await screen.findByText('No management cluster is configured'),
    ).toBeInTheDocument();
  });

  it('says when nothing matches the filters', async () => {
    serve();
    renderCapz(<ClustersPage />, { path: '/?q=nothing-like-this' });
    expect(
      await screen.findByText(/No cluster matches these filters/),
    ).toBeInTheDocument();
  });

  it('shows a loading state until the clusters arrive', async () => {
    serve();
    renderCapz(<ClustersPage />);
    expect(
      screen.getByRole('status', { name: 'Loading clusters' }),
    ).toBeInTheDocument();
    await screen.findByRole('region', { name: 'Clusters' });
    expect(
      screen.queryByRole('status', { name: 'Loading clusters' }),
    ).not.toBeInTheDocument();
  });

  it('shows a permission error with what to do', async () => {
    server.use(
      http.get(`${BASE}/clusters`, () =>
        HttpResponse.json(
          {
            error: {
              name: 'NotAllowedError',
              message: 'Not allowed to read CAPZ clusters',
            },
            response: { statusCode: 403 },
          },
          { status: 403 },
        ),
      ),
      http.get(`${BASE}/management-clusters`, () => HttpResponse.json(MCS)),
    );
    renderCapz(<ClustersPage />);
    expect(
      await screen.findByText('Could not load the clusters'),
    ).toBeInTheDocument();
    expect(
      screen.getByText(/Not allowed to read CAPZ clusters/),
    ).toBeInTheDocument();
    expect(
      screen.getByText(
        /Ask a platform engineer for the capz.cluster.read permission/,
      ),
    ).toBeInTheDocument();
  });

  it('refetches on a change signal, so a new cluster appears without reload', async () => {
    const signals = new FakeSignals();
    let items = CLUSTERS;
    let calls = 0;
    server.use(
      http.get(`${BASE}/clusters`, ({ request }) => {
        calls++;
        return HttpResponse.json(clustersAnswer(items, request.url));
      }),
      http.get(`${BASE}/management-clusters`, () => HttpResponse.json(MCS)),
    );
    renderCapz(<ClustersPage />, { signals });
    await screen.findByText('4 clusters');
    expect(calls).toBe(1);
    items = [...CLUSTERS, summary({ name: 'brand-new' })];
    signals.publish(CAPZ_SIGNAL_CHANNEL, {
      clusterUids: ['uid-cluster-brand-new'],
    });
    signals.publish(CAPZ_SIGNAL_CHANNEL, {
      clusterUids: ['uid-cluster-payments'],
    });
    expect(await screen.findByText('5 clusters')).toBeInTheDocument();
    expect(screen.getByRole('row', { name: /brand-new/ })).toBeInTheDocument();
    // Two messages in a burst: one refetch.
    expect(calls).toBe(2);
  });

  it('reads one page of the view from the server with its facets, and the next page on Next', async () => {
    const fleet = Array.from({ length: 60 }, (_, i) =>
      summary({
        name: `c${String(i).padStart(3, '0')}`,
        namespace: 'team-fleet',
        health: i === 57 ? 'failed' : 'healthy',
      }),
    );
    const asked: URLSearchParams[] = [];
    server.use(
      http.get(`${BASE}/clusters`, ({ request }) => {
        asked.push(new URL(request.url).searchParams);
        return HttpResponse.json(clustersAnswer(fleet, request.url));
      }),
      http.get(`${BASE}/management-clusters`, () => HttpResponse.json(MCS)),
    );
    renderCapz(<ClustersPage />, { path: '/?namespace=team-fleet' });
    expect(await screen.findByText('60 of 60 clusters')).toBeInTheDocument();
    expect(Object.fromEntries(asked[0])).toEqual({
      namespace: 'team-fleet',
      sort: 'health',
      dir: 'ascending',
      offset: '0',
      limit: '50',
      facets: 'true',
      today: new Date().toISOString().slice(0, 10),
    });
    // Worst first: the failed one heads the first page; the counts are the whole fleet's.
    await waitFor(() => expect(clusterNames()[0]).toMatch(/^c057/));
    expect(
      screen.getByRole('button', { name: /1 failed/i }),
    ).toBeInTheDocument();
    await userEvent.click(
      screen.getByRole('button', { name: 'Next table page' }),
    );
    // c057 heads the first page, so the second starts at the 50th healthy one.
    await waitFor(() => expect(clusterNames()[0]).toMatch(/^c049/));
    expect(asked[asked.length - 1].get('offset')).toBe('50');
    // A new sort starts the view again at its first page.
    await userEvent.click(sortButton('Cluster'));
    await waitFor(() => expect(clusterNames()[0]).toMatch(/^c000/));
    expect(asked[asked.length - 1].get('offset')).toBe('0');
    expect(asked[asked.length - 1].get('sort')).toBe('name');
  });

  it('works without the signals API: fetches once and does not poll', async () => {
    const calls = serve();
    renderCapz(<ClustersPage />);
    await screen.findByText('4 clusters');
    expect(calls.clusters).toBe(1);
    expect(screen.queryByText(/Live/)).not.toBeInTheDocument();
  });

  it('flags a cluster whose AKS cluster is managed from more than one place, naming the other places', async () => {
    const clusters = [
      summary({
        name: 'payments',
        managedFrom: [
          {
            managementCluster: 'demo-2',
            namespace: 'team-copy',
            name: 'payments',
            cluster: 'payments',
          },
          {
            managementCluster: 'local',
            namespace: 'scratch',
            name: 'payments-by-hand',
          },
        ],
      }),
      summary({ name: 'search' }),
    ];
    serve({ clusters });
    renderCapz(<ClustersPage />);
    await screen.findByRole('region', { name: 'Clusters' });
    const row = screen.getByRole('row', { name: /payments/ });
    const badge = within(row).getByText('Managed from 3 places');
    expect(badge).toHaveAttribute(
      'title',
      expect.stringContaining(
        'also managed by ManagedCluster demo-2/team-copy/payments, local/scratch/payments-by-hand',
      ),
    );
    expect(
      within(row).getByText(
        'Also: demo-2/team-copy/payments, local/scratch/payments-by-hand',
      ),
    ).toBeInTheDocument();
    expect(within(row).getByRole('link', { name: 'payments' })).toHaveAttribute(
      'href',
      '/capz/clusters/local/team-payments/payments',
    );
    expect(
      within(screen.getByRole('row', { name: /search/ })).queryByText(
        /Managed from/,
      ),
    ).not.toBeInTheDocument();
    // And once above the table, with what to do.
    expect(
      screen.getByText('1 cluster is managed from more than one place'),
    ).toBeInTheDocument();
    expect(
      screen.getByText(
        /local\/team-payments\/payments \(also demo-2\/team-copy\/payments, local\/scratch\/payments-by-hand\)\. .*reconcile-policy: skip/,
      ),
    ).toBeInTheDocument();
  });
});

describe('ClustersPage: what needs attention', () => {
  withDay('2026-12-03T12:00:00Z');

  const FLEET = [
    summary({ name: 'current', kubernetesVersion: 'v1.35.1' }),
    // 1.34's community support ended Nov 30, 2026: platform support only.
    summary({ name: 'behind', kubernetesVersion: 'v1.34.2' }),
    summary({
      name: 'alpha',
      api: 'aso-v1alpha1',
      kubernetesVersion: 'v1.35.1',
    }),
    summary({
      name: 'fought',
      kubernetesVersion: 'v1.35.1',
      lifecycle: {
        conflicts: [
          {
            id: 'auto-upgrade-with-version',
            message: 'AKS upgrades this cluster on its own',
            fix: 'Choose one owner of the version',
          },
        ],
      },
    }),
  ];

  it('counts the clusters that need attention now and soon, filters by them, and says the reason in the version column', async () => {
    serve({ clusters: FLEET });
    renderCapz(<ClustersPage />);
    const group = await screen.findByRole('group', { name: 'Attention' });
    await userEvent.click(
      within(group).getByRole('button', { name: '2 need attention now' }),
    );
    await waitFor(() => expect(clusterNames()).toHaveLength(2));
    expect(
      clusterNames()
        .map(n => n.replace(/team-.*$/, ''))
        .sort(),
    ).toEqual(['behind', 'fought']);
    expect(
      within(screen.getByRole('row', { name: /behind/ })).getByText(
        'platform support only',
      ),
    ).toBeInTheDocument();
    expect(
      within(screen.getByRole('row', { name: /fought/ })).getByText(
        'AKS auto-upgrade beside spec.version',
      ),
    ).toBeInTheDocument();
    await userEvent.click(
      within(group).getByRole('button', { name: '1 soon' }),
    );
    await waitFor(() => expect(clusterNames()).toHaveLength(1));
    expect(clusterNames()[0]).toMatch(/^alpha/);
    expect(
      within(screen.getByRole('row', { name: /alpha/ })).getByText(
        'written at v1alpha1',
      ),
    ).toBeInTheDocument();
  });

  it('filters from the address, and says a supported version is supported', async () => {
    serve({ clusters: FLEET });
    renderCapz(<ClustersPage />, { path: '/?attention=any' });
    await screen.findByRole('region', { name: 'Clusters' });
    await waitFor(() => expect(clusterNames()).toHaveLength(3));
    expect(clusterNames().some(n => n.startsWith('current'))).toBe(false);
    await userEvent.click(
      screen.getByRole('button', { name: 'Clear filters' }),
    );
    await waitFor(() => expect(clusterNames()).toHaveLength(4));
    expect(
      within(screen.getByRole('row', { name: /current/ })).getByText(
        'supported',
      ),
    ).toBeInTheDocument();
  });
});
