import { ConfigReader } from '@backstage/config';
import { readAzureDiscoveryConfig } from './config';

const CA = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';
const read = (azureDiscovery?: unknown) =>
  readAzureDiscoveryConfig(
    new ConfigReader(
      azureDiscovery === undefined ? {} : { capz: { azureDiscovery } },
    ),
  );

describe('readAzureDiscoveryConfig', () => {
  it('defaults to the public cloud with the Secret credential', () => {
    const c = read();
    expect(c.defaults).toEqual({
      resourceManagerEndpoint: 'https://management.azure.com',
      resourceManagerAudience: 'https://management.azure.com',
      disableInstanceDiscovery: false,
      credential: 'secret',
    });
    expect(c.forManagementCluster('anything')).toBe(c.defaults);
  });

  it('reads the request bound in seconds and refuses one that is not a positive number of seconds up to 600', () => {
    expect(read({ requestTimeoutSeconds: 5 }).defaults.requestTimeoutMs).toBe(
      5000,
    );
    expect(() => read({ requestTimeoutSeconds: 0 })).toThrow(
      'capz.azureDiscovery.requestTimeoutSeconds must be a number of seconds from above 0 to 600, got 0',
    );
    expect(() =>
      read({ managementClusters: { a: { requestTimeoutSeconds: 3600 } } }),
    ).toThrow(
      'capz.azureDiscovery.managementClusters.a.requestTimeoutSeconds must be a number of seconds from above 0 to 600, got 3600',
    );
  });

  it('reads every key, trims trailing slashes, and applies per-management-cluster overrides over the defaults', () => {
    const c = read({
      resourceManagerEndpoint: 'https://127.0.0.1:8443/',
      authorityHost: 'https://127.0.0.1:9443',
      disableInstanceDiscovery: true,
      caData: CA,
      credential: 'default',
      managementClusters: {
        'local-2': {
          resourceManagerEndpoint: 'https://127.0.0.1:8444',
          credential: 'secret',
        },
      },
    });
    expect(c.defaults).toEqual({
      resourceManagerEndpoint: 'https://127.0.0.1:8443',
      resourceManagerAudience: 'https://management.azure.com',
      authorityHost: 'https://127.0.0.1:9443',
      disableInstanceDiscovery: true,
      caData: CA,
      credential: 'default',
    });
    expect(c.forManagementCluster('local-2')).toEqual({
      ...c.defaults,
      resourceManagerEndpoint: 'https://127.0.0.1:8444',
      credential: 'secret',
    });
    expect(c.forManagementCluster('local')).toBe(c.defaults);
  });

  it.each([
    [
      { resourceManagerEndpoint: 'http://127.0.0.1:8443' },
      'capz.azureDiscovery.resourceManagerEndpoint must be an https URL, got "http://127.0.0.1:8443"',
    ],
    [
      { authorityHost: 'login' },
      'capz.azureDiscovery.authorityHost must be an https URL, got "login"',
    ],
    [
      { credential: 'workloadIdentity' },
      'capz.azureDiscovery.credential must be one of secret, default, got "workloadIdentity"',
    ],
    [
      { caData: 'not a pem' },
      'capz.azureDiscovery.caData must be PEM text with at least one "-----BEGIN CERTIFICATE-----" block',
    ],
    [
      { managementClusters: { x: { resourceManagerAudience: 'ftp://a' } } },
      'capz.azureDiscovery.managementClusters.x.resourceManagerAudience must be an https URL, got "ftp://a"',
    ],
  ])('refuses %j', (cfg, message) => {
    expect(() => read(cfg)).toThrow(message);
  });
});
