import { screen, waitFor, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { BASE } from '../../__testUtils__/fixtures';
import { renderCapz, setupCapzServer } from '../../__testUtils__/harness';
import {
  JOB_ID,
  jobDetails,
  OTHER_JOB_ID,
} from '../../__testUtils__/jobFixtures';
import { CapzPage } from '../CapzPage';

const server = setupCapzServer();

describe('jobs page', () => {
  it('lists every job, the active ones first, each linked to its page and to its cluster', async () => {
    server.use(
      http.get(`${BASE}/jobs`, () =>
        HttpResponse.json({
          // Newest first, as the API answers: a finished migration, then an older adoption still running.
          items: [
            jobDetails({
              id: OTHER_JOB_ID,
              type: 'migrate',
              state: 'succeeded',
              target: {
                managementCluster: 'local',
                namespace: 'team-web',
                name: 'legacy-web',
              },
              createdAt: '2026-11-21T11:00:00Z',
              finishedAt: '2026-11-21T11:30:00Z',
            }),
            jobDetails({ id: JOB_ID, type: 'adopt', state: 'running' }),
          ],
        }),
      ),
    );
    renderCapz(<CapzPage />, { path: '/capz/jobs', mountPath: '/capz/*' });
    const table = await screen.findByRole('table', { name: 'Jobs' });
    const [, first, second] = within(table).getAllByRole('row');
    expect(first).toHaveTextContent(/data-lake.*Running/);
    expect(
      within(first)
        .getAllByRole('link')
        .map(a => a.getAttribute('href')),
    ).toEqual([
      `/capz/jobs/${JOB_ID}`,
      '/capz/clusters/local/team-data/data-lake',
    ]);
    expect(second).toHaveTextContent(/legacy-web.*Succeeded/);
  });

  it('shows a loading state until the first answer, on the jobs page and the job page', async () => {
    let answer!: () => void;
    const gate = new Promise<void>(r => {
      answer = r;
    });
    server.use(
      http.get(`${BASE}/jobs`, async () => {
        await gate;
        return HttpResponse.json({ items: [] });
      }),
      http.get(`${BASE}/jobs/${JOB_ID}`, async () => {
        await gate;
        return HttpResponse.json(jobDetails({ id: JOB_ID }));
      }),
    );
    const jobs = renderCapz(<CapzPage />, {
      path: '/capz/jobs',
      mountPath: '/capz/*',
    });
    expect(
      await screen.findByRole('status', { name: 'Loading the jobs' }),
    ).toBeInTheDocument();
    jobs.unmount();
    renderCapz(<CapzPage />, {
      path: `/capz/jobs/${JOB_ID}`,
      mountPath: '/capz/*',
    });
    expect(
      await screen.findByRole('status', { name: 'Loading the job' }),
    ).toBeInTheDocument();
    answer();
    await waitFor(() =>
      expect(
        screen.queryByRole('status', { name: 'Loading the job' }),
      ).not.toBeInTheDocument(),
    );
  });

  it('says so when no job has run', async () => {
    server.use(
      http.get(`${BASE}/jobs`, () => HttpResponse.json({ items: [] })),
    );
    renderCapz(<CapzPage />, { path: '/capz/jobs', mountPath: '/capz/*' });
    expect(await screen.findByText(/No job has run yet/)).toBeInTheDocument();
  });

  it("links a missing job's page to every job", async () => {
    server.use(
      http.get(`${BASE}/jobs/${JOB_ID}`, () =>
        HttpResponse.json(
          { error: { name: 'NotFoundError', message: `No job ${JOB_ID}` } },
          { status: 404 },
        ),
      ),
    );
    renderCapz(<CapzPage />, {
      path: `/capz/jobs/${JOB_ID}`,
      mountPath: '/capz/*',
    });
    expect(
      await screen.findByRole('link', { name: 'See every job' }),
    ).toHaveAttribute('href', '/capz/jobs');
  });
});
