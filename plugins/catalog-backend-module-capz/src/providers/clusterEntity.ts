import {
  ANNOTATION_LOCATION,
  ANNOTATION_ORIGIN_LOCATION,
  Entity,
} from '@backstage/catalog-model';
import {
  CAPZ_CLUSTER_ANNOTATION as CAPZ_CLUSTER_ANNOTATION_OF_COMMON,
  CLUSTER_API_LABEL,
  ClusterSummary,
  clusterEntityName,
  MANAGEMENT_CLUSTER_LABEL,
} from '@capz-backstage/plugin-capz-common';

/**
 * The annotation that ties a catalog entity to a CAPZ cluster: `<management cluster>/<namespace>/<name>`.
 * @public
 */
export const CAPZ_CLUSTER_ANNOTATION = CAPZ_CLUSTER_ANNOTATION_OF_COMMON;

/** Entity names allow [a-z0-9A-Z-_.], at most 63 characters; cluster identities are unique per management cluster. */
export function entityNameFor(
  c: Pick<ClusterSummary, 'managementCluster' | 'namespace' | 'name'>,
): string {
  // The same name capz:cluster:render gives the entity it writes for a GitOps repository.
  return clusterEntityName(c);
}

/**
 * The annotations Backstage's Kubernetes plugin reads from a `kubernetes-cluster` Resource with its `catalog` cluster
 * locator (`@backstage/plugin-kubernetes-common` ANNOTATION_KUBERNETES_*; the locator takes only entities that have
 * all three). `aks`: the user's own Entra ID token for the AKS server application, sent by the Kubernetes frontend.
 */
export const KUBERNETES_ANNOTATIONS = {
  apiServer: 'kubernetes.io/api-server',
  apiServerCertificateAuthority:
    'kubernetes.io/api-server-certificate-authority',
  authProvider: 'kubernetes.io/auth-provider',
} as const;

/**
 * The Kubernetes plugin's annotations of a cluster whose API server the backend knows (URL and CA from AKS's user
 * kubeconfig: docs/capz-aso-facts.md#catalog-kubernetes): the auth provider `aks` only for an Entra ID cluster, the one
 * kind whose users can sign in without a secret; a cluster with local accounts gets URL and CA only, so the locator
 * leaves it out.
 */
function kubernetesAnnotations(c: ClusterSummary): Record<string, string> {
  if (!c.apiServer) return {};
  return {
    [KUBERNETES_ANNOTATIONS.apiServer]: c.apiServer.url,
    ...(c.apiServer.certificateAuthorityData
      ? {
          [KUBERNETES_ANNOTATIONS.apiServerCertificateAuthority]:
            c.apiServer.certificateAuthorityData,
        }
      : {}),
    ...(c.entraId ? { [KUBERNETES_ANNOTATIONS.authProvider]: 'aks' } : {}),
  };
}

/** A CAPZ cluster as a catalog Resource of type kubernetes-cluster. */
export function clusterToEntity(
  c: ClusterSummary,
  opts: { providerName: string; defaultOwner: string },
): Entity {
  const location = `capz:${c.managementCluster}/${c.namespace}/${c.name}`;
  return {
    apiVersion: 'backstage.io/v1alpha1',
    kind: 'Resource',
    metadata: {
      name: entityNameFor(c),
      title: c.name,
      description: `AKS cluster ${c.namespace}/${c.name} on management cluster ${c.managementCluster}`,
      annotations: {
        [ANNOTATION_LOCATION]: location,
        [ANNOTATION_ORIGIN_LOCATION]: location,
        [CAPZ_CLUSTER_ANNOTATION]: `${c.managementCluster}/${c.namespace}/${c.name}`,
        ...kubernetesAnnotations(c),
      },
      labels: {
        [MANAGEMENT_CLUSTER_LABEL]: c.managementCluster,
        [CLUSTER_API_LABEL]: c.api,
      },
    },
    spec: {
      type: 'kubernetes-cluster',
      owner: c.owner ?? opts.defaultOwner,
    },
  };
}
