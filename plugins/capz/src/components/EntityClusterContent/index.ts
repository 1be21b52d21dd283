export { EntityClusterContent } from './EntityClusterContent';
export { EntityCapzHealthCard } from './EntityCapzHealthCard';
export {
  CAPZ_CLUSTER_ANNOTATION,
  clusterRefOf,
  hasClusterAnnotation,
} from './annotation';
