export {
  AzureWorld,
  azureResourceState,
  type AzureResourceState,
  type AzureSnapshot,
  type Counters,
} from './azure/model.ts';
export { AzureError } from './azure/errors.ts';
export { startArmServer, type ArmServer } from './arm/server.ts';
export { Simulator, type SimulatorOptions } from './simulator.ts';
export { Kube } from './runtime/kube.ts';
export { K } from './runtime/kinds.ts';
export type { Obj, Condition } from './runtime/types.ts';
export { ownerRef } from './runtime/meta.ts';
export { asoManagedCluster, type PoolSeed } from './scenarios/seed.ts';
