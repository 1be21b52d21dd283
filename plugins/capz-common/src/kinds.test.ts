import { apiVersionOf, kinds, lookupKind, resourcePath } from './kinds';

describe('kinds', () => {
  it('builds collection and object paths for namespaced custom resources', () => {
    expect(resourcePath(kinds.AzureASOManagedControlPlane)).toBe(
      '/apis/infrastructure.cluster.x-k8s.io/v1beta1/azureasomanagedcontrolplanes',
    );
    expect(
      resourcePath(kinds.ManagedCluster, {
        namespace: 'team-a',
        name: 'aks-1',
      }),
    ).toBe(
      '/apis/containerservice.azure.com/v1api20240901/namespaces/team-a/managedclusters/aks-1',
    );
  });

  it('refuses to address a namespaced object without a namespace', () => {
    expect(() => resourcePath(kinds.Cluster, { name: 'c1' })).toThrow(
      /Cluster is namespaced/,
    );
  });

  it('finds a kind by apiVersion and kind, whatever the version', () => {
    expect(
      lookupKind(
        'infrastructure.cluster.x-k8s.io/v1alpha1',
        'AzureASOManagedControlPlane',
      ),
    ).toBe(kinds.AzureASOManagedControlPlane);
    expect(lookupKind('cluster.x-k8s.io/v1beta2', 'MachinePool')).toBe(
      kinds.MachinePool,
    );
    expect(lookupKind('v1', 'Cluster')).toBeUndefined();
    expect(apiVersionOf(kinds.ResourceGroup)).toBe(
      'resources.azure.com/v1api20200601',
    );
  });

  it("addresses Flux's Kustomization and GitRepository at v1, with the CRDs' plurals", () => {
    expect(
      resourcePath(kinds.Kustomization, { namespace: 'flux-system' }),
    ).toBe(
      '/apis/kustomize.toolkit.fluxcd.io/v1/namespaces/flux-system/kustomizations',
    );
    expect(
      resourcePath(kinds.GitRepository, {
        namespace: 'flux-system',
        name: 'gitops',
      }),
    ).toBe(
      '/apis/source.toolkit.fluxcd.io/v1/namespaces/flux-system/gitrepositories/gitops',
    );
    expect(lookupKind('source.toolkit.fluxcd.io/v1', 'GitRepository')).toBe(
      kinds.GitRepository,
    );
  });
});
