/**
 * "Plan an upgrade of these": the fleet preview of the clusters the page shows (after its filters), with the target and
 * the stages chosen in the dialog, and POST /fleet-runs/preview's answer in words. Nothing else is asked.
 */
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http, HttpResponse } from 'msw';
import { catalogApiRef } from '@backstage/plugin-catalog-react';
import { catalogApiMock } from '@backstage/plugin-catalog-react/testUtils';
import { clustersAnswer } from '../../__testUtils__/clustersView';
import type {
  FleetRunOptions,
  FleetRunPreview,
  FleetRunRecord,
  FleetRunSpec,
} from '@capz-backstage/plugin-capz-common';
import { BASE, CLUSTERS } from '../../__testUtils__/fixtures';
import { renderCapz, setupCapzServer } from '../../__testUtils__/harness';
import { CapzPage } from '../CapzPage';
import { ClustersPage } from './ClustersPage';
import { fleetStages } from './FleetPlanDialog';

const server = setupCapzServer();

const at = (managementCluster: string, namespace: string, name: string) => ({
  managementCluster,
  namespace,
  name,
});

/** POST /fleet-runs/preview's answer: payments upgrades, legacy-web is left out. */
const ANSWER: FleetRunPreview = {
  target: { kind: 'version', version: 'v1.34.2' },
  concurrency: 1,
  counts: { upgrade: 1, current: 0, refused: 1 },
  stages: [
    {
      name: 'team-payments',
      clusters: [
        {
          ...at('local', 'team-payments', 'payments'),
          outcome: 'upgrade',
          from: 'v1.33.2',
          to: 'v1.34.2',
          steps: [
            {
              target: 'controlPlane',
              version: 'v1.34.2',
              changes: [],
              warnings: [],
              throughGit:
                "Flux's Kustomization flux-system/clusters applies AzureASOManagedControlPlane payments",
            },
            {
              target: { pools: ['system', 'user'] },
              version: 'v1.34.2',
              changes: [],
              warnings: [],
            },
          ],
          problems: [],
        },
      ],
    },
    {
      name: 'team-legacy-web',
      clusters: [
        {
          ...at('local', 'team-legacy-web', 'legacy-web'),
          outcome: 'refused',
          steps: [],
          problems: ['AKS offers no 1.34 version in eastus.'],
        },
      ],
    },
  ],
};

describe('fleetStages', () => {
  it("keeps the page's order: one stage, or one per namespace or management cluster in order of first appearance", () => {
    const cs = [
      at('local', 'team-b', 'b1'),
      at('demo-2', 'team-a', 'a1'),
      at('local', 'team-b', 'b2'),
    ];
    expect(fleetStages(cs, 'one')).toEqual([{ name: 'all', clusters: cs }]);
    expect(fleetStages(cs, 'namespace')).toEqual([
      { name: 'team-b', clusters: [cs[0], cs[2]] },
      { name: 'team-a', clusters: [cs[1]] },
    ]);
    expect(fleetStages(cs, 'managementCluster')).toEqual([
      { name: 'local', clusters: [cs[0], cs[2]] },
      { name: 'demo-2', clusters: [cs[1]] },
    ]);
  });

  it("puts each cluster in its namespace's group when asked: one at a time per namespace in a stage", () => {
    const cs = [
      at('local', 'team-b', 'b1'),
      at('local', 'team-a', 'a1'),
      at('local', 'team-b', 'b2'),
    ];
    expect(fleetStages(cs, 'one', true)).toEqual([
      {
        name: 'all',
        clusters: [
          { ...cs[0], group: 'team-b' },
          { ...cs[1], group: 'team-a' },
          { ...cs[2], group: 'team-b' },
        ],
      },
    ]);
  });
});

describe('ClustersPage: Plan an upgrade of these', () => {
  it('previews the shown clusters in the chosen stages and says what each would do, or why not', async () => {
    server.use(
      http.get(`${BASE}/clusters`, ({ request }) =>
        HttpResponse.json(clustersAnswer(CLUSTERS, request.url)),
      ),
    );
    const sent: FleetRunSpec[] = [];
    server.use(
      http.post(`${BASE}/fleet-runs/preview`, async ({ request }) => {
        sent.push((await request.json()) as FleetRunSpec);
        return HttpResponse.json(ANSWER);
      }),
    );
    renderCapz(<ClustersPage />, {
      path: '/capz?health=healthy',
      mountPath: '/capz',
    });
    await screen.findByRole('region', { name: 'Clusters' });
    // The healthy ones only: payments and legacy-web.
    await screen.findByText('2 of 4 clusters');
    await userEvent.click(
      screen.getByRole('button', { name: 'Plan an upgrade of these' }),
    );
    const dialog = await screen.findByRole('dialog', {
      name: 'Plan an upgrade of 2 clusters',
    });
    await userEvent.click(
      within(dialog).getByRole('radio', { name: 'One version for all' }),
    );
    const preview = within(dialog).getByRole('button', { name: 'Preview' });
    // No version yet, then one that is not a version: nothing to send.
    expect(preview).toBeDisabled();
    await userEvent.type(
      within(dialog).getByRole('textbox', { name: 'Version' }),
      'latest',
    );
    expect(
      await within(dialog).findByText('"latest" is not a version like v1.34.2'),
    ).toBeInTheDocument();
    expect(preview).toBeDisabled();
    await userEvent.clear(
      within(dialog).getByRole('textbox', { name: 'Version' }),
    );
    await userEvent.type(
      within(dialog).getByRole('textbox', { name: 'Version' }),
      'v1.34.2',
    );
    await userEvent.click(
      within(dialog).getByRole('radio', { name: 'One per namespace' }),
    );
    await userEvent.click(preview);

    expect(
      await within(dialog).findByText(
        '1 would upgrade, 0 already there, 1 left out',
      ),
    ).toBeInTheDocument();
    expect(sent).toHaveLength(1);
    expect(sent[0].target).toEqual({ kind: 'version', version: 'v1.34.2' });
    expect(
      sent[0].stages
        .map(s => [s.name, s.clusters.map(c => c.name)] as const)
        .sort(),
    ).toEqual([
      ['team-legacy-web', ['legacy-web']],
      ['team-payments', ['payments']],
    ]);
    const first = within(dialog).getByRole('region', {
      name: 'Stage 1: team-payments',
    });
    expect(within(first).getByRole('listitem').textContent).toBe(
      "team-payments/payments (upgrades): control plane v1.33.2 → v1.34.2 through a pull request (Flux's Kustomization flux-system/clusters applies AzureASOManagedControlPlane payments), then pools system, user → v1.34.2",
    );
    const second = within(dialog).getByRole('region', {
      name: 'Stage 2: team-legacy-web',
    });
    expect(within(second).getByRole('listitem').textContent).toBe(
      'team-legacy-web/legacy-web (left out): AKS offers no 1.34 version in eastus.',
    );
    await userEvent.click(within(dialog).getByRole('button', { name: 'Done' }));
    await waitFor(() =>
      expect(screen.queryByRole('dialog')).not.toBeInTheDocument(),
    );
  });

  it("starts the run the preview showed, with a soak after each stage and an approval before the next, and opens the run's page", async () => {
    const ID = '3f0c8a52-6d1e-4c1a-9f2b-0a1b2c3d4e5f';
    const started: Array<{ spec: FleetRunSpec; options: FleetRunOptions }> = [];
    const created: FleetRunRecord = {
      id: ID,
      createdBy: 'user:default/guest',
      createdAt: '2026-12-04T10:00:00Z',
      updatedAt: '2026-12-04T10:00:00Z',
      run: {
        state: 'running',
        target: { kind: 'next-minor' },
        concurrency: 1,
        maxFailures: 0,
        stepTimeoutSeconds: 14400,
        failures: 0,
        stages: ANSWER.stages.map(st => ({
          name: st.name,
          soakSeconds: 300,
          approval: false,
          state: 'waiting' as const,
          clusters: st.clusters.map(c => ({
            ...at(c.managementCluster, c.namespace, c.name),
            state: 'waiting' as const,
            steps: c.steps,
            step: 0,
            written: false,
          })),
        })),
      },
    };
    server.use(
      http.get(`${BASE}/clusters`, ({ request }) =>
        HttpResponse.json(clustersAnswer(CLUSTERS, request.url)),
      ),
      http.post(`${BASE}/fleet-runs/preview`, () =>
        HttpResponse.json({ ...ANSWER, target: { kind: 'next-minor' } }),
      ),
      http.post(`${BASE}/fleet-runs`, async ({ request }) => {
        started.push((await request.json()) as (typeof started)[number]);
        return HttpResponse.json(created, { status: 201 });
      }),
      http.get(`${BASE}/fleet-runs/${ID}`, () => HttpResponse.json(created)),
    );
    renderCapz(<CapzPage />, {
      path: '/capz?health=healthy',
      mountPath: '/capz/*',
    });
    await screen.findByText('2 of 4 clusters');
    await userEvent.click(
      screen.getByRole('button', { name: 'Plan an upgrade of these' }),
    );
    const dialog = await screen.findByRole('dialog', {
      name: 'Plan an upgrade of 2 clusters',
    });
    // Nothing to start before a preview.
    expect(
      within(dialog).queryByRole('button', { name: /^Start the run/ }),
    ).toBeNull();
    await userEvent.click(
      within(dialog).getByRole('radio', { name: 'One per namespace' }),
    );
    await userEvent.click(
      within(dialog).getByRole('button', { name: 'Preview' }),
    );
    const runIt = await within(dialog).findByRole('region', { name: 'Run it' });
    const soak = within(runIt).getByRole('textbox', {
      name: 'Soak after each stage (minutes)',
    });
    await userEvent.clear(soak);
    await userEvent.type(soak, 'soon');
    expect(
      await within(runIt).findByText('minutes, a whole number (0 for none)'),
    ).toBeInTheDocument();
    const start = within(dialog).getByRole('button', {
      name: 'Start the run (1 cluster)',
    });
    expect(start).toBeDisabled();
    await userEvent.clear(soak);
    await userEvent.type(soak, '5');
    const atOnce = within(runIt).getByRole('textbox', {
      name: 'Clusters of a stage at a time',
    });
    await userEvent.clear(atOnce);
    await userEvent.type(atOnce, '0');
    expect(
      await within(runIt).findByText('a whole number from 1 to 50'),
    ).toBeInTheDocument();
    expect(start).toBeDisabled();
    await userEvent.clear(atOnce);
    await userEvent.type(atOnce, '2');
    const failures = within(runIt).getByRole('textbox', {
      name: 'Failures allowed before the run stops',
    });
    await userEvent.clear(failures);
    await userEvent.type(failures, '1');
    expect(
      within(runIt).getByRole('checkbox', {
        name: 'Wait for an approval before each next stage',
      }),
    ).toBeChecked();
    await userEvent.click(start);
    expect(
      await screen.findByRole('heading', {
        name: 'Fleet upgrade to the next minor: 2 clusters in 2 stages',
      }),
    ).toBeInTheDocument();
    expect(started).toHaveLength(1);
    expect(started[0].spec.target).toEqual({ kind: 'next-minor' });
    expect(started[0].spec.concurrency).toBe(2);
    expect(started[0].spec.stages.map(st => st.name).sort()).toEqual([
      'team-legacy-web',
      'team-payments',
    ]);
    const [firstStage, lastStage] = started[0].spec.stages.map(st => st.name);
    expect(started[0].options).toEqual({
      gates: {
        [firstStage]: { soakSeconds: 300, approval: true },
        [lastStage]: { soakSeconds: 300, approval: false },
      },
      maxFailures: 1,
    });
  });
});

describe('ClustersPage: a migration wave', () => {
  it('previews the shown clusters as migrations, one target namespace each, and says what each job would do', async () => {
    server.use(
      http.get(`${BASE}/clusters`, ({ request }) =>
        HttpResponse.json(clustersAnswer(CLUSTERS, request.url)),
      ),
    );
    const sent: FleetRunSpec[] = [];
    server.use(
      http.post(`${BASE}/fleet-runs/preview`, async ({ request }) => {
        sent.push((await request.json()) as FleetRunSpec);
        return HttpResponse.json({
          target: { kind: 'migrate' },
          concurrency: 1,
          counts: { upgrade: 1, current: 1, refused: 0 },
          stages: [
            {
              name: 'all',
              clusters: [
                {
                  ...at('local', 'team-payments', 'payments'),
                  outcome: 'current',
                  steps: [],
                  problems: [],
                },
                {
                  ...at('local', 'team-legacy-web', 'legacy-web'),
                  outcome: 'upgrade',
                  steps: [
                    {
                      kind: 'job',
                      request: {
                        type: 'migrate',
                        params: {
                          ...at('local', 'team-legacy-web', 'legacy-web'),
                          targetNamespace: 'legacy-web-aso',
                        },
                      },
                      title:
                        'migrate to the ASO API in namespace legacy-web-aso',
                      plan: ['Pause', 'Adopt', 'Release'],
                      warnings: [],
                    },
                  ],
                  problems: [],
                },
              ],
            },
          ],
        } satisfies FleetRunPreview);
      }),
    );
    renderCapz(<ClustersPage />, {
      path: '/capz?health=healthy',
      mountPath: '/capz',
    });
    await screen.findByText('2 of 4 clusters');
    await userEvent.click(
      screen.getByRole('button', { name: 'Plan an upgrade of these' }),
    );
    await userEvent.click(
      within(await screen.findByRole('dialog')).getByRole('radio', {
        name: 'Migrate legacy clusters to the ASO API (a migration job each)',
      }),
    );
    const dialog = await screen.findByRole('dialog', {
      name: 'Plan a migration of 2 clusters',
    });
    const into = within(dialog).getByRole('textbox', {
      name: 'Target namespace',
    });
    // One namespace for all cannot be: each migration creates its own.
    await userEvent.clear(into);
    await userEvent.type(into, 'migrated');
    expect(
      await within(dialog).findByText(
        'include {name}: each migration creates its own namespace',
      ),
    ).toBeInTheDocument();
    const preview = within(dialog).getByRole('button', { name: 'Preview' });
    expect(preview).toBeDisabled();
    await userEvent.clear(into);
    await userEvent.type(into, '{{name}-aso');
    await userEvent.click(preview);
    expect(
      await within(dialog).findByText(
        '1 would migrate, 1 already there, 0 left out',
      ),
    ).toBeInTheDocument();
    expect(sent).toEqual([
      expect.objectContaining({
        target: { kind: 'migrate', targetNamespace: '{name}-aso' },
      }),
    ]);
    expect(
      within(dialog).getByText(
        /\(migrates\): migrate to the ASO API in namespace legacy-web-aso \(3 job steps\)/,
      ),
    ).toBeInTheDocument();
    expect(
      within(dialog).getByText(/\(already there\): already on the ASO API/),
    ).toBeInTheDocument();
  });
});

describe('ClustersPage: Plan from a catalog query', () => {
  const entity = (
    name: string,
    owner: string,
    tags: string[],
    place: string,
  ) => ({
    apiVersion: 'backstage.io/v1alpha1',
    kind: 'Resource',
    metadata: {
      name,
      tags,
      annotations: { 'capz.io/cluster': place },
    },
    spec: { type: 'kubernetes-cluster', owner },
  });
  const CATALOG = [
    entity(
      'local-team-payments-payments',
      'group:default/payments',
      ['prod'],
      'local/team-payments/payments',
    ),
    entity(
      'local-team-search-search-prod',
      'group:default/search',
      ['prod'],
      'local/team-search/search-prod',
    ),
    entity(
      'local-team-payments-payments-dev',
      'group:default/payments',
      ['dev'],
      'local/team-payments/payments-dev',
    ),
    // Not a cluster entity: the same owner, never planned.
    {
      apiVersion: 'backstage.io/v1alpha1',
      kind: 'Component',
      metadata: {
        name: 'payments-api',
        annotations: { 'capz.io/cluster': 'local/team-payments/payments' },
      },
      spec: { type: 'service', owner: 'group:default/payments' },
    },
  ];

  it('plans the clusters whose catalog entity matches, and says what is wrong with a query in words', async () => {
    server.use(
      http.get(`${BASE}/clusters`, ({ request }) =>
        HttpResponse.json(clustersAnswer(CLUSTERS, request.url)),
      ),
    );
    const sent: FleetRunSpec[] = [];
    server.use(
      http.post(`${BASE}/fleet-runs/preview`, async ({ request }) => {
        sent.push((await request.json()) as FleetRunSpec);
        return HttpResponse.json(ANSWER);
      }),
    );
    renderCapz(<ClustersPage />, {
      apis: [[catalogApiRef, catalogApiMock({ entities: CATALOG })]],
    });
    await screen.findByText('4 clusters');
    await userEvent.click(
      screen.getByRole('button', { name: 'Plan from a catalog query' }),
    );
    const dialog = await screen.findByRole('dialog', {
      name: 'Plan from a catalog query',
    });
    const query = within(dialog).getByRole('textbox', {
      name: 'Catalog query',
    });
    const find = within(dialog).getByRole('button', { name: 'Find clusters' });
    await userEvent.type(query, 'spec.owner');
    expect(
      await within(dialog).findByText(
        '"spec.owner" is not key=value (e.g. metadata.tags=prod)',
      ),
    ).toBeInTheDocument();
    expect(find).toBeDisabled();
    await userEvent.clear(query);
    await userEvent.type(
      query,
      'spec.owner=group:default/payments, metadata.tags=prod',
    );
    await userEvent.click(find);
    expect(
      await within(dialog).findByText(
        '1 cluster match: local/team-payments/payments.',
      ),
    ).toBeInTheDocument();
    await userEvent.click(
      within(dialog).getByRole('button', { name: 'Plan 1 cluster' }),
    );
    const plan = await screen.findByRole('dialog', {
      name: 'Plan an upgrade of 1 cluster',
    });
    await userEvent.click(
      within(plan).getByRole('button', { name: 'Preview' }),
    );
    await waitFor(() => expect(sent).toHaveLength(1));
    expect(sent[0].stages).toEqual([
      { name: 'all', clusters: [at('local', 'team-payments', 'payments')] },
    ]);
  });
});
