export { apiGet, apiRequest, type ClusterInfo } from './api.ts';
export { auditLogEnd, auditLogEntries } from './audit.ts';
export {
  authenticationConfig,
  pauseApiServer,
  restartApiServer,
  resumeApiServer,
  runningCluster,
  startApiServer,
  startManagementCluster,
  stopApiServer,
  stopManagementCluster,
  type JwtAuthenticator,
  type StartOptions,
} from './cluster.ts';
export { adminKubeConfig } from './client.ts';
export { CRD_SOURCES, loadCrds, patchCrd, type Crd } from './crds.ts';
export { ensureBinaries } from './binaries.ts';
export { runBuildScript } from './buildScript.ts';
export { launch, type LaunchOptions } from './launch.ts';
export { repoRoot, stateRoot } from './paths.ts';
export { freePort, listenPort } from './ports.ts';
