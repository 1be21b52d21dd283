import { Alert } from '@backstage/ui';
import type {
  ClusterSummary,
  ManagedFromPlace,
} from '@capz-backstage/plugin-capz-common';

/** `<management cluster>/<namespace>/<name> (Cluster <c>)`: one other place whose ManagedCluster manages the same AKS cluster. */
export const placeText = (p: ManagedFromPlace) =>
  `${p.managementCluster}/${p.namespace}/${p.name}${
    p.cluster && p.cluster !== p.name ? ` (Cluster ${p.cluster})` : ''
  }`;

/**
 * The danger alert for clusters whose AKS cluster is managed from more than one place, with what to do.
 * Shown above the clusters table and on the cluster page; nothing when none is.
 */
export function ManagedFromAlert({ clusters }: { clusters: ClusterSummary[] }) {
  const doublyManaged = clusters.filter(c => c.managedFrom?.length);
  if (!doublyManaged.length) return null;
  return (
    <Alert
      status="danger"
      icon
      title={`${doublyManaged.length} ${
        doublyManaged.length === 1 ? 'cluster is' : 'clusters are'
      } managed from more than one place`}
      description={
        `${doublyManaged
          .map(
            c =>
              `${c.managementCluster}/${c.namespace}/${c.name} (also ${(
                c.managedFrom ?? []
              )
                .map(placeText)
                .join(', ')})`,
          )
          .join('; ')}. ` +
        'Two ASO ManagedClusters write the same AKS cluster, and deleting either one deletes the AKS cluster under the ' +
        'other. Keep one: set serviceoperator.azure.com/reconcile-policy: skip on the other ManagedCluster, then delete it.'
      }
    />
  );
}
