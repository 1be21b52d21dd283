import { TemplateExample } from '@backstage/plugin-scaffolder-node';
import { stringify } from 'yaml';

export const examples: TemplateExample[] = [
  {
    description: 'A cluster with a system pool and an empty user pool',
    example: stringify({
      steps: [
        {
          id: 'render',
          action: 'capz:cluster:render',
          name: 'Render cluster manifests',
          input: {
            name: 'team-a-dev',
            namespace: 'team-a',
            location: 'westeurope',
            kubernetesVersion: 'v1.33.2',
            credentialSecretName: 'aso-credential',
            pools: [
              { name: 'pool0', mode: 'System', vmSize: 'Standard_D2s_v3', replicas: 2 },
              { name: 'pool1', mode: 'User', vmSize: 'Standard_D4s_v3', replicas: 0 },
            ],
          },
        },
      ],
    }),
  },
];
