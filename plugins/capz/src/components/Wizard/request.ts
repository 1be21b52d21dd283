import {
  DNS_LABEL_PATTERN,
  normalizeKubernetesName,
  type JobRequest,
  type JobTarget,
} from '@capz-backstage/plugin-capz-common';

/**
 * The cluster a request works on; for adoption, the cluster it creates, named as the planner names it: the AKS
 * cluster's Azure name normalised to a Kubernetes name (`myAKSCluster` -> `myakscluster`).
 */
export function targetOf(request: JobRequest): JobTarget {
  return request.type === 'adopt'
    ? {
        managementCluster: request.params.managementCluster,
        namespace: request.params.namespace,
        name: normalizeKubernetesName(request.params.clusterName),
      }
    : {
        managementCluster: request.params.managementCluster,
        namespace: request.params.namespace,
        name: request.params.name,
      };
}

/**
 * Why `value` is not a valid namespace name (an RFC 1123 DNS label, as Kubernetes requires), or undefined. The same
 * rule as the backend's, checked here so the user sees it while typing.
 */
export function dnsLabelError(value: string): string | undefined {
  if (!value) return 'Enter a namespace name.';
  if (value.length > 63)
    return `Must be at most 63 characters (it has ${value.length}).`;
  if (!DNS_LABEL_PATTERN.test(value)) {
    return 'Must be a DNS label: lowercase letters, digits and "-", starting and ending with a letter or digit.';
  }
  return undefined;
}
