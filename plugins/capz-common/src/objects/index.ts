export * from './types';
// The condition normalisation (ASO, CAPI v1beta2 and v1beta1-style), for the backend's condition history.
export { conditionsOf, reconcilePolicyOf } from './read';
// Who applies an object (Flux, Argo CD, Helm), for the guard on live writes.
export {
  appliedBy,
  clusterAppliedBy,
  clusterKustomization,
  describeAppliedBy,
  gitOpsRefusal,
  helmWarning,
  type AppliedBy,
  type AppliedByTool,
  type AppliedObjectRef,
} from './appliedBy';
// Where a cluster applied from Git comes from, and whether Flux is in sync with it.
export {
  clusterGitSource,
  describeGitSource,
  gitSourceOf,
  shortRevision,
  type GitSourceWords,
} from './gitSource';
