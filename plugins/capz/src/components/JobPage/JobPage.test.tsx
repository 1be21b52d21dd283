import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http, HttpResponse } from 'msw';
import {
  CAPZ_JOBS_SIGNAL_CHANNEL,
  CapzChangeSignal,
  CapzJobSignal,
  JobDetails,
} from '@capz-backstage/plugin-capz-common';
import {
  BASE,
  SEARCH_PROD,
  searchProdTree,
  summary,
} from '../../__testUtils__/fixtures';
import {
  FakeSignals,
  renderCapz,
  setupCapzServer,
} from '../../__testUtils__/harness';
import {
  JOB_ID,
  jobDetails,
  OTHER_JOB_ID,
} from '../../__testUtils__/jobFixtures';
import { CapzPage } from '../CapzPage';

const server = setupCapzServer();
const JOB_PATH = `/capz/jobs/${JOB_ID}`;

/** Serves GET /jobs/:id from a job the test changes; counts reads. */
function serveJob(initial: JobDetails) {
  const state = { job: initial, reads: 0, posts: [] as string[] };
  server.use(
    http.get(`${BASE}/jobs/${JOB_ID}`, () => {
      state.reads++;
      return HttpResponse.json(state.job);
    }),
    http.post(`${BASE}/jobs/${JOB_ID}/:action`, ({ params }) => {
      state.posts.push(String(params.action));
      if (params.action === 'cancel') {
        state.job = {
          ...state.job,
          state: 'cancelled',
          requested: undefined,
          finishedAt: '2026-11-21T10:01:00Z',
          leftBehind:
            'Namespace team-data and Secret team-data/aso-credential were created and stay. Nothing in Azure changed; it is safe to delete the namespace.',
        };
      }
      return HttpResponse.json(state.job);
    }),
  );
  return state;
}

// The fake's publish is typed for the cluster channel; job signals are plain JSON on another channel.
const jobSignal = (s: CapzJobSignal) => s as unknown as CapzChangeSignal;

describe('job page', () => {
  it('shows the steps and the log, and updates on a signal for this job only', async () => {
    const signals = new FakeSignals();
    const served = serveJob(jobDetails());
    renderCapz(<CapzPage />, { path: JOB_PATH, mountPath: '/capz/*', signals });
    expect(
      await screen.findByRole('heading', {
        name: 'Adoption: team-data/data-lake',
      }),
    ).toBeInTheDocument();
    expect(screen.getByTestId('job-state')).toHaveTextContent('Running');

    const steps = screen.getAllByTestId('job-step');
    expect(steps).toHaveLength(3);
    expect(
      within(steps[0]).getByRole('img', { name: 'Succeeded' }),
    ).toBeInTheDocument();
    expect(steps[1]).toHaveAttribute('aria-current', 'step');
    expect(steps[1]).toHaveTextContent('2 attempts');
    expect(steps[1]).toHaveTextContent(
      'Waiting for Secret team-data/aso-credential',
    );
    expect(
      within(steps[2]).getByRole('img', { name: 'Pending' }),
    ).toBeInTheDocument();
    expect(screen.getByTestId('job-log')).toHaveTextContent(
      '[create-namespace] created Namespace team-data',
    );
    expect(screen.getByRole('button', { name: 'Pause' })).toBeInTheDocument();
    await waitFor(() => expect(screen.getByText('Live')).toBeInTheDocument());

    const before = served.reads;
    signals.publish(
      CAPZ_JOBS_SIGNAL_CHANNEL,
      jobSignal({ jobId: OTHER_JOB_ID, state: 'running' }),
    );
    served.job = jobDetails({
      currentStep: 'pause',
      steps: served.job.steps.map(s => {
        if (s.id === 'copy-credential')
          return {
            ...s,
            state: 'succeeded',
            message: undefined,
            finishedAt: '2026-11-21T10:00:09Z',
          };
        if (s.id === 'pause') return { ...s, state: 'running', attempts: 1 };
        return s;
      }),
      log: [
        ...served.job.log,
        {
          at: '2026-11-21T10:00:09Z',
          level: 'info',
          step: 'copy-credential',
          message: 'copied Secret aso-credential',
        },
      ],
    });
    signals.publish(
      CAPZ_JOBS_SIGNAL_CHANNEL,
      jobSignal({ jobId: JOB_ID, state: 'running', currentStep: 'pause' }),
    );
    expect(
      await screen.findByText(/copied Secret aso-credential/),
    ).toBeInTheDocument();
    expect(
      within(screen.getAllByTestId('job-step')[1]).getByRole('img', {
        name: 'Succeeded',
      }),
    ).toBeInTheDocument();
    expect(screen.getAllByTestId('job-step')[2]).toHaveAttribute(
      'aria-current',
      'step',
    );
    expect(served.reads).toBe(before + 1);
  });

  it('a signal that arrives while the page is still reading the job is not lost (the last step and the end come close together)', async () => {
    // Seen in the e2e run: "last step started" and "job succeeded" signals ~ms apart; the second was dropped while
    // the read for the first was in flight, and the page (which never polls) showed Running forever.
    const signals = new FakeSignals();
    let job = jobDetails();
    let release: (() => void) | undefined;
    let reads = 0;
    server.use(
      http.get(`${BASE}/jobs/${JOB_ID}`, async () => {
        reads++;
        const answer = job; // what the backend had when the request arrived
        if (reads === 2) await new Promise<void>(r => (release = r));
        return HttpResponse.json(answer);
      }),
    );
    renderCapz(<CapzPage />, { path: JOB_PATH, mountPath: '/capz/*', signals });
    await waitFor(() => expect(screen.getByText('Live')).toBeInTheDocument());
    expect(screen.getByTestId('job-state')).toHaveTextContent('Running');

    job = jobDetails({ currentStep: 'pause' });
    signals.publish(
      CAPZ_JOBS_SIGNAL_CHANNEL,
      jobSignal({ jobId: JOB_ID, state: 'running', currentStep: 'pause' }),
    );
    await waitFor(() => expect(release).toBeDefined()); // the second read is held: the page is loading
    job = jobDetails({
      state: 'succeeded',
      currentStep: undefined,
      steps: jobDetails().steps.map(s => ({ ...s, state: 'succeeded' })),
    });
    signals.publish(
      CAPZ_JOBS_SIGNAL_CHANNEL,
      jobSignal({ jobId: JOB_ID, state: 'succeeded' }),
    );
    await waitFor(() => expect(reads).toBe(3));
    release!();
    await waitFor(() =>
      expect(screen.getByTestId('job-state')).toHaveTextContent('Succeeded'),
    );
  });

  it('cancels after a confirmation and then shows what was left behind', async () => {
    const served = serveJob(jobDetails({ state: 'paused' }));
    renderCapz(<CapzPage />, { path: JOB_PATH, mountPath: '/capz/*' });
    await screen.findByTestId('job-state');
    expect(screen.getByRole('button', { name: 'Resume' })).toBeInTheDocument();
    expect(
      screen.queryByRole('button', { name: 'Pause' }),
    ).not.toBeInTheDocument();

    await userEvent.click(screen.getByRole('button', { name: 'Cancel job' }));
    const dialog = await screen.findByRole('dialog');
    await userEvent.click(
      within(dialog).getByRole('button', { name: 'Keep the job' }),
    );
    await waitFor(() =>
      expect(screen.queryByRole('dialog')).not.toBeInTheDocument(),
    );
    expect(served.posts).toEqual([]);

    await userEvent.click(screen.getByRole('button', { name: 'Cancel job' }));
    await userEvent.click(
      within(await screen.findByRole('dialog')).getByRole('button', {
        name: 'Cancel the job',
      }),
    );
    await waitFor(() =>
      expect(screen.getByTestId('job-state')).toHaveTextContent('Cancelled'),
    );
    expect(served.posts).toEqual(['cancel']);
    const left = screen.getByTestId('job-left-behind');
    expect(left).toHaveTextContent('What the job left behind');
    expect(left).toHaveTextContent('it is safe to delete the namespace');
    expect(
      screen.queryByRole('group', { name: 'Job controls' }),
    ).not.toBeInTheDocument();
  });

  it('a cancel queued for a runner (it resumes the Kustomization the job suspended) says it waits for a runner', async () => {
    serveJob(jobDetails({ state: 'queued', requested: 'cancel' }));
    renderCapz(<CapzPage />, { path: JOB_PATH, mountPath: '/capz/*' });
    expect(
      await screen.findByText(
        'Cancel requested: takes effect as soon as a runner takes the job.',
      ),
    ).toBeInTheDocument();
    expect(
      screen.queryByText(/reaches a safe boundary/),
    ).not.toBeInTheDocument();
  });

  it('shows a 409 from a control as the backend says it', async () => {
    serveJob(jobDetails());
    server.use(
      http.post(`${BASE}/jobs/${JOB_ID}/pause`, () =>
        HttpResponse.json(
          {
            error: {
              name: 'ConflictError',
              message: `Cannot pause job ${JOB_ID}: it is succeeded`,
            },
          },
          { status: 409 },
        ),
      ),
    );
    renderCapz(<CapzPage />, { path: JOB_PATH, mountPath: '/capz/*' });
    await userEvent.click(await screen.findByRole('button', { name: 'Pause' }));
    expect(
      await screen.findByText(`Cannot pause job ${JOB_ID}: it is succeeded`),
    ).toBeInTheDocument();
    expect(screen.getByText('Could not pause the job')).toBeInTheDocument();
  });

  it('a migration in Git mode waiting for its merge links the pull request and says what merging does', async () => {
    serveJob(
      jobDetails({
        type: 'migrate',
        state: 'running',
        currentStep: 'wait-merge',
        steps: [
          ...jobDetails().steps.map(s => ({
            ...s,
            state: 'succeeded' as const,
          })),
          {
            id: 'wait-merge',
            title: 'Wait for the pull request to be merged',
            state: 'running',
            attempts: 1,
            message:
              "waiting for the source of Flux's Kustomization flux-system/legacy holds the merged change (now: GitRepository flux-system/legacy at main@sha1:abc still holds Cluster team-data/data-lake)",
          },
        ],
        result: {
          gitProposal: {
            url: 'http://gitea.local/capz/gitops.git',
            base: 'main',
            branch: `capz/migrate-team-data-data-lake-${JOB_ID}`,
            commit: 'c0ffee',
            pullRequest: {
              number: 7,
              url: 'http://gitea.local/capz/gitops/pulls/7',
            },
            files: [{ path: 'clusters/team-data/cluster.yaml', diff: '' }],
          },
        },
      }),
    );
    renderCapz(<CapzPage />, { path: JOB_PATH, mountPath: '/capz/*' });
    const panel = await screen.findByRole('region', { name: 'Pull request' });
    expect(panel).toHaveTextContent('Waiting for pull request #7 to be merged');
    expect(
      within(panel).getByRole('link', {
        name: 'http://gitea.local/capz/gitops/pulls/7',
      }),
    ).toHaveAttribute('href', 'http://gitea.local/capz/gitops/pulls/7');
    expect(panel).toHaveTextContent(
      'Into main of http://gitea.local/capz/gitops.git; changes clusters/team-data/cluster.yaml.',
    );
    expect(panel).toHaveTextContent('merging changes nothing live');
    expect(panel).toHaveTextContent(
      "Flux's Kustomization stays suspended until Flux's source holds the merge",
    );
  });

  it('an adoption waiting for the merge of its proposal says Flux then applies it, not that anything is suspended', async () => {
    serveJob(
      jobDetails({
        type: 'adopt',
        state: 'running',
        currentStep: 'wait-merge',
        result: {
          gitProposal: {
            url: 'http://gitea.local/capz/gitops.git',
            base: 'main',
            branch: `capz/adopt-team-pay-pay-prod-${JOB_ID}`,
            commit: 'c0ffee',
            pullRequest: {
              number: 8,
              url: 'http://gitea.local/capz/gitops/pulls/8',
            },
            files: [
              { path: 'clusters/team-pay/pay-prod/cluster.yaml', diff: '' },
              {
                path: 'clusters/team-pay/pay-prod/kustomization.yaml',
                diff: '',
              },
            ],
          },
        },
      }),
    );
    renderCapz(<CapzPage />, { path: JOB_PATH, mountPath: '/capz/*' });
    const panel = await screen.findByRole('region', { name: 'Pull request' });
    expect(panel).toHaveTextContent('Waiting for pull request #8 to be merged');
    expect(panel).toHaveTextContent(
      "Flux's Kustomization then applies it as it applies the namespace's other clusters",
    );
    expect(panel).not.toHaveTextContent('suspended');
  });

  it('for a finished upgrade links to the cluster and lists the manifests to change', async () => {
    const target = {
      managementCluster: 'demo-2',
      namespace: 'team-analytics',
      name: 'analytics',
    };
    serveJob(
      jobDetails({
        type: 'upgrade-api-version',
        target,
        params: target,
        state: 'succeeded',
        currentStep: undefined,
        finishedAt: '2026-11-21T10:05:00Z',
        steps: jobDetails().steps.map(s => ({ ...s, state: 'succeeded' })),
        result: {
          cluster: target,
          manifestsToChange: [
            {
              kind: 'AzureASOManagedControlPlane',
              namespace: 'team-analytics',
              name: 'analytics',
              manager: 'argocd-controller',
              change:
                'apiVersion: infrastructure.cluster.x-k8s.io/v1alpha1 -> v1beta1',
            },
          ],
        },
      }),
    );
    renderCapz(<CapzPage />, { path: JOB_PATH, mountPath: '/capz/*' });
    expect(
      await screen.findByRole('heading', {
        name: /API version upgrade.*: team-analytics\/analytics/,
      }),
    ).toBeInTheDocument();
    expect(screen.getByTestId('job-state')).toHaveTextContent('Succeeded');
    expect(
      screen.getByRole('link', {
        name: 'Open cluster team-analytics/analytics',
      }),
    ).toHaveAttribute('href', '/capz/clusters/demo-2/team-analytics/analytics');
    const rows = within(
      screen.getByRole('table', { name: 'Manifests to change' }),
    ).getAllByRole('row');
    expect(rows).toHaveLength(2);
    expect(rows[1]).toHaveTextContent(
      /AzureASOManagedControlPlane.*team-analytics\/analytics.*argocd-controller.*v1alpha1 -> v1beta1/,
    );
    expect(
      screen.queryByRole('group', { name: 'Job controls' }),
    ).not.toBeInTheDocument();
  });
});

describe('entry points', () => {
  const CLUSTER = `${BASE}/clusters/local/team-search/search-prod`;

  it('the cluster page shows the active job with a link, and the wizard its API calls for', async () => {
    const legacy = {
      ...SEARCH_PROD,
      api: 'azure-managed' as const,
      migrationCandidate: true,
    };
    server.use(
      http.get(`${CLUSTER}/tree`, () =>
        HttpResponse.json({ summary: legacy, tree: searchProdTree() }),
      ),
      http.get(`${BASE}/jobs`, ({ request }) => {
        expect(new URL(request.url).searchParams.toString()).toBe(
          'managementCluster=local&namespace=team-search&name=search-prod&active=true',
        );
        return HttpResponse.json({
          items: [
            jobDetails({
              type: 'migrate',
              target: {
                managementCluster: 'local',
                namespace: 'team-search',
                name: 'search-prod',
              },
            }),
          ],
        });
      }),
    );
    renderCapz(<CapzPage />, {
      path: '/capz/clusters/local/team-search/search-prod',
      mountPath: '/capz/*',
    });
    const banner = await screen.findByTestId('active-job-banner');
    expect(banner).toHaveTextContent(
      'Migration to the ASO API in progress (running)',
    );
    expect(banner).toHaveTextContent('at step “Copy the credential”');
    expect(
      within(banner).getByRole('link', { name: 'Open the job' }),
    ).toHaveAttribute('href', JOB_PATH);
    expect(
      await screen.findByRole('link', { name: 'Migrate to ASO API' }),
    ).toHaveAttribute(
      'href',
      '/capz/clusters/local/team-search/search-prod/migrate',
    );
    expect(
      screen.queryByRole('link', { name: 'Upgrade to v1beta1' }),
    ).not.toBeInTheDocument();
  });

  it('a v1alpha1 cluster offers the upgrade, and no banner without an active job', async () => {
    server.use(
      http.get(`${CLUSTER}/tree`, () =>
        HttpResponse.json({
          summary: { ...SEARCH_PROD, api: 'aso-v1alpha1' },
          tree: searchProdTree(),
        }),
      ),
      http.get(`${BASE}/jobs`, () => HttpResponse.json({ items: [] })),
    );
    renderCapz(<CapzPage />, {
      path: '/capz/clusters/local/team-search/search-prod',
      mountPath: '/capz/*',
    });
    expect(
      await screen.findByRole('link', { name: 'Upgrade to v1beta1' }),
    ).toHaveAttribute(
      'href',
      '/capz/clusters/local/team-search/search-prod/upgrade',
    );
    expect(
      screen.queryByRole('link', { name: 'Migrate to ASO API' }),
    ).not.toBeInTheDocument();
    expect(screen.queryByTestId('active-job-banner')).not.toBeInTheDocument();
  });

  it('the clusters page links to the adoption wizard and a migration candidate to its wizard', async () => {
    server.use(
      http.get(`${BASE}/clusters`, () =>
        HttpResponse.json({
          items: [
            summary({
              name: 'legacy-web',
              api: 'azure-managed',
              migrationCandidate: true,
            }),
            summary({ name: 'payments' }),
          ],
        }),
      ),
      http.get(`${BASE}/management-clusters`, () =>
        HttpResponse.json({ items: [] }),
      ),
    );
    renderCapz(<CapzPage />, { path: '/capz', mountPath: '/capz/*' });
    expect(
      await screen.findByRole('link', { name: 'Adopt AKS cluster' }),
    ).toHaveAttribute('href', '/capz/adopt');
    const link = await screen.findByRole('link', {
      name: 'Migration candidate: migrate legacy-web to the ASO API',
    });
    expect(link).toHaveAttribute(
      'href',
      '/capz/clusters/local/team-legacy-web/legacy-web/migrate',
    );
    expect(
      within(screen.getByRole('row', { name: /payments/ })).queryByText(
        'Migration candidate',
      ),
    ).not.toBeInTheDocument();
  });
});
