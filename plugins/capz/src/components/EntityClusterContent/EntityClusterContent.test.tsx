import { Entity } from '@backstage/catalog-model';
import { EntityProvider } from '@backstage/plugin-catalog-react';
import { screen } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import {
  BASE,
  SEARCH_PROD,
  searchProdTree,
} from '../../__testUtils__/fixtures';
import { renderCapz, setupCapzServer } from '../../__testUtils__/harness';
import { clusterRefOf, hasClusterAnnotation } from './annotation';
import { EntityClusterContent } from './EntityClusterContent';

const server = setupCapzServer();

const entity = (annotation?: string): Entity => ({
  apiVersion: 'backstage.io/v1alpha1',
  kind: 'Component',
  metadata: {
    name: 'search-api',
    annotations: annotation ? { 'capz.io/cluster': annotation } : {},
  },
  spec: { type: 'service', owner: 'team-search', lifecycle: 'production' },
});

describe('entity content', () => {
  it('is offered only on entities with the capz.io/cluster annotation', () => {
    expect(hasClusterAnnotation(entity('local/team-search/search-prod'))).toBe(
      true,
    );
    expect(hasClusterAnnotation(entity())).toBe(false);
    expect(clusterRefOf(entity('local/team-search/search-prod'))).toEqual({
      managementCluster: 'local',
      namespace: 'team-search',
      name: 'search-prod',
    });
    expect(clusterRefOf(entity('team-search/search-prod'))).toBeUndefined();
  });

  it('shows the cluster the entity names, with a link to its page', async () => {
    server.use(
      http.get(`${BASE}/clusters/local/team-search/search-prod/tree`, () =>
        HttpResponse.json({ summary: SEARCH_PROD, tree: searchProdTree() }),
      ),
    );
    renderCapz(
      <EntityProvider entity={entity('local/team-search/search-prod')}>
        <EntityClusterContent />
      </EntityProvider>,
    );
    expect(
      await screen.findByRole('treegrid', {
        name: 'Resources of cluster search-prod',
      }),
    ).toBeInTheDocument();
    expect(
      screen.getByRole('link', { name: 'Open the cluster page' }),
    ).toHaveAttribute('href', '/capz/clusters/local/team-search/search-prod');
  });

  it('explains an annotation that does not name a cluster', async () => {
    renderCapz(
      <EntityProvider entity={entity('search-prod')}>
        <EntityClusterContent />
      </EntityProvider>,
    );
    expect(
      await screen.findByText('The cluster annotation is not valid'),
    ).toBeInTheDocument();
    expect(
      screen.getByText(
        /must be <management cluster>\/<namespace>\/<cluster name>/,
      ),
    ).toBeInTheDocument();
  });
});
