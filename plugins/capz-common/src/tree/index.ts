export * from './types';
export * from './health';
export * from './facts';
export * from './rollup';
export * from './buildTree';
export * from './grouping';
export * from './summary';
export * from './partition';
export * from './hints';
export * from './text';
// The condition normalisation (ASO, CAPI v1beta2 and v1beta1-style), for the backend's condition history.
export { conditionsOf } from './read';
