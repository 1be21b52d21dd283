/**
 * Scaffolder actions for CAPZ.
 *
 * @packageDocumentation
 */
export { scaffolderModuleCapz as default } from './module';
export { createRenderClusterManifestsAction } from './actions/renderClusterManifests';
export { createCreateClusterAction } from './actions/createCluster';
export { createProposeClusterAction } from './actions/proposeCluster';
