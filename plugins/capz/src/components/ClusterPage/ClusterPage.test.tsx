import { withDay } from '../../__testUtils__/clock';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http, HttpResponse } from 'msw';
import {
  CAPZ_SIGNAL_CHANNEL,
  ClusterGitSource,
  TreeNode,
} from '@capz-backstage/plugin-capz-common';
import {
  BASE,
  event,
  node,
  SEARCH_PROD,
  searchProdTree,
  transition,
} from '../../__testUtils__/fixtures';
import {
  FakeSignals,
  renderCapz,
  setupCapzServer,
} from '../../__testUtils__/harness';
import { CapzPage } from '../CapzPage';
import { jobDetails, JOB_ID } from '../../__testUtils__/jobFixtures';

const server = setupCapzServer();
const CLUSTER = `${BASE}/clusters/local/team-search/search-prod`;
const PATH = '/capz/clusters/local/team-search/search-prod';

function serve(
  opts: { tree?: () => TreeNode; summary?: typeof SEARCH_PROD } = {},
) {
  const calls = { tree: [] as string[], timeline: [] as string[], yaml: 0 };
  server.use(
    // The active-job banner asks once per page.
    http.get(`${BASE}/jobs`, () => HttpResponse.json({ items: [] })),
    http.get(`${CLUSTER}/tree`, ({ request }) => {
      calls.tree.push(new URL(request.url).search);
      return HttpResponse.json({
        summary: opts.summary ?? SEARCH_PROD,
        tree: (opts.tree ?? searchProdTree)(),
      });
    }),
    http.get(`${CLUSTER}/timeline`, ({ request }) => {
      const url = new URL(request.url);
      calls.timeline.push(url.search);
      const uid = url.searchParams.get('uid');
      // Oldest first, as the API returns them.
      const all = [
        transition({
          objectUid: 'uid-rg',
          kind: 'ResourceGroup',
          transitionTime: '2026-11-21T08:00:00Z',
        }),
        transition({
          transitionTime: '2026-11-21T09:00:00Z',
          status: 'True',
          reason: 'Succeeded',
        }),
        transition({
          transitionTime: '2026-11-21T11:00:00Z',
          status: 'False',
          reason: 'ReconciliationBlocked',
          severity: 'Warning',
          message: 'busy',
        }),
      ];
      return HttpResponse.json({
        from: url.searchParams.get('from'),
        to: url.searchParams.get('to'),
        transitions: uid ? all.filter(t => t.objectUid === uid) : all,
        events: [
          event({
            lastTimestamp: '2026-11-21T11:00:05Z',
            message: 'Operation Updating is in progress',
          }),
        ].filter(e => !uid || e.objectUid === uid),
        truncated: false,
      });
    }),
    http.get(`${CLUSTER}/objects/:uid`, ({ params }) => {
      calls.yaml++;
      return HttpResponse.json({
        kind: 'ManagedCluster',
        name: 'search-prod',
        namespace: 'team-search',
        yaml: `apiVersion: containerservice.azure.com/v1api20240901\nkind: ManagedCluster\nmetadata:\n  uid: ${params.uid}\n`,
      });
    }),
  );
  return calls;
}

const tree = () =>
  screen.getByRole('treegrid', { name: 'Resources of cluster search-prod' });
const details = (name: RegExp) => screen.getByRole('region', { name });

describe('cluster page', () => {
  it('shows the tree and, selected already, why the cluster is not ready with a plain-language hint', async () => {
    serve();
    renderCapz(<CapzPage />, { path: PATH, mountPath: '/capz/*' });
    await screen.findByRole('treegrid', {
      name: 'Resources of cluster search-prod',
    });
    const mc = within(tree()).getByRole('row', {
      name: /ManagedCluster search-prod, Degraded, ReconciliationBlocked/,
    });
    expect(mc).toHaveAttribute('aria-selected', 'true');
    const panel = details(/Details of ManagedCluster search-prod/);
    expect(
      within(panel).getByText(
        /Degraded: ReconciliationBlocked — Azure is busy with another operation/,
      ),
    ).toBeInTheDocument();
    expect(within(panel).getByText(/What to do:/)).toBeInTheDocument();
    expect(
      within(panel).getByRole('table', {
        name: 'Conditions of ManagedCluster search-prod',
      }),
    ).toHaveTextContent('ReconciliationBlocked');
    // Grouped pools read as one row.
    expect(
      within(tree()).getByRole('row', {
        name: /Group of 3 MachinePools, Healthy/,
      }),
    ).toBeInTheDocument();
  });

  it('a paused cluster reads paused, not broken: pools paused, one plain title, a pause by hand explained', async () => {
    const paused = (): TreeNode => {
      const t = searchProdTree();
      const pause = (n: TreeNode): TreeNode => ({
        ...n,
        health: 'paused',
        reason: 'Paused',
        message: `${n.kind} ${n.name} is paused`,
        source: undefined,
        children: n.children.map(pause),
      });
      return { ...pause(t), facts: { paused: true } };
    };
    serve({
      tree: paused,
      summary: {
        ...SEARCH_PROD,
        health: 'paused',
        reason: 'Paused',
        message: 'Cluster search-prod is paused',
        pools: { total: 3, ready: 0, paused: 3, replicas: 9 },
      },
    });
    renderCapz(<CapzPage />, { path: PATH, mountPath: '/capz/*' });
    await screen.findByRole('treegrid');
    expect(screen.getByText(/3\/3 pools paused, 9 nodes/)).toBeInTheDocument();
    expect(screen.queryByText(/pools ready/)).not.toBeInTheDocument();
    // The deepest paused object is selected; its label, reason and hint are all "Paused": said once.
    const panel = details(/^Details of ResourceGroup search-prod/);
    expect(within(panel).getAllByText('Paused').length).toBeGreaterThan(0);
    expect(
      within(panel).queryByText(/Paused: Paused|Paused — Paused/),
    ).not.toBeInTheDocument();
    expect(
      within(panel).getByText(
        /made by hand \(Cluster actions\) or by a step of a migration job/,
      ),
    ).toBeInTheDocument();
  });

  it('flags a cluster whose AKS cluster is managed from another place too, and says what to do', async () => {
    serve({
      summary: {
        ...SEARCH_PROD,
        managedFrom: [
          {
            managementCluster: 'edge',
            namespace: 'by-hand',
            name: 'search-prod',
          },
        ],
      },
    });
    renderCapz(<CapzPage />, { path: PATH, mountPath: '/capz/*' });
    await screen.findByRole('treegrid');
    expect(
      screen.getByText('1 cluster is managed from more than one place'),
    ).toBeInTheDocument();
    expect(
      screen.getByText(
        /local\/team-search\/search-prod \(also edge\/by-hand\/search-prod\)\. .*reconcile-policy: skip on the other ManagedCluster, then delete it/,
      ),
    ).toBeInTheDocument();
  });

  it('says who applies the cluster when Flux does', async () => {
    serve({
      summary: {
        ...SEARCH_PROD,
        appliedBy: "Flux's Kustomization flux-system/clusters",
      },
    });
    renderCapz(<CapzPage />, { path: PATH, mountPath: '/capz/*' });
    await screen.findByRole('treegrid');
    expect(
      screen.getByText(
        "Applied by Flux's Kustomization flux-system/clusters: change it in Git.",
      ),
    ).toBeInTheDocument();
  });

  describe('its lifecycle', () => {
    withDay('2026-12-03T12:00:00Z');

    it('lists each reason it needs attention with the fix, the most urgent first', async () => {
      serve({
        summary: {
          ...SEARCH_PROD,
          api: 'azure-managed',
          kubernetesVersion: 'v1.34.2',
          lifecycle: {
            poolSkews: [
              {
                pool: 'search-prod-user',
                poolVersion: 'v1.30.1',
                controlPlaneVersion: 'v1.34.2',
                behind: 4,
                message:
                  'Pool search-prod-user runs v1.30.1, 4 minor versions behind',
                fix: 'Upgrade pool search-prod-user to 1.31 or later',
              },
            ],
          },
        },
      });
      renderCapz(<CapzPage />, { path: PATH, mountPath: '/capz/*' });
      const notes = await screen.findByRole('list', {
        name: 'Needs attention',
      });
      const alerts = within(notes).getAllByRole('listitem');
      expect(alerts.map(a => a.textContent)).toEqual([
        expect.stringMatching(
          /^Kubernetes 1\.34's community support ended Nov 30, 2026: platform support only.*Upgrade the control plane to 1\.35, then its node pools/,
        ),
        expect.stringMatching(
          /^Pool search-prod-user runs v1\.30\.1.*Upgrade pool search-prod-user to 1\.31 or later/,
        ),
        expect.stringMatching(
          /^This cluster uses the legacy AzureManagedControlPlane API.*"Migrate to ASO API" on its page/,
        ),
      ]);
    });

    it('says how long its version is supported when nothing needs attention', async () => {
      serve({ summary: { ...SEARCH_PROD, kubernetesVersion: 'v1.35.1' } });
      renderCapz(<CapzPage />, { path: PATH, mountPath: '/capz/*' });
      expect(
        await screen.findByText(
          'Kubernetes 1.35 is supported until Mar 31, 2027 (in 118 days).',
        ),
      ).toBeInTheDocument();
      expect(
        screen.queryByRole('list', { name: 'Needs attention' }),
      ).not.toBeInTheDocument();
    });

    it("judges with the operator's calendar and soonDays (capz.lifecycle)", async () => {
      serve({ summary: { ...SEARCH_PROD, kubernetesVersion: 'v1.34.2' } });
      renderCapz(<CapzPage />, {
        path: PATH,
        mountPath: '/capz/*',
        config: {
          // The test app's own config is replaced: the page builds links on the backend's URL.
          backend: { baseUrl: 'http://localhost:7007' },
          capz: {
            lifecycle: {
              soonDays: 90,
              // AKS extended 1.34 (the shipped table ends it Nov 30, 2026: platform support only on this day).
              calendar: [
                { minor: '1.34', ga: '2025-11', endOfLife: '2027-02-28' },
              ],
            },
          },
        },
      });
      // Still supported, for 87 days: within the configured 90 (not within the default 60), so it needs attention.
      const notes = await screen.findByRole('list', {
        name: 'Needs attention',
      });
      expect(
        within(notes)
          .getAllByRole('listitem')
          .map(a => a.textContent),
      ).toEqual([
        expect.stringMatching(
          /^Kubernetes 1\.34 is supported until Feb 28, 2027 \(in 87 days\)\.Upgrade the control plane to 1\.35/,
        ),
      ]);
    });
  });

  describe('where a cluster applied from Git comes from', () => {
    const A = '1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d';
    const B = '5d6e7f8091a2b3c4d5e6f708192a3b4c5d6e7f80';
    const inSync: ClusterGitSource = {
      kustomization: { namespace: 'flux-system', name: 'clusters' },
      source: {
        kind: 'GitRepository',
        namespace: 'flux-system',
        name: 'gitops',
      },
      sourceFound: true,
      url: 'http://gitea.local:3000/admin/gitops.git',
      branch: 'main',
      path: './clusters',
      lastAppliedRevision: `main@sha1:${A}`,
      sourceRevision: `main@sha1:${A}`,
      ready: {
        status: 'True',
        reason: 'ReconciliationSucceeded',
        message: `Applied revision: main@sha1:${A}`,
      },
      suspended: false,
      generation: 2,
      observedGeneration: 2,
      inSync: true,
    };
    const FROM =
      "Applied by Flux's Kustomization flux-system/clusters from http://gitea.local:3000/admin/gitops.git, branch main, path ./clusters, at revision 1a2b3c4";
    /** The page's "Applied by" lines, each as one line of text (the verdict is a span of its own). */
    const appliedLines = () =>
      screen.getAllByText(/^Applied by /).map(el => el.textContent);
    const page = async (gitSource?: ClusterGitSource, appliedBy?: string) => {
      serve({
        summary: {
          ...SEARCH_PROD,
          appliedBy: appliedBy ?? "Flux's Kustomization flux-system/clusters",
          ...(gitSource ? { gitSource } : {}),
        },
      });
      renderCapz(<CapzPage />, { path: PATH, mountPath: '/capz/*' });
      await screen.findByRole('treegrid');
      return appliedLines();
    };

    it('names the Kustomization, the repository, branch, path and applied commit, and says Flux is in sync', async () => {
      expect(await page(inSync)).toEqual([
        `${FROM} — in sync. Change it in Git.`,
      ]);
      expect(screen.getByText('in sync')).toBeInTheDocument();
    });

    it('says it is not in sync when the source is ahead of what Flux applied', async () => {
      expect(
        await page({
          ...inSync,
          sourceRevision: `main@sha1:${B}`,
          inSync: false,
        }),
      ).toEqual([
        `${FROM} — not in sync: applied 1a2b3c4, the source is at 5d6e7f8. Change it in Git.`,
      ]);
    });

    it('says it is suspended', async () => {
      expect(await page({ ...inSync, suspended: true, inSync: false })).toEqual(
        [`${FROM} — suspended. Change it in Git.`],
      );
    });

    it("says it is not Ready, with the Kustomization's message", async () => {
      expect(
        await page({
          ...inSync,
          ready: {
            status: 'False',
            reason: 'BuildFailed',
            message:
              'kustomize build failed: accumulating resources from ./clusters/missing',
          },
          inSync: false,
        }),
      ).toEqual([
        `${FROM} — not Ready: kustomize build failed: accumulating resources from ./clusters/missing. Change it in Git.`,
      ]);
    });

    it("says it when the backend does not see the Kustomization's GitRepository", async () => {
      const {
        url: _url,
        branch: _branch,
        sourceRevision: _rev,
        ...unseen
      } = inSync;
      expect(
        await page({ ...unseen, sourceFound: false, inSync: false }),
      ).toEqual([
        "Applied by Flux's Kustomization flux-system/clusters from GitRepository flux-system/gitops, path ./clusters, at revision 1a2b3c4 — sync unknown: the backend does not see its GitRepository flux-system/gitops. Change it in Git.",
      ]);
    });

    it('also says who applies the Cluster when that is not the Kustomization of its Git source', async () => {
      expect(
        await page(
          {
            ...inSync,
            kustomization: { namespace: 'flux-system', name: 'pools' },
          },
          "Argo CD's Application clusters",
        ),
      ).toEqual([
        "Applied by Flux's Kustomization flux-system/pools from http://gitea.local:3000/admin/gitops.git, branch main, path ./clusters, at revision 1a2b3c4 — in sync. Change it in Git.",
        "Applied by Argo CD's Application clusters: change it in Git.",
      ]);
    });
  });

  it('shows no such flag for a cluster managed from one place', async () => {
    serve();
    renderCapz(<CapzPage />, { path: PATH, mountPath: '/capz/*' });
    await screen.findByRole('treegrid');
    expect(
      screen.queryByText(/managed from more than one place/),
    ).not.toBeInTheDocument();
  });

  it('answers "why is it not ready" in one click from anywhere', async () => {
    serve();
    renderCapz(<CapzPage />, { path: PATH, mountPath: '/capz/*' });
    await screen.findByRole('treegrid');
    await userEvent.click(
      within(tree()).getByRole('row', { name: /^ResourceGroup search-prod/ }),
    );
    expect(details(/Details of ResourceGroup search-prod/)).toBeInTheDocument();
    await userEvent.click(
      screen.getByRole('button', { name: 'Why is it not ready?' }),
    );
    expect(
      details(/Details of ManagedCluster search-prod/),
    ).toBeInTheDocument();
  });

  it('is navigable by keyboard: arrows move, Left collapses, Right expands, selection follows', async () => {
    serve();
    renderCapz(<CapzPage />, { path: PATH, mountPath: '/capz/*' });
    await screen.findByRole('treegrid');
    const root = within(tree()).getByRole('row', {
      name: /^Cluster search-prod/,
    });
    await userEvent.click(root);
    expect(root).toHaveAttribute('aria-expanded', 'true');
    await userEvent.keyboard('{ArrowDown}');
    const infra = within(tree()).getByRole('row', {
      name: /^AzureASOManagedCluster search-prod/,
    });
    expect(infra).toHaveFocus();
    await userEvent.keyboard('{ArrowLeft}');
    expect(infra).toHaveAttribute('aria-expanded', 'false');
    expect(
      within(tree()).queryByRole('row', { name: /^ResourceGroup/ }),
    ).not.toBeInTheDocument();
    await userEvent.keyboard('{ArrowRight}');
    expect(infra).toHaveAttribute('aria-expanded', 'true');
    await userEvent.keyboard('{ArrowDown}{Enter}');
    expect(details(/Details of ResourceGroup search-prod/)).toBeInTheDocument();
  });

  it('shows recent Events, the object timeline and the YAML of the selected object', async () => {
    const calls = serve();
    renderCapz(<CapzPage />, { path: PATH, mountPath: '/capz/*' });
    await screen.findByRole('treegrid');
    const panel = details(/Details of ManagedCluster search-prod/);
    expect(calls.yaml).toBe(0);
    await userEvent.click(within(panel).getByRole('tab', { name: 'Events' }));
    expect(
      await within(panel).findByRole('table', { name: 'Recent Events' }),
    ).toHaveTextContent('Operation Updating is in progress');
    expect(calls.timeline.some(q => q.includes('uid=uid-mc'))).toBe(true);
    await userEvent.click(within(panel).getByRole('tab', { name: 'YAML' }));
    expect(
      await within(panel).findByLabelText('YAML of ManagedCluster search-prod'),
    ).toHaveTextContent('uid: uid-mc');
    await userEvent.click(within(panel).getByRole('tab', { name: 'Timeline' }));
    expect(
      await within(panel).findByRole('group', {
        name: 'Condition timeline of ManagedCluster search-prod',
      }),
    ).toBeInTheDocument();
  });

  it('shows the cluster timeline with the transition', async () => {
    serve();
    renderCapz(<CapzPage />, { path: PATH, mountPath: '/capz/*' });
    await screen.findByRole('treegrid');
    await userEvent.click(
      within(screen.getByRole('tablist', { name: 'Cluster views' })).getByRole(
        'tab',
        { name: 'Timeline' },
      ),
    );
    const timeline = await screen.findByRole('group', {
      name: 'Condition timeline',
    });
    expect(
      within(timeline).getByRole('listbox', {
        name: /ManagedCluster search-prod · Ready: 2 transitions, last False \(ReconciliationBlocked\)/,
      }),
    ).toBeInTheDocument();
    const list = screen.getByRole('region', { name: 'Transitions' });
    expect(within(list).getAllByRole('row')[1]).toHaveTextContent(
      /ManagedCluster search-prod.*Ready.*False.*ReconciliationBlocked/,
    );
  });

  it('turns grouping off on request', async () => {
    const calls = serve();
    renderCapz(<CapzPage />, { path: PATH, mountPath: '/capz/*' });
    await screen.findByRole('treegrid');
    expect(calls.tree).toEqual(['?group=3']);
    await userEvent.click(
      screen.getByRole('switch', { name: 'Group similar objects' }),
    );
    await waitFor(() => expect(calls.tree).toEqual(['?group=3', '?group=0']));
  });

  it('shows a loading state until the cluster arrives', async () => {
    serve();
    let answer!: () => void;
    const gate = new Promise<void>(r => {
      answer = r;
    });
    server.use(
      http.get(`${CLUSTER}/tree`, async () => {
        await gate;
        return HttpResponse.json({
          summary: SEARCH_PROD,
          tree: searchProdTree(),
        });
      }),
    );
    renderCapz(<CapzPage />, { path: PATH, mountPath: '/capz/*' });
    expect(
      await screen.findByRole('status', { name: 'Loading the cluster' }),
    ).toBeInTheDocument();
    answer();
    await screen.findByRole('treegrid');
    expect(
      screen.queryByRole('status', { name: 'Loading the cluster' }),
    ).not.toBeInTheDocument();
  });

  it('says what to do when the cluster does not exist', async () => {
    server.use(
      http.get(`${BASE}/jobs`, () => HttpResponse.json({ items: [] })),
      http.get(`${BASE}/clusters/local/team-x/gone/tree`, () =>
        HttpResponse.json(
          {
            error: {
              name: 'NotFoundError',
              message: 'Cluster team-x/gone not found in local',
            },
            response: { statusCode: 404 },
          },
          { status: 404 },
        ),
      ),
    );
    renderCapz(<CapzPage />, {
      path: '/capz/clusters/local/team-x/gone',
      mountPath: '/capz/*',
    });
    expect(
      await screen.findByText('Could not load cluster team-x/gone'),
    ).toBeInTheDocument();
    expect(
      screen.getByText(/Cluster team-x\/gone not found in local/),
    ).toBeInTheDocument();
    expect(
      screen.getByText(/Go back to the clusters page/),
    ).toBeInTheDocument();
  });

  it('says the cluster was deleted, with a way back to the list, when a live update finds it gone', async () => {
    const signals = new FakeSignals();
    serve();
    let gone = false;
    server.use(
      http.get(`${CLUSTER}/tree`, () =>
        gone
          ? HttpResponse.json(
              {
                error: {
                  name: 'NotFoundError',
                  message: 'Cluster team-search/search-prod not found in local',
                },
                response: { statusCode: 404 },
              },
              { status: 404 },
            )
          : HttpResponse.json({
              summary: SEARCH_PROD,
              tree: searchProdTree(),
            }),
      ),
    );
    renderCapz(<CapzPage />, { path: PATH, signals, mountPath: '/capz/*' });
    await screen.findByRole('treegrid');
    gone = true;
    signals.publish(CAPZ_SIGNAL_CHANNEL, { clusterUids: [SEARCH_PROD.uid] });
    expect(
      await screen.findByText('Cluster team-search/search-prod was deleted'),
    ).toBeInTheDocument();
    expect(screen.queryByText(/Could not load cluster/)).toBeNull();
    expect(
      screen.getByRole('link', { name: 'Back to the clusters list' }),
    ).toHaveAttribute('href', '/capz');
  });

  it('updates live when the backend signals a change of this cluster, and ignores other clusters', async () => {
    const signals = new FakeSignals();
    let reason = 'ReconciliationBlocked';
    const calls = serve({
      tree: () => {
        const t = searchProdTree();
        t.children[1].children[0].reason = reason;
        return t;
      },
    });
    const live = renderCapz(<CapzPage />, {
      path: PATH,
      signals,
      mountPath: '/capz/*',
    });
    await waitFor(() =>
      expect(within(live.container).getByText('Live')).toBeInTheDocument(),
    );
    const before = calls.tree.length;
    signals.publish(CAPZ_SIGNAL_CHANNEL, {
      clusterUids: ['uid-cluster-payments'],
    });
    reason = 'AzureResourceNotFound';
    signals.publish(CAPZ_SIGNAL_CHANNEL, { clusterUids: [SEARCH_PROD.uid] });
    expect(
      await within(live.container).findByRole('row', {
        name: /ManagedCluster search-prod, Degraded, AzureResourceNotFound/,
      }),
    ).toBeInTheDocument();
    expect(calls.tree.length).toBe(before + 1);
  });

  it("warns while the cluster's management cluster is unreachable, re-reading its state on push, never polling", async () => {
    const signals = new FakeSignals();
    serve();
    let state: 'connected' | 'unreachable' = 'connected';
    let mcReads = 0;
    server.use(
      http.get(`${BASE}/management-clusters`, () => {
        mcReads++;
        return HttpResponse.json({
          items: [
            {
              name: 'local',
              authMethod: 'kubeconfig',
              status:
                state === 'connected'
                  ? { state, version: 'v1.33.2' }
                  : {
                      state,
                      message:
                        'its API server did not answer (connection refused (ECONNREFUSED))',
                    },
            },
            // Another management cluster's outage is not this page's.
            {
              name: 'edge',
              authMethod: 'kubeconfig',
              status: { state: 'unreachable', message: 'no route to host' },
            },
          ],
        });
      }),
    );
    const live = renderCapz(<CapzPage />, {
      path: PATH,
      signals,
      mountPath: '/capz/*',
    });
    await waitFor(() =>
      expect(within(live.container).getByText('Live')).toBeInTheDocument(),
    );
    await waitFor(() => expect(mcReads).toBe(1));
    expect(screen.queryByRole('alert', { name: /unreachable/ })).toBeNull();

    // The API server goes away: the backend says so on the signals channel; the page re-reads and warns.
    state = 'unreachable';
    signals.publish(CAPZ_SIGNAL_CHANNEL, {
      clusterUids: [],
      managementClusters: true,
    });
    const alert = await screen.findByRole('alert', {
      name: 'Management cluster local is unreachable',
    });
    expect(alert).toHaveTextContent(
      'Management cluster local is unreachable (its API server did not answer (connection refused (ECONNREFUSED))).',
    );
    expect(alert).toHaveTextContent(
      'This page shows the cluster as last seen; actions answer that nothing was written until it answers again.',
    );
    // The tree is still shown, as last seen.
    expect(tree()).toBeInTheDocument();
    const reads = mcReads;

    // It answers again: the next push clears the warning.
    state = 'connected';
    signals.publish(CAPZ_SIGNAL_CHANNEL, {
      clusterUids: [SEARCH_PROD.uid],
    });
    await waitFor(() =>
      expect(
        screen.queryByRole('alert', { name: /unreachable/ }),
      ).not.toBeInTheDocument(),
    );
    // One read per push, none in between.
    expect(mcReads).toBe(reads + 1);
  });

  it('without the signals API fetches once, never polls, and offers a refresh button', async () => {
    const calls = serve();
    renderCapz(<CapzPage />, { path: PATH, mountPath: '/capz/*' });
    await screen.findByRole('treegrid');
    expect(calls.tree).toHaveLength(1);
    expect(screen.queryByText('Live')).not.toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Refresh' }));
    await waitFor(() => expect(calls.tree).toHaveLength(2));
  });
  it('lists the node pools with mode, OS, VM size, nodes, scaling and version; a pool behind the control plane says so', async () => {
    const pool = (
      name: string,
      mp: TreeNode['facts'],
      agent: TreeNode['facts'],
    ) =>
      node({
        id: `uid-mp-${name}`,
        uid: `uid-mp-${name}`,
        kind: 'MachinePool',
        name: `search-prod-${name}`,
        facts: mp,
        children: [
          node({
            id: `uid-ap-${name}`,
            uid: `uid-ap-${name}`,
            kind: 'ManagedClustersAgentPool',
            name: `search-prod-${name}`,
            facts: { azureName: name, ...agent },
          }),
        ],
      });
    const ungrouped = () => {
      const t = searchProdTree();
      const workers = t.children.find(c => c.kind === 'Workers')!;
      workers.children = [
        pool(
          'system',
          { replicas: 1, readyReplicas: 1, kubernetesVersion: 'v1.32.6' },
          {
            mode: 'System',
            vmSize: 'Standard_D2s_v5',
            osType: 'Linux',
            osSku: 'AzureLinux',
            kubernetesVersion: '1.32.6',
          },
        ),
        pool(
          'web',
          {
            replicas: 3,
            readyReplicas: 2,
            kubernetesVersion: 'v1.33.2',
            replicasManagedBy: 'aks',
          },
          {
            mode: 'User',
            vmSize: 'Standard_D4s_v5',
            osType: 'Linux',
            kubernetesVersion: '1.32.6',
            autoscaling: true,
            autoscalingMin: 1,
            autoscalingMax: 5,
          },
        ),
      ];
      return t;
    };
    serve();
    const reads: string[] = [];
    server.use(
      http.get(`${CLUSTER}/tree`, ({ request }) => {
        const search = new URL(request.url).search;
        reads.push(search);
        return HttpResponse.json({
          summary: SEARCH_PROD,
          tree: search === '?group=0' ? ungrouped() : searchProdTree(),
        });
      }),
    );
    renderCapz(<CapzPage />, { path: PATH, mountPath: '/capz/*' });
    await screen.findByRole('treegrid');
    await userEvent.click(screen.getByRole('tab', { name: 'Node pools' }));
    const table = await screen.findByRole('table', {
      name: 'Node pools of cluster search-prod',
    });
    const row = (name: string) =>
      within(table).getByRole('row', { name: new RegExp(`^${name}`) });
    expect(row('system')).toHaveTextContent(
      /^systemMachinePool search-prod-systemSystemLinuxAzureLinuxStandard_D2s_v51 of 1 node readyfixed countv1\.32\.6behind the control plane \(v1\.33\.2\)Healthy$/,
    );
    // Asked for v1.33.2, AKS still on 1.32.6: both shown; AKS's autoscaler owns the count.
    expect(row('web')).toHaveTextContent(
      /^webMachinePool search-prod-webUserLinuxStandard_D4s_v52 of 3 nodes readyautoscaled by AKS, 1–5v1\.33\.2AKS runs v1\.32\.6behind the control plane \(v1\.33\.2\)Healthy$/,
    );
    // The page's tree is grouped: the pools come from one ungrouped read, from the backend's cache.
    expect(reads).toEqual(['?group=3', '?group=0']);
  });

  it('lists the jobs that worked on the cluster, each linked to its page: the adoption that made it too', async () => {
    serve();
    const asked: string[] = [];
    const target = {
      managementCluster: 'local',
      namespace: 'team-search',
      name: 'search-prod',
    };
    server.use(
      http.get(`${BASE}/jobs`, ({ request }) => {
        const q = new URL(request.url).searchParams;
        asked.push(q.toString());
        // The active-job banner asks for active jobs only: none.
        if (q.get('active') === 'true') return HttpResponse.json({ items: [] });
        return HttpResponse.json({
          items: [
            jobDetails({
              id: JOB_ID,
              type: 'adopt',
              target,
              state: 'succeeded',
              createdAt: '2026-11-21T10:00:00Z',
              finishedAt: '2026-11-21T10:20:00Z',
            }),
          ],
        });
      }),
    );
    renderCapz(<CapzPage />, { path: PATH, mountPath: '/capz/*' });
    await screen.findByRole('treegrid');
    await userEvent.click(screen.getByRole('tab', { name: 'Jobs' }));
    const table = await screen.findByRole('table', {
      name: 'Jobs of this cluster',
    });
    const link = within(table).getByRole('link', { name: /Adopt/ });
    expect(link).toHaveAttribute('href', `/capz/jobs/${JOB_ID}`);
    expect(within(table).getAllByRole('row')[1]).toHaveTextContent(
      /Succeeded.*user:default\/alice/,
    );
    // Asked for this cluster's jobs (all of them, not only the active one).
    expect(asked).toContain(
      'managementCluster=local&namespace=team-search&name=search-prod',
    );
  });
});
