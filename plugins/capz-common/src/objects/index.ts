export * from './types';
// The condition normalisation (ASO, CAPI v1beta2 and v1beta1-style), for the backend's condition history.
export { conditionsOf, reconcilePolicyOf } from './read';
// Who applies an object (Flux, Argo CD, Helm), for the guard on live writes.
export {
  appliedBy,
  clusterAppliedBy,
  describeAppliedBy,
  gitOpsRefusal,
  helmWarning,
  type AppliedBy,
  type AppliedByTool,
  type AppliedObjectRef,
} from './appliedBy';
