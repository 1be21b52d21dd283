/**
 * The migration of a cluster from the legacy AzureManagedControlPlane API to AzureASOManagedControlPlane, planned as
 * data from one snapshot of the management cluster. It follows CAPZ's documented procedure exactly (seed 001
 * "Migrating existing Clusters to AzureASOManagedControlPlane", capz-ground-truth 4.1 and 9): pause, wait for
 * block-move to go, disarm the old ASO objects, new namespace, copy the credential Secret, adopt (ResourceGroup,
 * then ManagedCluster with pools from status, then agent pools), wait for Available, force-delete the old objects,
 * verify. Pure: no I/O.
 */
import { kinds } from '../kinds';
import { findCondition } from '../tree/read';
import { detectClusterApi } from '../tree/summary';
import type { ObservedObject } from '../tree/types';
import {
  accessCheck,
  accessFor,
  ADOPT,
  BLOCK_MOVE,
  CAPZ,
  clone,
  CLUSTER_NAME_LABEL,
  CREDENTIAL_FROM,
  describeRef,
  fail,
  isRecord,
  jobAnnotations,
  namespaceRef,
  ownedBy,
  pass,
  pinPoliciesStep,
  type PolicyPin,
  policyAnnotation,
  policyBeforeJob,
  RECONCILE_POLICY,
  soleManager,
  ref,
  refTo,
  secretRef,
  warn,
  when,
  type AccessAnswer,
  type AccessRequirement,
  managedClusterAdopted,
  agentPoolAdopted,
} from './common';
import { validateDnsLabel, validateDnsSubdomain } from './names';
import type {
  AzureClusterKey,
  JobPreview,
  JobResult,
  MigrateJobParams,
  ObjectRef,
  PlannedAction,
  PreflightCheck,
  StepPlan,
} from './types';

/** What {@link planMigration} needs to know about the management cluster. @public */
export interface MigrationSnapshot {
  /** The CAPI Cluster `params.name`, read at cluster.x-k8s.io/v1beta2; undefined when it does not exist. */
  cluster?: ObservedObject;
  /** Everything the watch cache holds in the cluster's namespace (CAPI, CAPZ and ASO kinds). */
  objects: ObservedObject[];
  targetNamespaceExists: boolean;
  /** The Secret named by the old ManagedCluster's `credential-from` annotation exists in the old namespace. */
  credentialSecretExists: boolean;
  /** The answers to {@link requiredMigrationAccess}. */
  access: AccessAnswer[];
}

/** A job's preview plus what the planner found, for the wizard. @public */
export type JobPlanResult = JobPreview & {
  result?: JobResult;
  /** What the plan is built from, in words: e.g. `newCluster`, `credentialSecret`, `resourceGroup`. */
  facts?: Record<string, string>;
};

/**
 * The fields of an ASO `agentPoolProfiles[]` entry that are also spec fields (ManagedClusterAgentPoolProfile),
 * copied as they are from `status.agentPoolProfiles`. Status-only fields (provisioningState, nodeImageVersion,
 * currentOrchestratorVersion, powerState, eTag, ...) are left out.
 */
const POOL_SPEC_FIELDS = [
  'name',
  'mode',
  'vmSize',
  'count',
  'enableAutoScaling',
  'minCount',
  'maxCount',
  'type',
  'osType',
  'osSKU',
  'orchestratorVersion',
  'availabilityZones',
  'maxPods',
  'osDiskSizeGB',
  'osDiskType',
  'kubeletDiskType',
  'nodeLabels',
  'nodeTaints',
  'tags',
  'enableNodePublicIP',
  'enableEncryptionAtHost',
  'enableFIPS',
  'enableUltraSSD',
  'scaleSetPriority',
  'scaleSetEvictionPolicy',
  'scaleDownMode',
  'spotMaxPrice',
  'upgradeSettings',
  'kubeletConfig',
  'linuxOSConfig',
  'workloadRuntime',
  'gpuInstanceProfile',
  'networkProfile',
  'securityProfile',
  'windowsProfile',
  'creationData',
] as const;

/** Status carries ARM ids where the spec wants ASO references (`vnetSubnetID` -> `vnetSubnetReference.armId`). */
const POOL_ID_TO_REFERENCE: Record<string, string> = {
  vnetSubnetID: 'vnetSubnetReference',
  podSubnetID: 'podSubnetReference',
  nodePublicIPPrefixID: 'nodePublicIPPrefixReference',
  proximityPlacementGroupID: 'proximityPlacementGroupReference',
  hostGroupID: 'hostGroupReference',
  capacityReservationGroupID: 'capacityReservationGroupReference',
};

/**
 * `spec.agentPoolProfiles` for the new ManagedCluster from the OLD object's `status.agentPoolProfiles`: the legacy
 * controller strips them from the spec after the first create, and without them ASO's PUT starts an update cycle
 * that keeps the new control plane from becoming ready (seed 001 step 6.2 "Important", capz-ground-truth 4.3).
 * @public
 */
export function agentPoolProfilesFromStatus(
  status: unknown,
): Array<Record<string, unknown>> {
  const list =
    isRecord(status) && Array.isArray(status.agentPoolProfiles)
      ? status.agentPoolProfiles
      : [];
  return list.filter(isRecord).map(p => {
    const out: Record<string, unknown> = {};
    for (const f of POOL_SPEC_FIELDS)
      if (p[f] !== undefined && p[f] !== null) out[f] = clone(p[f]);
    for (const [id, reference] of Object.entries(POOL_ID_TO_REFERENCE)) {
      if (typeof p[id] === 'string' && p[id]) out[reference] = { armId: p[id] };
    }
    return out;
  });
}

/** Entra-only: local accounts disabled, so ASO cannot fetch adminCredentials (capz-ground-truth 1.5, 2.4). */
function isEntraOnly(mc: ObservedObject): boolean {
  return (
    mc.spec?.disableLocalAccounts === true ||
    mc.status?.disableLocalAccounts === true
  );
}

/**
 * The new ManagedCluster's `operatorSpec`: other operatorSpec settings kept; the credential Secret ASO writes:
 * - Entra-only: `userCredentials` `<name>-user-kubeconfig` and no `adminCredentials` (which ASO cannot fetch); not
 *   `<name>-kubeconfig`, which CAPZ writes itself (capz-ground-truth 1.5, 2.4, seed 001 "Disable Local Accounts").
 * - otherwise: the legacy `adminCredentials` (`<cluster>-aso-kubeconfig`, capz-ground-truth 5.2) is kept: CAPZ
 *   reads whichever Secret the ManagedCluster names (1.5), the name cannot clash with CAPZ's `<name>-kubeconfig`,
 *   and the new namespace holds no Secret of that name. A legacy `userCredentials` (AAD-managed with local
 *   accounts) becomes `adminCredentials`, whose kubeconfig works without kubelogin.
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

const str = (v: unknown): string | undefined =>
  typeof v === 'string' && v !== '' ? v : undefined;
const nameOf = (o: ObservedObject) => o.metadata?.name ?? '';
const isDeleting = (o: ObservedObject) => !!o.metadata?.deletionTimestamp;
const azureNameOf = (o: ObservedObject) => str(o.spec?.azureName) ?? nameOf(o);

const strMap = (v: unknown): Record<string, string> | undefined =>
  isRecord(v) && Object.values(v).every(x => typeof x === 'string')
    ? (v as Record<string, string>)
    : undefined;

/**
 * The tags to write on a new ASO object: those Azure has (ASO's status, read by GET whatever the policy), else the
 * old spec's. ARM replaces a resource's tags on PUT, so a spec without them would erase them at ASO's first PUT; and
 * on a group the legacy controllers keep on `skip`, their spec says CAPZ's tags, which Azure never got (issue 11).
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

function subscriptionOf(
  amcp: ObservedObject | undefined,
  mc: ObservedObject,
): string | undefined {
  const fromCp = str(amcp?.spec?.subscriptionID);
  if (fromCp) return fromCp;
  const id =
    str(mc.status?.id) ??
    mc.metadata?.annotations?.['serviceoperator.azure.com/resource-id'];
  return id?.match(/^\/subscriptions\/([^/]+)/i)?.[1];
}

/** The permissions every step of a migration needs, per namespace (for the preflight and jobs.yaml). @public */
export function requiredMigrationAccess(
  params: MigrateJobParams,
): AccessRequirement[] {
  const from = params.namespace;
  const to = params.targetNamespace;
  const CAPI = kinds.Cluster.group;
  const RG = kinds.ResourceGroup.group;
  const CS = kinds.ManagedCluster.group;
  return [
    ...accessFor(from, CAPI, 'clusters', [
      ['get', 'preflight, pause'],
      ['patch', 'pause, delete-old (finalizers)'],
      ['delete', 'delete-old'],
    ]),
    ...accessFor(from, CAPI, 'machinepools', [
      ['get', 'verify'],
      ['patch', 'delete-old (finalizers)'],
      ['delete', 'delete-old'],
    ]),
    ...accessFor(from, CAPZ, 'azuremanagedclusters', [
      ['get', 'verify'],
      ['delete', 'delete-old'],
    ]),
    ...accessFor(from, CAPZ, 'azuremanagedcontrolplanes', [
      ['get', 'wait-block-move'],
      ['patch', 'delete-old (finalizers)'],
      ['delete', 'delete-old'],
    ]),
    ...accessFor(from, CAPZ, 'azuremanagedmachinepools', [
      ['get', 'wait-block-move'],
      ['patch', 'delete-old (finalizers)'],
      ['delete', 'delete-old'],
    ]),
    ...accessFor(from, RG, 'resourcegroups', [
      ['get', 'wait-block-move, disarm'],
      ['patch', 'disarm'],
    ]),
    ...accessFor(from, CS, 'managedclusters', [
      ['get', 'wait-block-move, disarm'],
      ['patch', 'disarm'],
    ]),
    ...accessFor(from, CS, 'managedclustersagentpools', [
      ['get', 'wait-block-move, disarm'],
      ['patch', 'disarm'],
    ]),
    ...accessFor(from, '', 'secrets', [['get', 'copy-credential-secret']]),
    ...accessFor(undefined, '', 'namespaces', [
      ['get', 'create-namespace'],
      ['create', 'create-namespace'],
    ]),
    ...accessFor(to, '', 'secrets', [
      ['get', 'copy-credential-secret, verify'],
      ['create', 'copy-credential-secret'],
    ]),
    ...accessFor(to, RG, 'resourcegroups', [
      ['get', 'adopt-resource-group'],
      ['create', 'adopt-resource-group'],
    ]),
    ...accessFor(to, CS, 'managedclusters', [
      ['get', 'adopt-managed-cluster'],
      ['create', 'adopt-managed-cluster'],
    ]),
    ...accessFor(to, CS, 'managedclustersagentpools', [
      ['get', 'adopt-agent-pools'],
      ['create', 'adopt-agent-pools'],
    ]),
    ...accessFor(to, CAPI, 'clusters', [
      ['get', 'adopt-managed-cluster, wait-available'],
    ]),
    ...accessFor(to, CAPI, 'machinepools', [['get', 'adopt-agent-pools']]),
    ...accessFor(to, CAPZ, 'azureasomanagedclusters', [
      ['get', 'adopt-managed-cluster'],
      ['patch', 'pin-reconcile-policies'],
    ]),
    ...accessFor(to, CAPZ, 'azureasomanagedcontrolplanes', [
      ['get', 'adopt-managed-cluster, adopt-agent-pools'],
      ['patch', 'pin-reconcile-policies'],
    ]),
    ...accessFor(to, CAPZ, 'azureasomanagedmachinepools', [
      ['get', 'adopt-agent-pools'],
      ['patch', 'pin-reconcile-policies'],
    ]),
  ];
}

/** The legacy cluster's objects, found from the Cluster's references and the owner references CAPZ writes (5.2). */
interface LegacyObjects {
  amc?: ObservedObject;
  amcp?: ObservedObject;
  machinePools: ObservedObject[];
  ammps: ObservedObject[];
  mc?: ObservedObject;
  /** The ResourceGroup the ManagedCluster's `spec.owner.name` names. */
  rg?: ObservedObject;
  /** ResourceGroups owned by the control plane that are not the cluster's (e.g. a VNet's group). */
  otherRgs: ObservedObject[];
  agentPools: ObservedObject[];
  /** Other ASO objects the old CAPZ objects own (VNet, Subnet, FleetsMember, Extension...): not adopted. */
  otherAso: ObservedObject[];
}

function findLegacy(
  cluster: ObservedObject,
  objects: readonly ObservedObject[],
): LegacyObjects {
  const clusterName = nameOf(cluster);
  const byKind = (kind: string, name: unknown) =>
    objects.find(o => o.kind === kind && nameOf(o) === name);
  const amcp = byKind(
    'AzureManagedControlPlane',
    (cluster.spec?.controlPlaneRef as { name?: string } | undefined)?.name,
  );
  const amc = byKind(
    'AzureManagedCluster',
    (cluster.spec?.infrastructureRef as { name?: string } | undefined)?.name,
  );
  const machinePools = objects.filter(
    o => o.kind === 'MachinePool' && o.spec?.clusterName === clusterName,
  );
  const poolRefs = new Set(
    machinePools
      .map(
        mp =>
          (
            mp.spec?.template as
              | {
                  spec?: {
                    infrastructureRef?: { kind?: string; name?: string };
                  };
                }
              | undefined
          )?.spec?.infrastructureRef,
      )
      .filter(r => r?.kind === 'AzureManagedMachinePool')
      .map(r => r!.name),
  );
  const ammps = objects.filter(
    o =>
      o.kind === 'AzureManagedMachinePool' &&
      (poolRefs.has(nameOf(o)) ||
        o.metadata?.labels?.[CLUSTER_NAME_LABEL] === clusterName),
  );
  const ownedByCp = (o: ObservedObject) =>
    !!amcp && ownedBy(o, 'AzureManagedControlPlane', nameOf(amcp));
  const ownedByPool = (o: ObservedObject) =>
    ammps.some(p => ownedBy(o, 'AzureManagedMachinePool', nameOf(p)));
  const mc = objects.find(o => o.kind === 'ManagedCluster' && ownedByCp(o));
  const rgName = (mc?.spec?.owner as { name?: string } | undefined)?.name;
  const rg = objects.find(
    o =>
      o.kind === 'ResourceGroup' &&
      nameOf(o) === rgName &&
      (ownedByCp(o) || !amcp),
  );
  const otherRgs = objects.filter(
    o => o.kind === 'ResourceGroup' && o !== rg && ownedByCp(o),
  );
  const agentPools = objects.filter(
    o => o.kind === 'ManagedClustersAgentPool' && ownedByPool(o),
  );
  const known = new Set<ObservedObject>([
    ...(mc ? [mc] : []),
    ...(rg ? [rg] : []),
    ...otherRgs,
    ...agentPools,
  ]);
  const otherAso = objects.filter(
    o =>
      !known.has(o) &&
      (o.apiVersion ?? '').split('/')[0].endsWith('.azure.com') &&
      (ownedByCp(o) || ownedByPool(o)),
  );
  return {
    amc,
    amcp,
    machinePools,
    ammps,
    mc,
    rg,
    otherRgs,
    agentPools,
    otherAso,
  };
}

const readyOf = (o: ObservedObject) => findCondition(o, 'Ready');
const notReadyWords = (o: ObservedObject) => {
  const c = readyOf(o);
  return `${o.kind} ${nameOf(o)} (${
    c
      ? `Ready=${c.status}${c.reason ? `, ${c.reason}` : ''}${
          c.message ? `: ${c.message}` : ''
        }`
      : 'no Ready condition'
  })`;
};

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
  const preflight: PreflightCheck[] = [];
  const done = (
    plan: StepPlan[],
    extra: Partial<JobPlanResult> = {},
  ): JobPlanResult => ({
    type: 'migrate',
    target,
    preflight: [
      ...preflight,
      accessCheck(requiredMigrationAccess(params), snap.access),
    ],
    plan,
    ...extra,
  });

  const from = params.namespace;
  const to = params.targetNamespace;
  preflight.push(targetNamespaceCheck(from, to, snap.targetNamespaceExists));

  const cluster =
    snap.cluster ??
    snap.objects.find(o => o.kind === 'Cluster' && nameOf(o) === params.name);
  if (!cluster) {
    preflight.push(
      fail(
        'cluster',
        'The cluster exists',
        `There is no Cluster ${from}/${params.name}.`,
        'Check the namespace and name of the cluster to migrate.',
      ),
    );
    return done([]);
  }
  const api = detectClusterApi(cluster, snap.objects);
  if (api !== 'azure-managed') {
    preflight.push(
      fail(
        'cluster',
        'The cluster is on the AzureManagedControlPlane API',
        `Cluster ${from}/${params.name} uses the ${
          api === 'aso-v1alpha1'
            ? 'AzureASOManaged (v1alpha1)'
            : 'AzureASOManaged'
        } API already; only AzureManagedControlPlane clusters are migrated.`,
        api === 'aso-v1alpha1'
          ? 'Use the v1alpha1 to v1beta1 upgrade instead.'
          : 'Nothing to do.',
      ),
    );
    return done([]);
  }
  const legacy = findLegacy(cluster, snap.objects);
  const { amcp, mc, rg } = legacy;
  if (!amcp || !mc || !rg) {
    let missing = `the ASO ResourceGroup ${
      (mc?.spec?.owner as { name?: string } | undefined)?.name ??
      '(no spec.owner.name)'
    } its ManagedCluster names`;
    if (!amcp)
      missing = `its AzureManagedControlPlane ${
        (cluster.spec?.controlPlaneRef as { name?: string } | undefined)
          ?.name ?? ''
      }`;
    else if (!mc)
      missing = `an ASO ManagedCluster owned by AzureManagedControlPlane ${nameOf(
        amcp,
      )}`;
    preflight.push(
      fail(
        'cluster',
        'The cluster is on the AzureManagedControlPlane API',
        `Cluster ${from}/${params.name} uses AzureManagedControlPlane, but ${missing} was not found in ${from}.`,
        'Wait until the legacy controllers have created the ASO objects (the cluster must be running), then retry.',
      ),
    );
    return done([]);
  }
  preflight.push(
    pass(
      'cluster',
      'The cluster is on the AzureManagedControlPlane API',
      `Cluster ${from}/${params.name} uses AzureManagedControlPlane ${nameOf(
        amcp,
      )}.`,
    ),
  );
  preflight.push(...healthChecks(cluster, legacy));

  // Adoption names everything after the ManagedCluster (capz-ground-truth 2.1, 2.4).
  const newName = nameOf(mc);
  const rgName = nameOf(rg);
  const credential = mc.metadata?.annotations?.[CREDENTIAL_FROM];
  preflight.push(namesCheck(newName, rgName, legacy.agentPools, credential));
  if (newName !== params.name) {
    preflight.push(
      warn(
        'new-name',
        'The new Cluster keeps the name',
        `The new Cluster will be named ${newName}, after the ManagedCluster (adoption inherits names, capz-ground-truth 2.4), not ${params.name}.`,
        'Update anything that refers to the cluster by name (GitOps, dashboards).',
      ),
    );
  }
  const profiles = agentPoolProfilesFromStatus(mc.status);
  preflight.push(
    profiles.length
      ? pass(
          'agent-pool-profiles',
          'The node pools can be copied',
          `ManagedCluster ${newName} reports ${
            profiles.length
          } pool(s) in status.agentPoolProfiles: ${profiles
            .map(p => p.name)
            .join(', ')}.`,
        )
      : fail(
          'agent-pool-profiles',
          'The node pools can be copied',
          `ManagedCluster ${from}/${newName} has no status.agentPoolProfiles; the new ManagedCluster needs them (seed 001 step 6.2).`,
          'Wait until ASO has reconciled the ManagedCluster (status.agentPoolProfiles filled), then retry.',
        ),
  );
  if (!credential) {
    preflight.push(
      fail(
        'credential-secret',
        'The ASO credential Secret exists',
        `ManagedCluster ${from}/${newName} has no ${CREDENTIAL_FROM} annotation.`,
        'Set the annotation to the ASO credential Secret the cluster uses, then retry.',
      ),
    );
  } else if (!snap.credentialSecretExists) {
    preflight.push(
      fail(
        'credential-secret',
        'The ASO credential Secret exists',
        `Secret ${from}/${credential} (the old ManagedCluster's ${CREDENTIAL_FROM}) does not exist.`,
        'Let the legacy controllers recreate it (unpause the cluster), or create it, then retry.',
      ),
    );
  } else {
    preflight.push(
      pass(
        'credential-secret',
        'The ASO credential Secret exists',
        `Secret ${from}/${credential} will be copied to ${to} without its owner references.`,
      ),
    );
  }
  const subscriptionId = subscriptionOf(amcp, mc);
  if (subscriptionId) {
    preflight.push(
      pass(
        'subscription',
        'The Azure subscription is known',
        `The AKS cluster is in subscription ${subscriptionId}.`,
      ),
    );
  } else {
    preflight.push(
      fail(
        'subscription',
        'The Azure subscription is known',
        `Neither AzureManagedControlPlane ${nameOf(
          amcp,
        )} (spec.subscriptionID) nor ManagedCluster ${newName} (status.id) names the subscription.`,
        'Wait until ASO has reconciled the ManagedCluster, then retry.',
      ),
    );
  }
  const detached = [rg, mc, ...legacy.agentPools].filter(
    o => policyBeforeJob(o) === 'detach-on-delete',
  );
  if (detached.length) {
    preflight.push(
      warn(
        'detach-on-delete',
        'Every reconcile policy can be kept',
        `${detached.map(o => `${o.kind} ${nameOf(o)}`).join(', ')} ${
          detached.length === 1 ? 'is' : 'are'
        } on detach-on-delete. The new objects get it too, but CAPZ accepts no policy but skip in spec.resources (capz-ground-truth 1.4), so it cannot be pinned there: if CAPZ ever recreates such an object, it comes back on manage.`,
        'After the migration, check the policy of these objects after any pause of the new Cluster or recreation of its objects.',
      ),
    );
  }
  const notAdopted = [...legacy.otherRgs, ...legacy.otherAso];
  if (notAdopted.length) {
    preflight.push(
      warn(
        'not-adopted',
        'Everything is adopted',
        `Adoption takes only the ResourceGroup, ManagedCluster and agent pools (capz-ground-truth 2.1 step 7, 4.2). These stay in Azure but will no longer be managed: ${notAdopted
          .map(o => `${o.kind} ${nameOf(o)}`)
          .join(', ')}.`,
        "Define them in the new AzureASOManaged objects' spec.resources after the migration if they should stay managed.",
      ),
    );
  }
  if (!credential || !subscriptionId) return done([]);

  const azure = {
    subscriptionId,
    resourceGroup: azureNameOf(rg),
    name: azureNameOf(mc),
  };
  const plan = buildPlan(params, cluster, legacy, {
    azure,
    newName,
    rgName,
    credential,
    subscriptionId,
    profiles,
  });
  return done(plan, {
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
  });
}

function targetNamespaceCheck(
  from: string,
  to: string,
  exists: boolean,
): PreflightCheck {
  const title = 'The target namespace is new';
  const invalid = validateDnsLabel(to, 'target namespace');
  if (invalid)
    return fail(
      'target-namespace',
      title,
      `${invalid}.`,
      'Choose a valid namespace name.',
    );
  if (to === from) {
    return fail(
      'target-namespace',
      title,
      `The target namespace must differ from ${from}: adoption would silently reuse the old objects of the same names (capz-ground-truth 2, 9).`,
      'Choose a new namespace.',
    );
  }
  if (exists) {
    return fail(
      'target-namespace',
      title,
      `Namespace ${to} already exists; the migration creates it so that no same-named object can be reused by adoption (capz-ground-truth 2, 9).`,
      'Choose a namespace that does not exist yet.',
    );
  }
  return pass('target-namespace', title, `Namespace ${to} will be created.`);
}

function healthChecks(
  cluster: ObservedObject,
  l: LegacyObjects,
): PreflightCheck[] {
  const checks: PreflightCheck[] = [];
  const available = findCondition(cluster, 'Available');
  const aso = [
    ...(l.rg ? [l.rg] : []),
    ...(l.mc ? [l.mc] : []),
    ...l.agentPools,
  ];
  const problems = [
    ...(available?.status === 'True'
      ? []
      : [
          `Cluster ${nameOf(cluster)} is not Available (${
            available
              ? `${available.status}${
                  available.reason ? `, ${available.reason}` : ''
                }`
              : 'no Available condition'
          })`,
        ]),
    ...[l.amcp!, ...l.ammps]
      .filter(o => readyOf(o)?.status !== 'True')
      .map(notReadyWords),
    ...aso.filter(o => readyOf(o)?.status !== 'True').map(notReadyWords),
  ];
  checks.push(
    problems.length
      ? fail(
          'healthy',
          'The cluster and every pool are healthy',
          `${problems.join('; ')}.`,
          'Fix the cluster first: a migration adopts what Azure reports, and waits for the new cluster to become Available.',
        )
      : pass(
          'healthy',
          'The cluster and every pool are healthy',
          `Cluster Available; AzureManagedControlPlane, ${l.ammps.length} AzureManagedMachinePool(s) and the ASO objects are Ready.`,
        ),
  );
  const poolsWithoutAso = l.ammps.filter(
    p =>
      !l.agentPools.some(ap =>
        ownedBy(ap, 'AzureManagedMachinePool', nameOf(p)),
      ),
  );
  if (!l.ammps.length || poolsWithoutAso.length) {
    checks.push(
      fail(
        'pools',
        'Every pool has its ASO agent pool',
        l.ammps.length
          ? `No ManagedClustersAgentPool owned by ${poolsWithoutAso
              .map(nameOf)
              .join(', ')}.`
          : `Cluster ${nameOf(cluster)} has no AzureManagedMachinePools.`,
        'Wait until the legacy controllers have created the agent pools, then retry.',
      ),
    );
  }
  const all = [
    cluster,
    l.amcp!,
    ...(l.amc ? [l.amc] : []),
    ...l.machinePools,
    ...l.ammps,
    ...aso,
  ];
  const deleting = all.filter(isDeleting);
  checks.push(
    deleting.length
      ? fail(
          'not-deleting',
          'Nothing is being deleted',
          `Being deleted: ${deleting
            .map(o => `${o.kind} ${nameOf(o)}`)
            .join(', ')}.`,
          'Wait until the deletion finishes; a cluster being deleted cannot be migrated.',
        )
      : pass(
          'not-deleting',
          'Nothing is being deleted',
          'No object of the cluster is being deleted.',
        ),
  );
  return checks;
}

function namesCheck(
  newName: string,
  rgName: string,
  pools: ObservedObject[],
  credential: string | undefined,
): PreflightCheck {
  const problems = [
    // The name is also the value of the cluster.x-k8s.io/cluster-name label: at most 63 characters.
    validateDnsLabel(newName, 'new Cluster name'),
    validateDnsSubdomain(rgName, 'ResourceGroup object name'),
    ...pools.map(p =>
      validateDnsSubdomain(nameOf(p), 'agent pool object name'),
    ),
    credential !== undefined
      ? validateDnsSubdomain(credential, 'credential Secret name')
      : undefined,
  ].filter((p): p is string => !!p);
  return problems.length
    ? fail(
        'names',
        'The names are valid',
        `${problems.join('; ')}.`,
        'Rename the objects by hand; adoption cannot change the names it inherits (capz-ground-truth 2.4).',
      )
    : pass(
        'names',
        'The names are valid',
        `The new Cluster, ResourceGroup and ${pools.length} agent pool object(s) keep their names.`,
      );
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

interface PlanInputs {
  /** The AKS cluster as Azure names it: what the sole-manager check looks for. */
  azure: AzureClusterKey;
  newName: string;
  rgName: string;
  credential: string;
  subscriptionId: string;
  profiles: Array<Record<string, unknown>>;
}

function buildPlan(
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
  // The documented disarm order: agent pools, ManagedCluster, ResourceGroup (seed 001 step 3).
  const oldPools = l.agentPools.map(o =>
    refTo(o, 'ManagedClustersAgentPool', from),
  );
  const oldMc = refTo(mc, 'ManagedCluster', from);
  const oldRgs = [rg, ...l.otherRgs].map(o => refTo(o, 'ResourceGroup', from));
  const disarmed = [...oldPools, oldMc, ...oldRgs];
  const otherAso = l.otherAso.map(o => refTo(o, 'ResourceGroup', from));

  const newSecret = secretRef(to, credential);
  const newRg = { ...refTo(rg, 'ResourceGroup', to), name: rgName };
  const newMc = { ...refTo(mc, 'ManagedCluster', to), name: newName };
  const newCluster = ref('Cluster', to, newName);
  const newCp = ref('AzureASOManagedControlPlane', to, newName);
  const credentialAnn = { [CREDENTIAL_FROM]: credential };

  const steps: StepPlan[] = [];
  steps.push({
    id: 'pause',
    title: 'Pause the old cluster',
    description:
      'Sets Cluster spec.paused=true so that CAPI and the legacy CAPZ controllers stop reconciling, and CAPZ sets the old ASO objects to reconcile-policy skip (seed 001 step 1, capz-ground-truth 5.3).',
    // The job's first write: right before it, no other ASO object on any management cluster may manage this AKS
    // cluster (issue 16: one owner per AKS cluster), read live; the old objects are the ones being moved.
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
      'CAPZ removes clusterctl.cluster.x-k8s.io/block-move from the AzureManagedControlPlane and every AzureManagedMachinePool only after it has set reconcile-policy skip on the ASO objects it owns (seed 001 step 2, capz-ground-truth 5.3, 9).',
    preconditions: [],
    actions: [],
    waitFor: [
      ...[oldAmcp, ...oldAmmps].map(r => when.annotation(r, BLOCK_MOVE, null)),
      ...[...disarmed, ...otherAso].map(r =>
        when.annotation(r, RECONCILE_POLICY, 'skip'),
      ),
    ],
    timeoutSeconds: 120,
    invariants: [...disarmed, ...otherAso].map(r =>
      when.annotation(r, RECONCILE_POLICY, 'skip', true),
    ),
  });
  steps.push({
    id: 'disarm',
    title: 'Disarm the old ASO objects',
    description:
      "Annotates each old ManagedClustersAgentPool, ManagedCluster and ResourceGroup with reconcile-policy skip and removes its finalizers, so that deleting or garbage-collecting the old objects cannot make ASO delete the Azure resources (seed 001 step 3, capz-ground-truth 4.3). ASO puts its finalizer back on its next reconcile whatever the policy (generic_reconciler.go: createOrUpdate claims the resource before it reads the policy); what keeps Azure safe is the policy, under which ASO's delete only drops its finalizer. So the step waits for skip, not for the finalizers to stay away.",
    preconditions: [],
    actions: disarmed.map(
      (r): PlannedAction => ({
        action: 'merge-patch',
        ref: r,
        patch: {
          metadata: {
            annotations: { [RECONCILE_POLICY]: 'skip' },
            finalizers: null,
          },
        },
        description: `kubectl patch ${r.kind.toLowerCase()} ${
          r.name
        } --type merge -p '{"metadata":{"annotations":{"${RECONCILE_POLICY}":"skip"},"finalizers":null}}'`,
      }),
    ),
    waitFor: disarmed.map(r => when.annotation(r, RECONCILE_POLICY, 'skip')),
    timeoutSeconds: 120,
    invariants: disarmed.map(r =>
      when.annotation(r, RECONCILE_POLICY, 'skip', true),
    ),
  });
  steps.push({
    id: 'create-namespace',
    title: `Create namespace ${to}`,
    description:
      'A new namespace for the new objects, so that adoption cannot reuse an old object of the same name (seed 001 step 4, capz-ground-truth 2, 9).',
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
    description: `Copies Secret ${credential} (the old ManagedCluster's credential-from) into ${to} with metadata reduced to name and namespace: the old control plane owns the original, and the copy must not be garbage-collected with it (seed 001 step 5, capz-ground-truth 5.2).`,
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
      'Creates an ASO ResourceGroup in the new namespace pointing at the existing group; the adoption controller needs it before the ManagedCluster (seed 001 step 6.1, capz-ground-truth 2.1 step 3, 2.3).',
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
      "Creates the ASO ManagedCluster with the adopt annotation, owner.name set to the new ResourceGroup and agentPoolProfiles from the old object's status; CAPZ then creates the Cluster, AzureASOManagedCluster and AzureASOManagedControlPlane, and CAPI labels the control plane (seed 001 step 6.2, capz-ground-truth 2.1, 2.4, 9).",
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
              [ADOPT]: 'true',
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
        )} as before the job) with ${ADOPT}: "true" and ${
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
      'Creates one ASO ManagedClustersAgentPool per node pool with the adopt annotation and owner.name set to the ManagedCluster; CAPZ then creates a MachinePool and an AzureASOManagedMachinePool for each (seed 001 step 6.3, capz-ground-truth 2.2).',
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
              [ADOPT]: 'true',
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
        )} as before the job) with ${ADOPT}: "true"`,
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
      'The new Cluster shows AVAILABLE=True (its v1beta2 Available condition) before anything old is deleted (seed 001 step 6.4).',
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
  // Finalizers are cleared in the documented order; the AzureManagedCluster has none (seed 001 step 7).
  const unfinalized = [...oldAmmps, ...oldMps, oldAmcp, oldCluster];
  steps.push({
    id: 'delete-old',
    title: 'Delete the old cluster objects',
    description:
      'Deletes the old Cluster, AzureManagedCluster, AzureManagedControlPlane, MachinePools and AzureManagedMachinePools without waiting, then clears their finalizers, because CAPI does not reconcile paused objects even when they are deleted. The disarmed ASO objects go with them and leave Azure untouched (seed 001 step 7).',
    // The last check before anything is deleted: every old ASO object is on skip, read live. Its finalizer may be
    // back (ASO re-adds it whatever the policy); under skip ASO's delete only drops it (generic_reconciler.go
    // delete: AllowsDelete() is false), and it is removed once more right before the deletes, as seed 001 step 3 does.
    preconditions: [
      when.condition(newCluster, 'Available'),
      ...disarmed.map(r => when.annotation(r, RECONCILE_POLICY, 'skip', true)),
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
      'The old objects are gone from Kubernetes while the AKS cluster and its pools still exist in Azure, read with the copied credential; the copied Secret has no owner (seed 001 step 7, last bullet).',
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
