import { kubeconfigCluster, kubeconfigSecrets } from './kubeconfig';

const cluster = {
  name: 'payments',
  cluster: {
    server: 'https://payments-dns-1a2b.hcp.westeurope.azmk8s.io:443',
    'certificate-authority-data': 'LS0tLS1CRUdJTi==',
  },
};
const kc = (user: Record<string, unknown>) => ({
  apiVersion: 'v1',
  kind: 'Config',
  clusters: [cluster],
  contexts: [
    {
      name: 'payments',
      context: { cluster: 'payments', user: 'clusterUser_rg_payments' },
    },
  ],
  'current-context': 'payments',
  users: [{ name: 'clusterUser_rg_payments', user }],
});

/** What AKS returns for an Entra ID cluster with format=exec (kubelogin; no secret). */
const execUser = {
  exec: {
    apiVersion: 'client.authentication.k8s.io/v1beta1',
    command: 'kubelogin',
    args: [
      'get-token',
      '--login',
      'devicecode',
      '--server-id',
      '6dae42f8-4368-4678-94ff-3960e28e3630',
      '--client-id',
      '80faf920-1908-4b52-b5ef-a8e7bedfc67a',
      '--tenant-id',
      '72f988bf-86f1-41af-91ab-2d7cd011db47',
      '--environment',
      'AzurePublicCloud',
    ],
    env: null,
    installHint: 'kubelogin is not installed',
    provideClusterInfo: false,
  },
};

describe('kubeconfigSecrets', () => {
  it('finds none in an Entra ID exec kubeconfig', () => {
    expect(kubeconfigSecrets(kc(execUser))).toEqual([]);
  });

  it('finds none in the legacy azure auth-provider before sign-in', () => {
    expect(
      kubeconfigSecrets(
        kc({
          'auth-provider': {
            name: 'azure',
            config: {
              'apiserver-id': '6dae42f8-4368-4678-94ff-3960e28e3630',
              'client-id': '80faf920-1908-4b52-b5ef-a8e7bedfc67a',
              'config-mode': '1',
              environment: 'AzurePublicCloud',
              'tenant-id': 't',
            },
          },
        }),
      ),
    ).toEqual([]);
  });

  it("names every secret of a local account's kubeconfig", () => {
    expect(
      kubeconfigSecrets(
        kc({
          'client-certificate-data': 'Y2VydA==',
          'client-key-data': 'a2V5',
          token: 'abc',
        }),
      ),
    ).toEqual([
      'users[0].user.client-certificate-data',
      'users[0].user.client-key-data',
      'users[0].user.token',
    ]);
  });

  it('refuses fields it does not know, and secrets in exec env, exec args and auth-provider config', () => {
    expect(
      kubeconfigSecrets(
        kc({
          username: 'admin',
          password: 'p',
          exec: {
            command: 'kubelogin',
            args: ['get-token', '--client-secret=s', '--password', 'p'],
            env: [{ name: 'AAD_SERVICE_PRINCIPAL_CLIENT_SECRET', value: 's' }],
          },
          'auth-provider': {
            name: 'azure',
            config: { 'access-token': 'eyJ', 'refresh-token': 'r' },
          },
        }),
      ),
    ).toEqual([
      'users[0].user.username',
      'users[0].user.password',
      'users[0].user.exec.env[0] (AAD_SERVICE_PRINCIPAL_CLIENT_SECRET)',
      'users[0].user.exec.args[1] (--client-secret)',
      'users[0].user.exec.args[2] (--password)',
      'users[0].user.auth-provider.config.access-token',
      'users[0].user.auth-provider.config.refresh-token',
    ]);
  });

  it('refuses what is not a kubeconfig', () => {
    expect(kubeconfigSecrets('token: x')).toEqual(['(not a kubeconfig)']);
  });
});

describe('kubeconfigCluster', () => {
  it("reads the current context's server and CA, nothing of the user", () => {
    expect(kubeconfigCluster(kc({ token: 'secret' }))).toEqual({
      server: 'https://payments-dns-1a2b.hcp.westeurope.azmk8s.io:443',
      certificateAuthorityData: 'LS0tLS1CRUdJTi==',
    });
  });

  it('has no answer without an https server', () => {
    expect(
      kubeconfigCluster({
        clusters: [{ name: 'x', cluster: { server: 'http://x' } }],
      }),
    ).toBeUndefined();
    expect(kubeconfigCluster(undefined)).toBeUndefined();
  });
});
