/**
 * The preflight of a migration (see ./index.ts): what blocks it and what to be warned about, read from one snapshot
 * of the management cluster, and what the steps are built from once nothing stops a plan. Pure: no I/O.
 */
import { kinds } from '../../kinds';
import { findCondition } from '../../objects/read';
import { detectClusterApi } from '../../tree/summary';
import type { ObservedObject } from '../../objects/types';
import {
  accessCheck,
  accessFor,
  azureNameOf,
  CAPZ,
  fail,
  gitOpsCheck,
  nameOf,
  pass,
  policyBeforeJob,
  warn,
  clusterIn,
} from '../helpers';
import { findGitMode, gitModeCheck } from '../gitMode';
import { validateDnsLabel, validateDnsSubdomain } from '../names';
import type {
  FluxKustomizationRef,
  AccessAnswer,
  AccessRequirement,
  MigrateJobParams,
  PreflightCheck,
} from '../types';
import {
  agentPoolProfilesFromStatus,
  findLegacy,
  ownedBy,
  str,
  type LegacyObjects,
} from './legacy';
import {
  legacyNetwork,
  networkCarryOver,
  networkCarryOverCommand,
} from './network';
import type { PlanInputs } from './steps';
import {
  CREDENTIAL_FROM_ANNOTATION,
  RESOURCE_ID_ANNOTATION,
} from '../../vocabulary';

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
  /** The Flux Kustomizations the objects' labels name, from the watch cache (where their sources live). */
  kustomizations?: ObservedObject[];
}

/** What the preflight of a migration found. */
export interface MigrationPreflight {
  /** Every check, the access check last. */
  checks: PreflightCheck[];
  /** What the steps are built from; absent when no plan can be built (no cluster, objects or credential...). */
  planned?: {
    cluster: ObservedObject;
    legacy: LegacyObjects;
    inputs: PlanInputs;
    /** Set when one Flux Kustomization applies objects of the cluster: the job runs through Git. */
    gitMode?: {
      kustomization: FluxKustomizationRef;
      applied: ObservedObject[];
    };
  };
}

function subscriptionOf(
  amcp: ObservedObject | undefined,
  mc: ObservedObject,
): string | undefined {
  const fromCp = str(amcp?.spec?.subscriptionID);
  if (fromCp) return fromCp;
  const id =
    str(mc.status?.id) ?? mc.metadata?.annotations?.[RESOURCE_ID_ANNOTATION];
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
  const NET = kinds.VirtualNetwork.group;
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
    // The legacy control plane's VNet and subnet (./network.ts).
    ...accessFor(from, NET, 'virtualnetworks', [
      ['get', 'wait-block-move, disarm'],
      ['patch', 'disarm, delete-old (finalizers)'],
    ]),
    ...accessFor(from, NET, 'virtualnetworkssubnets', [
      ['get', 'wait-block-move, disarm'],
      ['patch', 'disarm, delete-old (finalizers)'],
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

const isDeleting = (o: ObservedObject) => !!o.metadata?.deletionTimestamp;
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

/** The preflight checks of a migration, and what its steps are built from when a plan can be built. */
export function migrationPreflight(
  params: MigrateJobParams,
  snap: MigrationSnapshot,
): MigrationPreflight {
  const preflight: PreflightCheck[] = [];
  const done = (
    planned?: MigrationPreflight['planned'],
  ): MigrationPreflight => ({
    checks: [
      ...preflight,
      accessCheck(requiredMigrationAccess(params), snap.access),
    ],
    ...(planned ? { planned } : {}),
  });

  const from = params.namespace;
  const to = params.targetNamespace;
  preflight.push(targetNamespaceCheck(from, to, snap.targetNamespaceExists));

  const cluster = clusterIn(snap, params.name);
  if (!cluster) {
    preflight.push(
      fail(
        'cluster',
        'The cluster exists',
        `There is no Cluster ${from}/${params.name}.`,
        'Check the namespace and name of the cluster to migrate.',
      ),
    );
    return done();
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
    return done();
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
    return done();
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
  // One Flux Kustomization: the job runs through Git (./gitMode.ts); anything else that reconciles refuses it.
  const what = `cluster ${from}/${params.name}`;
  const owned = [
    cluster,
    amcp,
    legacy.amc,
    ...legacy.machinePools,
    ...legacy.ammps,
    mc,
    rg,
    ...legacy.otherRgs,
    ...legacy.agentPools,
    ...legacy.otherAso,
  ];
  const git = findGitMode(what, owned, snap.kustomizations);
  if (git.kind === 'refused') preflight.push(git.check);
  else if (git.kind === 'flux')
    preflight.push(gitModeCheck(what, git.kustomization, git.applied));
  else preflight.push(gitOpsCheck(what, owned));

  // Adoption names everything after the ManagedCluster (docs/capz-aso-facts.md#adopt-managed-cluster,
  // docs/capz-aso-facts.md#adoption-names).
  const newName = nameOf(mc);
  const rgName = nameOf(rg);
  const credential = mc.metadata?.annotations?.[CREDENTIAL_FROM_ANNOTATION];
  preflight.push(namesCheck(newName, rgName, legacy.agentPools, credential));
  if (newName !== params.name) {
    preflight.push(
      warn(
        'new-name',
        'The new Cluster keeps the name',
        `The new Cluster will be named ${newName}, after the ManagedCluster (adoption inherits names, docs/capz-aso-facts.md#adoption-names), not ${params.name}.`,
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
          `ManagedCluster ${from}/${newName} has no status.agentPoolProfiles; the new ManagedCluster needs them (docs/migration-procedure.md#step-6-2).`,
          'Wait until ASO has reconciled the ManagedCluster (status.agentPoolProfiles filled), then retry.',
        ),
  );
  if (!credential) {
    preflight.push(
      fail(
        'credential-secret',
        'The ASO credential Secret exists',
        `ManagedCluster ${from}/${newName} has no ${CREDENTIAL_FROM_ANNOTATION} annotation.`,
        'Set the annotation to the ASO credential Secret the cluster uses, then retry.',
      ),
    );
  } else if (!snap.credentialSecretExists) {
    preflight.push(
      fail(
        'credential-secret',
        'The ASO credential Secret exists',
        `Secret ${from}/${credential} (the old ManagedCluster's ${CREDENTIAL_FROM_ANNOTATION}) does not exist.`,
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
        } on detach-on-delete. The new objects get it too, but CAPZ accepts no policy but skip in spec.resources (docs/capz-aso-facts.md#aso-managed-pause), so it cannot be pinned there: if CAPZ ever recreates such an object, it comes back on manage.`,
        'After the migration, check the policy of these objects after any pause of the new Cluster or recreation of its objects.',
      ),
    );
  }
  const notAdopted = [...legacy.otherRgs, ...legacy.otherAso];
  if (notAdopted.length) {
    preflight.push(
      notAdoptedCheck(notAdopted, legacy, to, newName, rgName, credential),
    );
  }
  if (!credential || !subscriptionId) return done();

  const azure = {
    subscriptionId,
    resourceGroup: azureNameOf(rg),
    name: azureNameOf(mc),
  };
  return done({
    cluster,
    legacy,
    inputs: { azure, newName, rgName, credential, subscriptionId, profiles },
    ...(git.kind === 'flux'
      ? {
          gitMode: {
            kustomization: git.kustomization,
            applied: git.applied,
          },
        }
      : {}),
  });
}

/**
 * What stays in Azure unmanaged after the job. For the legacy control plane's VNet and subnet the fix is the exact
 * command that lists them in the new AzureASOManagedCluster's spec.resources, their lifecycle as before
 * (./network.ts); anything else is named only.
 */
function notAdoptedCheck(
  notAdopted: ObservedObject[],
  legacy: LegacyObjects,
  to: string,
  newName: string,
  rgName: string,
  credential: string | undefined,
): PreflightCheck {
  const network = legacyNetwork(legacy);
  const others = notAdopted.filter(o => !network.includes(o));
  const message = `Adoption takes only the ResourceGroup, ManagedCluster and agent pools (docs/capz-aso-facts.md#adopt-managed-cluster, docs/capz-aso-facts.md#adoption-scope). These stay in Azure as they are, but will no longer be managed: ${notAdopted
    .map(o => `${o.kind} ${nameOf(o)}`)
    .join(
      ', ',
    )}. The job has them on reconcile-policy skip before it deletes the old objects (the VNet and subnet disarmed like the others), so Azure keeps them.`;
  const fixes: string[] = [];
  if (network.length && credential) {
    const { entries, leftOut } = networkCarryOver(legacy, rgName, credential);
    if (entries.length)
      fixes.push(
        `To keep ${entries
          .map(e => `${e.kind} ${(e.metadata as { name: string }).name}`)
          .join(
            ', ',
          )} managed as before (deleting the new cluster then deletes them, as deleting the old one would have), once the job has finished run: \`${networkCarryOverCommand(
          to,
          newName,
          entries,
        )}\`.`,
      );
    if (leftOut.length)
      fixes.push(`Left unmanaged on purpose: ${leftOut.join('; ')}.`);
  }
  const rest = credential ? others : notAdopted;
  if (rest.length)
    fixes.push(
      `Define ${rest
        .map(o => `${o.kind} ${nameOf(o)}`)
        .join(
          ', ',
        )} in the new AzureASOManaged objects' spec.resources after the migration if they should stay managed.`,
    );
  return warn('not-adopted', 'Everything is adopted', message, fixes.join(' '));
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
      `The target namespace must differ from ${from}: adoption would silently reuse the old objects of the same names (docs/capz-aso-facts.md#adoption-reuses-names).`,
      'Choose a new namespace.',
    );
  }
  if (exists) {
    return fail(
      'target-namespace',
      title,
      `Namespace ${to} already exists; the migration creates it so that no same-named object can be reused by adoption (docs/capz-aso-facts.md#adoption-reuses-names).`,
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
    ...legacyNetwork(l),
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
        'Rename the objects by hand; adoption cannot change the names it inherits (docs/capz-aso-facts.md#adoption-names).',
      )
    : pass(
        'names',
        'The names are valid',
        `The new Cluster, ResourceGroup and ${pools.length} agent pool object(s) keep their names.`,
      );
}
