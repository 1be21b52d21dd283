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

  it('lists every problem with bad parameters, naming each field, and generates nothing', () => {
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
      `name: "Team_A" must be lowercase letters, digits and '-', starting and ending with a letter or digit`,
      'kubernetesVersion: "1.33" must be a version like v1.33.2',
      'pools: at least one pool must be a System pool (AKS requires one)',
      'pools[1].name: pool "userpool" appears twice',
      'pools[1].replicas: pool "userpool": the node count must be a whole number from 0 to 1000',
    ]);
    expect(() => generateAksAsoClusterManifests(bad)).toThrow(
      /Invalid cluster parameters: name: "Team_A"/,
    );
  });

  it('never sets what CAPZ sets from the CAPI objects (version, pool profiles, count, orchestratorVersion)', () => {
    const objs = generateAksAsoClusterManifests({
      ...params,
      pools: [
        {
          name: 'sys',
          mode: 'System',
          vmSize: 'Standard_D2s_v3',
          replicas: 2,
          autoscaling: { minCount: 1, maxCount: 5 },
        },
      ],
    });
    const mc = (objs[1].spec?.resources as any[])[0].spec;
    expect(mc).not.toHaveProperty('kubernetesVersion');
    expect(mc).not.toHaveProperty('agentPoolProfiles');
    expect(objs[1].spec?.version).toBe('v1.33.2');
    const pool = (objs[4].spec?.resources as any[])[0].spec;
    expect(pool).not.toHaveProperty('count');
    expect(pool).not.toHaveProperty('orchestratorVersion');
    expect(pool).toMatchObject({
      enableAutoScaling: true,
      minCount: 1,
      maxCount: 5,
    });
    expect(objs[3].spec?.replicas).toBe(2);
    expect(objs[3].metadata).not.toHaveProperty('annotations');
  });

  it('writes an Entra-only control plane, tags, owner and Windows pools', () => {
    const objs = generateAksAsoClusterManifests({
      ...params,
      entraOnly: true,
      adminGroupObjectIDs: ['00000000-0000-0000-0000-000000000001'],
      owner: 'group:default/team-a',
      tags: { costCenter: '42' },
      pools: [
        ...params.pools,
        {
          name: 'win1',
          mode: 'User',
          osType: 'Windows',
          vmSize: 'Standard_D4s_v3',
          replicas: 1,
        },
      ],
    });
    expect(objs[0].metadata.annotations).toEqual({
      'capz.io/owner': 'group:default/team-a',
    });
    const mc = (objs[1].spec?.resources as any[])[0].spec;
    expect(mc).toMatchObject({
      aadProfile: {
        managed: true,
        enableAzureRBAC: true,
        adminGroupObjectIDs: ['00000000-0000-0000-0000-000000000001'],
      },
      disableLocalAccounts: true,
      enableRBAC: true,
      operatorSpec: {
        secrets: {
          userCredentials: { name: 'team-a-dev-user-kubeconfig', key: 'value' },
        },
      },
      tags: { costCenter: '42' },
    });
    expect(mc.operatorSpec.secrets).not.toHaveProperty('adminCredentials');
    expect((objs[2].spec?.resources as any[])[0].spec.tags).toEqual({
      costCenter: '42',
    });
    const win = (objs[8].spec?.resources as any[])[0].spec;
    expect(win).toMatchObject({ azureName: 'win1', osType: 'Windows' });
    expect(objs[7].metadata.name).toBe('team-a-dev-win1');
  });

  it('leaves the Entra settings out by default', () => {
    const mc = (
      generateAksAsoClusterManifests(params)[1].spec?.resources as any[]
    )[0].spec;
    expect(mc).not.toHaveProperty('aadProfile');
    expect(mc).not.toHaveProperty('operatorSpec');
    expect(mc).not.toHaveProperty('tags');
  });
});
