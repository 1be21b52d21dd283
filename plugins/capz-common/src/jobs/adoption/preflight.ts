/**
 * The preflight of an adoption (see ./index.ts): what blocks it and what to be warned about, read from one snapshot
 * of the management cluster and what ARM reports, and what the steps are built from once nothing stops a plan.
 * Pure: no I/O.
 */
import { kinds } from '../../kinds';
import type { ObservedObject } from '../../objects/types';
import { findGitNamespace, gitNamespaceCheck } from '../gitMode';
import {
  accessCheck,
  accessFor,
  azureNameOf,
  CAPZ,
  fail,
  gitOpsCheck,
  nameOf,
  pass,
  refTo,
  warn,
} from '../helpers';
import {
  normalizeKubernetesName,
  validateDnsLabel,
  validateDnsSubdomain,
} from '../names';
import type {
  AccessAnswer,
  AccessRequirement,
  AdoptJobParams,
  DiscoveredAksCluster,
  FluxKustomizationRef,
  ObjectRef,
  PreflightCheck,
} from '../types';
import type { AdoptionPlanInputs } from './steps';

/** What {@link planAdoption} needs to know. @public */
export interface AdoptionSnapshot {
  /** The AKS cluster as ARM reports it; undefined when the credential cannot see it. */
  aks?: DiscoveredAksCluster;
  /** The resource group's own location from ARM, when known (it may differ from the cluster's; RG location is immutable). */
  resourceGroupLocation?: string;
  /** The resource group's tags from ARM, when known: the ResourceGroup object carries them (ARM replaces tags on PUT). */
  resourceGroupTags?: Record<string, string>;
  namespaceExists: boolean;
  credentialSecretExists: boolean;
  /** Everything the watch cache holds in `params.namespace`. */
  objects: ObservedObject[];
  /** The answers to {@link requiredAdoptionAccess}. */
  access: AccessAnswer[];
  /** The Flux Kustomizations the namespace's Clusters' labels name, from the watch cache (where their sources live). */
  kustomizations?: ObservedObject[];
}

/** The permissions every step of an adoption needs. @public */
export function requiredAdoptionAccess(
  params: AdoptJobParams,
): AccessRequirement[] {
  const ns = params.namespace;
  const CAPI = kinds.Cluster.group;
  return [
    ...accessFor(undefined, '', 'namespaces', [['get', 'preflight']]),
    ...accessFor(ns, '', 'secrets', [
      ['get', 'preflight, adopt-resource-group'],
    ]),
    ...accessFor(ns, kinds.ResourceGroup.group, 'resourcegroups', [
      ['get', 'adopt-resource-group'],
      ['create', 'adopt-resource-group'],
    ]),
    ...accessFor(ns, kinds.ManagedCluster.group, 'managedclusters', [
      ['get', 'adopt-managed-cluster'],
      ['create', 'adopt-managed-cluster'],
    ]),
    ...accessFor(
      ns,
      kinds.ManagedClustersAgentPool.group,
      'managedclustersagentpools',
      [
        ['get', 'adopt-agent-pools'],
        ['create', 'adopt-agent-pools'],
      ],
    ),
    ...accessFor(ns, CAPI, 'clusters', [
      ['get', 'adopt-managed-cluster, wait-available'],
    ]),
    ...accessFor(ns, CAPI, 'machinepools', [['get', 'adopt-agent-pools']]),
    ...accessFor(ns, CAPZ, 'azureasomanagedclusters', [
      ['get', 'adopt-managed-cluster'],
      ['patch', 'pin-reconcile-policies'],
    ]),
    ...accessFor(ns, CAPZ, 'azureasomanagedcontrolplanes', [
      ['get', 'adopt-managed-cluster, adopt-agent-pools'],
    ]),
    ...accessFor(ns, CAPZ, 'azureasomanagedmachinepools', [
      ['get', 'adopt-agent-pools'],
    ]),
  ];
}

/** What the preflight of an adoption found. */
export interface AdoptionPreflight {
  /** Every check, the access check last. */
  checks: PreflightCheck[];
  /** The name of the Cluster and ManagedCluster objects, normalised from the Azure name. */
  name: string;
  /** What the steps are built from; absent when no plan can be built (no AKS cluster, or no pools). */
  planned?: {
    aks: DiscoveredAksCluster;
    inputs: AdoptionPlanInputs;
    /** Set when one Flux Kustomization applies the namespace's clusters: the adopted objects are proposed to Git. */
    git?: { kustomization: FluxKustomizationRef; beside: ObjectRef };
  };
}

/** The preflight checks of an adoption, and what its steps are built from when a plan can be built. */
export function adoptionPreflight(
  params: AdoptJobParams,
  snap: AdoptionSnapshot,
): AdoptionPreflight {
  const ns = params.namespace;
  // Azure allows names Kubernetes does not (upper case, '_': `myAKSCluster`); the objects get CAPZ's normalised
  // name and carry the Azure name in spec.azureName. CAPZ names the CAPI objects after the ManagedCluster object
  // (docs/capz-aso-facts.md#adopt-managed-cluster), so the Cluster is `name` too.
  const name = normalizeKubernetesName(params.clusterName);
  const preflight: PreflightCheck[] = [];
  const done = (planned?: AdoptionPreflight['planned']): AdoptionPreflight => ({
    checks: [
      ...preflight,
      accessCheck(requiredAdoptionAccess(params), snap.access),
    ],
    name,
    ...(planned ? { planned } : {}),
  });

  const nsInvalid = validateDnsLabel(ns, 'namespace');
  if (nsInvalid)
    preflight.push(
      fail(
        'namespace',
        'The namespace exists',
        `${nsInvalid}.`,
        'Choose a valid namespace.',
      ),
    );
  else if (!snap.namespaceExists) {
    preflight.push(
      fail(
        'namespace',
        'The namespace exists',
        `Namespace ${ns} does not exist.`,
        `Create namespace ${ns} and the ASO credential Secret ${params.credentialSecret} in it, then retry.`,
      ),
    );
  } else
    preflight.push(
      pass('namespace', 'The namespace exists', `Namespace ${ns} exists.`),
    );
  preflight.push(
    snap.credentialSecretExists
      ? pass(
          'credential-secret',
          'The ASO credential Secret exists',
          `Secret ${ns}/${params.credentialSecret} exists; every ASO object reads its credential from it (docs/capz-aso-facts.md#adoption-order).`,
        )
      : fail(
          'credential-secret',
          'The ASO credential Secret exists',
          `Secret ${ns}/${params.credentialSecret} does not exist (docs/capz-aso-facts.md#adoption-order: the credential-from Secret must be in the same namespace).`,
          `Create the ASO credential Secret ${params.credentialSecret} in ${ns}, then retry.`,
        ),
  );

  const aks = snap.aks;
  const where = `${params.resourceGroup}/${params.clusterName} in subscription ${params.subscriptionId}`;
  if (!aks) {
    preflight.push(
      fail(
        'aks-cluster',
        'The AKS cluster exists',
        `No AKS cluster ${where} is visible with this credential.`,
        'Check the names, and that the credential may read the cluster (Reader on the resource group at least).',
      ),
    );
  } else if (aks.provisioningState !== 'Succeeded') {
    preflight.push(
      fail(
        'aks-cluster',
        'The AKS cluster exists',
        `AKS cluster ${where} is ${
          aks.provisioningState ?? 'in an unknown state'
        }, not Succeeded.`,
        "Wait until the cluster's current operation finishes (or fix it in Azure), then retry.",
      ),
    );
  } else {
    preflight.push(
      pass(
        'aks-cluster',
        'The AKS cluster exists',
        `AKS cluster ${where} (Kubernetes ${
          aks.kubernetesVersion ?? 'unknown'
        }, ${aks.agentPools.length} pool(s)) is Succeeded.`,
      ),
    );
  }
  if (aks?.managedBy) {
    const m = aks.managedBy;
    preflight.push(
      fail(
        'not-managed',
        'Nothing manages it yet',
        `ManagedCluster ${
          m.managementCluster ? `${m.managementCluster}/` : ''
        }${m.namespace}/${m.name}${
          m.cluster ? ` (Cluster ${m.cluster})` : ''
        } already points at this AKS cluster.`,
        'A cluster can be managed from one place only; use the existing Cluster.',
      ),
    );
  } else if (aks) {
    preflight.push(
      pass(
        'not-managed',
        'Nothing manages it yet',
        'No ASO ManagedCluster on this management cluster points at it.',
      ),
    );
  }
  if (aks && aks.identityType && aks.identityType !== 'SystemAssigned') {
    preflight.push(
      fail(
        'identity',
        'The cluster uses a system-assigned identity',
        `AKS cluster ${params.clusterName} uses identity ${aks.identityType}; the ManagedCluster this job writes says SystemAssigned, which would change it.`,
        'Adopt this cluster by hand with `asoctl import azure-resource` (docs/capz-aso-facts.md#adoption-order).',
      ),
    );
  }

  // Names: adoption inherits them and cannot change them (docs/capz-aso-facts.md#adoption-names).
  const existingRg = snap.objects.find(
    o =>
      o.kind === 'ResourceGroup' &&
      azureNameOf(o).toLowerCase() === params.resourceGroup.toLowerCase(),
  );
  const rgName = existingRg
    ? nameOf(existingRg)
    : normalizeKubernetesName(params.resourceGroup);
  const pools = aks?.agentPools ?? [];
  const poolName = (p: string) => `${name}-${p}`;
  // The job writes beside the ResourceGroup it reuses and over objects of the names it takes: one a GitOps
  // controller applies would be put back over the adopted cluster.
  preflight.push(
    gitOpsCheck(
      `the objects adoption reuses in ${ns}`,
      snap.objects.filter(
        o =>
          o === existingRg ||
          nameOf(o) === name ||
          pools.some(p => nameOf(o) === poolName(p.name)),
      ),
    ),
  );
  // A namespace whose clusters Flux applies from Git: the adopted cluster is proposed there too (../gitMode.ts).
  const gitNs = findGitNamespace(ns, snap.objects, snap.kustomizations);
  if (gitNs.kind === 'flux')
    preflight.push(gitNamespaceCheck(ns, gitNs.kustomization, gitNs.clusters));
  else if (gitNs.kind === 'by-hand') preflight.push(gitNs.check);
  const nameProblems = [
    // The Cluster name is also the cluster.x-k8s.io/cluster-name label value: at most 63 characters.
    validateDnsLabel(
      name,
      `cluster object name (normalised from the Azure name ${params.clusterName}; the Cluster, AzureASOManaged* and ManagedCluster are named after it)`,
    ),
    validateDnsSubdomain(
      rgName,
      `ResourceGroup object name (normalised from ${params.resourceGroup})`,
    ),
    ...pools.map(p =>
      validateDnsSubdomain(poolName(p.name), 'agent pool object name'),
    ),
  ].filter((p): p is string => !!p);
  preflight.push(
    nameProblems.length
      ? fail(
          'names',
          'The names are valid',
          `${nameProblems.join('; ')}.`,
          'Adoption names the objects after the AKS cluster and cannot rename them; create the CAPI and CAPZ objects by hand instead (docs/capz-aso-facts.md#adoption-scope).',
        )
      : pass(
          'names',
          'The names are valid',
          `Cluster ${name}${
            name !== params.clusterName
              ? ` (Azure name ${params.clusterName}, kept in the ManagedCluster's spec.azureName)`
              : ''
          }, ResourceGroup object ${rgName}${
            rgName !== params.resourceGroup
              ? ` (azureName ${params.resourceGroup})`
              : ''
          }, pools ${pools.map(p => poolName(p.name)).join(', ') || '(none)'}.`,
        ),
  );

  // Same-named objects would be silently reused by the adoption controllers
  // (docs/capz-aso-facts.md#adoption-reuses-names).
  const taken = new Set<string>([
    ...[
      'Cluster',
      'AzureASOManagedCluster',
      'AzureASOManagedControlPlane',
      'ManagedCluster',
    ].map(k => `${k}/${name}`),
    ...pools.flatMap(p =>
      [
        'MachinePool',
        'AzureASOManagedMachinePool',
        'ManagedClustersAgentPool',
      ].map(k => `${k}/${poolName(p.name)}`),
    ),
    ...(existingRg ? [] : [`ResourceGroup/${rgName}`]),
  ]);
  const clashes = snap.objects.filter(o => taken.has(`${o.kind}/${nameOf(o)}`));
  preflight.push(
    clashes.length
      ? fail(
          'no-conflicts',
          'No object has the same name',
          `Already in ${ns}: ${clashes
            .map(
              o =>
                `${o.kind} ${nameOf(o)}${
                  o.kind === 'ResourceGroup'
                    ? ` (azureName ${azureNameOf(o)})`
                    : ''
                }`,
            )
            .join(
              ', ',
            )}. Adoption would silently reuse them (docs/capz-aso-facts.md#adoption-reuses-names).`,
          'Adopt into another namespace, or remove those objects.',
        )
      : pass(
          'no-conflicts',
          'No object has the same name',
          existingRg
            ? `ResourceGroup ${rgName} already points at ${params.resourceGroup} and is reused.`
            : 'No object of these names exists yet.',
        ),
  );
  if (aks && !snap.resourceGroupLocation) {
    preflight.push(
      warn(
        'resource-group-location',
        "The resource group's location is known",
        `The location of resource group ${params.resourceGroup} is not known; the cluster's (${aks.location}) is used.`,
        'If the resource group is elsewhere, create its ASO ResourceGroup object first; it is then reused.',
      ),
    );
  }
  if (!aks || !pools.length) {
    if (aks)
      preflight.push(
        fail(
          'pools',
          'The cluster has node pools',
          `AKS cluster ${params.clusterName} reports no agent pools.`,
          'Check the cluster in Azure.',
        ),
      );
    return done();
  }
  return done({
    aks,
    inputs: {
      name,
      rgName,
      existingRg,
      rgLocation: snap.resourceGroupLocation ?? aks.location,
      rgTags: snap.resourceGroupTags,
    },
    ...(gitNs.kind === 'flux'
      ? {
          git: {
            kustomization: gitNs.kustomization,
            beside: refTo(gitNs.clusters[0], 'Cluster'),
          },
        }
      : {}),
  });
}
