import { ConfigReader } from '@backstage/config';
import { readManagementClusters, toPublicInfo } from './managementClusters';

const read = (managementClusters: unknown[]) =>
  readManagementClusters(
    new ConfigReader({ capz: { managementClusters } } as any),
  );

describe('readManagementClusters', () => {
  it('reads each auth method', () => {
    const clusters = read([
      { name: 'local', kubeconfig: { path: '/tmp/kc', context: 'admin' } },
      {
        name: 'prod-weu',
        url: 'https://aks.example',
        caData: 'PEM',
        azure: { credential: 'workloadIdentity' },
      },
      { name: 'sa', url: 'https://k.example', serviceAccountToken: 's3cret' },
    ]);
    expect(clusters.map(c => [c.name, c.authMethod])).toEqual([
      ['local', 'kubeconfig'],
      ['prod-weu', 'azure'],
      ['sa', 'serviceAccountToken'],
    ]);
    expect(clusters[0].kubeconfig).toEqual({
      path: '/tmp/kc',
      context: 'admin',
    });
  });

  it('returns nothing when unconfigured', () => {
    expect(readManagementClusters(new ConfigReader({}))).toEqual([]);
  });

  it.each([
    [
      [{ name: 'a' }],
      /set exactly one of serviceAccountToken, kubeconfig or azure \(found none\)/,
    ],
    [
      [
        {
          name: 'a',
          url: 'https://x',
          serviceAccountToken: 't',
          kubeconfig: { path: '/k' },
        },
      ],
      /found serviceAccountToken, kubeconfig/,
    ],
    [
      [{ name: 'a', serviceAccountToken: 't' }],
      /url is required with serviceAccountToken/,
    ],
    [[{ name: 'Bad_Name', kubeconfig: { path: '/k' } }], /lowercase DNS label/],
    [
      [
        { name: 'a', kubeconfig: { path: '/k' } },
        { name: 'a', kubeconfig: { path: '/j' } },
      ],
      /\[1\] \(a\): duplicate name/,
    ],
    [
      [{ name: 'a', url: 'https://x', azure: { credential: 'password' } }],
      /azure.credential must be one of/,
    ],
    [
      [
        {
          name: 'a',
          url: 'https://x',
          azure: { credential: 'clientSecret', tenantId: 't' },
        },
      ],
      /azure.clientId is required with clientSecret/,
    ],
    [
      [{ name: 'a', url: 'http://x', azure: { credential: 'default' } }],
      /url must be https with azure/,
    ],
    [
      [
        {
          name: 'a',
          url: 'https://x',
          azure: { credential: 'managedIdentity', clientSecret: 's' },
        },
      ],
      /azure.clientSecret is only used with credential clientSecret/,
    ],
    [
      [
        {
          name: 'a',
          url: 'https://x',
          azure: { credential: 'default', tokenFilePath: '/t' },
        },
      ],
      /azure.tokenFilePath is only used with credential workloadIdentity/,
    ],
    [
      [
        {
          name: 'a',
          url: 'https://x',
          azure: {
            credential: 'default',
            authorityHost: 'http://login.example',
          },
        },
      ],
      /azure.authorityHost must be an https URL/,
    ],
    [
      [
        {
          name: 'a',
          url: 'https://x',
          azure: { credential: 'default', refreshMarginSeconds: -1 },
        },
      ],
      /azure.refreshMarginSeconds must be between 0 and 3600/,
    ],
    [
      [
        {
          name: 'a',
          url: 'https://x',
          azure: { credential: 'default', serverApplicationId: 'a b' },
        },
      ],
      /azure.serverApplicationId must be an application id/,
    ],
  ])('rejects %j', (entries, message) => {
    expect(() => read(entries)).toThrow(message);
  });

  it('reads every azure option, with the defaults left to the token provider', () => {
    const [full, minimal] = read([
      {
        name: 'gov',
        url: 'https://aks.example',
        azure: {
          credential: 'clientSecret',
          tenantId: 'tid',
          clientId: 'cid',
          clientSecret: 's3cret',
          serverApplicationId: '11111111-2222-3333-4444-555555555555',
          authorityHost: 'https://login.microsoftonline.us/',
          disableInstanceDiscovery: true,
          authorityCaData: 'PEM',
          refreshMarginSeconds: 120,
        },
      },
      {
        name: 'wi',
        url: 'https://aks.example',
        azure: {
          credential: 'workloadIdentity',
          tokenFilePath: '/var/run/secrets/azure/tokens/azure-identity-token',
        },
      },
    ]);
    expect(full.azure).toEqual({
      credential: 'clientSecret',
      tenantId: 'tid',
      clientId: 'cid',
      clientSecret: 's3cret',
      serverApplicationId: '11111111-2222-3333-4444-555555555555',
      authorityHost: 'https://login.microsoftonline.us',
      disableInstanceDiscovery: true,
      authorityCaData: 'PEM',
      refreshMarginSeconds: 120,
      tokenFilePath: undefined,
    });
    expect(minimal.azure).toMatchObject({
      credential: 'workloadIdentity',
      tokenFilePath: '/var/run/secrets/azure/tokens/azure-identity-token',
      serverApplicationId: undefined,
      authorityHost: undefined,
      refreshMarginSeconds: undefined,
    });
    expect(JSON.stringify(toPublicInfo(full))).not.toContain('s3cret');
    expect(toPublicInfo(full)).toEqual({
      name: 'gov',
      title: undefined,
      url: 'https://aks.example',
      authMethod: 'azure',
    });
  });

  it('never exposes secrets or paths publicly', () => {
    const [c] = read([
      { name: 'sa', url: 'https://k.example', serviceAccountToken: 's3cret' },
    ]);
    expect(JSON.stringify(toPublicInfo(c))).not.toContain('s3cret');
    expect(toPublicInfo(c)).toEqual({
      name: 'sa',
      title: undefined,
      url: 'https://k.example',
      authMethod: 'serviceAccountToken',
    });
  });
});
