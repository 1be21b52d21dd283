/**
 * The migration of a cluster from the legacy AzureManagedControlPlane API to AzureASOManagedControlPlane, planned as
 * data from one snapshot of the management cluster. It follows CAPZ's documented procedure exactly (CAPZ's book,
 * "Migrating existing Clusters to AzureASOManagedControlPlane", docs/migration-procedure.md): pause, wait for
 * block-move to go, disarm the old ASO objects, new namespace, copy the credential Secret, adopt (ResourceGroup,
 * then ManagedCluster with pools from status, then agent pools), wait for Available, force-delete the old objects,
 * verify. Pure: no I/O.
 */
import { gitModeSteps } from '../gitMode';
import { azureNameOf, nameOf, policyBeforeJob, ref, refTo } from '../helpers';
import {
  JOB_ID_PLACEHOLDER,
  type JobPlanResult,
  type MigrateJobParams,
  type StepPlan,
} from '../types';
import { isEntraOnly } from './legacy';
import {
  migrationPreflight,
  type MigrationPreflight,
  type MigrationSnapshot,
} from './preflight';
import { migrationSteps } from './steps';

export { agentPoolProfilesFromStatus } from './legacy';
export {
  migrationPreflight,
  requiredMigrationAccess,
  type MigrationPreflight,
  type MigrationSnapshot,
} from './preflight';
export { migrationSteps, type PlanInputs } from './steps';

/**
 * The steps, and in Git mode (one Flux Kustomization applies objects of the cluster) the Git steps around them: every
 * applied object is gone after the migration (deleted, or collected with its owner), so each one's document is
 * removed and the old Cluster's replaced by the new cluster's objects (docs/flux-facts.md#job-git-mode).
 */
function migrationPlan(
  params: MigrateJobParams,
  planned: NonNullable<MigrationPreflight['planned']>,
): StepPlan[] {
  const { cluster, legacy, inputs, gitMode } = planned;
  const steps = migrationSteps(params, cluster, legacy, inputs);
  if (!gitMode) return steps;
  const to = params.targetNamespace;
  const remove = gitMode.applied.map(o => refTo(o, 'Cluster'));
  const add = [
    ref('Cluster', to, inputs.newName),
    ref('AzureASOManagedCluster', to, inputs.newName),
    ref('AzureASOManagedControlPlane', to, inputs.newName),
    ...legacy.agentPools.flatMap(ap => [
      ref('MachinePool', to, nameOf(ap)),
      ref('AzureASOManagedMachinePool', to, nameOf(ap)),
    ]),
  ];
  const { before, after } = gitModeSteps({
    kustomization: gitMode.kustomization,
    remove,
    replace: remove.find(r => r.kind === 'Cluster') ?? remove[0],
    add,
    branch: `capz/migrate-${params.namespace}-${params.name}-${JOB_ID_PLACEHOLDER}`,
    title: `Migrate cluster ${params.namespace}/${params.name} to AzureASOManagedControlPlane (${to}/${inputs.newName})`,
  });
  return [...before, ...steps, ...after];
}

/**
 * The preflight and plan of a migration (see the module comment). Every created object carries
 * `capz.io/job: ${JOB_ID}` ({@link JOB_ID_PLACEHOLDER}), which the backend replaces with the job's id.
 * The plan is empty when the cluster, its control plane, its old ManagedCluster or ResourceGroup cannot be found.
 * @public
 */
export function planMigration(
  params: MigrateJobParams,
  snap: MigrationSnapshot,
): JobPlanResult {
  const target = {
    managementCluster: params.managementCluster,
    namespace: params.namespace,
    name: params.name,
  };
  const { checks, planned } = migrationPreflight(params, snap);
  const preview: JobPlanResult = {
    type: 'migrate',
    target,
    preflight: checks,
    plan: planned ? migrationPlan(params, planned) : [],
  };
  if (!planned) return preview;

  const to = params.targetNamespace;
  const { legacy } = planned;
  const { newName, credential, subscriptionId } = planned.inputs;
  const mc = legacy.mc!;
  const rg = legacy.rg!;
  return {
    ...preview,
    result: {
      cluster: {
        managementCluster: params.managementCluster,
        namespace: to,
        name: newName,
      },
    },
    facts: {
      newCluster: `${to}/${newName}`,
      credentialSecret: credential,
      subscriptionId,
      resourceGroup: azureNameOf(rg),
      managedCluster: azureNameOf(mc),
      agentPools: legacy.agentPools.map(azureNameOf).join(', '),
      // The lifecycle the new objects keep: deleting them later does in Azure what deleting the old ones would have.
      reconcilePolicies: [rg, mc, ...legacy.agentPools]
        .map(o => `${o.kind} ${nameOf(o)}: ${policyBeforeJob(o)}`)
        .join(', '),
      credentials: isEntraOnly(mc)
        ? `userCredentials ${newName}-user-kubeconfig (Entra-only)`
        : 'adminCredentials',
    },
  };
}
