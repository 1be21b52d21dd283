/** The managers' command lines and environments, as their config/manager/manager.yaml has them, on loopback ports. */
import type { ClusterInfo } from '../api.ts';
import { ASO_CRD_PATTERN, type ManagerName } from './managers.ts';
import type { ControllerPorts } from './state.ts';

export function managerArgs(
  ports: Record<ManagerName, ControllerPorts>,
  certDir: string,
): Record<ManagerName, string[]> {
  const common = (m: ManagerName) => [
    `--webhook-port=${ports[m].webhook}`,
    `--webhook-cert-dir=${certDir}`,
    `--health-addr=127.0.0.1:${ports[m].health}`,
  ];
  return {
    capi: [
      ...common('capi'),
      `--diagnostics-address=127.0.0.1:${ports.capi.metrics}`,
      '--insecure-diagnostics=true',
      // config/manager/manager.yaml defaults of CAPI v1.13.3 (ClusterTopology/RuntimeSDK off as there).
      '--feature-gates=MachinePool=true,ClusterTopology=false,RuntimeSDK=false,MachineSetPreflightChecks=true,PriorityQueue=true,ReconcilerRateLimiting=true',
      '--v=2',
    ],
    capz: [
      ...common('capz'),
      `--diagnostics-address=127.0.0.1:${ports.capz.metrics}`,
      '--insecure-diagnostics=true',
      // config/manager/manager.yaml defaults of CAPZ v1.26.0. ASOAPI is GA (default true) in v1.26.
      '--feature-gates=MachinePool=true,AKSResourceHealth=false,EdgeZone=false,ASOAPI=true,APIServerILB=false',
      '--v=2',
    ],
    aso: [
      ...common('aso'),
      // Metrics off ("0" is ASO's own default); no CRD management: the CRDs installed are ASO's whole world.
      '--metrics-addr=0',
      '--crd-management=none',
      `--crd-pattern=${ASO_CRD_PATTERN.join(';')}`,
      '--v=2',
    ],
  };
}

/** The whole environment of a manager: PATH, HOME, the cluster's kubeconfig, the POD_* variables, then `extra`. */
export function managerEnv(
  m: ManagerName,
  info: ClusterInfo,
  extra?: Record<string, string>,
): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    KUBECONFIG: info.kubeconfigPath,
    POD_NAMESPACE: m === 'aso' ? 'azureserviceoperator-system' : `${m}-system`,
    POD_NAME: `${m}-controller-manager-local`,
    ...(m === 'aso'
      ? {
          // As CAPZ's config/aso/settings.yaml: no global credential; per-resource Secrets from AzureClusterIdentity.
          AZURE_SUBSCRIPTION_ID: '',
          AZURE_TENANT_ID: '',
          AZURE_CLIENT_ID: '',
          AZURE_USER_AGENT_SUFFIX: 'cluster-api-provider-azure/main',
        }
      : {}),
    ...extra,
  };
}
