import { createApiRef } from '@backstage/frontend-plugin-api';
import {
  ClusterSummary,
  ClustersResponse,
  ManagementClustersResponse,
  ObjectYamlResponse,
  TimelineResponse,
  TreeNode,
} from '@internal/plugin-capz-common';

/** Names one CAPI Cluster: the management cluster it lives on, its namespace and its name. @public */
export interface ClusterRef {
  managementCluster: string;
  namespace: string;
  name: string;
}

/** GET /clusters/:mc/:ns/:name/tree @public */
export interface ClusterTreeResponse {
  summary: ClusterSummary;
  tree: TreeNode;
}

/** The CAPZ backend's HTTP API, as the frontend uses it. @public */
export interface CapzApi {
  listManagementClusters(): Promise<ManagementClustersResponse>;
  listClusters(): Promise<ClustersResponse>;
  /** `group`: merge runs of at least this many similar siblings (0 = never). The backend defaults to 3. */
  getClusterTree(ref: ClusterRef, options?: { group?: number }): Promise<ClusterTreeResponse>;
  getTimeline(
    ref: ClusterRef,
    query: { from: Date; to: Date; uid?: string },
  ): Promise<TimelineResponse>;
  /** One object of the cluster's tree as YAML; the backend has already redacted secret values. */
  getObjectYaml(ref: ClusterRef, uid: string): Promise<ObjectYamlResponse>;
}

/** @public */
export const capzApiRef = createApiRef<CapzApi>({ id: 'plugin.capz.api' });
