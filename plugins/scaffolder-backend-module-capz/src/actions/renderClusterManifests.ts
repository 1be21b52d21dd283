import { createTemplateAction } from '@backstage/plugin-scaffolder-node';
import {
  generateAksAsoClusterManifests,
  normalizeKubernetesVersion,
  validateAksAsoClusterParams,
} from '@capz-backstage/plugin-capz-common';
import { stringify } from 'yaml';
import { clusterInputSchema } from './createCluster';
import { examples } from './renderClusterManifests.examples';

/** The cluster's parameters without the management cluster (rendering touches no cluster). */
const { managementCluster: _managementCluster, ...renderInputSchema } =
  clusterInputSchema;

/**
 * `capz:cluster:render`: the manifests of a new ASO-managed AKS cluster (CAPZ's aks-aso flavor) as YAML.
 * Pure, so it also runs in template dry-runs.
 *
 * @public
 */
export function createRenderClusterManifestsAction() {
  return createTemplateAction({
    id: 'capz:cluster:render',
    description:
      'Renders the Cluster API and CAPZ (ASO-managed) manifests of a new AKS cluster as multi-document YAML',
    examples,
    supportsDryRun: true,
    schema: {
      input: renderInputSchema,
      output: {
        manifests: z =>
          z.string().describe('Multi-document YAML of every object'),
        objectCount: z => z.number().describe('How many objects were rendered'),
      },
    },
    async handler(ctx) {
      // `1.33.2` as AKS and people write it is taken for CAPI's `v1.33.2`.
      const input = {
        ...ctx.input,
        kubernetesVersion: normalizeKubernetesVersion(
          ctx.input.kubernetesVersion,
        ),
      };
      const errors = validateAksAsoClusterParams(input);
      if (errors.length) {
        throw new Error(
          `Cannot render cluster ${input.name}: ${errors.join('; ')}`,
        );
      }
      const objects = generateAksAsoClusterManifests(input);
      ctx.logger.info(
        `Rendered ${objects.length} objects for cluster ${input.namespace}/${input.name}`,
      );
      ctx.output('manifests', objects.map(o => stringify(o)).join('---\n'));
      ctx.output('objectCount', objects.length);
    },
  });
}
