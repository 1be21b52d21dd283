import { renderInTestApp, TestApiProvider } from '@backstage/frontend-test-utils';
import { screen } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';
import { capzApiRef } from '../../api/CapzApi';
import { CapzClient } from '../../api/CapzClient';
import { ClustersPage } from './ClustersPage';

const server = setupServer();
beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterEach(() => server.resetHandlers());
afterAll(() => server.close());

const client = new CapzClient({
  discoveryApi: { getBaseUrl: async () => 'http://backend.test/api/capz' },
  fetchApi: { fetch: (input, init) => fetch(input, init) },
});

const renderPage = () =>
  renderInTestApp(
    <TestApiProvider apis={[[capzApiRef, client]]}>
      <ClustersPage />
    </TestApiProvider>,
  );

describe('ClustersPage', () => {
  it('lists the management clusters the backend reports', async () => {
    server.use(
      http.get('http://backend.test/api/capz/management-clusters', () =>
        HttpResponse.json({
          items: [
            {
              name: 'local',
              title: 'Local management cluster',
              authMethod: 'kubeconfig',
              status: { state: 'connected', version: 'v1.35.4' },
            },
            {
              name: 'weu',
              authMethod: 'azure',
              url: 'https://weu.example',
              status: { state: 'unreachable', message: 'connect ECONNREFUSED' },
            },
          ],
        }),
      ),
    );
    await renderPage();
    expect(await screen.findByText('Local management cluster')).toBeInTheDocument();
    expect(screen.getByText('local · kubeconfig')).toBeInTheDocument();
    expect(screen.getByText('Connected · v1.35.4')).toBeInTheDocument();
    expect(screen.getByText('Unreachable')).toBeInTheDocument();
    expect(screen.getByText('weu · azure · connect ECONNREFUSED')).toBeInTheDocument();
  });

  it('tells the user how to configure one when there is none', async () => {
    server.use(
      http.get('http://backend.test/api/capz/management-clusters', () =>
        HttpResponse.json({ items: [] }),
      ),
    );
    await renderPage();
    expect(await screen.findByText(/No management cluster is configured/)).toBeInTheDocument();
  });

  it('shows the backend error', async () => {
    server.use(
      http.get('http://backend.test/api/capz/management-clusters', () =>
        HttpResponse.json(
          { error: { name: 'NotAllowedError', message: 'Not allowed to read CAPZ clusters' } },
          { status: 403 },
        ),
      ),
    );
    await renderPage();
    expect(await screen.findByText(/Could not load management clusters/)).toBeInTheDocument();
  });
});
