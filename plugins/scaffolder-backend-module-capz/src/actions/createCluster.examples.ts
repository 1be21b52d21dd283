import { TemplateExample } from '@backstage/plugin-scaffolder-node';
import { stringify } from 'yaml';
import { exampleClusterParams } from './exampleParams';

const params = exampleClusterParams;
const cluster = { managementCluster: 'prod-weu', ...params };

export const examples: TemplateExample[] = [
  {
    description:
      'Create a cluster on a management cluster, as the user who runs the template',
    example: stringify({
      steps: [
        {
          id: 'create',
          action: 'capz:cluster:create',
          name: 'Create the cluster',
          input: cluster,
        },
      ],
      output: {
        links: [
          {
            title: 'Open the cluster',
            url: '${{ steps.create.output.clusterUrl }}',
          },
        ],
      },
    }),
  },
  {
    description:
      'Render the manifests to show them, then create the same cluster from the same parameters',
    example: stringify({
      steps: [
        {
          id: 'render',
          action: 'capz:cluster:render',
          name: 'Render cluster manifests',
          input: params,
        },
        {
          id: 'create',
          action: 'capz:cluster:create',
          name: 'Create the cluster',
          input: cluster,
        },
      ],
    }),
  },
];
