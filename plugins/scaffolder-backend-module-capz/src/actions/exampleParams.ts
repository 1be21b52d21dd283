/**
 * The cluster the actions' examples render, create and propose: Entra ID only, owned by a catalog group, tagged, a
 * Linux system pool and an autoscaled user pool.
 */
export const exampleClusterParams = {
  name: 'team-a-dev',
  namespace: 'team-a',
  location: 'westeurope',
  kubernetesVersion: 'v1.33.2',
  credentialSecretName: 'aso-credential',
  owner: 'group:default/team-a',
  tags: { environment: 'dev', 'cost-center': 'team-a' },
  entraOnly: true,
  pools: [
    { name: 'pool0', mode: 'System', vmSize: 'Standard_D2s_v3', replicas: 2 },
    {
      name: 'pool1',
      mode: 'User',
      vmSize: 'Standard_D4s_v3',
      replicas: 0,
      autoscaling: { minCount: 0, maxCount: 5 },
    },
  ],
};
