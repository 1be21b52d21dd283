/**
 * The real Cluster API, CAPZ and ASO managers on a local management cluster (the package's `./controllers` export):
 * start.ts tells the whole start; each concern is a module of this folder.
 */
export { checkAzureEnv } from './azureEnv.ts';
export { loadAsoCrds } from './managerCrds.ts';
export {
  ASO_CRD_PATTERN,
  CONTROLLER_MODULES,
  ensureControllerBinaries,
  MANAGERS,
  moduleDir,
  type ControllerBinaries,
  type ManagerName,
} from './managers.ts';
export {
  ControllersStartError,
  startControllers,
  type StartControllersOptions,
} from './start.ts';
export {
  runningControllers,
  type ControllerPorts,
  type RunningControllers,
} from './state.ts';
export { stopControllers } from './stop.ts';
