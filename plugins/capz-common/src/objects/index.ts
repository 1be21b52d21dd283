export * from './types';
// The condition normalisation (ASO, CAPI v1beta2 and v1beta1-style), for the backend's condition history.
export { conditionsOf, reconcilePolicyOf } from './read';
