import { TemplateExample } from '@backstage/plugin-scaffolder-node';
import { stringify } from 'yaml';

const params = {
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
const cluster = { managementCluster: 'prod-weu', ...params };

export const examples: TemplateExample[] = [
  {
    description: 'Create a cluster on a management cluster, as the user who runs the template',
    example: stringify({
      steps: [{ id: 'create', action: 'capz:cluster:create', name: 'Create the cluster', input: cluster }],
      output: { links: [{ title: 'Open the cluster', url: '${{ steps.create.output.clusterUrl }}' }] },
    }),
  },
  {
    description: 'Render the manifests to show them, then create the same cluster from the same parameters',
    example: stringify({
      steps: [
        {
          id: 'render',
          action: 'capz:cluster:render',
          name: 'Render cluster manifests',
          input: params,
        },
        { id: 'create', action: 'capz:cluster:create', name: 'Create the cluster', input: cluster },
      ],
    }),
  },
];
