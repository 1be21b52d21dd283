/** The cluster a job request works on: the one key of the job store, the one-active-job check and the audit event. */
import { normalizeKubernetesName } from './names';
import type { ClusterPlace } from '../api';
import type { JobRequest } from './types';

/**
 * The cluster a request works on, named as the planners name it and the job store keys the job: for adoption the
 * Cluster the job creates, whose name is CAPZ's normalisation of the AKS cluster's Azure name (`myAKSCluster` becomes
 * `myakscluster`, docs/capz-aso-facts.md#legacy-names); otherwise the Cluster the request names. A check keyed on
 * anything else (the raw Azure name) misses the job stored under this one.
 * @public
 */
export function jobTargetOf(request: JobRequest): ClusterPlace {
  const { managementCluster, namespace } = request.params;
  const name =
    request.type === 'adopt'
      ? normalizeKubernetesName(request.params.clusterName)
      : request.params.name;
  return { managementCluster, namespace, name };
}
