import {
  ClientCertificateCredential,
  ClientSecretCredential,
  DefaultAzureCredential,
} from '@azure/identity';
import type { AzureDiscoverySettings } from './config';
import { asoCredentialKeyProblem, credentialFromSecret } from './credentials';
import { AzureCredentialError } from './errors';

const settings: AzureDiscoverySettings = {
  resourceManagerEndpoint: 'https://management.azure.com',
  resourceManagerAudience: 'https://management.azure.com',
  disableInstanceDiscovery: false,
  credential: 'secret',
};
const ids = {
  AZURE_SUBSCRIPTION_ID: 'sub-1',
  AZURE_TENANT_ID: 'tenant-1',
  AZURE_CLIENT_ID: 'client-1',
};

describe('credentialFromSecret', () => {
  it('uses a client secret first, as ASO does', () => {
    const c = credentialFromSecret(
      'ns/s',
      {
        ...ids,
        AZURE_CLIENT_SECRET: 'shh',
        AZURE_CLIENT_CERTIFICATE: '-----BEGIN CERTIFICATE-----',
      },
      settings,
    );
    expect(c.credential).toBeInstanceOf(ClientSecretCredential);
    expect(c).toMatchObject({
      subscriptionId: 'sub-1',
      tenantId: 'tenant-1',
      mode: 'client secret',
    });
  });

  it('uses a PEM client certificate and refuses PKCS#12', () => {
    const pem =
      '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----\n';
    expect(
      credentialFromSecret(
        'ns/s',
        { ...ids, AZURE_CLIENT_CERTIFICATE: pem },
        settings,
      ).credential,
    ).toBeInstanceOf(ClientCertificateCredential);
    expect(() =>
      credentialFromSecret(
        'ns/s',
        { ...ids, AZURE_CLIENT_CERTIFICATE: 'MIIKpAIBAzCCCm4=' },
        settings,
      ),
    ).toThrow(/PKCS#12 .* store it as PEM/);
  });

  it('explains that the ASO pod identity cannot be borrowed, for workload and managed identity', () => {
    for (const [data, kind] of [
      [ids, 'workload identity'],
      [{ ...ids, AUTH_MODE: 'workloadidentity' }, 'workload identity'],
      [{ ...ids, AUTH_MODE: 'podidentity' }, 'a managed identity'],
    ] as const) {
      let err: unknown;
      try {
        credentialFromSecret('team-a/cred', data, settings);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(AzureCredentialError);
      expect((err as AzureCredentialError).statusCode).toBe(400);
      expect((err as Error).message).toContain(
        `ASO credential Secret team-a/cred uses ${kind}`,
      );
      expect((err as Error).message).toContain(
        'set capz.azureDiscovery.credential to "default"',
      );
    }
  });

  it("uses the backend's own identity with the Secret's subscription and tenant when configured, whatever the Secret's mode", () => {
    const c = credentialFromSecret(
      'ns/s',
      { ...ids, AUTH_MODE: 'workloadidentity' },
      { ...settings, credential: 'default' },
    );
    expect(c.credential).toBeInstanceOf(DefaultAzureCredential);
    expect(c).toMatchObject({
      subscriptionId: 'sub-1',
      tenantId: 'tenant-1',
      mode: 'backend identity',
    });
  });

  it('names the missing keys, never the values', () => {
    expect(() =>
      credentialFromSecret(
        'ns/s',
        { AZURE_CLIENT_SECRET: 'value-123', AZURE_CLIENT_ID: ' ' },
        settings,
      ),
    ).toThrow(
      'ASO credential Secret ns/s has no AZURE_SUBSCRIPTION_ID, AZURE_TENANT_ID, AZURE_CLIENT_ID: an ASO credential Secret holds AZURE_SUBSCRIPTION_ID, AZURE_TENANT_ID and AZURE_CLIENT_ID, and AZURE_CLIENT_SECRET or AZURE_CLIENT_CERTIFICATE (with neither, ASO uses workload identity)',
    );
  });

  it('names the CAPI kubeconfig Secret for what it is, without its value', () => {
    let err: unknown;
    try {
      credentialFromSecret(
        'team-a/alpha-kubeconfig',
        { value: 'apiVersion: v1\nkind: Config\nusers: [{token: sekret}]' },
        settings,
      );
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(AzureCredentialError);
    expect((err as AzureCredentialError).statusCode).toBe(400);
    expect((err as Error).message).toBe(
      'Secret team-a/alpha-kubeconfig is the Cluster API kubeconfig Secret of cluster alpha (type cluster.x-k8s.io/secret, key value), not an ASO credential: an ASO credential Secret holds AZURE_SUBSCRIPTION_ID, AZURE_TENANT_ID and AZURE_CLIENT_ID, and AZURE_CLIENT_SECRET or AZURE_CLIENT_CERTIFICATE (with neither, ASO uses workload identity)',
    );
    expect((err as Error).message).not.toContain('sekret');
  });
});

describe('asoCredentialKeyProblem (key names only, as ASO checks them)', () => {
  it('accepts the three keys ASO requires, whatever else the Secret holds (workload identity needs no more)', () => {
    expect(
      asoCredentialKeyProblem('ns/s', [
        'AZURE_SUBSCRIPTION_ID',
        'AZURE_TENANT_ID',
        'AZURE_CLIENT_ID',
      ]),
    ).toBeUndefined();
  });

  it('names the missing keys, and the CAPI kubeconfig Secret by its type', () => {
    expect(
      asoCredentialKeyProblem('ns/s', [
        'AZURE_SUBSCRIPTION_ID',
        'AZURE_CLIENT_SECRET',
      ]),
    ).toMatch(
      /^ASO credential Secret ns\/s has no AZURE_TENANT_ID, AZURE_CLIENT_ID: /,
    );
    expect(
      asoCredentialKeyProblem('ns/cred', ['value'], 'cluster.x-k8s.io/secret'),
    ).toMatch(
      /^Secret ns\/cred is the Cluster API kubeconfig Secret \(type cluster.x-k8s.io\/secret, key value\), not an ASO credential: /,
    );
  });
});
