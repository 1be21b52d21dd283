/**
 * Shared vocabulary of the CAPZ plugins.
 *
 * @packageDocumentation
 */
export * from './kinds';
export * from './vocabulary';
export * from './permissions';
export * from './api';
export * from './objects';
export * from './manifests/aksAsoCluster';
export * from './clusterCreate';
export * from './tree';
export * from './jobs';
export * from './manifests/clusterRules';
export * from './manifests/clusterProposal';
export * from './day2';
export * from './gitops';
export * from './lifecycle';
export * from './clusters';
export * from './ownership';
export * from './fleet';
