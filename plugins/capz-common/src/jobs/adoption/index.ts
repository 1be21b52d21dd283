/**
 * The adoption of an existing AKS cluster, planned as data from one snapshot: the documented order
 * (docs/capz-aso-facts.md#adoption-order and docs/capz-aso-facts.md#adopt-agent-pool): an ASO ResourceGroup that is
 * Ready, then the annotated ManagedCluster with its pools copied from Azure (as `asoctl import` would), wait until an
 * AzureASOManagedControlPlane controls it and CAPI has labelled that, then one annotated ManagedClustersAgentPool per
 * pool, then the Cluster is Available. Pure: no I/O.
 */
import { gitAddSteps } from '../gitMode';
import { policyBeforeJob, ref } from '../helpers';
import {
  JOB_ID_PLACEHOLDER,
  type AdoptJobParams,
  type JobPlanResult,
  type StepPlan,
} from '../types';
import {
  adoptionPreflight,
  type AdoptionPreflight,
  type AdoptionSnapshot,
} from './preflight';
import { adoptionSteps } from './steps';

export {
  adoptionPreflight,
  requiredAdoptionAccess,
  type AdoptionPreflight,
  type AdoptionSnapshot,
} from './preflight';
export { adoptionSteps, type AdoptionPlanInputs } from './steps';

/**
 * The steps, and in a namespace whose clusters one Flux Kustomization applies, the Git steps after them: the new
 * cluster's CAPI and CAPZ objects proposed beside the others (the ASO objects live in the control plane's and pools'
 * spec.resources, docs/capz-aso-facts.md#adopt-managed-cluster), docs/flux-facts.md#git-add-beside.
 */
function adoptionPlan(
  params: AdoptJobParams,
  name: string,
  planned: NonNullable<AdoptionPreflight['planned']>,
): StepPlan[] {
  const steps = adoptionSteps(params, planned.aks, planned.inputs);
  if (!planned.git) return steps;
  const ns = params.namespace;
  const add = [
    ref('Cluster', ns, name),
    ref('AzureASOManagedCluster', ns, name),
    ref('AzureASOManagedControlPlane', ns, name),
    ...planned.aks.agentPools.flatMap(p => [
      ref('MachinePool', ns, `${name}-${p.name}`),
      ref('AzureASOManagedMachinePool', ns, `${name}-${p.name}`),
    ]),
  ];
  return [
    ...steps,
    ...gitAddSteps({
      kustomization: planned.git.kustomization,
      beside: planned.git.beside,
      add,
      branch: `capz/adopt-${ns}-${name}-${JOB_ID_PLACEHOLDER}`,
      title: `Add the adopted cluster ${ns}/${name} (AKS ${params.resourceGroup}/${params.clusterName})`,
    }),
  ];
}

/**
 * The preflight and plan of an adoption. Object names follow the adoption controllers
 * (docs/capz-aso-facts.md#adoption-names): the Cluster, AzureASOManagedCluster, AzureASOManagedControlPlane and
 * ManagedCluster are all `clusterName`; each pool's objects are `<clusterName>-<pool>`; the ResourceGroup object is
 * CAPZ's normalised group name (docs/capz-aso-facts.md#legacy-names), or an existing ResourceGroup object for the same
 * Azure group, which is then reused rather than created.
 * @public
 */
export function planAdoption(
  params: AdoptJobParams,
  snap: AdoptionSnapshot,
): JobPlanResult {
  const ns = params.namespace;
  const { checks, name, planned } = adoptionPreflight(params, snap);
  const target = {
    managementCluster: params.managementCluster,
    namespace: ns,
    name,
  };
  const preview: JobPlanResult = {
    type: 'adopt',
    target,
    preflight: checks,
    plan: planned ? adoptionPlan(params, name, planned) : [],
  };
  if (!planned) return preview;

  const { aks } = planned;
  const { rgName, existingRg } = planned.inputs;
  const pools = aks.agentPools;
  const poolName = (p: string) => `${name}-${p}`;
  return {
    ...preview,
    result: {
      cluster: {
        managementCluster: params.managementCluster,
        namespace: ns,
        name,
      },
    },
    facts: {
      cluster: `${ns}/${name}`,
      azureName: aks.name,
      reconcilePolicies: `ResourceGroup ${rgName}: ${
        existingRg
          ? `${policyBeforeJob(existingRg)} (existing object)`
          : 'skip (a group CAPZ never owned: ASO never changes or deletes it)'
      }, ManagedCluster and agent pools: manage`,
      resourceGroupObject: rgName,
      resourceGroupReused: existingRg ? 'yes' : 'no',
      agentPools: pools.map(p => poolName(p.name)).join(', '),
      credentials: aks.entraOnly
        ? `userCredentials ${name}-user-kubeconfig (Entra-only)`
        : 'adminCredentials (defaulted by CAPZ)',
    },
  };
}
