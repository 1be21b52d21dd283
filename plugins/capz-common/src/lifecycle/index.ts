// Where a cluster's Kubernetes version stands in AKS's support policy, and who owns its version (issue: fleets).
export { AKS_RELEASE_CALENDAR, type AksMinorLifecycle } from './calendar';
export {
  aksVersionSupport,
  versionConflicts,
  type AksSupportStatus,
  type AksVersionSupport,
  type VersionConflict,
} from './support';
