import { TemplateExample } from '@backstage/plugin-scaffolder-node';
import { stringify } from 'yaml';
import { exampleClusterParams } from './exampleParams';

const cluster = { managementCluster: 'prod-weu', ...exampleClusterParams };

export const examples: TemplateExample[] = [
  {
    description:
      'Propose the cluster as a branch of a GitOps repository (clusters/<namespace>/<name>/ on a new branch from main)',
    example: stringify({
      steps: [
        {
          id: 'propose',
          action: 'capz:cluster:propose',
          name: 'Propose the cluster in Git',
          input: {
            ...cluster,
            repoUrl: 'https://git.example.com/platform/clusters.git',
          },
        },
      ],
      output: {
        links: [
          {
            title: 'Review the change',
            url: '${{ steps.propose.output.url }}',
          },
        ],
        text: [
          {
            title: 'Branch ${{ steps.propose.output.branch }}',
            content: '${{ steps.propose.output.reviewHint }}',
          },
        ],
      },
    }),
  },
  {
    description:
      'Propose it from another base branch into a directory of your own',
    example: stringify({
      steps: [
        {
          id: 'propose',
          action: 'capz:cluster:propose',
          name: 'Propose the cluster in Git',
          input: {
            ...cluster,
            repoUrl: 'https://git.example.com/platform/clusters.git',
            baseBranch: 'staging',
            path: 'management/prod-weu/team-a-dev',
          },
        },
      ],
    }),
  },
];
