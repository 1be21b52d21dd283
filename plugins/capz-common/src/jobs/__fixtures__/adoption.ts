/** The adoption planner tests' parameters, snapshot and plan readers. */
import { requiredAdoptionAccess, type AdoptionSnapshot } from '../adoption';
import type {
  AdoptJobParams,
  DiscoveredAksCluster,
  JobPlanResult,
  PlannedAction,
  StepPlan,
} from '../types';
import { allow, SUB } from './snapshots';

export const params: AdoptJobParams = {
  managementCluster: 'mgmt',
  namespace: 'adopt',
  credentialSecret: 'aso-credential',
  subscriptionId: SUB,
  resourceGroup: 'RG_Adopt',
  clusterName: 'aks-adopt',
};

/** The AKS cluster of capz-sim's adoption-procedure test, as ARM discovery reports it. */
export const aksCluster = (
  over: Partial<DiscoveredAksCluster> = {},
): DiscoveredAksCluster => ({
  subscriptionId: SUB,
  resourceGroup: 'RG_Adopt',
  name: 'aks-adopt',
  location: 'westeurope',
  kubernetesVersion: '1.33.2',
  dnsPrefix: 'aks-adopt-dns',
  provisioningState: 'Succeeded',
  entraOnly: false,
  agentPools: [
    { name: 'system', mode: 'System', vmSize: 'Standard_D2s_v3', count: 2 },
    {
      name: 'apps',
      mode: 'User',
      vmSize: 'Standard_D4s_v3',
      count: 1,
      enableAutoScaling: true,
      minCount: 1,
      maxCount: 5,
    },
  ],
  ...over,
});

export const snapshot = (
  over: Partial<AdoptionSnapshot> = {},
  p = params,
): AdoptionSnapshot => ({
  aks: aksCluster(),
  resourceGroupLocation: 'westeurope',
  namespaceExists: true,
  credentialSecretExists: true,
  objects: [],
  access: allow(requiredAdoptionAccess(p)),
  ...over,
});

/** The request to adopt an AKS cluster whose Azure names are no Kubernetes names (upper case, '_'), and its snapshot. */
export function azureNamed() {
  const p = {
    ...params,
    resourceGroup: 'My_Resource_Group',
    clusterName: 'myAKSCluster',
  };
  const aks = aksCluster({
    name: 'myAKSCluster',
    resourceGroup: 'My_Resource_Group',
  });
  return { params: p, snapshot: snapshot({ aks }, p) };
}

export const step = (plan: StepPlan[], id: string) =>
  plan.find(s => s.id === id)!;
export const creates = (s: StepPlan) =>
  s.actions
    .filter(
      (a): a is Extract<PlannedAction, { action: 'create' }> =>
        a.action === 'create',
    )
    .map(a => a.object);
export const failed = (r: JobPlanResult) =>
  r.preflight.filter(c => c.status === 'fail').map(c => c.id);
export const credential = {
  'serviceoperator.azure.com/credential-from': 'aso-credential',
};
export const adopt = { 'sigs.k8s.io/cluster-api-provider-azure-adopt': 'true' };
