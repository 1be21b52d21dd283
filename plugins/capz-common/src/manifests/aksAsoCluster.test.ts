import {
  generateAksAsoClusterManifests,
  validateAksAsoClusterParams,
  AksAsoClusterParams,
} from './aksAsoCluster';

const params: AksAsoClusterParams = {
  name: 'team-a-dev',
  namespace: 'team-a',
  location: 'westeurope',
  kubernetesVersion: 'v1.33.2',
  credentialSecretName: 'aso-credential',
  pools: [
    { name: 'pool0', mode: 'System', vmSize: 'Standard_D2s_v3', replicas: 2 },
    { name: 'pool1', mode: 'User', vmSize: 'Standard_D4s_v3', replicas: 0 },
  ],
};

describe('generateAksAsoClusterManifests', () => {
  it('follows the aks-aso flavor: objects, order, names and references', () => {
    const objs = generateAksAsoClusterManifests(params);
    expect(objs.map(o => `${o.kind}/${o.metadata.name}`)).toEqual([
      'Cluster/team-a-dev',
      'AzureASOManagedControlPlane/team-a-dev',
      'AzureASOManagedCluster/team-a-dev',
      'MachinePool/team-a-dev-pool0',
      'AzureASOManagedMachinePool/team-a-dev-pool0',
      'MachinePool/team-a-dev-pool1',
      'AzureASOManagedMachinePool/team-a-dev-pool1',
    ]);
    expect(objs.every(o => o.metadata.namespace === 'team-a')).toBe(true);
    const [cluster, cp, , mp0, amp0] = objs;
    expect(cluster.apiVersion).toBe('cluster.x-k8s.io/v1beta2');
    expect(cluster.spec?.controlPlaneRef).toEqual({
      apiGroup: 'infrastructure.cluster.x-k8s.io',
      kind: 'AzureASOManagedControlPlane',
      name: 'team-a-dev',
    });
    const mc = (cp.spec?.resources as any[])[0];
    expect(mc.apiVersion).toBe('containerservice.azure.com/v1api20240901');
    expect(
      mc.metadata.annotations['serviceoperator.azure.com/credential-from'],
    ).toBe('aso-credential');
    expect((mp0.spec as any).template.spec.infrastructureRef.name).toBe(
      'team-a-dev-pool0',
    );
    // The API server rejects an empty template.metadata (minProperties: 1 in the v1beta2 CRD).
    expect((mp0.spec as any).template).not.toHaveProperty('metadata');
    const pool = (amp0.spec?.resources as any[])[0];
    expect(pool.spec).toMatchObject({
      azureName: 'pool0',
      mode: 'System',
      owner: { name: 'team-a-dev' },
    });
  });

  it('lists every problem with bad parameters and generates nothing', () => {
    const bad = {
      ...params,
      name: 'Team_A',
      kubernetesVersion: '1.33',
      pools: [
        { name: 'userpool', mode: 'User' as const, vmSize: 'x', replicas: 1 },
        { name: 'userpool', mode: 'User' as const, vmSize: 'x', replicas: -1 },
      ],
    };
    const errors = validateAksAsoClusterParams(bad);
    expect(errors).toEqual([
      'name "Team_A" must be a lowercase DNS label of at most 63 characters',
      'kubernetesVersion "1.33" must look like v1.33.2',
      'at least one pool must have mode System (AKS requires a system pool)',
      'pool "userpool" appears twice',
      'pool "userpool" replicas must be a whole number, at least 1 for a System pool',
    ]);
    expect(() => generateAksAsoClusterManifests(bad)).toThrow(
      /Invalid cluster parameters: name "Team_A"/,
    );
  });
});
