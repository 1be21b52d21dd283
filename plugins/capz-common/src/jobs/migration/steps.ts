/**
 * The steps of a migration (see ./index.ts): the ordered actions, waits and invariants, built once the preflight
 * has found everything they need. Pure: no I/O.
 */
import type { ObservedObject } from '../../objects/types';
import {
  azureNameOf,
  clone,
  describeRef,
  isRecord,
  jobAnnotations,
  nameOf,
  pinPoliciesStep,
  type PolicyPin,
  policyAnnotation,
  policyBeforeJob,
  soleManager,
  ref,
  refTo,
  secretRef,
  when,
  managedClusterAdopted,
  agentPoolAdopted,
} from '../helpers';
import type {
  AzureClusterKey,
  MigrateJobParams,
  ObjectRef,
  PlannedAction,
  StepPlan,
} from '../types';
import { isEntraOnly, str, type LegacyObjects } from './legacy';
import { legacyNetwork } from './network';
import {
  ADOPT_ANNOTATION,
  BLOCK_MOVE_ANNOTATION,
  CLUSTER_NAME_LABEL,
  CREDENTIAL_FROM_ANNOTATION,
  RECONCILE_POLICY_ANNOTATION,
} from '../../vocabulary';

const namespaceRef = (name: string): ObjectRef => ({
  apiVersion: 'v1',
  kind: 'Namespace',
  name,
});

/**
 * The new ManagedCluster's `operatorSpec`: other operatorSpec settings kept; the credential Secret ASO writes:
 * - Entra-only: `userCredentials` `<name>-user-kubeconfig` and no `adminCredentials` (which ASO cannot fetch); not
 *   `<name>-kubeconfig`, which CAPZ writes itself (docs/capz-aso-facts.md#entra-only-kubeconfig,
 *   docs/capz-aso-facts.md#adoption-entra).
 * - otherwise: the legacy `adminCredentials` (`<cluster>-aso-kubeconfig`, docs/capz-aso-facts.md#legacy-aso-objects) is
 *   kept: CAPZ reads whichever Secret the ManagedCluster names (docs/capz-aso-facts.md#entra-only-kubeconfig), the name
 *   cannot clash with CAPZ's `<name>-kubeconfig`, and the new namespace holds no Secret of that name. A legacy
 *   `userCredentials` (AAD-managed with local accounts) becomes `adminCredentials`, whose kubeconfig works without
 *   kubelogin.
 */
function newOperatorSpec(
  old: unknown,
  name: string,
  entraOnly: boolean,
): Record<string, unknown> {
  const spec: Record<string, unknown> = isRecord(old) ? clone(old) : {};
  const secrets: Record<string, unknown> = isRecord(spec.secrets)
    ? spec.secrets
    : {};
  const admin = isRecord(secrets.adminCredentials)
    ? secrets.adminCredentials
    : undefined;
  delete secrets.adminCredentials;
  delete secrets.userCredentials;
  if (entraOnly)
    secrets.userCredentials = { name: `${name}-user-kubeconfig`, key: 'value' };
  else
    secrets.adminCredentials = admin ?? {
      name: `${name}-aso-kubeconfig`,
      key: 'value',
    };
  spec.secrets = secrets;
  return spec;
}

const strMap = (v: unknown): Record<string, string> | undefined =>
  isRecord(v) && Object.values(v).every(x => typeof x === 'string')
    ? (v as Record<string, string>)
    : undefined;

/**
 * The tags to write on a new ASO object: those Azure has (ASO's status, read by GET whatever the policy), else the
 * old spec's. ARM replaces a resource's tags on PUT, so a spec without them would erase them at ASO's first PUT; and
 * on a group the legacy controllers keep on `skip`, their spec says CAPZ's tags, which Azure never got.
 */
function tagsOf(o: ObservedObject): { tags?: Record<string, string> } {
  const tags = strMap(o.status?.tags) ?? strMap(o.spec?.tags);
  return tags && Object.keys(tags).length ? { tags: { ...tags } } : {};
}

/** The new ResourceGroup's spec: the old spec as it is, with its Azure name and location made explicit, and its tags. */
function resourceGroupSpec(
  rg: ObservedObject,
  amcp: ObservedObject,
): Record<string, unknown> {
  const { owner: _owner, ...spec } = clone(rg.spec ?? {});
  return {
    ...spec,
    azureName: azureNameOf(rg),
    location:
      str(rg.spec?.location) ??
      str(rg.status?.location) ??
      str(amcp.spec?.location),
    ...tagsOf(rg),
  };
}

/** `kubectl patch <kind> <name> --type merge -p '{"metadata":{"finalizers":null}}'`; fine if the object is gone. */
const dropFinalizers = (r: ObjectRef): PlannedAction => ({
  action: 'merge-patch',
  ref: r,
  patch: { metadata: { finalizers: null } },
  ifExists: true,
  description: `kubectl patch ${r.kind.toLowerCase()} ${
    r.name
  } --type merge -p '{"metadata":{"finalizers":null}}'`,
});

/** What the preflight found that the steps are built from. */
export interface PlanInputs {
  /** The AKS cluster as Azure names it: what the sole-manager check looks for. */
  azure: AzureClusterKey;
  newName: string;
  rgName: string;
  credential: string;
  subscriptionId: string;
  profiles: Array<Record<string, unknown>>;
}

/** The steps of a migration, in order (see ./index.ts). */
export function migrationSteps(
  params: MigrateJobParams,
  cluster: ObservedObject,
  l: LegacyObjects,
  p: PlanInputs,
): StepPlan[] {
  const from = params.namespace;
  const to = params.targetNamespace;
  const amcp = l.amcp!;
  const mc = l.mc!;
  const rg = l.rg!;
  const { newName, rgName, credential } = p;

  const oldCluster = ref('Cluster', from, nameOf(cluster));
  const oldAmc = l.amc
    ? ref('AzureManagedCluster', from, nameOf(l.amc))
    : undefined;
  const oldAmcp = ref('AzureManagedControlPlane', from, nameOf(amcp));
  const oldMps = l.machinePools.map(o => ref('MachinePool', from, nameOf(o)));
  const oldAmmps = l.ammps.map(o =>
    ref('AzureManagedMachinePool', from, nameOf(o)),
  );
  // The documented disarm order: agent pools, ManagedCluster, ResourceGroup (docs/migration-procedure.md#step-3).
  const oldPools = l.agentPools.map(o =>
    refTo(o, 'ManagedClustersAgentPool', from),
  );
  const oldMc = refTo(mc, 'ManagedCluster', from);
  const oldRgs = [rg, ...l.otherRgs].map(o => refTo(o, 'ResourceGroup', from));
  // The legacy control plane's subnet and VNet, disarmed like the others rather than trusted to CAPZ's pause alone
  // (which does set them to skip: CAPZ v1.26.0 controllers/azuremanagedcontrolplane_reconciler.go lines 59-62 and
  // 91-106 pause every service, virtualnetworks and subnets included; azure/services/aso/service.go lines 152-166 and
  // aso.go lines 385-419 patch each owned object to skip). Subnets, then VNets, before the groups that own them.
  const network = legacyNetwork(l);
  const oldNetwork = network.map(o => refTo(o, 'ResourceGroup', from));
  const disarmed = [...oldPools, oldMc, ...oldNetwork, ...oldRgs];
  // Other ASO objects the old objects own (none of a watched kind today): waited for on skip only.
  const otherAso = l.otherAso
    .filter(o => !network.includes(o))
    .map(o => refTo(o, 'ResourceGroup', from));

  const newSecret = secretRef(to, credential);
  const newRg = { ...refTo(rg, 'ResourceGroup', to), name: rgName };
  const newMc = { ...refTo(mc, 'ManagedCluster', to), name: newName };
  const newCluster = ref('Cluster', to, newName);
  const newCp = ref('AzureASOManagedControlPlane', to, newName);
  const credentialAnn = { [CREDENTIAL_FROM_ANNOTATION]: credential };

  const steps: StepPlan[] = [];
  steps.push({
    id: 'pause',
    title: 'Pause the old cluster',
    description:
      'Sets Cluster spec.paused=true so that CAPI and the legacy CAPZ controllers stop reconciling, and CAPZ sets the old ASO objects to reconcile-policy skip (docs/migration-procedure.md#step-1, docs/capz-aso-facts.md#legacy-pause).',
    // The job's first write: right before it, no other ASO object on any management cluster may manage this AKS
    // cluster (one owner per AKS cluster), read live; the old objects are the ones being moved.
    preconditions: [
      when.exists(oldCluster),
      soleManager(p.azure, [...disarmed, ...otherAso]),
    ],
    actions: [
      {
        action: 'merge-patch',
        ref: oldCluster,
        patch: { spec: { paused: true } },
        description: `kubectl patch cluster ${nameOf(
          cluster,
        )} --type merge -p '{"spec":{"paused":true}}'`,
      },
    ],
    waitFor: [
      when.field(
        oldCluster,
        ['spec', 'paused'],
        true,
        `${describeRef(oldCluster)} is paused`,
      ),
    ],
    timeoutSeconds: 120,
    // Until the old Cluster is deleted (delete-old), nobody may unpause it: two controllers would own one AKS cluster.
    invariants: [
      when.field(
        oldCluster,
        ['spec', 'paused'],
        true,
        `${describeRef(oldCluster)} is still paused (or gone)`,
        true,
      ),
    ],
  });
  steps.push({
    id: 'wait-block-move',
    title: 'Wait for the pause to take effect',
    description:
      'CAPZ removes clusterctl.cluster.x-k8s.io/block-move from the AzureManagedControlPlane and every AzureManagedMachinePool only after it has set reconcile-policy skip on the ASO objects it owns (docs/migration-procedure.md#step-2, docs/capz-aso-facts.md#legacy-pause).',
    preconditions: [],
    actions: [],
    waitFor: [
      ...[oldAmcp, ...oldAmmps].map(r =>
        when.annotation(r, BLOCK_MOVE_ANNOTATION, null),
      ),
      ...[...disarmed, ...otherAso].map(r =>
        when.annotation(r, RECONCILE_POLICY_ANNOTATION, 'skip'),
      ),
    ],
    timeoutSeconds: 120,
    invariants: [...disarmed, ...otherAso].map(r =>
      when.annotation(r, RECONCILE_POLICY_ANNOTATION, 'skip', true),
    ),
  });
  steps.push({
    id: 'disarm',
    title: 'Disarm the old ASO objects',
    description:
      "Annotates each old ManagedClustersAgentPool, ManagedCluster, VirtualNetworksSubnet, VirtualNetwork and ResourceGroup with reconcile-policy skip and removes its finalizers, so that deleting or garbage-collecting the old objects cannot make ASO delete the Azure resources (docs/migration-procedure.md#step-3). ASO puts its finalizer back on its next reconcile whatever the policy (its reconciler claims the resource before it reads the policy, docs/capz-aso-facts.md#aso-finalizer); what keeps Azure safe is the policy, under which ASO's delete only drops its finalizer. So the step waits for skip, not for the finalizers to stay away.",
    preconditions: [],
    actions: disarmed.map(
      (r): PlannedAction => ({
        action: 'merge-patch',
        ref: r,
        patch: {
          metadata: {
            annotations: { [RECONCILE_POLICY_ANNOTATION]: 'skip' },
            finalizers: null,
          },
        },
        description: `kubectl patch ${r.kind.toLowerCase()} ${
          r.name
        } --type merge -p '{"metadata":{"annotations":{"${RECONCILE_POLICY_ANNOTATION}":"skip"},"finalizers":null}}'`,
      }),
    ),
    waitFor: disarmed.map(r =>
      when.annotation(r, RECONCILE_POLICY_ANNOTATION, 'skip'),
    ),
    timeoutSeconds: 120,
    invariants: disarmed.map(r =>
      when.annotation(r, RECONCILE_POLICY_ANNOTATION, 'skip', true),
    ),
  });
  steps.push({
    id: 'create-namespace',
    title: `Create namespace ${to}`,
    description:
      'A new namespace for the new objects, so that adoption cannot reuse an old object of the same name (docs/migration-procedure.md#step-4, docs/capz-aso-facts.md#adoption-reuses-names).',
    // A crash between the create and its record leaves the namespace with this job's annotation: accepted.
    preconditions: [
      when.absentOrOurs(
        namespaceRef(to),
        `Namespace ${to} does not exist yet (or was created by this job)`,
      ),
    ],
    actions: [
      {
        action: 'create',
        ref: namespaceRef(to),
        object: {
          apiVersion: 'v1',
          kind: 'Namespace',
          metadata: { name: to, annotations: jobAnnotations() },
        },
        description: `kubectl create namespace ${to}`,
      },
    ],
    waitFor: [when.exists(namespaceRef(to))],
    timeoutSeconds: 60,
  });
  steps.push({
    id: 'copy-credential-secret',
    title: 'Copy the ASO credential Secret',
    description: `Copies Secret ${credential} (the old ManagedCluster's credential-from) into ${to} with metadata reduced to name and namespace: the old control plane owns the original, and the copy must not be garbage-collected with it (docs/migration-procedure.md#step-5, docs/capz-aso-facts.md#legacy-aso-objects).`,
    preconditions: [],
    actions: [
      {
        action: 'copy-secret',
        from: secretRef(from, credential),
        to: newSecret,
        description: `Copy Secret ${from}/${credential} to ${to}/${credential} without owner references, labels or annotations`,
      },
    ],
    waitFor: [
      when.exists(newSecret),
      when.field(
        newSecret,
        ['metadata', 'ownerReferences'],
        null,
        `${describeRef(newSecret)} has no owner references`,
        false,
      ),
    ],
    timeoutSeconds: 60,
  });
  steps.push({
    id: 'adopt-resource-group',
    title: `Adopt resource group ${azureNameOf(rg)}`,
    description:
      'Creates an ASO ResourceGroup in the new namespace pointing at the existing group; the adoption controller needs it before the ManagedCluster (docs/migration-procedure.md#step-6-1, docs/capz-aso-facts.md#adopt-managed-cluster, docs/capz-aso-facts.md#adoption-order).',
    preconditions: [when.exists(newSecret)],
    actions: [
      {
        action: 'create',
        ref: newRg,
        object: {
          apiVersion: newRg.apiVersion,
          kind: 'ResourceGroup',
          metadata: {
            name: rgName,
            namespace: to,
            annotations: jobAnnotations({
              ...credentialAnn,
              ...policyAnnotation(policyBeforeJob(rg)),
            }),
          },
          spec: resourceGroupSpec(rg, amcp),
        },
        description: `Create ResourceGroup ${to}/${rgName} (azureName ${azureNameOf(
          rg,
        )}, credential-from ${credential}, reconcile-policy ${policyBeforeJob(
          rg,
        )} as before the job)`,
      },
    ],
    waitFor: [when.ready(newRg)],
    timeoutSeconds: 300,
  });
  const {
    agentPoolProfiles: _stripped,
    owner: _owner,
    operatorSpec,
    ...mcSpec
  } = clone(mc.spec ?? {});
  steps.push({
    id: 'adopt-managed-cluster',
    title: `Adopt AKS cluster ${azureNameOf(mc)}`,
    description:
      "Creates the ASO ManagedCluster with the adopt annotation, owner.name set to the new ResourceGroup and agentPoolProfiles from the old object's status; CAPZ then creates the Cluster, AzureASOManagedCluster and AzureASOManagedControlPlane, and CAPI labels the control plane (docs/migration-procedure.md#step-6-2, docs/capz-aso-facts.md#adopt-managed-cluster, docs/capz-aso-facts.md#capi-adds-labels).",
    preconditions: [when.ready(newRg)],
    actions: [
      {
        action: 'create',
        ref: newMc,
        object: {
          apiVersion: newMc.apiVersion,
          kind: 'ManagedCluster',
          metadata: {
            name: newName,
            namespace: to,
            annotations: jobAnnotations({
              ...credentialAnn,
              ...policyAnnotation(policyBeforeJob(mc)),
              [ADOPT_ANNOTATION]: 'true',
            }),
          },
          spec: {
            ...mcSpec,
            azureName: azureNameOf(mc),
            ...tagsOf(mc),
            owner: { name: rgName },
            agentPoolProfiles: p.profiles,
            operatorSpec: newOperatorSpec(
              operatorSpec,
              newName,
              isEntraOnly(mc),
            ),
          },
        },
        description: `Create ManagedCluster ${to}/${newName} (azureName ${azureNameOf(
          mc,
        )}, reconcile-policy ${policyBeforeJob(
          mc,
        )} as before the job) with ${ADOPT_ANNOTATION}: "true" and ${
          p.profiles.length
        } agentPoolProfiles from status`,
      },
    ],
    waitFor: managedClusterAdopted(newMc, to, newName),
    timeoutSeconds: 900,
  });
  steps.push({
    id: 'adopt-agent-pools',
    title: 'Adopt the node pools',
    description:
      'Creates one ASO ManagedClustersAgentPool per node pool with the adopt annotation and owner.name set to the ManagedCluster; CAPZ then creates a MachinePool and an AzureASOManagedMachinePool for each (docs/migration-procedure.md#step-6-3, docs/capz-aso-facts.md#adopt-agent-pool).',
    preconditions: [
      when.controlledBy(newMc, 'AzureASOManagedControlPlane', newName),
      when.label(newCp, CLUSTER_NAME_LABEL, newName),
    ],
    actions: l.agentPools.map((ap): PlannedAction => {
      const r = refTo(ap, 'ManagedClustersAgentPool', to);
      return {
        action: 'create',
        ref: r,
        object: {
          apiVersion: r.apiVersion,
          kind: 'ManagedClustersAgentPool',
          metadata: {
            name: r.name,
            namespace: to,
            annotations: jobAnnotations({
              ...credentialAnn,
              ...policyAnnotation(policyBeforeJob(ap)),
              [ADOPT_ANNOTATION]: 'true',
            }),
          },
          spec: {
            ...clone(ap.spec ?? {}),
            azureName: azureNameOf(ap),
            ...tagsOf(ap),
            owner: { name: newName },
          },
        },
        description: `Create ManagedClustersAgentPool ${to}/${
          r.name
        } (azureName ${azureNameOf(ap)}, reconcile-policy ${policyBeforeJob(
          ap,
        )} as before the job) with ${ADOPT_ANNOTATION}: "true"`,
      };
    }),
    waitFor: l.agentPools.flatMap(ap => agentPoolAdopted(to, nameOf(ap))),
    timeoutSeconds: 900,
  });
  // Objects on skip keep it when CAPZ recreates them: pinned in the CAPZ objects that embed them.
  const pins: PolicyPin[] = [
    ...(policyBeforeJob(rg) === 'skip'
      ? [{ owner: ref('AzureASOManagedCluster', to, newName), aso: newRg }]
      : []),
    ...(policyBeforeJob(mc) === 'skip' ? [{ owner: newCp, aso: newMc }] : []),
    ...l.agentPools
      .filter(ap => policyBeforeJob(ap) === 'skip')
      .map(ap => ({
        owner: ref('AzureASOManagedMachinePool', to, nameOf(ap)),
        aso: refTo(ap, 'ManagedClustersAgentPool', to),
      })),
  ];
  if (pins.length) steps.push(pinPoliciesStep(pins));
  steps.push({
    id: 'wait-available',
    title: 'Wait for the new cluster to be Available',
    description:
      'The new Cluster shows AVAILABLE=True (its v1beta2 Available condition) before anything old is deleted (docs/migration-procedure.md#step-6-4).',
    preconditions: [],
    actions: [],
    waitFor: [when.condition(newCluster, 'Available')],
    timeoutSeconds: 900,
  });
  const deleted = [
    oldCluster,
    ...(oldAmc ? [oldAmc] : []),
    oldAmcp,
    ...oldMps,
    ...oldAmmps,
  ];
  // Finalizers are cleared in the documented order; the AzureManagedCluster has none
  // (docs/migration-procedure.md#step-7).
  const unfinalized = [...oldAmmps, ...oldMps, oldAmcp, oldCluster];
  steps.push({
    id: 'delete-old',
    title: 'Delete the old cluster objects',
    description:
      'Deletes the old Cluster, AzureManagedCluster, AzureManagedControlPlane, MachinePools and AzureManagedMachinePools without waiting, then clears their finalizers, because CAPI does not reconcile paused objects even when they are deleted. The disarmed ASO objects go with them and leave Azure untouched (docs/migration-procedure.md#step-7).',
    // The last check before anything is deleted: every old ASO object is on skip, read live. Its finalizer may be
    // back (ASO re-adds it whatever the policy); under skip ASO's delete only drops it (generic_reconciler.go
    // delete: AllowsDelete() is false), and it is removed once more right before the deletes, as the procedure does
    // (docs/migration-procedure.md#step-3).
    preconditions: [
      when.condition(newCluster, 'Available'),
      ...disarmed.map(r =>
        when.annotation(r, RECONCILE_POLICY_ANNOTATION, 'skip', true),
      ),
    ],
    actions: [
      ...disarmed.map(dropFinalizers),
      ...deleted.map(
        (r): PlannedAction => ({
          action: 'delete',
          ref: r,
          description: `kubectl delete ${r.kind.toLowerCase()} ${
            r.name
          } --wait=false`,
        }),
      ),
      ...unfinalized.map(dropFinalizers),
    ],
    waitFor: deleted.map(r => when.absent(r)),
    timeoutSeconds: 120,
  });
  steps.push({
    id: 'verify',
    title: 'Verify',
    description:
      'The old objects are gone from Kubernetes while the AKS cluster and its pools still exist in Azure, read with the copied credential; the copied Secret has no owner (docs/migration-procedure.md#step-7).',
    preconditions: [],
    actions: [],
    waitFor: [
      ...[...deleted, ...disarmed].map(r => when.absent(r)),
      {
        type: 'azure-cluster-exists',
        subscriptionId: p.subscriptionId,
        resourceGroup: azureNameOf(rg),
        name: azureNameOf(mc),
        agentPools: l.agentPools.map(azureNameOf),
        credential: newSecret,
        description: `AKS cluster ${azureNameOf(
          mc,
        )} and its pools ${l.agentPools
          .map(azureNameOf)
          .join(
            ', ',
          )} still exist in Azure (read with Secret ${to}/${credential})`,
      },
      when.field(
        newSecret,
        ['metadata', 'ownerReferences'],
        null,
        `${describeRef(newSecret)} has no owner references`,
        false,
      ),
    ],
    timeoutSeconds: 300,
  });
  return steps;
}
