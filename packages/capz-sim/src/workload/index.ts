/** Workload clusters of the simulated AKS clusters: docs/real-controllers.md#workload-clusters. */
export {
  attachWorkloadApiServer,
  startWorkloadApiServer,
  type StartWorkloadOptions,
  type WorkloadApiServer,
  type WorkloadKubeconfig,
} from './apiserver.ts';
export {
  CLUSTER_LABEL,
  OWNER_LABEL,
  POOL_LABEL,
  nodeName,
  providerId,
  vmssName,
} from './nodes.ts';
export { WorkloadNodeSync, type NodeSyncOptions } from './sync.ts';
