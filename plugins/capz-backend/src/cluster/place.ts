/** One cluster, by where it lives: its CAPI Cluster object on a management cluster. */
export interface ClusterPlace {
  managementCluster: string;
  namespace: string;
  name: string;
}
