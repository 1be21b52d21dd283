import {
  clusterNameErrors,
  clusterParamsFieldErrors,
  kubernetesVersionErrors,
  offeredKubernetesVersionErrors,
  maxClusterNameLength,
  nodePoolsErrors,
  nodeResourceGroupOf,
  normalizeKubernetesVersion,
  tagsErrors,
} from './clusterRules';

const base = {
  name: 'team-a-dev',
  namespace: 'team-a',
  location: 'westeurope',
  kubernetesVersion: 'v1.33.2',
  credentialSecretName: 'aso-credential',
  pools: [
    {
      name: 'pool0',
      mode: 'System' as const,
      vmSize: 'Standard_D2s_v3',
      replicas: 2,
    },
  ],
};
const fields = (errors: Array<{ field: string }>) => errors.map(e => e.field);

describe('cluster name', () => {
  it('is a DNS label within the dnsPrefix limit', () => {
    expect(clusterNameErrors('ok-name')).toEqual([]);
    expect(fields(clusterNameErrors(''))).toEqual(['name']);
    expect(clusterNameErrors('Bad_Name')[0].message).toMatch(/lowercase/);
    expect(clusterNameErrors('a'.repeat(55))[0].message).toMatch(
      /dnsPrefix, which is limited to 54/,
    );
    expect(clusterNameErrors('a'.repeat(54))).toEqual([]);
  });

  it("keeps AKS's node resource group within 80 characters", () => {
    // MC_<name>_<name>_westeurope: 5 + 2n + 10 <= 80, so n <= 32.
    expect(maxClusterNameLength('westeurope')).toBe(32);
    expect(
      clusterNameErrors('a'.repeat(32), { location: 'westeurope' }),
    ).toEqual([]);
    const [e] = clusterNameErrors('a'.repeat(33), { location: 'westeurope' });
    expect(e.message).toContain('81 characters');
    expect(nodeResourceGroupOf('x', 'eastus')).toBe('MC_x_x_eastus');
  });

  it('keeps <name>-<pool> object names within 63 characters', () => {
    const pools = [{ name: 'abcdefghijkl' }];
    expect(maxClusterNameLength(undefined, pools)).toBe(50);
    expect(clusterNameErrors('a'.repeat(50), { pools })).toEqual([]);
    expect(clusterNameErrors('a'.repeat(51), { pools })[0].message).toMatch(
      /above the 63/,
    );
  });
});

describe('Kubernetes version', () => {
  it('takes a version without the v (as AKS and people write it) for the one CAPI expects', () => {
    expect(normalizeKubernetesVersion('1.33.2')).toBe('v1.33.2');
    expect(normalizeKubernetesVersion(' 1.33.2 ')).toBe('v1.33.2');
    expect(normalizeKubernetesVersion('V1.33.2')).toBe('v1.33.2');
    expect(normalizeKubernetesVersion('v1.33.2')).toBe('v1.33.2');
    expect(
      kubernetesVersionErrors(normalizeKubernetesVersion('1.33.2')),
    ).toEqual([]);
  });

  it('leaves what is not a version as it was, for the rule to name', () => {
    expect(normalizeKubernetesVersion('1.33')).toBe('1.33');
    expect(normalizeKubernetesVersion('latest')).toBe('latest');
    expect(kubernetesVersionErrors(normalizeKubernetesVersion('1.33'))).toEqual(
      [
        {
          field: 'kubernetesVersion',
          message: '"1.33" must be a version like v1.33.2',
        },
      ],
    );
  });
});

describe('a version the region offers', () => {
  // What ARM's listKubernetesVersions answers (AksDiscovery writes them with the v; AKS without).
  const offered = ['v1.33.2', 'v1.33.1', '1.32.6', 'v1.31.10'];

  it('refuses a version AKS does not offer in the region, naming it, the region and the versions offered', () => {
    expect(
      offeredKubernetesVersionErrors(
        { kubernetesVersion: 'v1.29.0', location: 'westeurope' },
        offered,
      ),
    ).toEqual([
      {
        field: 'kubernetesVersion',
        message:
          'AKS does not offer v1.29.0 in westeurope; it offers v1.33.2, v1.33.1, v1.32.6, v1.31.10',
      },
    ]);
  });

  it('accepts an offered version, with or without the v', () => {
    for (const v of ['v1.33.2', '1.33.2', 'v1.32.6'])
      expect(
        offeredKubernetesVersionErrors(
          { kubernetesVersion: v, location: 'westeurope' },
          offered,
        ),
      ).toEqual([]);
  });

  it('says so when the region offers nothing', () => {
    expect(
      offeredKubernetesVersionErrors(
        { kubernetesVersion: 'v1.33.2', location: 'mars' },
        [],
      )[0].message,
    ).toBe('AKS does not offer v1.33.2 in mars; it offers no version');
  });
});

describe('node pools', () => {
  it('needs a Linux System pool', () => {
    expect(fields(nodePoolsErrors([]))).toEqual(['pools']);
    expect(
      nodePoolsErrors([
        { name: 'user', mode: 'User', vmSize: 'Standard_D2s_v3', replicas: 0 },
      ]),
    ).toEqual([
      {
        field: 'pools',
        message: 'at least one pool must be a System pool (AKS requires one)',
      },
    ]);
    expect(
      fields(
        nodePoolsErrors([
          {
            name: 'win',
            mode: 'System',
            osType: 'Windows',
            vmSize: 'Standard_D2s_v3',
            replicas: 1,
          },
        ]),
      ),
    ).toEqual(['pools[0].osType']);
  });

  it('limits names to 12 (Linux) and 6 (Windows) lowercase alphanumerics', () => {
    const pool = (name: string, osType: 'Linux' | 'Windows') => ({
      name,
      mode: 'User' as const,
      osType,
      vmSize: 'Standard_D2s_v3',
      replicas: 1,
    });
    const sys = base.pools[0];
    expect(nodePoolsErrors([sys, pool('abcdefghijkl', 'Linux')])).toEqual([]);
    expect(
      fields(nodePoolsErrors([sys, pool('abcdefghijklm', 'Linux')])),
    ).toEqual(['pools[1].name']);
    expect(nodePoolsErrors([sys, pool('win123', 'Windows')])).toEqual([]);
    expect(fields(nodePoolsErrors([sys, pool('win1234', 'Windows')]))).toEqual([
      'pools[1].name',
    ]);
    expect(fields(nodePoolsErrors([sys, pool('1pool', 'Linux')]))).toEqual([
      'pools[1].name',
    ]);
    expect(fields(nodePoolsErrors([sys, pool('Pool', 'Linux')]))).toEqual([
      'pools[1].name',
    ]);
  });

  it('checks counts and autoscaling bounds', () => {
    const sys = (o: object) => [{ ...base.pools[0], ...o }];
    expect(fields(nodePoolsErrors(sys({ replicas: 0 })))).toEqual([
      'pools[0].replicas',
    ]);
    expect(fields(nodePoolsErrors(sys({ replicas: 1.5 })))).toEqual([
      'pools[0].replicas',
    ]);
    expect(
      nodePoolsErrors(
        sys({ replicas: 2, autoscaling: { minCount: 1, maxCount: 3 } }),
      ),
    ).toEqual([]);
    expect(
      fields(
        nodePoolsErrors(sys({ autoscaling: { minCount: 0, maxCount: 3 } })),
      ),
    ).toEqual(['pools[0].autoscaling.minCount']);
    expect(
      fields(
        nodePoolsErrors(sys({ autoscaling: { minCount: 3, maxCount: 2 } })),
      ),
    ).toEqual(['pools[0].autoscaling.maxCount']);
    expect(
      fields(
        nodePoolsErrors(
          sys({ replicas: 5, autoscaling: { minCount: 1, maxCount: 3 } }),
        ),
      ),
    ).toEqual(['pools[0].replicas']);
    expect(fields(nodePoolsErrors(sys({ vmSize: '' })))).toEqual([
      'pools[0].vmSize',
    ]);
  });
});

describe('every parameter', () => {
  it('accepts a valid request', () => {
    expect(clusterParamsFieldErrors(base)).toEqual([]);
    expect(
      clusterParamsFieldErrors({
        ...base,
        owner: 'group:default/team-a',
        tags: { env: 'dev' },
        entraOnly: true,
        adminGroupObjectIDs: ['6f2c1a4e-1b0f-4c1e-9d8a-3f0c2b1a0e9d'],
      }),
    ).toEqual([]);
  });

  it('names each bad field', () => {
    expect(
      fields(
        clusterParamsFieldErrors({
          ...base,
          namespace: 'Team A',
          location: 'West Europe',
          credentialSecretName: '',
          owner: 'not a ref',
          adminGroupObjectIDs: ['nope'],
          entraOnly: true,
        }),
      ),
    ).toEqual([
      'namespace',
      'location',
      'credentialSecretName',
      'owner',
      'adminGroupObjectIDs',
    ]);
    expect(fields(tagsErrors({ 'a/b': 'x', ok: 'y'.repeat(257) }))).toEqual([
      'tags',
      'tags',
    ]);
  });
});
