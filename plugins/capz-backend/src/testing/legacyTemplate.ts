/**
 * CAPZ's legacy `aks` template (AzureManagedControlPlane, AzureManagedCluster, AzureManagedMachinePool; resource group
 * named after the cluster, pools pool0 and pool1) as a user would apply it, with a service principal identity (the
 * simulator's) instead of the template's workload identity, allowed in the cluster's namespace. Shared by the lanes'
 * migrations: applied live, or kept in Git for Flux to apply.
 */
// Test-only: the simulator's service principal and CAPZ's own templates.
// eslint-disable-next-line @backstage/no-undeclared-imports
import { SIM_SERVICE_PRINCIPAL } from '@internal/capz-sim/azure';
// eslint-disable-next-line @backstage/no-undeclared-imports
import { capzTemplate } from '@internal/capz-sim/capz-templates';
import type { JobsWorld } from './jobsWorld';
import { kube } from './realCluster';

/** The template's objects: the identity and its Secret, and the cluster's own objects. */
export function legacyTemplate(
  w: JobsWorld,
  ns: string,
  name: string,
): { identity: any[]; cluster: any[] } {
  const objects: any[] = capzTemplate('aks', name, ns, {
    CLUSTER_IDENTITY_NAME: 'cluster-identity',
    CLUSTER_IDENTITY_TYPE: 'ServicePrincipal',
    AZURE_CLIENT_ID_USER_ASSIGNED_IDENTITY: SIM_SERVICE_PRINCIPAL.clientId,
    AZURE_TENANT_ID: SIM_SERVICE_PRINCIPAL.tenantId,
    AZURE_SUBSCRIPTION_ID: w.arm.subscription,
    AZURE_LOCATION: 'westeurope',
    KUBERNETES_VERSION: 'v1.33.2',
    AZURE_NODE_MACHINE_TYPE: 'Standard_D2s_v3',
    WORKER_MACHINE_COUNT: '2',
  });
  const identity = objects.find(o => o.kind === 'AzureClusterIdentity');
  identity.spec.clientSecret = {
    name: 'cluster-identity-secret',
    namespace: ns,
  };
  identity.spec.allowedNamespaces = { list: [ns] };
  const secret = {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'cluster-identity-secret', namespace: ns },
    stringData: { clientSecret: SIM_SERVICE_PRINCIPAL.clientSecret },
  };
  return {
    identity: [secret, identity],
    cluster: objects.filter(o => o !== identity),
  };
}

/** Creates the objects in `ns` as `kubectl create` would. */
export async function createInNamespace(
  w: JobsWorld,
  ns: string,
  objects: any[],
): Promise<void> {
  for (const o of objects) {
    const kind = o.kind.toLowerCase();
    const plural = kind.endsWith('y') ? `${kind.slice(0, -1)}ies` : `${kind}s`;
    const r = await kube(
      w.info,
      'POST',
      `${o.apiVersion.includes('/') ? '/apis' : '/api'}/${
        o.apiVersion
      }/namespaces/${ns}/${plural}`,
      o,
    );
    if (r.status !== 201)
      throw new Error(
        `create ${o.kind} ${o.metadata.name}: ${r.status} ${JSON.stringify(
          r.body,
        )}`,
      );
  }
}

/** The whole template applied live in a new namespace. */
export async function applyLegacyTemplate(
  w: JobsWorld,
  ns: string,
  name: string,
): Promise<void> {
  await w.c.createNamespace(ns);
  const t = legacyTemplate(w, ns, name);
  await createInNamespace(w, ns, [...t.identity, ...t.cluster]);
}
