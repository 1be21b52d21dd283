import { ConfigReader } from '@backstage/config';
import { readManagementClusters, toPublicInfo } from './managementClusters';

const read = (managementClusters: unknown[]) =>
  readManagementClusters(new ConfigReader({ capz: { managementClusters } } as any));

describe('readManagementClusters', () => {
  it('reads each auth method', () => {
    const clusters = read([
      { name: 'local', kubeconfig: { path: '/tmp/kc', context: 'admin' } },
      { name: 'prod-weu', url: 'https://aks.example', caData: 'PEM', azure: { credential: 'workloadIdentity' } },
      { name: 'sa', url: 'https://k.example', serviceAccountToken: 's3cret' },
    ]);
    expect(clusters.map(c => [c.name, c.authMethod])).toEqual([
      ['local', 'kubeconfig'],
      ['prod-weu', 'azure'],
      ['sa', 'serviceAccountToken'],
    ]);
    expect(clusters[0].kubeconfig).toEqual({ path: '/tmp/kc', context: 'admin' });
  });

  it('returns nothing when unconfigured', () => {
    expect(readManagementClusters(new ConfigReader({}))).toEqual([]);
  });

  it.each([
    [[{ name: 'a' }], /set exactly one of serviceAccountToken, kubeconfig or azure \(found none\)/],
    [
      [{ name: 'a', url: 'https://x', serviceAccountToken: 't', kubeconfig: { path: '/k' } }],
      /found serviceAccountToken, kubeconfig/,
    ],
    [[{ name: 'a', serviceAccountToken: 't' }], /url is required with serviceAccountToken/],
    [[{ name: 'Bad_Name', kubeconfig: { path: '/k' } }], /lowercase DNS label/],
    [
      [
        { name: 'a', kubeconfig: { path: '/k' } },
        { name: 'a', kubeconfig: { path: '/j' } },
      ],
      /\[1\] \(a\): duplicate name/,
    ],
    [[{ name: 'a', url: 'https://x', azure: { credential: 'password' } }], /azure.credential must be one of/],
    [
      [{ name: 'a', url: 'https://x', azure: { credential: 'clientSecret', tenantId: 't' } }],
      /azure.clientId is required with clientSecret/,
    ],
  ])('rejects %j', (entries, message) => {
    expect(() => read(entries)).toThrow(message);
  });

  it('never exposes secrets or paths publicly', () => {
    const [c] = read([{ name: 'sa', url: 'https://k.example', serviceAccountToken: 's3cret' }]);
    expect(JSON.stringify(toPublicInfo(c))).not.toContain('s3cret');
    expect(toPublicInfo(c)).toEqual({
      name: 'sa',
      title: undefined,
      url: 'https://k.example',
      authMethod: 'serviceAccountToken',
    });
  });
});
