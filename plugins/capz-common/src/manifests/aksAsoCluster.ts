import { apiVersionOf, kinds } from '../kinds';
import { CREDENTIAL_FROM_ANNOTATION, OWNER_ANNOTATION } from '../vocabulary';
import {
  clusterParamsFieldErrors,
  formatFieldError,
  poolObjectName,
  userKubeconfigSecretName,
  type AksAsoPoolParams,
} from './clusterRules';

/**
 * Parameters of a new AKS cluster managed through CAPZ's ASO API. Mirrors the variables of CAPZ's
 * `templates/cluster-template-aks-aso.yaml` flavor (CLUSTER_NAME, AZURE_LOCATION, KUBERNETES_VERSION,
 * ASO_CREDENTIAL_SECRET_NAME, AZURE_NODE_MACHINE_TYPE, WORKER_MACHINE_COUNT), plus node pools, tags, owner and an
 * Entra-only control plane. The rules they must meet are in ./clusterRules.
 * @public
 */
export interface AksAsoClusterParams {
  name: string;
  namespace: string;
  location: string;
  /** With the leading "v", e.g. v1.33.2, as CAPI expects. */
  kubernetesVersion: string;
  /** Secret in the same namespace that ASO reads Azure credentials from (`credential-from`). */
  credentialSecretName: string;
  pools: AksAsoPoolParams[];
  /** Catalog owner (entity ref, e.g. group:default/platform): the Cluster's `capz.io/owner` annotation. */
  owner?: string;
  /** Azure tags of the resource group, the managed cluster and every agent pool. */
  tags?: Record<string, string>;
  /**
   * Entra ID only: AKS-managed Entra integration with Azure RBAC, local accounts disabled; ASO writes the Entra
   * kubeconfig to `<name>-user-kubeconfig` (userCredentials), leaving `<name>-kubeconfig` to CAPZ. Default false.
   */
  entraOnly?: boolean;
  /** Entra groups made cluster admins (aadProfile.adminGroupObjectIDs), for Entra-only clusters. */
  adminGroupObjectIDs?: string[];
}

/** A Kubernetes object as plain JSON. @public */
export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: {
    name: string;
    namespace?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
  };
  spec?: Record<string, unknown>;
  [key: string]: unknown;
}

/** Returns every problem with the parameters (`field: message`), as messages a person can act on; empty when valid. @public */
export function validateAksAsoClusterParams(p: AksAsoClusterParams): string[] {
  return clusterParamsFieldErrors(p).map(formatFieldError);
}

/**
 * The objects of a new ASO-managed AKS cluster, in the order CAPZ's `aks-aso` flavor lists them. Cluster and
 * MachinePool are written at CAPI's v1beta2 (the stored version; the flavor still uses v1beta1, which CAPI converts
 * through its webhook):
 * Cluster, AzureASOManagedControlPlane (embedding the ManagedCluster), AzureASOManagedCluster (embedding the
 * ResourceGroup), then a MachinePool and an AzureASOManagedMachinePool (embedding the agent pool) per pool.
 *
 * What the embedded ASO resources leave out, because CAPZ sets it and refuses a different value (CAPZ v1.26,
 * kubernetes-sigs/cluster-api-provider-azure `exp/mutators/azureasomanagedcontrolplane.go` and
 * `exp/mutators/azureasomanagedmachinepool.go`):
 * - ManagedCluster `spec.kubernetesVersion`: `setManagedClusterKubernetesVersion` copies
 *   AzureASOManagedControlPlane `spec.version` (an `Incompatible` error when the user's value differs);
 * - ManagedCluster `spec.agentPoolProfiles`: `setManagedClusterAgentPoolProfiles` refuses any value ("agent pool
 *   definitions must be inherited from AzureASOManagedMachinePools") and fills them from the pools at creation;
 * - ManagedCluster `spec.networkProfile.serviceCidr` / `podCidr`: from the Cluster's clusterNetwork (not set here);
 * - ManagedClustersAgentPool `spec.orchestratorVersion`: `setAgentPoolOrchestratorVersion` copies the MachinePool's
 *   `spec.template.spec.version`;
 * - ManagedClustersAgentPool `spec.count`: `setAgentPoolCount` copies the MachinePool's `spec.replicas` (with
 *   autoscaling only as the initial count; `reconcileAutoscaling` then marks the MachinePool's replicas as managed by
 *   AKS with `cluster.x-k8s.io/replicas-managed-by`, so that annotation is not written here either).
 * Throws with every validation message when the parameters are invalid.
 * @public
 */
export function generateAksAsoClusterManifests(
  p: AksAsoClusterParams,
): KubeObject[] {
  const errors = validateAksAsoClusterParams(p);
  if (errors.length)
    throw new Error(`Invalid cluster parameters: ${errors.join('; ')}`);

  const capz = apiVersionOf(kinds.AzureASOManagedCluster);
  const credential = {
    [CREDENTIAL_FROM_ANNOTATION]: p.credentialSecretName,
  };
  const meta = (name: string) => ({ name, namespace: p.namespace });
  // CAPI v1beta2 references name the group only; CAPI resolves the version from the CRD's contract label.
  const capzRef = (kind: string, name: string) => ({
    apiGroup: kinds.AzureASOManagedCluster.group,
    kind,
    name,
  });
  const capi = apiVersionOf(kinds.Cluster);
  const tags =
    p.tags && Object.keys(p.tags).length ? { tags: { ...p.tags } } : {};
  // Entra ID only (docs/capz-aso-facts.md#entra-only-kubeconfig): ASO cannot read adminCredentials when
  // local accounts are disabled, so the Entra kubeconfig goes to userCredentials under another name than CAPZ's
  // canonical <name>-kubeconfig (CAPZ writes that one itself, with an Entra token, from the same ASO credential).
  const entra = p.entraOnly
    ? {
        aadProfile: {
          managed: true,
          enableAzureRBAC: true,
          ...(p.adminGroupObjectIDs?.length
            ? { adminGroupObjectIDs: [...p.adminGroupObjectIDs] }
            : {}),
        },
        disableLocalAccounts: true,
        enableRBAC: true,
        operatorSpec: {
          secrets: {
            userCredentials: {
              name: userKubeconfigSecretName(p.name),
              key: 'value',
            },
          },
        },
      }
    : {};

  const objects: KubeObject[] = [
    {
      apiVersion: capi,
      kind: 'Cluster',
      metadata: {
        ...meta(p.name),
        ...(p.owner ? { annotations: { [OWNER_ANNOTATION]: p.owner } } : {}),
      },
      spec: {
        controlPlaneRef: capzRef('AzureASOManagedControlPlane', p.name),
        infrastructureRef: capzRef('AzureASOManagedCluster', p.name),
      },
    },
    {
      apiVersion: capz,
      kind: 'AzureASOManagedControlPlane',
      metadata: meta(p.name),
      spec: {
        version: p.kubernetesVersion,
        resources: [
          {
            apiVersion: apiVersionOf(kinds.ManagedCluster),
            kind: 'ManagedCluster',
            metadata: { name: p.name, annotations: credential },
            spec: {
              dnsPrefix: p.name,
              identity: { type: 'SystemAssigned' },
              location: p.location,
              networkProfile: { networkPlugin: 'azure' },
              owner: { name: p.name },
              servicePrincipalProfile: { clientId: 'msi' },
              ...entra,
              ...tags,
            },
          },
        ],
      },
    },
    {
      apiVersion: capz,
      kind: 'AzureASOManagedCluster',
      metadata: meta(p.name),
      spec: {
        resources: [
          {
            apiVersion: apiVersionOf(kinds.ResourceGroup),
            kind: 'ResourceGroup',
            metadata: { name: p.name, annotations: credential },
            spec: { location: p.location, ...tags },
          },
        ],
      },
    },
  ];

  for (const pool of p.pools)
    objects.push(
      ...aksAsoPoolManifests(
        {
          clusterName: p.name,
          namespace: p.namespace,
          kubernetesVersion: p.kubernetesVersion,
          managedClusterName: p.name,
          credentialSecretName: p.credentialSecretName,
          tags: p.tags,
        },
        pool,
      ),
    );
  return objects;
}

/** Where a pool goes: its cluster, and what its objects inherit from it. @public */
export interface AksAsoPoolContext {
  clusterName: string;
  namespace: string;
  /** The pool's Kubernetes version (the MachinePool's), with the leading v. */
  kubernetesVersion: string;
  /** The ASO ManagedCluster's object name: the agent pool's `owner`. */
  managedClusterName: string;
  /** The ASO credential Secret (`credential-from`); without it ASO uses its default credential. */
  credentialSecretName?: string;
  tags?: Record<string, string>;
}

/** A pool's CAPI MachinePool, its infrastructure the CAPZ pool object of the same name (`<cluster>-<pool>`). */
function machinePool(
  c: { clusterName: string; namespace: string; kubernetesVersion: string },
  pool: AksAsoPoolParams,
  infraKind: 'AzureASOManagedMachinePool' | 'AzureManagedMachinePool',
): KubeObject {
  const objName = poolObjectName(c.clusterName, pool.name);
  return {
    apiVersion: apiVersionOf(kinds.Cluster),
    kind: 'MachinePool',
    metadata: { name: objName, namespace: c.namespace },
    spec: {
      clusterName: c.clusterName,
      replicas: pool.replicas,
      // No empty template.metadata: CAPI v1beta2 requires at least one property there when it is set.
      template: {
        spec: {
          bootstrap: { dataSecretName: '' },
          clusterName: c.clusterName,
          infrastructureRef: {
            apiGroup: kinds[infraKind].group,
            kind: infraKind,
            name: objName,
          },
          version: c.kubernetesVersion,
        },
      },
    },
  };
}

/**
 * One pool's MachinePool and AzureASOManagedMachinePool (embedding its agent pool), as CAPZ's `aks-aso` flavor writes
 * them; used for a new cluster's pools and for a pool added to an existing cluster (day 2). Leaves out what CAPZ
 * sets itself (see {@link generateAksAsoClusterManifests}). The parameters are not validated here.
 * @public
 */
export function aksAsoPoolManifests(
  c: AksAsoPoolContext,
  pool: AksAsoPoolParams,
): KubeObject[] {
  const capz = apiVersionOf(kinds.AzureASOManagedCluster);
  const objName = poolObjectName(c.clusterName, pool.name);
  const meta = { name: objName, namespace: c.namespace };
  const tags =
    c.tags && Object.keys(c.tags).length ? { tags: { ...c.tags } } : {};
  return [
    machinePool(c, pool, 'AzureASOManagedMachinePool'),
    {
      apiVersion: capz,
      kind: 'AzureASOManagedMachinePool',
      metadata: meta,
      spec: {
        resources: [
          {
            apiVersion: apiVersionOf(kinds.ManagedClustersAgentPool),
            kind: 'ManagedClustersAgentPool',
            metadata: {
              name: objName,
              ...(c.credentialSecretName
                ? {
                    annotations: {
                      [CREDENTIAL_FROM_ANNOTATION]: c.credentialSecretName,
                    },
                  }
                : {}),
            },
            spec: {
              azureName: pool.name,
              mode: pool.mode,
              ...(pool.osType && pool.osType !== 'Linux'
                ? { osType: pool.osType }
                : {}),
              owner: { name: c.managedClusterName },
              type: 'VirtualMachineScaleSets',
              vmSize: pool.vmSize,
              ...(pool.autoscaling
                ? {
                    enableAutoScaling: true,
                    minCount: pool.autoscaling.minCount,
                    maxCount: pool.autoscaling.maxCount,
                  }
                : {}),
              ...tags,
            },
          },
        ],
      },
    },
  ];
}

/**
 * One pool's MachinePool and AzureManagedMachinePool for a cluster on the deprecated AzureManagedControlPlane API, as
 * CAPZ v1.26.0's legacy API takes them (`api/v1beta1/azuremanagedmachinepool_types.go`: `name` is the agent pool's
 * name in AKS, which would otherwise be the object's name, `mode`, `sku` the VM size, `osType`, and `scaling`
 * `{minSize, maxSize}` for AKS's autoscaler, docs/capz-aso-facts.md#day2-legacy-add-pool). CAPZ's legacy controllers
 * then write the ASO agent pool themselves; the parameters are not validated here.
 * @public
 */
export function legacyPoolManifests(
  c: { clusterName: string; namespace: string; kubernetesVersion: string },
  pool: AksAsoPoolParams,
): KubeObject[] {
  const objName = poolObjectName(c.clusterName, pool.name);
  const meta = { name: objName, namespace: c.namespace };
  return [
    machinePool(c, pool, 'AzureManagedMachinePool'),
    {
      apiVersion: apiVersionOf(kinds.AzureManagedMachinePool),
      kind: 'AzureManagedMachinePool',
      metadata: meta,
      spec: {
        name: pool.name,
        mode: pool.mode,
        sku: pool.vmSize,
        ...(pool.osType && pool.osType !== 'Linux'
          ? { osType: pool.osType }
          : {}),
        ...(pool.autoscaling
          ? {
              scaling: {
                minSize: pool.autoscaling.minCount,
                maxSize: pool.autoscaling.maxCount,
              },
            }
          : {}),
      },
    },
  ];
}
