import { mockServices } from '@backstage/backend-test-utils';
import { ClusterSummary } from '@capz-backstage/plugin-capz-common';
import { CapzClusterEntityProvider } from './CapzClusterEntityProvider';
import { clusterToEntity, entityNameFor } from './clusterEntity';

const cluster: ClusterSummary = {
  uid: 'c0ffee00-0000-0000-0000-000000000001',
  managementCluster: 'local',
  namespace: 'team-a',
  name: 'aks-dev',
  api: 'aso-v1beta1',
};

describe('CapzClusterEntityProvider', () => {
  it('replaces the catalog set with one Resource per cluster', async () => {
    const connection = { applyMutation: jest.fn(), refresh: jest.fn() };
    const provider = new CapzClusterEntityProvider({
      source: {
        listClusters: async () => [
          cluster,
          { ...cluster, name: 'aks-prod', owner: 'group:default/sre' },
        ],
      },
      logger: mockServices.logger.mock(),
      taskRunner: { run: async () => {} },
      defaultOwner: 'group:default/platform',
    });
    await provider.connect(connection);
    await provider.refresh();
    const [[mutation]] = connection.applyMutation.mock.calls;
    expect(mutation.type).toBe('full');
    expect(
      mutation.entities.map((e: any) => [
        e.entity.metadata.name,
        e.entity.spec.owner,
      ]),
    ).toEqual([
      ['local-team-a-aks-dev', 'group:default/platform'],
      ['local-team-a-aks-prod', 'group:default/sre'],
    ]);
  });

  it('refuses to refresh before the catalog connects it', async () => {
    const provider = new CapzClusterEntityProvider({
      source: { listClusters: async () => [] },
      logger: mockServices.logger.mock(),
      taskRunner: { run: async () => {} },
      defaultOwner: 'group:default/platform',
    });
    await expect(provider.refresh()).rejects.toThrow(/not connected/);
  });
});

describe('clusterToEntity', () => {
  it('makes a kubernetes-cluster Resource annotated with the cluster identity', () => {
    const e = clusterToEntity(cluster, {
      providerName: 'p',
      defaultOwner: 'group:default/platform',
    });
    expect(e.kind).toBe('Resource');
    expect(e.spec).toEqual({
      type: 'kubernetes-cluster',
      owner: 'group:default/platform',
    });
    expect(e.metadata.annotations?.['capz.io/cluster']).toBe(
      'local/team-a/aks-dev',
    );
  });

  it('keeps entity names within 63 valid characters', () => {
    const name = entityNameFor({
      managementCluster: 'm',
      namespace: 'n'.repeat(40),
      name: 'c'.repeat(40),
    });
    expect(name.length).toBeLessThanOrEqual(63);
    expect(name).toMatch(/^[a-zA-Z0-9][a-zA-Z0-9-_.]*[a-zA-Z0-9]$/);
  });
});
