import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http, HttpResponse } from 'msw';
import type {
  JobPreview,
  JobRequest,
  ManagementClustersResponse,
  PreflightCheck,
} from '@capz-backstage/plugin-capz-common';
import { BASE, CLUSTERS, node } from '../../__testUtils__/fixtures';
import { renderCapz, setupCapzServer } from '../../__testUtils__/harness';
import {
  DISCOVERED,
  JOB_ID,
  jobDetails,
  OTHER_JOB_ID,
  PLAN,
  PREFLIGHT_OK,
} from '../../__testUtils__/jobFixtures';
import MIGRATION_PREVIEW_JSON from '../../__testUtils__/migrationPreview.json';
import { CapzPage } from '../CapzPage';

const server = setupCapzServer();

const MCS: ManagementClustersResponse = {
  items: [
    {
      name: 'local',
      authMethod: 'kubeconfig',
      status: { state: 'connected', version: 'v1.35.4' },
    },
    {
      name: 'demo-2',
      authMethod: 'kubeconfig',
      status: { state: 'connected', version: 'v1.35.4' },
    },
  ],
};

function serveAdoption(opts: { preflight?: PreflightCheck[] } = {}) {
  const calls = {
    secrets: [] as string[],
    discover: [] as string[],
    preview: [] as JobRequest[],
    start: [] as JobRequest[],
  };
  server.use(
    http.get(`${BASE}/management-clusters`, () => HttpResponse.json(MCS)),
    http.get(`${BASE}/pickers/namespaces`, ({ request }) => {
      const q = new URL(request.url).searchParams;
      return HttpResponse.json({
        managementCluster: q.get('managementCluster'),
        source: 'live',
        items: [{ name: 'team-data' }, { name: 'team-payments' }],
      });
    }),
    http.get(`${BASE}/credential-secrets`, ({ request }) => {
      const q = new URL(request.url).searchParams;
      calls.secrets.push(q.toString());
      return HttpResponse.json({
        items: [
          {
            namespace: q.get('namespace'),
            name: 'aso-credential',
            subscriptionId: 'sub-1',
            authMode: 'workloadidentity',
          },
        ],
      });
    }),
    http.get(`${BASE}/azure/clusters`, ({ request }) => {
      calls.discover.push(new URL(request.url).searchParams.toString());
      return HttpResponse.json({ subscriptionId: 'sub-1', items: DISCOVERED });
    }),
    http.post(`${BASE}/jobs/preview`, async ({ request }) => {
      const body = (await request.json()) as JobRequest;
      calls.preview.push(body);
      return HttpResponse.json({
        type: body.type,
        target: {
          managementCluster: 'local',
          namespace: 'team-data',
          name: 'data-lake',
        },
        preflight: opts.preflight ?? PREFLIGHT_OK,
        plan: PLAN,
      });
    }),
    http.post(`${BASE}/jobs`, async ({ request }) => {
      calls.start.push((await request.json()) as JobRequest);
      return HttpResponse.json(
        jobDetails({ state: 'queued', currentStep: undefined }),
        { status: 201 },
      );
    }),
    http.get(`${BASE}/jobs/${JOB_ID}`, () => HttpResponse.json(jobDetails())),
  );
  return calls;
}

/** Management cluster, namespace and credential, as a user picks them. */
async function pickUpToCluster() {
  const mcSelect = await screen.findByRole('button', {
    name: /Management cluster/,
  });
  await userEvent.click(mcSelect);
  await userEvent.click(await screen.findByRole('option', { name: 'local' }));
  // The namespace comes from the management cluster's live list, as in the template.
  await userEvent.click(screen.getByRole('combobox', { name: /Namespace/ }));
  await userEvent.click(
    await screen.findByRole('option', { name: 'team-data' }),
  );
  await userEvent.click(
    await screen.findByRole('radio', {
      name: /aso-credential · subscription sub-1/,
    }),
  );
  return screen.findByRole('radiogroup', { name: /AKS cluster to adopt/ });
}

const start = () => screen.getByTestId('start-job');

describe('adoption wizard', () => {
  it('goes from management cluster to a started job, sending exactly the chosen cluster', async () => {
    const calls = serveAdoption();
    renderCapz(<CapzPage />, { path: '/capz/adopt', mountPath: '/capz/*' });
    expect(
      await screen.findByRole('heading', { name: 'Adopt an AKS cluster' }),
    ).toBeInTheDocument();
    // Management cluster, namespace, credential, AKS cluster, preflight, plan and start.
    expect(screen.getAllByTestId('wizard-step').length).toBe(6);

    const clusters = await pickUpToCluster();
    expect(calls.secrets).toEqual([
      'managementCluster=local&namespace=team-data',
    ]);
    expect(calls.discover).toEqual([
      'managementCluster=local&namespace=team-data&credentialSecret=aso-credential',
    ]);
    // Pools and the Entra-only note are shown with each cluster.
    expect(
      within(clusters).getByRole('radio', {
        name: /data-lake.*Pools: system \(System, Standard_D4s_v5, 3 nodes\); work \(User, Standard_D4s_v5, 3 nodes, autoscaling 1–5\)/,
      }),
    ).toBeInTheDocument();
    expect(
      within(clusters).getByRole('radio', {
        name: /secure-one.*Entra ID only.*secure-one-user-kubeconfig/,
      }),
    ).toBeInTheDocument();
    expect(start()).toBeDisabled();

    await userEvent.click(
      within(clusters).getByRole('radio', { name: /^data-lake/ }),
    );
    await userEvent.click(
      screen.getByRole('button', { name: 'Check and preview' }),
    );

    const checks = await screen.findAllByTestId('preflight-check');
    expect(checks).toHaveLength(2);
    expect(
      within(checks[0]).getByRole('img', { name: 'Warning' }),
    ).toBeInTheDocument();
    expect(checks[0]).toHaveTextContent(
      'Fix: Nothing needed; upgrade CAPZ to v1.22',
    );
    expect(
      within(checks[1]).getByRole('img', { name: 'Pass' }),
    ).toBeInTheDocument();

    const steps = screen.getAllByTestId('plan-step');
    expect(steps.map(s => within(s).getByRole('heading').textContent)).toEqual([
      'Create the namespace',
      'Copy the credential',
      'Pause the old cluster',
    ]);
    // Each step opens to its details.
    for (const s of steps)
      await userEvent.click(within(s).getByRole('button', { expanded: false }));
    expect(
      within(steps[0]).getByLabelText('YAML of Create Namespace team-data'),
    ).toHaveTextContent('kind: Namespace');
    expect(
      within(steps[0]).getByText('The backend may create namespaces'),
    ).toBeInTheDocument();
    expect(
      within(steps[1]).getByText(/copied at run time and never shown/),
    ).toBeInTheDocument();
    expect(
      within(steps[2]).getByLabelText(
        'Patch of Patch Cluster team-old/data-lake',
      ),
    ).toHaveTextContent('paused: true');
    expect(
      within(steps[2]).getByText('Cluster team-old/data-lake is paused'),
    ).toBeInTheDocument();

    const expected: JobRequest = {
      type: 'adopt',
      params: {
        managementCluster: 'local',
        namespace: 'team-data',
        credentialSecret: 'aso-credential',
        subscriptionId: 'sub-1',
        resourceGroup: 'rg-data-lake',
        clusterName: 'data-lake',
      },
    };
    expect(calls.preview).toEqual([expected]);
    expect(start()).toBeEnabled();
    await userEvent.click(start());
    await waitFor(() => expect(calls.start).toEqual([expected]));
    // The wizard opens the job's page.
    expect(
      await screen.findByRole('heading', {
        name: 'Adoption: team-data/data-lake',
      }),
    ).toBeInTheDocument();
    expect(screen.getByTestId('job-state')).toHaveTextContent('Running');
  });

  it('shows clusters another ManagedCluster already points at, but they cannot be chosen', async () => {
    serveAdoption();
    renderCapz(<CapzPage />, { path: '/capz/adopt', mountPath: '/capz/*' });
    const clusters = await pickUpToCluster();
    const billing = within(clusters).getByRole('radio', {
      name: /^billing.*Already managed by ManagedCluster team-billing\/billing/,
    });
    expect(billing).toBeDisabled();
    await userEvent.click(billing);
    expect(billing).not.toBeChecked();
    expect(
      screen.queryByRole('button', { name: 'Check and preview' }),
    ).not.toBeInTheDocument();
    expect(start()).toBeDisabled();
  });

  it('says Azure refused when discovery answers 502, with what to check', async () => {
    serveAdoption();
    server.use(
      http.get(`${BASE}/azure/clusters`, () =>
        HttpResponse.json(
          {
            error: {
              name: 'AzureError',
              message:
                'ARM answered 403 AuthorizationFailed for subscription sub-1',
            },
            response: { statusCode: 502 },
          },
          { status: 502 },
        ),
      ),
    );
    renderCapz(<CapzPage />, { path: '/capz/adopt', mountPath: '/capz/*' });
    await userEvent.click(
      await screen.findByRole('button', { name: /Management cluster/ }),
    );
    await userEvent.click(await screen.findByRole('option', { name: 'local' }));
    // A typed name, as a user who knows it types it; leaving the field closes the list of matches.
    await userEvent.type(
      screen.getByRole('combobox', { name: /Namespace/ }),
      'team-data',
    );
    await userEvent.tab();
    await userEvent.click(
      await screen.findByRole('radio', { name: /aso-credential/ }),
    );
    expect(
      await screen.findByText('Could not list the AKS clusters in Azure'),
    ).toBeInTheDocument();
    expect(
      screen.getByText(
        /ARM answered 403 AuthorizationFailed.*Azure refused the request with this credential/,
      ),
    ).toBeInTheDocument();
    expect(start()).toBeDisabled();
  });

  it('finds a credential Secret no ASO object names yet by the name the user types', async () => {
    const calls = serveAdoption();
    server.use(
      http.get(`${BASE}/credential-secrets`, ({ request }) => {
        const q = new URL(request.url).searchParams;
        calls.secrets.push(q.toString());
        const items = [
          {
            namespace: q.get('namespace'),
            name: 'aso-credential',
            subscriptionId: 'sub-1',
          },
        ];
        if (q.get('name') === 'team-sp')
          items.push({
            namespace: q.get('namespace'),
            name: 'team-sp',
            subscriptionId: 'sub-2',
          });
        return HttpResponse.json({ items });
      }),
    );
    renderCapz(<CapzPage />, { path: '/capz/adopt', mountPath: '/capz/*' });
    await userEvent.click(
      await screen.findByRole('button', { name: /Management cluster/ }),
    );
    await userEvent.click(await screen.findByRole('option', { name: 'local' }));
    // A typed name, as a user who knows it types it; leaving the field closes the list of matches.
    await userEvent.type(
      screen.getByRole('combobox', { name: /Namespace/ }),
      'team-data',
    );
    await userEvent.tab();
    await screen.findByRole('radio', { name: /aso-credential/ });
    expect(
      screen.queryByRole('radio', { name: /team-sp/ }),
    ).not.toBeInTheDocument();
    await userEvent.type(
      screen.getByRole('textbox', { name: /Another Secret name/ }),
      'team-sp',
    );
    await userEvent.click(
      await screen.findByRole('radio', {
        name: /team-sp · subscription sub-2/,
      }),
    );
    expect(calls.secrets.at(-1)).toBe(
      'managementCluster=local&namespace=team-data&name=team-sp',
    );
    await waitFor(() =>
      expect(calls.discover.at(-1)).toBe(
        'managementCluster=local&namespace=team-data&credentialSecret=team-sp',
      ),
    );
  });

  it('offers the live namespaces, and takes a typed one when they cannot be listed, saying why', async () => {
    const calls = serveAdoption();
    renderCapz(<CapzPage />, { path: '/capz/adopt', mountPath: '/capz/*' });
    await userEvent.click(
      await screen.findByRole('button', { name: /Management cluster/ }),
    );
    await userEvent.click(await screen.findByRole('option', { name: 'local' }));
    const ns = screen.getByRole('combobox', { name: /Namespace/ });
    await userEvent.click(ns);
    expect(
      (await screen.findAllByRole('option')).map(o => o.textContent),
    ).toEqual(['team-data', 'team-payments']);

    server.use(
      http.get(`${BASE}/pickers/namespaces`, () =>
        HttpResponse.json(
          {
            error: {
              name: 'NotAllowedError',
              message: 'You may not list namespaces',
            },
          },
          { status: 403 },
        ),
      ),
    );
    await userEvent.keyboard('{Escape}');
    await userEvent.click(
      screen.getByRole('button', { name: /Management cluster/ }),
    );
    await userEvent.click(
      await screen.findByRole('option', { name: 'demo-2' }),
    );
    expect(
      await screen.findByText(/the namespaces could not be listed/),
    ).toBeInTheDocument();
    await userEvent.type(
      screen.getByRole('combobox', { name: /Namespace/ }),
      'team-typed',
    );
    await waitFor(() =>
      expect(calls.secrets).toContain(
        'managementCluster=demo-2&namespace=team-typed',
      ),
    );
  });

  it('checks the namespace as a DNS label while typing, before asking the backend', async () => {
    const calls = serveAdoption();
    renderCapz(<CapzPage />, { path: '/capz/adopt', mountPath: '/capz/*' });
    await userEvent.click(
      await screen.findByRole('button', { name: /Management cluster/ }),
    );
    await userEvent.click(await screen.findByRole('option', { name: 'local' }));
    const ns = screen.getByRole('combobox', { name: /Namespace/ });
    await userEvent.type(ns, 'Team_Data');
    expect(ns).toHaveAttribute('aria-invalid', 'true');
    expect(screen.getByText(/Must be a DNS label/)).toBeInTheDocument();
    expect(calls.secrets).toEqual([]);
  });
});

const MIGRATE_PATH = '/capz/clusters/local/team-legacy/legacy-web/migrate';

describe('migration wizard', () => {
  it('proposes <ns>-aso, refuses an invalid name, and keeps Start disabled while a check fails, with its fix', async () => {
    const preview: JobRequest[] = [];
    server.use(
      http.post(`${BASE}/jobs/preview`, async ({ request }) => {
        preview.push((await request.json()) as JobRequest);
        return HttpResponse.json({
          type: 'migrate',
          target: {
            managementCluster: 'local',
            namespace: 'team-legacy',
            name: 'legacy-web',
          },
          preflight: [
            ...PREFLIGHT_OK,
            {
              id: 'target-namespace-absent',
              title: 'Target namespace is new',
              status: 'fail',
              message: 'Namespace team-legacy-aso already exists',
              fix: 'Choose a namespace that does not exist yet, or delete team-legacy-aso if it is empty.',
            },
          ],
          plan: PLAN,
        });
      }),
    );
    renderCapz(<CapzPage />, { path: MIGRATE_PATH, mountPath: '/capz/*' });
    expect(
      await screen.findByRole('heading', {
        name: 'Migrate legacy-web to the ASO API',
      }),
    ).toBeInTheDocument();
    const target = screen.getByRole('textbox', { name: /Target namespace/ });
    expect(target).toHaveValue('team-legacy-aso');

    await userEvent.clear(target);
    await userEvent.type(target, '-bad');
    expect(target).toHaveAttribute('aria-invalid', 'true');
    expect(
      screen.getByText(
        /Must be a DNS label: lowercase letters, digits and "-"/,
      ),
    ).toBeInTheDocument();
    expect(
      screen.queryByRole('button', { name: 'Check and preview' }),
    ).not.toBeInTheDocument();

    await userEvent.clear(target);
    await userEvent.type(target, 'team-legacy-aso');
    expect(target).not.toHaveAttribute('aria-invalid', 'true');
    await userEvent.click(
      screen.getByRole('button', { name: 'Check and preview' }),
    );

    const checks = await screen.findAllByTestId('preflight-check');
    // Failures first.
    expect(
      within(checks[0]).getByRole('img', { name: 'Fail' }),
    ).toBeInTheDocument();
    expect(checks[0]).toHaveTextContent(
      'Namespace team-legacy-aso already exists',
    );
    expect(checks[0]).toHaveTextContent(
      'Fix: Choose a namespace that does not exist yet',
    );
    expect(screen.getByText(/1 of 3 checks failed/)).toBeInTheDocument();
    expect(start()).toBeDisabled();
    expect(screen.getByText('A preflight check failed.')).toBeInTheDocument();
    expect(preview).toEqual([
      {
        type: 'migrate',
        params: {
          managementCluster: 'local',
          namespace: 'team-legacy',
          name: 'legacy-web',
          targetNamespace: 'team-legacy-aso',
        },
      },
    ]);
  });

  it('on 409 says a job is already running and links to it', async () => {
    server.use(
      http.post(`${BASE}/jobs/preview`, () =>
        HttpResponse.json({
          type: 'migrate',
          target: {
            managementCluster: 'local',
            namespace: 'team-legacy',
            name: 'legacy-web',
          },
          preflight: PREFLIGHT_OK,
          plan: PLAN,
        }),
      ),
      http.post(`${BASE}/jobs`, () =>
        HttpResponse.json(
          {
            error: {
              name: 'ConflictError',
              message: `Cluster local/team-legacy/legacy-web already has an active job ${OTHER_JOB_ID}`,
            },
          },
          { status: 409 },
        ),
      ),
      http.get(`${BASE}/jobs`, ({ request }) => {
        const q = new URL(request.url).searchParams;
        expect(q.toString()).toBe(
          'managementCluster=local&namespace=team-legacy&name=legacy-web&active=true',
        );
        return HttpResponse.json({
          items: [jobDetails({ id: OTHER_JOB_ID, type: 'migrate' })],
        });
      }),
    );
    renderCapz(<CapzPage />, { path: MIGRATE_PATH, mountPath: '/capz/*' });
    await userEvent.click(
      await screen.findByRole('button', { name: 'Check and preview' }),
    );
    await screen.findAllByTestId('preflight-check');
    await userEvent.click(start());
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('This cluster already has a job running');
    expect(alert).toHaveTextContent(
      `already has an active job ${OTHER_JOB_ID}`,
    );
    expect(
      within(alert).getByRole('link', { name: 'Open the running job' }),
    ).toHaveAttribute('href', `/capz/jobs/${OTHER_JOB_ID}`);
  });

  it('on 422 shows the fresh preflight results from the start request', async () => {
    server.use(
      http.post(`${BASE}/jobs/preview`, () =>
        HttpResponse.json({
          type: 'migrate',
          target: {
            managementCluster: 'local',
            namespace: 'team-legacy',
            name: 'legacy-web',
          },
          preflight: PREFLIGHT_OK,
          plan: PLAN,
        }),
      ),
      http.post(`${BASE}/jobs`, () =>
        HttpResponse.json(
          {
            error: {
              name: 'PreflightFailedError',
              message: 'Preflight failed: CAPZ version: CAPZ stopped',
            },
            preflight: [
              {
                id: 'capz-version',
                title: 'CAPZ version',
                status: 'fail',
                message: 'CAPZ stopped',
                fix: 'Start the CAPZ controller.',
              },
            ],
          },
          { status: 422 },
        ),
      ),
    );
    renderCapz(<CapzPage />, { path: MIGRATE_PATH, mountPath: '/capz/*' });
    await userEvent.click(
      await screen.findByRole('button', { name: 'Check and preview' }),
    );
    await screen.findAllByTestId('preflight-check');
    await userEvent.click(start());
    expect(await screen.findByRole('alert')).toHaveTextContent(
      'Preflight failed: CAPZ version: CAPZ stopped',
    );
    const checks = screen.getAllByTestId('preflight-check');
    expect(checks).toHaveLength(1);
    expect(checks[0]).toHaveTextContent('Fix: Start the CAPZ controller.');
    expect(start()).toBeDisabled();
  });
});

/** The cluster's tree route, which the upgrade wizard reads for the cluster's API. */
const treeOf = (summary: (typeof CLUSTERS)[number]) =>
  http.get(
    `${BASE}/clusters/${summary.managementCluster}/${summary.namespace}/${summary.name}/tree`,
    () =>
      HttpResponse.json({
        summary,
        tree: node({ id: summary.uid, kind: 'Cluster', name: summary.name }),
      }),
  );

describe('upgrade wizard', () => {
  it('previews on arrival, with no inputs', async () => {
    const preview: JobRequest[] = [];
    server.use(
      treeOf(CLUSTERS.find(c => c.name === 'analytics')!),
      http.post(`${BASE}/jobs/preview`, async ({ request }) => {
        preview.push((await request.json()) as JobRequest);
        return HttpResponse.json({
          type: 'upgrade-api-version',
          target: {
            managementCluster: 'demo-2',
            namespace: 'team-analytics',
            name: 'analytics',
          },
          preflight: PREFLIGHT_OK,
          plan: PLAN,
        });
      }),
    );
    renderCapz(<CapzPage />, {
      path: '/capz/clusters/demo-2/team-analytics/analytics/upgrade',
      mountPath: '/capz/*',
    });
    expect(
      await screen.findByRole('heading', {
        name: 'Upgrade analytics to the v1beta1 API',
      }),
    ).toBeInTheDocument();
    expect(await screen.findAllByTestId('plan-step')).toHaveLength(3);
    expect(preview).toEqual([
      {
        type: 'upgrade-api-version',
        params: {
          managementCluster: 'demo-2',
          namespace: 'team-analytics',
          name: 'analytics',
        },
      },
    ]);
    expect(start()).toBeEnabled();
  });

  it('says a legacy cluster has nothing to upgrade and links to its migration, without preflight or Start', async () => {
    const legacy = CLUSTERS.find(c => c.name === 'legacy-web')!;
    const preview: JobRequest[] = [];
    server.use(
      treeOf(legacy),
      http.post(`${BASE}/jobs/preview`, async ({ request }) => {
        preview.push((await request.json()) as JobRequest);
        return HttpResponse.json({});
      }),
    );
    renderCapz(<CapzPage />, {
      path: `/capz/clusters/local/${legacy.namespace}/legacy-web/upgrade`,
      mountPath: '/capz/*',
    });
    const notice = await screen.findByTestId('legacy-cluster');
    expect(notice).toHaveTextContent(
      'legacy-web is a legacy cluster: there is nothing to upgrade',
    );
    expect(notice).toHaveTextContent(
      'uses the legacy AzureManagedControlPlane API',
    );
    expect(
      within(notice).getByRole('link', {
        name: 'Migrate legacy-web to the ASO API',
      }),
    ).toHaveAttribute(
      'href',
      `/capz/clusters/local/${legacy.namespace}/legacy-web/migrate`,
    );
    expect(screen.queryByTestId('start-job')).not.toBeInTheDocument();
    expect(screen.queryByText('Preflight checks')).not.toBeInTheDocument();
    expect(preview).toEqual([]);
  });
});

/**
 * A migration's real preview: capz-common's `planMigration(params, snapshot({ network: true }))` (its
 * jobs/__fixtures__/migration.ts), `{ type, target, preflight, plan }` as JSON. Regenerate it when the planner's
 * texts change.
 */
const MIGRATION_PREVIEW = MIGRATION_PREVIEW_JSON as unknown as JobPreview;

async function previewLongMigration(
  opts: { config?: Record<string, any> } = {},
): Promise<HTMLElement[]> {
  server.use(
    http.post(`${BASE}/jobs/preview`, () =>
      HttpResponse.json(MIGRATION_PREVIEW),
    ),
  );
  renderCapz(<CapzPage />, {
    path: MIGRATE_PATH,
    mountPath: '/capz/*',
    ...opts,
  });
  await userEvent.click(
    await screen.findByRole('button', { name: 'Check and preview' }),
  );
  return screen.findAllByTestId('plan-step');
}

/** Opens every step of the plan and every folded block, as a reader who wants everything would. */
async function openEverything() {
  for (const step of screen.getAllByTestId('plan-step'))
    await userEvent.click(
      within(step).getByRole('button', { expanded: false }),
    );
  for (const d of Array.from(document.querySelectorAll('details')))
    d.open = true;
}

describe('a long plan, read before Start', () => {
  it('summarises the plan first, with Start right after the summary and before the steps, each folded to one line', async () => {
    const steps = await previewLongMigration();
    expect(steps).toHaveLength(MIGRATION_PREVIEW.plan.length);
    const summary = screen.getByTestId('plan-summary');
    expect(summary).toHaveTextContent(
      'In Azure: Nothing is created or deleted.',
    );
    expect(summary).toHaveTextContent(
      `On the management cluster: ${MIGRATION_PREVIEW.plan.length} steps; the job creates`,
    );
    // The preview has one warning (the VNet and subnet stay unmanaged): the user reads it first.
    expect(summary).toHaveTextContent(
      'You: Read the warning above, then Start.',
    );
    // The warning is shown; the passed checks are folded under one line.
    const passed = MIGRATION_PREVIEW.preflight.filter(c => c.status === 'pass');
    expect(
      screen.getByText(`Show the ${passed.length} passed checks`),
    ).toBeVisible();
    expect(screen.getByText(passed[0].title)).not.toBeVisible();
    expect(
      screen.getByText('Everything is adopted', { selector: 'span' }),
    ).toBeVisible();
    // Summary, then Start, then the steps.
    const follows = (a: Node, b: Node) =>
      !!(a.compareDocumentPosition(b) & Node.DOCUMENT_POSITION_FOLLOWING);
    expect(follows(summary, start())).toBe(true);
    expect(follows(start(), steps[0])).toBe(true);
    expect(start()).toBeEnabled();

    // One line per step: its title, as a button that opens it; the details are hidden until then.
    const pause = steps.find(s => s.dataset.step === 'pause')!;
    const trigger = within(pause).getByRole('button', {
      name: 'Pause the old cluster',
    });
    expect(trigger).toHaveAttribute('aria-expanded', 'false');
    const description = within(pause).getByText(
      /Sets Cluster spec.paused=true/,
    );
    expect(description).not.toBeVisible();
    for (const s of steps)
      expect(within(s).getByRole('button')).toHaveAttribute(
        'aria-expanded',
        'false',
      );
    await userEvent.click(trigger);
    expect(trigger).toHaveAttribute('aria-expanded', 'true');
    expect(description).toBeVisible();
  });

  it('shows no docs/*.md citation or Go file name: left out without a docs URL', async () => {
    await previewLongMigration();
    // The preview cites the docs some twenty times.
    expect(JSON.stringify(MIGRATION_PREVIEW)).toMatch(/docs\/[\w-]+\.md#/);
    await openEverything();
    const page = screen.getByTestId('wizard-page');
    expect(page.textContent).not.toMatch(/docs\/|\.md\b/);
    expect(page.textContent).not.toMatch(/\b\w+\.go\b/);
    // What held only citations is gone with them: no empty parentheses.
    expect(page.textContent).not.toMatch(/\(\s*\)/);
    const pause = screen
      .getAllByTestId('plan-step')
      .find(s => s.dataset.step === 'pause')!;
    expect(pause).toHaveTextContent(
      'so that CAPI and the legacy CAPZ controllers stop reconciling, and CAPZ sets the old ASO objects to reconcile-policy skip.',
    );
    expect(within(pause).queryAllByRole('link')).toEqual([]);
  });

  it('links the citations to the rendered docs when capz.docsBaseUrl is set', async () => {
    await previewLongMigration({
      config: {
        capz: { docsBaseUrl: 'https://docs.example/capz-backstage/docs/' },
      },
    });
    await openEverything();
    const pause = screen
      .getAllByTestId('plan-step')
      .find(s => s.dataset.step === 'pause')!;
    expect(
      within(pause).getByRole('link', { name: 'migration procedure: step 1' }),
    ).toHaveAttribute(
      'href',
      'https://docs.example/capz-backstage/docs/migration-procedure.md#step-1',
    );
    expect(
      within(pause).getByRole('link', {
        name: 'CAPZ and ASO facts: legacy pause',
      }),
    ).toHaveAttribute(
      'href',
      'https://docs.example/capz-backstage/docs/capz-aso-facts.md#legacy-pause',
    );
    expect(screen.getByTestId('wizard-page').textContent).not.toMatch(/docs\//);
  });

  it("folds a fix's long command, with a Copy button, after the sentence that says what it does", async () => {
    await previewLongMigration();
    const check = screen
      .getAllByTestId('preflight-check')
      .find(c => c.dataset.status === 'warn')!;
    const fix = MIGRATION_PREVIEW.preflight.find(c => c.status === 'warn')!
      .fix!;
    const command = /`(kubectl [^`]+)`/.exec(fix)![1];
    expect(command.length).toBeGreaterThan(800);
    const sentence = within(check).getByText(
      /^To keep VirtualNetwork legacy-1, VirtualNetworksSubnet legacy-1-legacy-1 managed as before .* once the job has finished run:$/,
    );
    expect(sentence).toBeVisible();
    expect(sentence.textContent).toMatch(/^Fix: To keep/);
    const code = within(check).getByText(command);
    expect(code).not.toBeVisible();
    const show = within(check).getByText(
      `Show the kubectl command (${command.length} characters)`,
    );
    expect(
      within(check).getByRole('button', { name: 'Copy the kubectl command' }),
    ).toBeVisible();
    await userEvent.click(show);
    expect(code).toBeVisible();
    // One token per line is not wrapped: the block scrolls sideways.
    expect(code.closest('pre')).toHaveStyle({
      whiteSpace: 'pre',
      overflowX: 'auto',
    });
  });
});
