export { EntityClusterContent } from './EntityClusterContent';
export {
  CAPZ_CLUSTER_ANNOTATION,
  clusterRefOf,
  hasClusterAnnotation,
} from './annotation';
