import { mockApis } from '@backstage/frontend-test-utils';
import { AuthorizeResult } from '@backstage/plugin-permission-common';
import type {
  Day2Plan,
  DeletePreview,
  TreeNode,
  UpgradeOptions,
} from '@capz-backstage/plugin-capz-common';
import {
  act,
  fireEvent,
  screen,
  waitFor,
  within,
} from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http, HttpResponse } from 'msw';
import { BASE, summary } from '../../__testUtils__/fixtures';
import { renderCapz, setupCapzServer } from '../../__testUtils__/harness';
import { CapzPage } from '../CapzPage';
import { dismissAction, followAction } from './followedActions';

const server = setupCapzServer();

function node(
  over: Partial<TreeNode> & { id: string; kind: string; name: string },
): TreeNode {
  return {
    health: 'healthy',
    conditions: [],
    facts: {},
    children: [],
    ...over,
  };
}

/** A pool as the backend's tree shows it: MachinePool → AzureASOManagedMachinePool → ManagedClustersAgentPool. */
function pool(
  cluster: string,
  name: string,
  opts: {
    mode: 'System' | 'User';
    replicas: number;
    autoscaled?: { min: number; max: number };
  },
): TreeNode {
  const obj = `${cluster}-${name}`;
  return node({
    id: `uid-mp-${name}`,
    kind: 'MachinePool',
    name: obj,
    facts: {
      replicas: opts.replicas,
      readyReplicas: opts.replicas,
      kubernetesVersion: 'v1.33.2',
      ...(opts.autoscaled ? { replicasManagedBy: 'aks' } : {}),
    },
    children: [
      node({
        id: `uid-ammp-${name}`,
        kind: 'AzureASOManagedMachinePool',
        name: obj,
        children: [
          node({
            id: `uid-ap-${name}`,
            kind: 'ManagedClustersAgentPool',
            name: obj,
            facts: {
              azureName: name,
              mode: opts.mode,
              vmSize: 'Standard_D2s_v3',
              replicas: opts.replicas,
              kubernetesVersion: '1.33.2',
              ...(opts.autoscaled
                ? {
                    autoscaling: true,
                    autoscalingMin: opts.autoscaled.min,
                    autoscalingMax: opts.autoscaled.max,
                  }
                : {}),
            },
          }),
        ],
      }),
    ],
  });
}

/** A cluster with a System pool `system` (3 nodes) and an autoscaled User pool `burst` (2 to 6, 4 now). */
function clusterTree(name: string, paused = false): TreeNode {
  return node({
    id: `uid-cluster-${name}`,
    uid: `uid-cluster-${name}`,
    kind: 'Cluster',
    name,
    health: paused ? 'paused' : 'healthy',
    facts: paused ? { paused: true } : { paused: false },
    children: [
      node({
        id: 'uid-cp',
        kind: 'AzureASOManagedControlPlane',
        name,
        facts: { kubernetesVersion: 'v1.33.2' },
      }),
      node({
        id: `workers:${name}`,
        kind: 'Workers',
        name: 'Workers',
        children: [
          pool(name, 'system', { mode: 'System', replicas: 3 }),
          pool(name, 'burst', {
            mode: 'User',
            replicas: 4,
            autoscaled: { min: 2, max: 6 },
          }),
        ],
      }),
    ],
  });
}

/**
 * Serves one cluster's page (tree, timeline, jobs) and records the day-2 requests. Each test uses its own cluster
 * name: the permission hook caches answers per resourceRef across renders.
 */
function serve(name: string, opts: { paused?: boolean } = {}) {
  const path = `/capz/clusters/local/team-a/${name}`;
  const api = `${BASE}/clusters/local/team-a/${name}`;
  const calls = {
    previews: [] as unknown[],
    actions: [] as unknown[],
    deletes: [] as unknown[],
  };
  server.use(
    http.get(`${BASE}/jobs`, () => HttpResponse.json({ items: [] })),
    http.get(`${api}/tree`, () =>
      HttpResponse.json({
        summary: summary({ name, namespace: 'team-a' }),
        tree: clusterTree(name, opts.paused),
      }),
    ),
    http.get(`${api}/timeline`, ({ request }) => {
      const url = new URL(request.url);
      return HttpResponse.json({
        from: url.searchParams.get('from'),
        to: url.searchParams.get('to'),
        transitions: [],
        events: [],
        truncated: false,
      });
    }),
  );
  return { path, api, calls };
}

const allow = (...names: string[]) =>
  mockApis.permission({
    authorize: req =>
      names.includes(req.permission.name)
        ? AuthorizeResult.ALLOW
        : AuthorizeResult.DENY,
  });

const ALL = [
  'capz.cluster.read',
  'capz.cluster.scale',
  'capz.cluster.upgrade',
  'capz.cluster.nodepool',
  'capz.cluster.pause',
  'capz.cluster.delete',
];

async function openAction(item: string) {
  await userEvent.click(
    await screen.findByRole('button', { name: 'Cluster actions' }),
  );
  await userEvent.click(await screen.findByRole('menuitem', { name: item }));
  return screen.findByRole('dialog');
}

/** Opens the page with every action allowed, asks to scale pool `system` to `replicas` and presses Preview. */
async function previewScale(path: string, replicas: string) {
  renderCapz(<CapzPage />, {
    path,
    mountPath: '/capz/*',
    apis: [allow(...ALL)],
  });
  const dialog = await openAction('Scale pool');
  const nodes = await within(dialog).findByRole('textbox', { name: /Nodes/ });
  await userEvent.clear(nodes);
  await userEvent.type(nodes, replicas);
  await userEvent.click(
    within(dialog).getByRole('button', { name: 'Preview' }),
  );
  return dialog;
}

/** The plan of scaling pool `system` of cluster `name` from 3 to 5 nodes, as the backend answers it. */
const DIGEST = 'a'.repeat(64);

const scaleTo5 = (name: string, applied: boolean): Day2Plan => ({
  action: { action: 'scale', pool: 'system', replicas: 5 },
  changes: [
    {
      apiVersion: 'cluster.x-k8s.io/v1beta2',
      kind: 'MachinePool',
      namespace: 'team-a',
      name: `${name}-system`,
      operation: 'update',
      fields: [{ path: 'spec.replicas', before: 3, after: 5 }],
    },
  ],
  warnings: [],
  applied,
  planDigest: DIGEST,
});

async function choose(dialog: HTMLElement, label: RegExp, option: RegExp) {
  await userEvent.click(within(dialog).getByRole('button', { name: label }));
  await userEvent.click(await screen.findByRole('option', { name: option }));
}

describe('cluster actions', () => {
  it('shows no action to a user the policy denies everything', async () => {
    const denied = serve('denied');
    const asked: string[] = [];
    renderCapz(<CapzPage />, {
      path: denied.path,
      mountPath: '/capz/*',
      apis: [
        mockApis.permission({
          authorize: req => {
            asked.push(req.permission.name);
            return AuthorizeResult.DENY;
          },
        }),
      ],
    });
    await screen.findByRole('treegrid');
    // Every action's permission was asked for this cluster, and denied: no menu at all.
    await waitFor(() => expect([...asked].sort()).toEqual([...ALL].sort()));
    await waitFor(() =>
      expect(
        screen.queryByRole('button', { name: 'Cluster actions' }),
      ).not.toBeInTheDocument(),
    );
  });

  it('offers only the actions the user is allowed', async () => {
    const some = serve('scaler');
    renderCapz(<CapzPage />, {
      path: some.path,
      mountPath: '/capz/*',
      apis: [allow('capz.cluster.scale')],
    });
    await userEvent.click(
      await screen.findByRole('button', { name: 'Cluster actions' }),
    );
    const items = (await screen.findAllByRole('menuitem')).map(
      i => i.textContent,
    );
    expect(items).toEqual(['Scale pool', 'Autoscaling']);
  });

  it("shows the preview's GitOps blocker and offers no Confirm", async () => {
    const c = serve('gitops');
    const blocker =
      "Flux's Kustomization flux-system/clusters applies MachinePool team-a/gitops-system: it would put spec.replicas back at its next reconcile; change it in Git.";
    server.use(
      http.post(`${c.api}/actions/preview`, () =>
        HttpResponse.json({
          ...scaleTo5('gitops', false),
          appliedBy: [
            {
              kind: 'MachinePool',
              namespace: 'team-a',
              name: 'gitops-system',
              appliedBy: "Flux's Kustomization flux-system/clusters",
              blocks: true,
            },
          ],
          blockers: [blocker],
        }),
      ),
      http.post(`${c.api}/actions`, async ({ request }) => {
        c.calls.actions.push(await request.json());
        return HttpResponse.json(scaleTo5('gitops', true));
      }),
    );
    const dialog = await previewScale(c.path, '5');
    const alert = await within(dialog).findByText(blocker);
    expect(alert).toBeInTheDocument();
    expect(
      within(dialog).queryByRole('button', { name: 'Confirm' }),
    ).not.toBeInTheDocument();
    expect(c.calls.actions).toEqual([]);
  });

  it('previews a change Flux applies as a Git diff, and its confirm opens a pull request instead of writing', async () => {
    const c = serve('gitpr');
    const git = {
      proposable: true,
      source: {
        kustomization: { namespace: 'flux-system', name: 'clusters' },
        gitRepository: { namespace: 'flux-system', name: 'fleet' },
        url: 'https://git.example.com/platform/fleet.git',
        branch: 'main',
        path: './clusters',
        revision: `main@sha1:${'b'.repeat(40)}`,
      },
      files: [
        {
          path: 'clusters/gitpr.yaml',
          diff: '--- a/clusters/gitpr.yaml\n+++ b/clusters/gitpr.yaml\n@@ -4 +4 @@\n-  replicas: 3\n+  replicas: 5\n',
        },
      ],
      byHand: [],
      notes: [],
    };
    const appliedBy = [
      {
        kind: 'MachinePool',
        namespace: 'team-a',
        name: 'gitpr-system',
        appliedBy: "Flux's Kustomization flux-system/clusters",
        blocks: true,
      },
    ];
    server.use(
      http.post(`${c.api}/actions/preview`, () =>
        HttpResponse.json({ ...scaleTo5('gitpr', false), appliedBy, git }),
      ),
      http.post(`${c.api}/actions`, async ({ request }) => {
        c.calls.actions.push(await request.json());
        return HttpResponse.json({
          ...scaleTo5('gitpr', false),
          appliedBy,
          git: {
            ...git,
            proposed: {
              branch: 'capz/team-a-gitpr-scale-aaaaaaaaaaaa',
              commit: 'c'.repeat(40),
              pullRequest: {
                number: 7,
                url: 'https://git.example.com/platform/fleet/pulls/7',
              },
            },
          },
        });
      }),
    );
    const dialog = await previewScale(c.path, '5');
    const diff = await within(dialog).findByLabelText(
      'Diff of clusters/gitpr.yaml',
    );
    expect(diff.textContent).toContain('-  replicas: 3+  replicas: 5');
    expect(
      within(dialog).getByText(
        /The confirm pushes a branch to https:\/\/git\.example\.com\/platform\/fleet\.git, branch main, path \.\/clusters/,
      ),
    ).toBeInTheDocument();
    expect(
      within(dialog).queryByRole('button', { name: 'Confirm' }),
    ).not.toBeInTheDocument();
    await userEvent.click(
      within(dialog).getByRole('button', { name: 'Open pull request' }),
    );
    expect(
      await within(dialog).findByText('Pull request #7 opened'),
    ).toBeInTheDocument();
    expect(
      within(dialog).getByRole('link', { name: 'Open the pull request' }),
    ).toHaveAttribute('href', 'https://git.example.com/platform/fleet/pulls/7');
    // Nothing was written live: no "Applied" state, no progress to follow.
    expect(
      within(dialog).queryByText(/Applied: the controllers are working on it/),
    ).not.toBeInTheDocument();
    expect(
      within(dialog).queryByRole('region', { name: 'Progress' }),
    ).not.toBeInTheDocument();
    expect(c.calls.actions).toEqual([
      { action: 'scale', pool: 'system', replicas: 5, planDigest: DIGEST },
    ]);
  });

  it("says what the action does in Azure's words, and what the live state says about it, before the field paths", async () => {
    const c = serve('effects');
    const effect =
      'AKS agent pool system of AKS cluster effects: 3 → 5 VMs (AKS adds 2 VMs of Standard_D2s_v3).';
    const caution =
      "AKS cluster effects is busy (provisioning state 'Upgrading'): ASO sends this change only once AKS's current operation ends, so it may take longer; it keeps retrying.";
    server.use(
      http.post(`${c.api}/actions/preview`, () =>
        HttpResponse.json({
          ...scaleTo5('effects', false),
          effects: [effect],
          cautions: [caution],
        }),
      ),
    );
    const dialog = await previewScale(c.path, '5');
    const azure = await within(dialog).findByRole('list', { name: 'In Azure' });
    expect(azure).toHaveTextContent(effect);
    expect(within(dialog).getByText(caution)).toBeInTheDocument();
    // Azure's words come first; the field paths stay, below.
    const changes = within(dialog).getByRole('list', {
      name: 'Changes to write',
    });
    expect(
      azure.compareDocumentPosition(changes) & Node.DOCUMENT_POSITION_FOLLOWING,
    ).toBeTruthy();
  });

  it('shows a plain note as information and a warning as a warning', async () => {
    const c = serve('notes');
    const note =
      'AKS creates agent pool extra (1 x Standard_D4s_v3) in cluster notes.';
    const warning =
      'Cluster notes is paused: the change is written, but CAPZ and ASO act on it (and Azure changes) only once it is resumed.';
    server.use(
      http.post(`${c.api}/actions/preview`, () =>
        HttpResponse.json({
          ...scaleTo5('notes', false),
          warnings: [warning],
          notes: [note],
        }),
      ),
    );
    const dialog = await previewScale(c.path, '5');
    const status = (text: string) =>
      within(dialog).getByText(text).closest('[data-status]');
    await within(dialog).findByText(note);
    expect(status(note)).toHaveAttribute('data-status', 'info');
    expect(status(warning)).toHaveAttribute('data-status', 'warning');
  });

  it('offers no Confirm for a preview that changes nothing', async () => {
    const c = serve('same');
    server.use(
      http.post(`${c.api}/actions/preview`, () =>
        HttpResponse.json({ ...scaleTo5('same', false), changes: [] }),
      ),
    );
    const dialog = await previewScale(c.path, '5');
    expect(
      await within(dialog).findByText(
        'Nothing to change: the cluster already has these values.',
      ),
    ).toBeInTheDocument();
    expect(
      within(dialog).queryByRole('button', { name: 'Confirm' }),
    ).not.toBeInTheDocument();
    expect(c.calls.actions).toEqual([]);
  });

  it('previews a scale with before → after, then confirms exactly that action', async () => {
    const c = serve('scale');
    const plan = (applied: boolean) => scaleTo5('scale', applied);
    server.use(
      http.post(`${c.api}/actions/preview`, async ({ request }) => {
        c.calls.previews.push(await request.json());
        return HttpResponse.json(plan(false));
      }),
      http.post(`${c.api}/actions`, async ({ request }) => {
        c.calls.actions.push(await request.json());
        return HttpResponse.json(plan(true));
      }),
    );
    renderCapz(<CapzPage />, {
      path: c.path,
      mountPath: '/capz/*',
      apis: [allow(...ALL)],
    });
    const dialog = await openAction('Scale pool');
    const nodes = await within(dialog).findByRole('textbox', { name: /Nodes/ });
    expect(nodes).toHaveValue('3');
    await userEvent.clear(nodes);
    await userEvent.type(nodes, '5');
    await userEvent.click(
      within(dialog).getByRole('button', { name: 'Preview' }),
    );
    const changes = await within(dialog).findByRole('list', {
      name: 'Fields of Update MachinePool team-a/scale-system',
    });
    expect(changes).toHaveTextContent('spec.replicas: 3 → 5');
    expect(c.calls.actions).toEqual([]);
    await userEvent.click(
      within(dialog).getByRole('button', { name: 'Confirm' }),
    );
    expect(
      await within(dialog).findByText(
        /Applied: the controllers are working on it/,
      ),
    ).toBeInTheDocument();
    expect(c.calls.previews).toEqual([
      { action: 'scale', pool: 'system', replicas: 5 },
    ]);
    // The confirm carries the preview's digest: the backend writes that plan or nothing.
    expect(c.calls.actions).toEqual([
      {
        action: 'scale',
        pool: 'system',
        replicas: 5,
        planDigest: DIGEST,
      },
    ]);
    // Progress from the (live) tree, which still shows the pool before the write: 3 of the 5 asked for, not done.
    const progress = within(dialog).getByRole('region', { name: 'Progress' });
    expect(progress).toHaveTextContent(
      'pool system: 3 of 5 nodes ready (the cluster still asks for 3)',
    );
    expect(progress).not.toHaveTextContent('(done)');
  });

  it("says a dialog's progress is paused, not live, while the management cluster is unreachable", async () => {
    const c = serve('dialog-outage');
    const plan = (applied: boolean) => scaleTo5('dialog-outage', applied);
    server.use(
      http.post(`${c.api}/actions/preview`, () =>
        HttpResponse.json(plan(false)),
      ),
      http.post(`${c.api}/actions`, () => HttpResponse.json(plan(true))),
      http.get(`${BASE}/management-clusters`, () =>
        HttpResponse.json({
          items: [
            {
              name: 'local',
              authMethod: 'kubeconfig',
              status: {
                state: 'unreachable',
                message: 'its API server did not answer',
              },
            },
          ],
        }),
      ),
    );
    renderCapz(<CapzPage />, {
      path: c.path,
      mountPath: '/capz/*',
      apis: [allow(...ALL)],
    });
    await screen.findByText(/Management cluster local is unreachable/);
    const dialog = await openAction('Scale pool');
    const nodes = await within(dialog).findByRole('textbox', { name: /Nodes/ });
    await userEvent.clear(nodes);
    await userEvent.type(nodes, '5');
    await userEvent.click(
      within(dialog).getByRole('button', { name: 'Preview' }),
    );
    await userEvent.click(
      await within(dialog).findByRole('button', { name: 'Confirm' }),
    );
    const progress = await within(dialog).findByRole('region', {
      name: 'Progress',
    });
    expect(progress).toHaveTextContent(
      'Progress paused until management cluster local answers (as last seen, not live)',
    );
    expect(progress).not.toHaveTextContent('Progress (live)');
  });

  it('keeps following an applied action on the page after its dialog is closed, until dismissed', async () => {
    const c = serve('follow');
    // After the scale: the MachinePool wants 5 nodes; `ready` of them are ready.
    let ready = 3;
    const treeNow = () => {
      const t = clusterTree('follow');
      const mp = t.children[1].children[0];
      mp.facts = { ...mp.facts, replicas: 5, readyReplicas: ready };
      mp.health = ready === 5 ? 'healthy' : 'progressing';
      // AKS's count, as ASO reports it on the agent pool.
      const agent = mp.children[0].children[0];
      agent.facts = { ...agent.facts, replicas: ready };
      return t;
    };
    const plan = (applied: boolean) => scaleTo5('follow', applied);
    server.use(
      http.post(`${c.api}/actions/preview`, () =>
        HttpResponse.json(plan(false)),
      ),
      http.post(`${c.api}/actions`, () => HttpResponse.json(plan(true))),
    );
    const dialog = await previewScale(c.path, '5');
    await userEvent.click(
      await within(dialog).findByRole('button', { name: 'Confirm' }),
    );
    await within(dialog).findByText(/Applied: the controllers are working/);
    server.use(
      http.get(`${c.api}/tree`, () =>
        HttpResponse.json({
          summary: summary({ name: 'follow', namespace: 'team-a' }),
          tree: treeNow(),
        }),
      ),
    );
    await userEvent.click(within(dialog).getByRole('button', { name: 'Done' }));
    await waitFor(() =>
      expect(screen.queryByRole('dialog')).not.toBeInTheDocument(),
    );

    // The page, not the dialog, now shows what is still moving.
    await userEvent.click(screen.getByRole('button', { name: 'Refresh' }));
    const panel = await screen.findByRole('region', {
      name: 'Last action: Scale pool system to 5',
    });
    await waitFor(() =>
      expect(panel).toHaveTextContent('pool system: 3 of 5 nodes ready'),
    );
    expect(panel).toHaveTextContent('Scale pool system to 5: in progress');

    // A live update (here: Refresh) moves it on, until it is done.
    ready = 5;
    await userEvent.click(screen.getByRole('button', { name: 'Refresh' }));
    await waitFor(() =>
      expect(panel).toHaveTextContent('pool system: 5 of 5 nodes ready (done)'),
    );
    expect(panel).toHaveTextContent('Scale pool system to 5: done');

    await userEvent.click(
      within(panel).getByRole('button', { name: 'Dismiss' }),
    );
    expect(
      screen.queryByRole('region', { name: /Last action/ }),
    ).not.toBeInTheDocument();
    expect(
      Object.keys(JSON.parse(sessionStorage.getItem('capz.followedActions')!)),
    ).not.toContain('local/team-a/follow');
  });

  it('says the followed progress is paused, not live, while the management cluster is unreachable', async () => {
    const c = serve('outage');
    let state: 'connected' | 'unreachable' = 'unreachable';
    server.use(
      http.get(`${c.api}/tree`, () => {
        // The watch cache's last view: the pool asks for 5 nodes, 3 are ready.
        const t = clusterTree('outage');
        const mp = t.children[1].children[0];
        mp.facts = { ...mp.facts, replicas: 5, readyReplicas: 3 };
        mp.health = 'progressing';
        return HttpResponse.json({
          summary: summary({ name: 'outage', namespace: 'team-a' }),
          tree: t,
        });
      }),
      http.get(`${BASE}/management-clusters`, () =>
        HttpResponse.json({
          items: [
            {
              name: 'local',
              authMethod: 'kubeconfig',
              status:
                state === 'connected'
                  ? { state }
                  : { state, message: 'its API server did not answer' },
            },
          ],
        }),
      ),
    );
    followAction(
      { managementCluster: 'local', namespace: 'team-a', name: 'outage' },
      scaleTo5('outage', true),
    );
    renderCapz(<CapzPage />, {
      path: c.path,
      mountPath: '/capz/*',
      apis: [allow(...ALL)],
    });
    const panel = await screen.findByRole('region', {
      name: 'Last action: Scale pool system to 5',
    });
    await waitFor(() =>
      expect(panel).toHaveTextContent(
        'Scale pool system to 5: progress paused until management cluster local answers',
      ),
    );
    expect(panel).toHaveTextContent('pool system: 3 of 5 nodes ready');
    expect(panel).not.toHaveTextContent('(live)');
    expect(panel).not.toHaveTextContent('in progress');

    // It answers again (here: Refresh; on a live page, the backend's push): live again.
    state = 'connected';
    await userEvent.click(screen.getByRole('button', { name: 'Refresh' }));
    await waitFor(() =>
      expect(panel).toHaveTextContent('Scale pool system to 5: in progress'),
    );
    expect(panel).toHaveTextContent('progress (live)');
    act(() =>
      dismissAction({
        managementCluster: 'local',
        namespace: 'team-a',
        name: 'outage',
      }),
    );
  });

  it('says done only once the new count is observed: never the state from before the write, then Done in the header', async () => {
    const c = serve('observe');
    // What the watch cache shows, step by step after the confirm.
    let step: 'before' | 'asked' | 'ready' = 'before';
    const treeNow = () => {
      const t = clusterTree('observe');
      const mp = t.children[1].children[0];
      const agent = mp.children[0].children[0];
      if (step === 'asked') {
        // The write is seen; CAPI has not observed its generation yet, no new node is ready.
        mp.facts = { ...mp.facts, replicas: 5, readyReplicas: 3 };
        mp.health = 'progressing';
        mp.reason = 'GenerationNotObserved';
      }
      if (step === 'ready') {
        mp.facts = { ...mp.facts, replicas: 5, readyReplicas: 5 };
        agent.facts = { ...agent.facts, replicas: 5 };
      }
      return t;
    };
    server.use(
      http.get(`${c.api}/tree`, () =>
        HttpResponse.json({
          summary: summary({ name: 'observe', namespace: 'team-a' }),
          tree: treeNow(),
        }),
      ),
      http.post(`${c.api}/actions/preview`, () =>
        HttpResponse.json(scaleTo5('observe', false)),
      ),
      http.post(`${c.api}/actions`, () =>
        HttpResponse.json(scaleTo5('observe', true)),
      ),
    );
    // A live update of the page behind the modal dialog: what the page's Refresh does.
    const refresh = () =>
      fireEvent.click(
        screen.getByRole('button', { name: 'Refresh', hidden: true }),
      );
    const dialog = await previewScale(c.path, '5');
    await userEvent.click(
      await within(dialog).findByRole('button', { name: 'Confirm' }),
    );
    await within(dialog).findByText(/Applied: the controllers are working/);
    const progress = within(dialog).getByRole('region', { name: 'Progress' });
    // A second after the confirm the tree is still the old one (3 of 3, healthy): not done.
    expect(progress).toHaveTextContent('pool system: 3 of 5 nodes ready');
    expect(progress).not.toHaveTextContent('(done)');

    step = 'asked';
    refresh();
    await waitFor(() =>
      expect(progress).not.toHaveTextContent('(the cluster still asks for'),
    );
    expect(progress).toHaveTextContent('pool system: 3 of 5 nodes ready');
    expect(progress).not.toHaveTextContent('(done)');
    expect(
      within(dialog).getByText(/Applied: the controllers are working/),
    ).toBeInTheDocument();

    step = 'ready';
    refresh();
    await waitFor(() =>
      expect(progress).toHaveTextContent(
        'pool system: 5 of 5 nodes ready (done)',
      ),
    );
    expect(
      within(dialog).getByText('Done: Scale pool system to 5'),
    ).toBeInTheDocument();
    expect(
      within(dialog).queryByText(/Applied: the controllers are working/),
    ).not.toBeInTheDocument();
  });

  it('shows a stale confirm (409) as nothing applied, with Preview again, which confirms the new plan', async () => {
    const c = serve('stale');
    let previews = 0;
    const stale =
      'The cluster changed since the preview (pool system: 3 → 1 replicas); nothing was written. Preview again.';
    server.use(
      http.post(`${c.api}/actions/preview`, async ({ request }) => {
        c.calls.previews.push(await request.json());
        previews++;
        const plan = scaleTo5('stale', false);
        if (previews > 1) {
          plan.changes[0].fields = [
            { path: 'spec.replicas', before: 1, after: 5 },
          ];
          plan.planDigest = 'b'.repeat(64);
        }
        return HttpResponse.json(plan);
      }),
      http.post(`${c.api}/actions`, async ({ request }) => {
        const body = (await request.json()) as { planDigest?: string };
        c.calls.actions.push(body);
        if (body.planDigest !== 'b'.repeat(64))
          return HttpResponse.json(
            { error: { name: 'ConflictError', message: stale } },
            { status: 409 },
          );
        return HttpResponse.json({
          ...scaleTo5('stale', true),
          planDigest: 'b'.repeat(64),
        });
      }),
    );
    const dialog = await previewScale(c.path, '5');
    await userEvent.click(
      await within(dialog).findByRole('button', { name: 'Confirm' }),
    );
    expect(
      await within(dialog).findByText(
        'Nothing was applied: the cluster changed since the preview',
      ),
    ).toBeInTheDocument();
    expect(
      within(dialog).getByText(/pool system: 3 → 1 replicas/),
    ).toHaveTextContent(
      'Press Preview again to see what the action changes now.',
    );
    // The stale plan is gone; no Confirm until a new preview.
    expect(
      within(dialog).queryByRole('button', { name: 'Confirm' }),
    ).not.toBeInTheDocument();
    await userEvent.click(
      within(dialog).getByRole('button', { name: 'Preview again' }),
    );
    expect(
      await within(dialog).findByRole('list', {
        name: 'Fields of Update MachinePool team-a/stale-system',
      }),
    ).toHaveTextContent('spec.replicas: 1 → 5');
    await userEvent.click(
      within(dialog).getByRole('button', { name: 'Confirm' }),
    );
    await within(dialog).findByText(/Applied: the controllers are working/);
    expect(
      c.calls.actions.map(a => (a as { planDigest: string }).planDigest),
    ).toEqual([DIGEST, 'b'.repeat(64)]);
  });

  it('says in plain words why the backend refused a preview', async () => {
    const c = serve('refused');
    server.use(
      http.post(`${c.api}/actions/preview`, () =>
        HttpResponse.json(
          {
            error: {
              name: 'InputError',
              message: 'replicas: a System pool keeps at least 1 node',
            },
          },
          { status: 400 },
        ),
      ),
    );
    const dialog = await previewScale(c.path, '4');
    expect(
      await within(dialog).findByText(
        /a System pool keeps at least 1 node.*breaks a rule, so nothing was written/,
      ),
    ).toBeInTheDocument();
  });

  it("checks capz-common's rules before asking the backend", async () => {
    const c = serve('rules');
    renderCapz(<CapzPage />, {
      path: c.path,
      mountPath: '/capz/*',
      apis: [allow(...ALL)],
    });
    const dialog = await openAction('Scale pool');
    const nodes = await within(dialog).findByRole('textbox', { name: /Nodes/ });
    await userEvent.clear(nodes);
    await userEvent.type(nodes, '0');
    expect(
      within(dialog).getByRole('list', { name: 'Problems' }),
    ).toHaveTextContent(
      'Pool "system" is a System pool: it keeps at least 1 node',
    );
    // No handler serves the preview here: a request would fail the test.
    expect(
      within(dialog).getByRole('button', { name: 'Preview' }),
    ).toBeDisabled();
  });

  it("refuses to scale an autoscaled pool: AKS's autoscaler owns the count, min/max are offered", async () => {
    const c = serve('auto');
    renderCapz(<CapzPage />, {
      path: c.path,
      mountPath: '/capz/*',
      apis: [allow(...ALL)],
    });
    const dialog = await openAction('Scale pool');
    await choose(dialog, /Node pool/, /^burst/);
    expect(
      within(dialog).getByText("AKS's autoscaler owns the count"),
    ).toBeInTheDocument();
    expect(
      within(dialog).queryByRole('textbox', { name: /Nodes/ }),
    ).not.toBeInTheDocument();
    expect(
      within(dialog).getByRole('button', { name: 'Preview' }),
    ).toBeDisabled();
    await userEvent.click(
      within(dialog).getByRole('button', { name: 'Change min/max' }),
    );
    const auto = await screen.findByRole('dialog', {
      name: 'Autoscaling of a node pool',
    });
    expect(
      within(auto).getByRole('textbox', { name: 'Minimum nodes' }),
    ).toHaveValue('2');
    const max = within(auto).getByRole('textbox', { name: 'Maximum nodes' });
    expect(max).toHaveValue('6');
    await userEvent.clear(max);
    await userEvent.type(max, '3');
    expect(
      within(auto).getByRole('list', { name: 'Problems' }),
    ).toHaveTextContent('Pool "burst" has 4 nodes, outside 2 to 3');
  });

  it('offers only the versions the backend lists for an upgrade, in a select', async () => {
    const c = serve('upgrade');
    const options: UpgradeOptions = {
      controlPlane: 'v1.33.2',
      pools: [
        { name: 'system', version: 'v1.33.2' },
        { name: 'burst', version: 'v1.33.2' },
      ],
      available: ['v1.34.2', 'v1.34.1'],
      problems: [],
    };
    server.use(http.get(`${c.api}/upgrades`, () => HttpResponse.json(options)));
    renderCapz(<CapzPage />, {
      path: c.path,
      mountPath: '/capz/*',
      apis: [allow(...ALL)],
    });
    const dialog = await openAction('Upgrade Kubernetes');
    // No pool is behind the control plane: the control plane comes first.
    expect(
      await within(dialog).findByRole('radio', { name: /The control plane/ }),
    ).toBeChecked();
    expect(
      within(dialog).getByRole('radio', { name: /Node pools/ }),
    ).toBeDisabled();
    expect(within(dialog).queryByRole('textbox')).not.toBeInTheDocument();
    await userEvent.click(
      within(dialog).getByRole('button', { name: /Control plane version/ }),
    );
    const offered = (await screen.findAllByRole('option')).map(
      o => o.textContent,
    );
    expect(offered).toEqual(['v1.34.2', 'v1.34.1']);
  });

  it('shows every version in one form in the upgrade dialog and its preview, whether read from CAPI or AKS', async () => {
    const c = serve('versions');
    const options: UpgradeOptions = {
      controlPlane: '1.32.6',
      pools: [
        { name: 'system', version: 'v1.32.6' },
        { name: 'burst', version: '1.32.6' },
      ],
      available: ['1.33.2'],
      problems: [],
    };
    server.use(
      http.get(`${c.api}/upgrades`, () => HttpResponse.json(options)),
      http.post(`${c.api}/actions/preview`, () =>
        HttpResponse.json({
          action: {
            action: 'upgrade',
            version: 'v1.33.2',
            target: 'controlPlane',
          },
          changes: [
            {
              apiVersion: 'infrastructure.cluster.x-k8s.io/v1alpha1',
              kind: 'AzureASOManagedControlPlane',
              namespace: 'team-a',
              name: 'versions',
              operation: 'update',
              fields: [
                { path: 'spec.version', before: '1.32.6', after: 'v1.33.2' },
              ],
            },
          ],
          warnings: [],
          applied: false,
          planDigest: DIGEST,
        } satisfies Day2Plan),
      ),
    );
    renderCapz(<CapzPage />, {
      path: c.path,
      mountPath: '/capz/*',
      apis: [allow(...ALL)],
    });
    const dialog = await openAction('Upgrade Kubernetes');
    expect(
      await within(dialog).findByText(
        'Control plane v1.32.6; pool system v1.32.6, pool burst v1.32.6',
      ),
    ).toBeInTheDocument();
    await userEvent.click(
      within(dialog).getByRole('radio', { name: /The control plane/ }),
    );
    await choose(dialog, /Control plane version/, /1\.33\.2/);
    await userEvent.click(
      within(dialog).getByRole('button', { name: 'Preview' }),
    );
    expect(
      await within(dialog).findByRole('list', {
        name: 'Fields of Update AzureASOManagedControlPlane team-a/versions',
      }),
    ).toHaveTextContent('spec.version: v1.32.6 → v1.33.2');
    expect(
      within(dialog).getByRole('button', { name: /Control plane version/ }),
    ).toHaveTextContent('v1.33.2');
  });

  it('deletes only after the user has seen what Azure deletes and keeps and typed the cluster name', async () => {
    const c = serve('doomed');
    const preview: DeletePreview = {
      cluster: {
        managementCluster: 'local',
        namespace: 'team-a',
        name: 'doomed',
        paused: false,
      },
      deletes: [
        {
          azureType: 'Microsoft.ContainerService/managedClusters',
          azureName: 'doomed',
          object: {
            kind: 'ManagedCluster',
            namespace: 'team-a',
            name: 'doomed',
          },
          reason: 'reconcile-policy manage: ASO deletes it',
        },
      ],
      keeps: [
        {
          azureType: 'Microsoft.Resources/resourceGroups',
          azureName: 'rg-doomed',
          object: {
            kind: 'ResourceGroup',
            namespace: 'team-a',
            name: 'doomed',
          },
          reason: 'reconcile-policy skip: ASO leaves it in Azure',
        },
      ],
      blockers: [],
    };
    server.use(
      http.get(`${c.api}/delete-preview`, () => HttpResponse.json(preview)),
      http.delete(c.api, async ({ request }) => {
        c.calls.deletes.push(await request.json());
        return HttpResponse.json({ accepted: true, preview }, { status: 202 });
      }),
    );
    renderCapz(<CapzPage />, {
      path: c.path,
      mountPath: '/capz/*',
      apis: [allow(...ALL)],
    });
    const dialog = await openAction('Delete cluster');
    expect(
      await within(dialog).findByRole('list', { name: 'Deleted in Azure' }),
    ).toHaveTextContent(/doomed.*managedClusters.*ASO deletes it/);
    expect(
      within(dialog).getByRole('list', { name: 'Kept in Azure' }),
    ).toHaveTextContent(/rg-doomed.*reconcile-policy skip/);
    const button = within(dialog).getByRole('button', {
      name: 'Delete the cluster',
    });
    expect(button).toBeDisabled();
    const confirm = within(dialog).getByRole('textbox', {
      name: 'Type doomed to confirm',
    });
    await userEvent.type(confirm, 'doome');
    expect(button).toBeDisabled();
    await userEvent.type(confirm, 'd');
    expect(button).toBeEnabled();
    expect(c.calls.deletes).toEqual([]);
    await userEvent.click(button);
    expect(
      await within(dialog).findByText('Deletion started'),
    ).toBeInTheDocument();
    expect(c.calls.deletes).toEqual([{ confirmName: 'doomed' }]);
  });

  it("deletes a cluster Flux applies through a pull request: the diff first, the preview's digest carried back, no live delete", async () => {
    const c = serve('gitops');
    const git = {
      proposable: true,
      source: {
        kustomization: { namespace: 'flux-system', name: 'clusters' },
        gitRepository: { namespace: 'flux-system', name: 'gitops' },
        url: 'http://gitea.local/platform/gitops.git',
        branch: 'main',
        path: './clusters',
        revision: 'main@sha1:0123456789012345678901234567890123456789',
      },
      files: [
        {
          path: 'clusters/team-a/gitops/cluster.yaml',
          diff: '--- a/clusters/team-a/gitops/cluster.yaml\n+++ b/clusters/team-a/gitops/cluster.yaml\n@@ -1,3 +1,0 @@\n-kind: Cluster\n',
        },
      ],
      byHand: [],
      notes: [
        'After the merge, Flux deletes the Cluster team-a/gitops (prune)',
      ],
    };
    const planDigest = 'a'.repeat(64);
    const preview: DeletePreview = {
      cluster: {
        managementCluster: 'local',
        namespace: 'team-a',
        name: 'gitops',
        paused: false,
      },
      deletes: [
        {
          azureType: 'Microsoft.ContainerService/managedClusters',
          azureName: 'gitops',
          object: {
            kind: 'ManagedCluster',
            namespace: 'team-a',
            name: 'gitops',
          },
          reason: 'reconcile-policy manage: ASO deletes it',
        },
      ],
      keeps: [],
      blockers: [],
      git,
      planDigest,
    };
    server.use(
      http.get(`${c.api}/delete-preview`, () => HttpResponse.json(preview)),
      http.delete(c.api, async ({ request }) => {
        c.calls.deletes.push(await request.json());
        return HttpResponse.json(
          {
            accepted: true,
            preview: {
              ...preview,
              git: {
                ...git,
                proposed: {
                  branch: 'capz/team-a-gitops-delete-aaaaaaaaaaaa',
                  commit: 'b'.repeat(40),
                  pullRequest: { number: 7, url: 'http://gitea.local/pulls/7' },
                },
              },
            },
          },
          { status: 202 },
        );
      }),
    );
    renderCapz(<CapzPage />, {
      path: c.path,
      mountPath: '/capz/*',
      apis: [allow(...ALL)],
    });
    const dialog = await openAction('Delete cluster');
    expect(
      await within(dialog).findByRole('list', {
        name: 'Deleted in Azure once merged',
      }),
    ).toHaveTextContent(/gitops.*managedClusters/);
    expect(
      within(dialog).getByLabelText(
        'Diff of clusters/team-a/gitops/cluster.yaml',
      ),
    ).toHaveTextContent('-kind: Cluster');
    expect(
      within(dialog).queryByRole('button', { name: 'Delete the cluster' }),
    ).not.toBeInTheDocument();
    const button = within(dialog).getByRole('button', {
      name: 'Open pull request',
    });
    expect(button).toBeDisabled();
    await userEvent.type(
      within(dialog).getByRole('textbox', { name: 'Type gitops to confirm' }),
      'gitops',
    );
    await userEvent.click(button);
    expect(
      await within(dialog).findByText('Pull request #7 opened'),
    ).toBeInTheDocument();
    expect(
      within(dialog).queryByText('Deletion started'),
    ).not.toBeInTheDocument();
    expect(c.calls.deletes).toEqual([{ confirmName: 'gitops', planDigest }]);
  });

  it('refuses a delete that cannot be made in Git, saying why, with no button to press', async () => {
    const c = serve('generated');
    const preview: DeletePreview = {
      cluster: {
        managementCluster: 'local',
        namespace: 'team-a',
        name: 'generated',
        paused: false,
      },
      deletes: [],
      keeps: [],
      blockers: [],
      git: {
        proposable: false,
        reason:
          'The delete cannot be proposed to Git: Kustomization flux-system/clusters has prune: false',
        files: [],
        byHand: [],
        notes: [],
      },
    };
    server.use(
      http.get(`${c.api}/delete-preview`, () => HttpResponse.json(preview)),
    );
    renderCapz(<CapzPage />, {
      path: c.path,
      mountPath: '/capz/*',
      apis: [allow(...ALL)],
    });
    const dialog = await openAction('Delete cluster');
    expect(
      await within(dialog).findByText(/has prune: false/),
    ).toBeInTheDocument();
    expect(
      within(dialog).getByRole('button', { name: 'Delete the cluster' }),
    ).toBeDisabled();
  });

  it('shows a paused cluster prominently and offers Resume instead of Pause', async () => {
    const c = serve('paused', { paused: true });
    renderCapz(<CapzPage />, {
      path: c.path,
      mountPath: '/capz/*',
      apis: [allow(...ALL)],
    });
    expect(
      await screen.findByText('Reconciliation is paused'),
    ).toBeInTheDocument();
    await userEvent.click(
      await screen.findByRole('button', { name: 'Cluster actions' }),
    );
    expect(
      await screen.findByRole('menuitem', { name: 'Resume' }),
    ).toBeInTheDocument();
    expect(
      screen.queryByRole('menuitem', { name: 'Pause' }),
    ).not.toBeInTheDocument();
  });

  it("starts a delete blocker's sentence with a capital", async () => {
    const c = serve('blocked');
    const preview: DeletePreview = {
      cluster: {
        managementCluster: 'local',
        namespace: 'team-a',
        name: 'blocked',
        paused: true,
      },
      deletes: [],
      keeps: [],
      blockers: [
        'cluster blocked is paused: CAPI does not reconcile a paused Cluster, not even its deletion; resume it first',
      ],
    };
    server.use(
      http.get(`${c.api}/delete-preview`, () => HttpResponse.json(preview)),
    );
    renderCapz(<CapzPage />, {
      path: c.path,
      mountPath: '/capz/*',
      apis: [allow(...ALL)],
    });
    const dialog = await openAction('Delete cluster');
    expect(
      await within(dialog).findByText(
        /^Cluster blocked is paused: CAPI does not reconcile/,
      ),
    ).toBeInTheDocument();
  });

  it('copies the connect commands to the clipboard, all of them', async () => {
    const c = serve('copier');
    const commands = [
      'az aks get-credentials --resource-group rg --name copier',
      'kubelogin convert-kubeconfig -l azurecli',
    ];
    server.use(
      http.get(`${c.api}/connect`, () =>
        HttpResponse.json({ commands, notes: [] }),
      ),
    );
    renderCapz(<CapzPage />, {
      path: c.path,
      mountPath: '/capz/*',
      apis: [allow('capz.cluster.read')],
    });
    const dialog = await openAction('Connect');
    await within(dialog).findByLabelText('Commands');
    const writeText = jest.fn().mockResolvedValue(undefined);
    Object.defineProperty(navigator, 'clipboard', {
      value: { writeText },
      configurable: true,
    });
    const copy = within(dialog).getByRole('button', {
      name: 'Copy the commands',
    });
    fireEvent.click(copy);
    await waitFor(() => expect(copy).toHaveTextContent('Copied'));
    expect(writeText).toHaveBeenCalledWith(commands.join('\n'));
  });

  it('offers the kubeconfig download only under capz.cluster.connect, and saves what the backend sends', async () => {
    const connect = {
      commands: ['az aks get-credentials --resource-group rg --name x'],
      notes: ['Local accounts are disabled (Entra ID only).'],
    };
    const kubeconfig = {
      fileName: 'reader.kubeconfig',
      kubeconfig: 'apiVersion: v1\nkind: Config\n',
      server: 'https://reader-dns.hcp.westeurope.azmk8s.io:443',
      auth: 'exec',
    };
    const asked: string[] = [];
    // Read only: the commands, no download button, no kubeconfig request.
    const reader = serve('reader');
    server.use(
      http.get(`${reader.api}/connect`, () => HttpResponse.json(connect)),
      http.get(`${reader.api}/kubeconfig`, () => {
        asked.push('reader');
        return HttpResponse.json(kubeconfig);
      }),
    );
    const { unmount } = renderCapz(<CapzPage />, {
      path: reader.path,
      mountPath: '/capz/*',
      apis: [allow('capz.cluster.read')],
    });
    let dialog = await openAction('Connect');
    expect(await within(dialog).findByLabelText('Commands')).toHaveTextContent(
      'az aks get-credentials',
    );
    expect(
      within(dialog).queryByRole('button', { name: 'Download kubeconfig' }),
    ).not.toBeInTheDocument();
    unmount();

    // With capz.cluster.connect: the button, one request, the file saved through an object URL.
    const connector = serve('connector');
    server.use(
      http.get(`${connector.api}/connect`, () => HttpResponse.json(connect)),
      http.get(`${connector.api}/kubeconfig`, () => {
        asked.push('connector');
        return HttpResponse.json({
          ...kubeconfig,
          fileName: 'connector.kubeconfig',
        });
      }),
    );
    const saved: Blob[] = [];
    const created = jest.fn((b: Blob) => {
      saved.push(b);
      return 'blob:kubeconfig';
    });
    const revoked = jest.fn();
    Object.assign(URL, { createObjectURL: created, revokeObjectURL: revoked });
    renderCapz(<CapzPage />, {
      path: connector.path,
      mountPath: '/capz/*',
      apis: [allow('capz.cluster.read', 'capz.cluster.connect')],
    });
    dialog = await openAction('Connect');
    await userEvent.click(
      await within(dialog).findByRole('button', {
        name: 'Download kubeconfig',
      }),
    );
    expect(
      await within(dialog).findByText(/Saved connector.kubeconfig/),
    ).toBeInTheDocument();
    expect(asked).toEqual(['connector']);
    expect(saved).toHaveLength(1);
    expect(await saved[0].text()).toBe(kubeconfig.kubeconfig);
    expect(revoked).toHaveBeenCalledWith('blob:kubeconfig');
  });

  it('disables Download kubeconfig with the reason in words when the connect info says there is none, and a refused download says only what is true', async () => {
    const reason =
      "This cluster does not use Entra ID: AKS's kubeconfig for it holds a local account's secret, which this Backstage backend does not hand out. Use az aks get-credentials with your own Azure access (the first command above).";
    const asked: string[] = [];
    const c = serve('payments');
    server.use(
      http.get(`${c.api}/connect`, () =>
        HttpResponse.json({
          commands: ['az aks get-credentials --resource-group rg --name x'],
          notes: [],
          kubeconfig: { available: false, reason },
        }),
      ),
      http.get(`${c.api}/kubeconfig`, () => {
        asked.push('payments');
        return HttpResponse.json({}, { status: 500 });
      }),
    );
    const { unmount } = renderCapz(<CapzPage />, {
      path: c.path,
      mountPath: '/capz/*',
      apis: [allow('capz.cluster.read', 'capz.cluster.connect')],
    });
    let dialog = await openAction('Connect');
    const button = await within(dialog).findByRole('button', {
      name: 'Download kubeconfig',
    });
    await waitFor(() => expect(button).toBeDisabled());
    expect(button).toHaveAccessibleDescription(reason);
    expect(
      within(dialog).getByLabelText('Why there is no kubeconfig to download'),
    ).toHaveTextContent(reason);
    expect(asked).toEqual([]);
    unmount();

    // An older backend without the field: the button works, and its 409 is shown without words about a preview.
    const old = serve('payments-old');
    server.use(
      http.get(`${old.api}/connect`, () =>
        HttpResponse.json({ commands: ['az aks get-credentials'], notes: [] }),
      ),
      http.get(`${old.api}/kubeconfig`, () =>
        HttpResponse.json(
          {
            error: {
              name: 'ConflictError',
              message:
                'cluster local/team-a/payments-old does not use Entra ID: no kubeconfig here',
            },
          },
          { status: 409 },
        ),
      ),
    );
    renderCapz(<CapzPage />, {
      path: old.path,
      mountPath: '/capz/*',
      apis: [allow('capz.cluster.read', 'capz.cluster.connect')],
    });
    dialog = await openAction('Connect');
    const again = await within(dialog).findByRole('button', {
      name: 'Download kubeconfig',
    });
    await waitFor(() => expect(again).toBeEnabled());
    await userEvent.click(again);
    const error = await within(dialog).findByText(/does not use Entra ID/);
    expect(error.textContent).toBe(
      'Cluster local/team-a/payments-old does not use Entra ID: no kubeconfig here',
    );
    expect(dialog).not.toHaveTextContent(/preview|Nothing was written/i);
  });
});
