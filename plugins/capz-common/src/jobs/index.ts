export * from './types';
export { describeRef } from './helpers';
export {
  FLUX_KUSTOMIZATION_API_VERSION,
  gitopsResumeOnCancel,
  type GitopsResumeReason,
  kustomizationRef,
  MERGE_WAIT_SECONDS,
} from './gitMode';
export * from './names';
export { jobTargetOf } from './target';
export * from './conditions';
export * from './access';
export {
  clusterNotManagedCheck,
  groupDeleters,
  groupNotManagedCheck,
  soleManagerCondition,
  type ObjectOnCluster,
} from './soleManager';
export {
  planMigration,
  requiredMigrationAccess,
  agentPoolProfilesFromStatus,
  type MigrationSnapshot,
} from './migration';
export {
  planAdoption,
  requiredAdoptionAccess,
  type AdoptionSnapshot,
} from './adoption';
export {
  planApiVersionUpgrade,
  requiredUpgradeAccess,
  type UpgradeSnapshot,
} from './upgrade';
