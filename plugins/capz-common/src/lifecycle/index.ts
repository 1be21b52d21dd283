// Where a cluster's Kubernetes version stands in AKS's support policy, and who owns its version (issue: fleets).
export {
  AKS_RELEASE_CALENDAR,
  aksCalendarWith,
  aksLifecycleSettings,
  type AksLifecycleSettings,
  type AksMinorLifecycle,
} from './calendar';
export {
  aksDateInWords,
  aksDaysInWords,
  aksVersionSupport,
  poolSkews,
  versionConflicts,
  type AksSupportStatus,
  type AksVersionSupport,
  type PoolSkew,
  type VersionConflict,
} from './support';
export {
  clusterAttention,
  clusterLifecycleFacts,
  type AttentionInput,
  type AttentionItem,
  type AttentionOptions,
  type ClusterLifecycleFacts,
} from './attention';
