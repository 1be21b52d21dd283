import { TemplateExample } from '@backstage/plugin-scaffolder-node';
import { stringify } from 'yaml';
import { exampleClusterParams } from './exampleParams';

export const examples: TemplateExample[] = [
  {
    description: 'A cluster with a system pool and an empty user pool',
    example: stringify({
      steps: [
        {
          id: 'render',
          action: 'capz:cluster:render',
          name: 'Render cluster manifests',
          input: exampleClusterParams,
        },
      ],
    }),
  },
];
