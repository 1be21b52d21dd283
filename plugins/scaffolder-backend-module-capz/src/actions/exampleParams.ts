/** The cluster the actions' examples render and create: a system pool and an empty user pool. */
export const exampleClusterParams = {
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
