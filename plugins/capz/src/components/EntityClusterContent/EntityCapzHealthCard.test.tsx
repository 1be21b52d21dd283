import { Entity } from '@backstage/catalog-model';
import { createExtensionTester } from '@backstage/frontend-test-utils';
import { EntityProvider } from '@backstage/plugin-catalog-react';
import { EntityCardBlueprint } from '@backstage/plugin-catalog-react/alpha';
import { screen } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import {
  BASE,
  SEARCH_PROD,
  searchProdTree,
} from '../../__testUtils__/fixtures';
import { renderCapz, setupCapzServer } from '../../__testUtils__/harness';
import { capzPlugin } from '../../plugin';
import { EntityCapzHealthCard } from './EntityCapzHealthCard';

const server = setupCapzServer();

const entity = (annotation?: string): Entity => ({
  apiVersion: 'backstage.io/v1alpha1',
  kind: 'Resource',
  metadata: {
    name: 'search-prod',
    annotations: annotation ? { 'capz.io/cluster': annotation } : {},
  },
  spec: { type: 'kubernetes-cluster', owner: 'team-search' },
});

const TREE = `${BASE}/clusters/local/team-search/search-prod/tree`;

describe("the entity Overview's health card", () => {
  it('is an entity card on the Overview of entities that name a cluster, and only those', () => {
    const card = (capzPlugin as any).getExtension('entity-card:capz/health');
    expect(card).toBeDefined();
    const filter = createExtensionTester(card).get(
      EntityCardBlueprint.dataRefs.filterFunction,
    ) as (e: Entity) => boolean;
    expect(filter(entity('local/team-search/search-prod'))).toBe(true);
    expect(filter(entity())).toBe(false);
  });

  it("shows the cluster's health, why, its version and a link to its page, after a loading state", async () => {
    let answer!: () => void;
    const gate = new Promise<void>(r => {
      answer = r;
    });
    server.use(
      http.get(TREE, async () => {
        await gate;
        return HttpResponse.json({
          summary: { ...SEARCH_PROD, kubernetesVersion: '1.33.2' },
          tree: searchProdTree(),
        });
      }),
    );
    await renderCapz(
      <EntityProvider entity={entity('local/team-search/search-prod')}>
        <EntityCapzHealthCard />
      </EntityProvider>,
    );
    expect(
      await screen.findByRole('status', {
        name: "Loading the cluster's health",
      }),
    ).toBeInTheDocument();
    answer();
    expect(await screen.findByText('Degraded')).toBeInTheDocument();
    expect(
      screen.getByText('ManagedCluster search-prod: ReconciliationBlocked'),
    ).toBeInTheDocument();
    expect(
      screen.getByText('team-search · local · v1.33.2 · northeurope'),
    ).toBeInTheDocument();
    expect(
      screen.getByRole('link', { name: 'Open the cluster page' }),
    ).toHaveAttribute('href', '/capz/clusters/local/team-search/search-prod');
  });
});
