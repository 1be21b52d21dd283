export * from './types';
export {
  JOB_ID_PLACEHOLDER,
  describeRef,
  type AccessAnswer,
  type AccessRequirement,
} from './common';
export * from './names';
export * from './conditions';
export * from './access';
export {
  planMigration,
  requiredMigrationAccess,
  agentPoolProfilesFromStatus,
  type MigrationSnapshot,
  type JobPlanResult,
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
