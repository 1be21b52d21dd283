/**
 * The adoption of an existing AKS cluster, planned as data from one snapshot: the documented order (capz-ground-truth
 * 2.3, 9): an ASO ResourceGroup that is Ready, then the annotated ManagedCluster with its pools copied from Azure
 * (as `asoctl import` would), wait until an AzureASOManagedControlPlane controls it and CAPI has labelled that,
 * then one annotated ManagedClustersAgentPool per pool, then the Cluster is Available. Pure: no I/O.
 */
import { kinds } from '../kinds';
import type { ObservedObject } from '../tree/types';
import {
  accessCheck,
  accessFor,
  ADOPT,
  CAPZ,
  CLUSTER_NAME_LABEL,
  CREDENTIAL_FROM,
  fail,
  jobAnnotations,
  pass,
  pinPoliciesStep,
  policyAnnotation,
  policyBeforeJob,
  ref,
  refTo,
  soleManager,
  secretRef,
  warn,
  when,
  type AccessAnswer,
  type AccessRequirement,
  managedClusterAdopted,
  agentPoolAdopted,
} from './common';
import type { JobPlanResult } from './migration';
import {
  normalizeKubernetesName,
  validateDnsLabel,
  validateDnsSubdomain,
} from './names';
import type {
  AdoptJobParams,
  DiscoveredAksCluster,
  PlannedAction,
  PreflightCheck,
  StepPlan,
} from './types';

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

const nameOf = (o: ObservedObject) => o.metadata?.name ?? '';
const azureNameOf = (o: ObservedObject) =>
  typeof o.spec?.azureName === 'string' && o.spec.azureName
    ? o.spec.azureName
    : nameOf(o);

/** The pool fields ARM reports that the ASO spec takes as they are (capz-ground-truth 2.2 step 6: autoscaling kept). */
function poolFields(
  p: DiscoveredAksCluster['agentPools'][number],
): Record<string, unknown> {
  // Every field ARM reports is written back as it is: ASO PUTs the whole spec, and ARM replaces labels, taints and
  // tags and resets autoscaling when they are left out (issue 11).
  const nonEmpty = (v: Record<string, string> | string[] | undefined) =>
    v && Object.keys(v).length ? v : undefined;
  const optional: Record<string, unknown> = {
    osType: p.osType,
    osSKU: p.osSKU,
    orchestratorVersion: p.orchestratorVersion,
    availabilityZones: p.availabilityZones?.length
      ? [...p.availabilityZones]
      : undefined,
    maxPods: p.maxPods,
    osDiskSizeGB: p.osDiskSizeGB,
    nodeLabels: nonEmpty(p.nodeLabels) ? { ...p.nodeLabels } : undefined,
    nodeTaints: nonEmpty(p.nodeTaints) ? [...p.nodeTaints!] : undefined,
    tags: nonEmpty(p.tags) ? { ...p.tags } : undefined,
  };
  return {
    mode: p.mode,
    vmSize: p.vmSize,
    count: p.count,
    ...(p.enableAutoScaling
      ? { enableAutoScaling: true, minCount: p.minCount, maxCount: p.maxCount }
      : {}),
    ...Object.fromEntries(
      Object.entries(optional).filter(([, v]) => v !== undefined),
    ),
  };
}

/**
 * The preflight and plan of an adoption. Object names follow the adoption controllers (capz-ground-truth 2.4):
 * the Cluster, AzureASOManagedCluster, AzureASOManagedControlPlane and ManagedCluster are all `clusterName`; each
 * pool's objects are `<clusterName>-<pool>`; the ResourceGroup object is CAPZ's normalised group name (5.2), or an
 * existing ResourceGroup object for the same Azure group, which is then reused rather than created.
 * @public
 */
export function planAdoption(
  params: AdoptJobParams,
  snap: AdoptionSnapshot,
): JobPlanResult {
  const ns = params.namespace;
  // Azure allows names Kubernetes does not (upper case, '_': `myAKSCluster`); the objects get CAPZ's normalised
  // name and carry the Azure name in spec.azureName. CAPZ names the CAPI objects after the ManagedCluster object
  // (capz-ground-truth 2.1), so the Cluster is `name` too.
  const name = normalizeKubernetesName(params.clusterName);
  const target = {
    managementCluster: params.managementCluster,
    namespace: ns,
    name,
  };
  const preflight: PreflightCheck[] = [];
  const done = (
    plan: StepPlan[],
    extra: Partial<JobPlanResult> = {},
  ): JobPlanResult => ({
    type: 'adopt',
    target,
    preflight: [
      ...preflight,
      accessCheck(requiredAdoptionAccess(params), snap.access),
    ],
    plan,
    ...extra,
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
          `Secret ${ns}/${params.credentialSecret} exists; every ASO object reads its credential from it (capz-ground-truth 2.3).`,
        )
      : fail(
          'credential-secret',
          'The ASO credential Secret exists',
          `Secret ${ns}/${params.credentialSecret} does not exist (capz-ground-truth 2.3: the credential-from Secret must be in the same namespace).`,
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
        'Adopt this cluster by hand with `asoctl import azure-resource` (capz-ground-truth 2.3).',
      ),
    );
  }

  // Names: adoption inherits them and cannot change them (capz-ground-truth 2.4).
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
          'Adoption names the objects after the AKS cluster and cannot rename them; create the CAPI and CAPZ objects by hand instead (capz-ground-truth 4.2).',
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

  // Same-named objects would be silently reused by the adoption controllers (capz-ground-truth 2, "idempotence").
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
            )}. Adoption would silently reuse them (capz-ground-truth 2).`,
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
    return done([]);
  }
  return done(
    buildPlan(params, aks, {
      name,
      rgName,
      existingRg,
      rgLocation: snap.resourceGroupLocation ?? aks.location,
      rgTags: snap.resourceGroupTags,
    }),
    {
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
    },
  );
}

function buildPlan(
  params: AdoptJobParams,
  aks: DiscoveredAksCluster,
  o: {
    name: string;
    rgName: string;
    existingRg?: ObservedObject;
    rgLocation: string;
    rgTags?: Record<string, string>;
  },
): StepPlan[] {
  const ns = params.namespace;
  const name = o.name;
  const credential = { [CREDENTIAL_FROM]: params.credentialSecret };
  const rg = o.existingRg
    ? refTo(o.existingRg, 'ResourceGroup', ns)
    : ref('ResourceGroup', ns, o.rgName);
  const mc = ref('ManagedCluster', ns, name);
  const cp = ref('AzureASOManagedControlPlane', ns, name);
  const cluster = ref('Cluster', ns, name);
  const secret = secretRef(ns, params.credentialSecret);

  const rgActions: PlannedAction[] = o.existingRg
    ? []
    : [
        {
          action: 'create',
          ref: rg,
          object: {
            apiVersion: rg.apiVersion,
            kind: 'ResourceGroup',
            // A group CAPZ never owned stays unmanaged: on `skip` ASO only reads it (no PUT that could replace its
            // tags) and never deletes it, so deleting the adopted cluster later leaves the group and whatever else is
            // in it, as before the adoption. `detach-on-delete` would keep it from deletion too, but would PUT this
            // spec over the group (azure-side 4.1, 4.2; ASO reconcile_policy.go AllowsModify/AllowsDelete).
            metadata: {
              name: o.rgName,
              namespace: ns,
              annotations: jobAnnotations({
                ...credential,
                ...policyAnnotation('skip'),
              }),
            },
            spec: {
              azureName: params.resourceGroup,
              location: o.rgLocation,
              ...(o.rgTags && Object.keys(o.rgTags).length
                ? { tags: { ...o.rgTags } }
                : {}),
            },
          },
          description: `Create ResourceGroup ${ns}/${o.rgName} (azureName ${params.resourceGroup}, credential-from ${params.credentialSecret}, reconcile-policy skip: never changed or deleted in Azure)`,
        },
      ];
  // Entra-only: ASO cannot fetch adminCredentials; userCredentials under a name other than <name>-kubeconfig,
  // which CAPZ writes itself (capz-ground-truth 1.5, 2.4). Otherwise CAPZ defaults adminCredentials (1.5).
  // An aadProfile ARM reports is written back as is, so that the adoption's PUT does not change it.
  let aad: Record<string, unknown> = {};
  if (aks.entraOnly)
    aad = { aadProfile: { ...(aks.aadProfile ?? {}), managed: true } };
  else if (aks.aadProfile) aad = { aadProfile: { ...aks.aadProfile } };
  const entra = aks.entraOnly
    ? {
        disableLocalAccounts: true,
        operatorSpec: {
          secrets: {
            userCredentials: { name: `${name}-user-kubeconfig`, key: 'value' },
          },
        },
      }
    : {};
  const agentPoolProfiles = aks.agentPools.map(p => ({
    name: p.name,
    ...poolFields(p),
  }));
  return [
    {
      id: 'adopt-resource-group',
      title: o.existingRg
        ? `Reuse resource group object ${o.rgName}`
        : `Adopt resource group ${params.resourceGroup}`,
      description: o.existingRg
        ? `ResourceGroup ${o.rgName} already points at ${params.resourceGroup}; the ManagedCluster's owner must be a Ready ASO ResourceGroup in the same namespace (capz-ground-truth 2.1 step 3, 2.3).`
        : 'Creates an ASO ResourceGroup pointing at the existing group; the adoption controller needs it, Ready, before the ManagedCluster (capz-ground-truth 2.1 step 3, 2.3).',
      // The job's first write: right before it, no ASO object on any management cluster may manage this AKS
      // cluster, read live (one owner per AKS cluster); a reused ResourceGroup object is the group's own.
      preconditions: [
        when.exists(secret),
        soleManager(
          {
            subscriptionId: params.subscriptionId,
            resourceGroup: params.resourceGroup,
            name: aks.name,
          },
          o.existingRg ? [rg] : [],
        ),
      ],
      actions: rgActions,
      waitFor: [when.ready(rg)],
      timeoutSeconds: 300,
    },
    {
      id: 'adopt-managed-cluster',
      title: `Adopt AKS cluster ${aks.name}`,
      description:
        'Creates the ASO ManagedCluster with the adopt annotation and the pools copied from Azure (the adopt controller strips them afterwards); CAPZ then creates the Cluster, AzureASOManagedCluster and AzureASOManagedControlPlane, which takes control of the ManagedCluster, and CAPI labels it (capz-ground-truth 2.1, 2.4, 9).',
      preconditions: [when.ready(rg)],
      actions: [
        {
          action: 'create',
          ref: mc,
          object: {
            apiVersion: mc.apiVersion,
            kind: 'ManagedCluster',
            metadata: {
              name,
              namespace: ns,
              annotations: jobAnnotations({ ...credential, [ADOPT]: 'true' }),
            },
            spec: {
              azureName: aks.name,
              owner: { name: rg.name },
              location: aks.location,
              ...(aks.tags && Object.keys(aks.tags).length
                ? { tags: { ...aks.tags } }
                : {}),
              ...(aks.dnsPrefix ? { dnsPrefix: aks.dnsPrefix } : {}),
              ...(aks.kubernetesVersion
                ? { kubernetesVersion: aks.kubernetesVersion }
                : {}),
              identity: { type: 'SystemAssigned' },
              agentPoolProfiles,
              ...aad,
              ...entra,
            },
          },
          description: `Create ManagedCluster ${ns}/${name}${
            name !== aks.name ? ` (azureName ${aks.name})` : ''
          } with ${ADOPT}: "true" and ${
            agentPoolProfiles.length
          } agentPoolProfiles from Azure`,
        },
      ],
      waitFor: managedClusterAdopted(mc, ns, name),
      timeoutSeconds: 900,
    },
    {
      id: 'adopt-agent-pools',
      title: 'Adopt the node pools',
      description:
        'Creates one ASO ManagedClustersAgentPool per pool with the adopt annotation, once an AzureASOManagedControlPlane controls the ManagedCluster and carries the cluster-name label; CAPZ then creates a MachinePool and an AzureASOManagedMachinePool for each (capz-ground-truth 2.2, 9).',
      preconditions: [
        when.controlledBy(mc, 'AzureASOManagedControlPlane', name),
        when.label(cp, CLUSTER_NAME_LABEL, name),
      ],
      actions: aks.agentPools.map((p): PlannedAction => {
        const r = ref('ManagedClustersAgentPool', ns, `${name}-${p.name}`);
        return {
          action: 'create',
          ref: r,
          object: {
            apiVersion: r.apiVersion,
            kind: 'ManagedClustersAgentPool',
            metadata: {
              name: r.name,
              namespace: ns,
              annotations: jobAnnotations({ ...credential, [ADOPT]: 'true' }),
            },
            spec: {
              azureName: p.name,
              owner: { name },
              type: 'VirtualMachineScaleSets',
              ...poolFields(p),
            },
          },
          description: `Create ManagedClustersAgentPool ${ns}/${
            r.name
          } (azureName ${p.name}${
            p.enableAutoScaling
              ? `, autoscaling ${p.minCount}-${p.maxCount}`
              : ''
          }) with ${ADOPT}: "true"`,
        };
      }),
      waitFor: aks.agentPools.flatMap(p =>
        agentPoolAdopted(ns, `${name}-${p.name}`),
      ),
      timeoutSeconds: 900,
    },
    ...(o.existingRg
      ? []
      : [
          pinPoliciesStep([
            { owner: ref('AzureASOManagedCluster', ns, name), aso: rg },
          ]),
        ]),
    {
      id: 'wait-available',
      title: 'Wait for the cluster to be Available',
      description:
        'The new Cluster shows AVAILABLE=True (its v1beta2 Available condition, capz-ground-truth 4.1 step 6.4).',
      preconditions: [],
      actions: [],
      waitFor: [when.condition(cluster, 'Available')],
      timeoutSeconds: 900,
    },
  ];
}
