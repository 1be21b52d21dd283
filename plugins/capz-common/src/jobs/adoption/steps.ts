/**
 * The steps of an adoption (see ./index.ts): the ordered actions and waits, built once the preflight has found the
 * AKS cluster and its pools. Pure: no I/O.
 */
import type { ObservedObject } from '../../objects/types';
import {
  jobAnnotations,
  pinPoliciesStep,
  policyAnnotation,
  ref,
  refTo,
  soleManager,
  secretRef,
  when,
  managedClusterAdopted,
  agentPoolAdopted,
} from '../helpers';
import type {
  AdoptJobParams,
  DiscoveredAksCluster,
  PlannedAction,
  StepPlan,
} from '../types';
import {
  ADOPT_ANNOTATION,
  CLUSTER_NAME_LABEL,
  CREDENTIAL_FROM_ANNOTATION,
} from '../../vocabulary';

/** What the preflight found that the steps are built from. */
export interface AdoptionPlanInputs {
  name: string;
  rgName: string;
  existingRg?: ObservedObject;
  rgLocation: string;
  rgTags?: Record<string, string>;
}

/** The pool fields ARM reports that the ASO spec takes as they are (docs/capz-aso-facts.md#adopt-agent-pool: autoscaling kept). */
function poolFields(
  p: DiscoveredAksCluster['agentPools'][number],
): Record<string, unknown> {
  // Every field ARM reports is written back as it is: ASO PUTs the whole spec, and ARM replaces labels, taints and
  // tags and resets autoscaling when they are left out.
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

/** The steps of an adoption, in order (see ./index.ts). */
export function adoptionSteps(
  params: AdoptJobParams,
  aks: DiscoveredAksCluster,
  o: AdoptionPlanInputs,
): StepPlan[] {
  const ns = params.namespace;
  const name = o.name;
  const credential = { [CREDENTIAL_FROM_ANNOTATION]: params.credentialSecret };
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
            // spec over the group (docs/capz-aso-facts.md#reconcile-policy, docs/capz-aso-facts.md#aso-adoption; ASO
            // reconcile_policy.go AllowsModify/AllowsDelete).
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
  // which CAPZ writes itself (docs/capz-aso-facts.md#entra-only-kubeconfig, docs/capz-aso-facts.md#adoption-entra).
  // Otherwise CAPZ defaults adminCredentials (docs/capz-aso-facts.md#capz-mutators). An aadProfile ARM reports is
  // written back as is, so that the adoption's PUT does not change it.
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
        ? `ResourceGroup ${o.rgName} already points at ${params.resourceGroup}; the ManagedCluster's owner must be a Ready ASO ResourceGroup in the same namespace (docs/capz-aso-facts.md#adopt-managed-cluster, docs/capz-aso-facts.md#adoption-order).`
        : 'Creates an ASO ResourceGroup pointing at the existing group; the adoption controller needs it, Ready, before the ManagedCluster (docs/capz-aso-facts.md#adopt-managed-cluster, docs/capz-aso-facts.md#adoption-order).',
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
        'Creates the ASO ManagedCluster with the adopt annotation and the pools copied from Azure (the adopt controller strips them afterwards); CAPZ then creates the Cluster, AzureASOManagedCluster and AzureASOManagedControlPlane, which takes control of the ManagedCluster, and CAPI labels it (docs/capz-aso-facts.md#adopt-managed-cluster, docs/capz-aso-facts.md#capi-adds-labels).',
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
              annotations: jobAnnotations({
                ...credential,
                [ADOPT_ANNOTATION]: 'true',
              }),
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
          } with ${ADOPT_ANNOTATION}: "true" and ${
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
        'Creates one ASO ManagedClustersAgentPool per pool with the adopt annotation, once an AzureASOManagedControlPlane controls the ManagedCluster and carries the cluster-name label; CAPZ then creates a MachinePool and an AzureASOManagedMachinePool for each (docs/capz-aso-facts.md#adopt-agent-pool).',
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
              annotations: jobAnnotations({
                ...credential,
                [ADOPT_ANNOTATION]: 'true',
              }),
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
          }) with ${ADOPT_ANNOTATION}: "true"`,
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
        'The new Cluster shows AVAILABLE=True (its v1beta2 Available condition, docs/migration-procedure.md#step-6-4).',
      preconditions: [],
      actions: [],
      waitFor: [when.condition(cluster, 'Available')],
      timeoutSeconds: 900,
    },
  ];
}
