import YAML from 'yaml';
import { REDACTED, redactObject, toYaml } from './objectYaml';

describe('redactObject', () => {
  it('hides every value of a Secret but keeps its keys', () => {
    const out = redactObject({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'aso-credentials' },
      data: { AZURE_CLIENT_SECRET: 'c2VjcmV0', AZURE_TENANT_ID: 'dGVuYW50' },
      stringData: { extra: 'plain' },
    });
    expect(out.data).toEqual({
      AZURE_CLIENT_SECRET: REDACTED,
      AZURE_TENANT_ID: REDACTED,
    });
    expect(out.stringData).toEqual({ extra: REDACTED });
  });

  it('drops managedFields and the last-applied annotation, keeps other metadata', () => {
    const out = redactObject({
      kind: 'ManagedCluster',
      metadata: {
        name: 'c1',
        labels: { a: 'b' },
        annotations: {
          'kubectl.kubernetes.io/last-applied-configuration':
            '{"data":{"x":"secret"}}',
          keep: 'yes',
        },
        managedFields: [{ manager: 'capz' }],
      },
    });
    expect(out.metadata.managedFields).toBeUndefined();
    expect(out.metadata.annotations).toEqual({
      'kubectl.kubernetes.io/last-applied-configuration': REDACTED,
      keep: 'yes',
    });
    expect(out.metadata.labels).toEqual({ a: 'b' });
  });

  it('redacts credential-looking string values in spec and status, not references to them', () => {
    const out = redactObject({
      kind: 'AzureManagedControlPlane',
      metadata: { name: 'c1' },
      spec: {
        servicePrincipalProfile: {
          clientId: 'abc',
          secret: { name: 'sp-secret', key: 'password' },
        },
        windowsProfile: {
          adminUsername: 'azureuser',
          adminPassword: 'P@ssw0rd!',
        },
        identity: { token: 'eyJ...' },
        env: [{ name: 'FOO', value: 'bar' }],
      },
    });
    expect(out.spec.servicePrincipalProfile).toEqual({
      clientId: 'abc',
      secret: { name: 'sp-secret', key: 'password' },
    });
    expect(out.spec.windowsProfile).toEqual({
      adminUsername: 'azureuser',
      adminPassword: REDACTED,
    });
    expect(out.spec.identity.token).toBe(REDACTED);
    expect(out.spec.env).toEqual([{ name: 'FOO', value: 'bar' }]);
  });

  it('does not change its input', () => {
    const input = {
      kind: 'Secret',
      metadata: { name: 's' },
      data: { k: 'dg==' },
    };
    redactObject(input);
    expect(input.data.k).toBe('dg==');
  });

  it('renders YAML that parses back to the redacted object', () => {
    const yaml = toYaml({
      kind: 'Secret',
      metadata: { name: 's', managedFields: [] },
      data: { k: 'dg==' },
    });
    expect(YAML.parse(yaml)).toEqual({
      kind: 'Secret',
      metadata: { name: 's' },
      data: { k: REDACTED },
    });
    expect(yaml).not.toContain('dg==');
  });
});
