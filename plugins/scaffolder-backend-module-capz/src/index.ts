/**
 * Scaffolder actions for CAPZ.
 *
 * @packageDocumentation
 */
export { scaffolderModuleCapz as default } from './module';
export {
  createRenderClusterManifestsAction,
  type RenderClusterManifestsActionOptions,
} from './actions/renderClusterManifests';
export {
  createCreateClusterAction,
  type CreateClusterActionOptions,
} from './actions/createCluster';
export {
  createProposeClusterAction,
  type ProposeClusterActionOptions,
} from './actions/proposeCluster';
