import { apiVersionOf, kinds } from '../kinds';

/**
 * Parameters of a new AKS cluster managed through CAPZ's ASO API. Mirrors the variables of CAPZ's
 * `templates/cluster-template-aks-aso.yaml` flavor (CLUSTER_NAME, AZURE_LOCATION, KUBERNETES_VERSION,
 * ASO_CREDENTIAL_SECRET_NAME, AZURE_NODE_MACHINE_TYPE, WORKER_MACHINE_COUNT).
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
  pools: Array<{
    /** Agent pool name in Azure (azureName): lowercase letters and digits, at most 12 (Linux). */
    name: string;
    mode: 'System' | 'User';
    vmSize: string;
    replicas: number;
  }>;
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

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const POOL_NAME = /^[a-z][a-z0-9]{0,11}$/;

/** Returns every problem with the parameters, as messages a person can act on; empty when valid. @public */
export function validateAksAsoClusterParams(p: AksAsoClusterParams): string[] {
  const errors: string[] = [];
  // AKS limits the cluster name to 63 characters; the node resource group name is derived from it.
  if (!DNS_LABEL.test(p.name) || p.name.length > 63) {
    errors.push(
      `name "${p.name}" must be a lowercase DNS label of at most 63 characters`,
    );
  }
  if (!DNS_LABEL.test(p.namespace))
    errors.push(`namespace "${p.namespace}" is not a valid namespace name`);
  if (!/^v\d+\.\d+\.\d+$/.test(p.kubernetesVersion)) {
    errors.push(
      `kubernetesVersion "${p.kubernetesVersion}" must look like v1.33.2`,
    );
  }
  if (!p.location) errors.push('location is required');
  if (!p.credentialSecretName) errors.push('credentialSecretName is required');
  if (!p.pools.some(pool => pool.mode === 'System')) {
    errors.push(
      'at least one pool must have mode System (AKS requires a system pool)',
    );
  }
  const seen = new Set<string>();
  for (const pool of p.pools) {
    if (!POOL_NAME.test(pool.name)) {
      errors.push(
        `pool "${pool.name}" must start with a letter and have at most 12 lowercase letters or digits`,
      );
    }
    if (seen.has(pool.name)) errors.push(`pool "${pool.name}" appears twice`);
    seen.add(pool.name);
    if (
      !Number.isInteger(pool.replicas) ||
      pool.replicas < (pool.mode === 'System' ? 1 : 0)
    ) {
      errors.push(
        `pool "${pool.name}" replicas must be a whole number, at least 1 for a System pool`,
      );
    }
  }
  return errors;
}

/**
 * The objects of a new ASO-managed AKS cluster, in the order CAPZ's `aks-aso` flavor lists them. Cluster and
 * MachinePool are written at CAPI's v1beta2 (the stored version; the flavor still uses v1beta1, which CAPI converts
 * through its webhook):
 * Cluster, AzureASOManagedControlPlane (embedding the ManagedCluster), AzureASOManagedCluster (embedding the
 * ResourceGroup), then a MachinePool and an AzureASOManagedMachinePool (embedding the agent pool) per pool.
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
    'serviceoperator.azure.com/credential-from': p.credentialSecretName,
  };
  const meta = (name: string) => ({ name, namespace: p.namespace });
  // CAPI v1beta2 references name the group only; CAPI resolves the version from the CRD's contract label.
  const capzRef = (kind: string, name: string) => ({
    apiGroup: kinds.AzureASOManagedCluster.group,
    kind,
    name,
  });
  const capi = apiVersionOf(kinds.Cluster);

  const objects: KubeObject[] = [
    {
      apiVersion: capi,
      kind: 'Cluster',
      metadata: meta(p.name),
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
            spec: { location: p.location },
          },
        ],
      },
    },
  ];

  for (const pool of p.pools) {
    const objName = `${p.name}-${pool.name}`;
    objects.push(
      {
        apiVersion: capi,
        kind: 'MachinePool',
        metadata: meta(objName),
        spec: {
          clusterName: p.name,
          replicas: pool.replicas,
          // No empty template.metadata: CAPI v1beta2 requires at least one property there when it is set.
          template: {
            spec: {
              bootstrap: { dataSecretName: '' },
              clusterName: p.name,
              infrastructureRef: capzRef('AzureASOManagedMachinePool', objName),
              version: p.kubernetesVersion,
            },
          },
        },
      },
      {
        apiVersion: capz,
        kind: 'AzureASOManagedMachinePool',
        metadata: meta(objName),
        spec: {
          resources: [
            {
              apiVersion: apiVersionOf(kinds.ManagedClustersAgentPool),
              kind: 'ManagedClustersAgentPool',
              metadata: { name: objName, annotations: credential },
              spec: {
                azureName: pool.name,
                mode: pool.mode,
                owner: { name: p.name },
                type: 'VirtualMachineScaleSets',
                vmSize: pool.vmSize,
              },
            },
          ],
        },
      },
    );
  }
  return objects;
}
