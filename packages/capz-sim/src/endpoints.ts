/**
 * The simulated Azure endpoints alone (no Kubernetes): the in-process Azure model, its ARM endpoint and the Entra ID
 * token service, for tests that drive the real Azure SDK against them (e.g. the backend's AKS discovery).
 */
export {
  AzureWorld,
  azureResourceState,
  type AzureResourceState,
  type AzureSnapshot,
} from './azure/model.ts';
export {
  SIM_SERVICE_PRINCIPAL,
  servicePrincipalSecretData,
  type SimServicePrincipal,
} from './azure/credential.ts';
export {
  entraAuthorizer,
  startArmServer,
  type ArmCaller,
  type ArmServer,
  type ArmServerOptions,
} from './arm/server.ts';
export {
  AKS_SERVER_APPLICATION_ID,
  ARM_RESOURCE,
  startEntraSim,
  type EntraSim,
  type VerifiedToken,
} from './entra/server.ts';
