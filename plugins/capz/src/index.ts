/**
 * The CAPZ frontend plugin.
 *
 * @packageDocumentation
 */
export { capzPlugin as default } from './plugin';
export {
  capzApiRef,
  type CapzApi,
  type ClusterRef,
  type ClustersQuery,
  type ClusterTreeResponse,
  type JobControl,
  type NamespacesResponse,
} from './api/CapzApi';
export { CAPZ_CLUSTER_ANNOTATION } from './components/EntityClusterContent/annotation';
