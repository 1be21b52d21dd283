import type { Health } from './tree/types';

/** How the backend authenticates to a management cluster. @public */
export type ManagementClusterAuthMethod =
  | 'serviceAccountToken'
  | 'kubeconfig'
  | 'azure';

/** A configured management cluster as the HTTP API shows it: never with secrets. @public */
export interface ManagementClusterInfo {
  name: string;
  title?: string;
  url?: string;
  authMethod: ManagementClusterAuthMethod;
}

/** Whether the backend reaches a management cluster, as of its last check. @public */
export interface ManagementClusterStatus {
  state: 'unknown' | 'connected' | 'unreachable';
  /** The API server's gitVersion when connected. */
  version?: string;
  /** Why it is unreachable. */
  message?: string;
  checkedAt?: string;
}

/** Whether the watch cache of a management cluster has listed every kind it watches. @public */
export interface ManagementClusterWatchStatus {
  synced: boolean;
  error?: string;
  kinds: Record<string, { version?: string; synced: boolean; restarts: number; lastEventAt?: string; error?: string }>;
}

/** GET /management-clusters @public */
export interface ManagementClustersResponse {
  items: Array<ManagementClusterInfo & { status: ManagementClusterStatus; watch?: ManagementClusterWatchStatus }>;
}

/**
 * Which API describes a cluster: the ASO-managed API at v1beta1, the same still referenced as v1alpha1,
 * or the deprecated AzureManaged* API (a migration candidate).
 * @public
 */
export type ClusterApi = 'aso-v1beta1' | 'aso-v1alpha1' | 'azure-managed';

/** One CAPI Cluster in the clusters list. Filled from the watch cache. @public */
export interface ClusterSummary {
  managementCluster: string;
  namespace: string;
  name: string;
  api: ClusterApi;
  /** Catalog owner from the cluster's `capz.io/owner` annotation, if any. */
  owner?: string;
  /** The rollup of the cluster's whole tree, MachinePools included (unlike CAPI's own Available). */
  health?: Health;
  /** Why, prefixed with the deciding object: `ManagedCluster search-prod: ReconciliationBlocked`. */
  reason?: string;
  message?: string;
  /** With the leading "v", e.g. v1.33.2. */
  kubernetesVersion?: string;
  /** Azure region. */
  location?: string;
  /** MachinePools: how many, how many are healthy (their whole subtree), and their current replicas in total. */
  pools?: { total: number; ready: number; replicas: number };
  /** True on the deprecated AzureManaged* API: the cluster should be migrated to AzureASOManagedControlPlane. */
  migrationCandidate?: boolean;
}

/** GET /clusters @public */
export interface ClustersResponse {
  items: ClusterSummary[];
}
