/**
 * CAPZ clusters as catalog entities.
 *
 * @packageDocumentation
 */
export { catalogModuleCapz as default } from './module';
export { CAPZ_CLUSTER_ANNOTATION } from './providers/clusterEntity';
