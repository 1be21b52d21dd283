// A day-2 change made in Git: where a Flux Kustomization's object is written, the change as a file diff.
export {
  apiGroupOf,
  kustomizeBuild,
  normalizeKustomizationPath,
  KUSTOMIZATION_FILE_NAMES,
  type BuiltResource,
  type FluxKustomizationBuildSpec,
  type KustomizeBuild,
  type RepoFiles,
} from './kustomizeBuild';
export {
  describeFieldChange,
  locateManifest,
  parseFieldPath,
  planManifestEdit,
  planManifestReplace,
  type GitOpsObjectRef,
  type ManifestByHand,
  type ManifestEditResult,
  type ManifestFileEdit,
  type ManifestLocation,
} from './manifestEdit';
export { planManifestAdd } from './manifestAdd';
export { manifestForGit } from './manifestExport';
export { unifiedDiff } from './unifiedDiff';
