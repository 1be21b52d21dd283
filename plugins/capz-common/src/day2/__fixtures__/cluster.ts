/**
 * A day-2 test world: a cluster rendered by the aks-aso manifests (what POST /clusters writes), plus what CAPI, CAPZ
 * and ASO then add (uids, resourceVersions, owner references, the ASO objects with their ARM ids), so that each rule
 * can be tried on a realistic object set.
 */
import { generateAksAsoClusterManifests } from '../../manifests/aksAsoCluster';
import type { AksAsoPoolParams } from '../../manifests/clusterRules';
import type { ObservedObject } from '../../objects/types';

const SUB = '00000000-0000-0000-0000-000000000001';

export interface WorldOptions {
  name?: string;
  namespace?: string;
  version?: string;
  pools?: AksAsoPoolParams[];
  /** reconcile-policy per ASO object name (default: none, i.e. manage). */
  policies?: Record<string, string>;
  paused?: boolean;
}

export function world(o: WorldOptions = {}): ObservedObject[] {
  const name = o.name ?? 'alpha';
  const namespace = o.namespace ?? 'team-a';
  const rendered = generateAksAsoClusterManifests({
    name,
    namespace,
    location: 'westeurope',
    kubernetesVersion: o.version ?? 'v1.33.2',
    credentialSecretName: 'aso-credential',
    pools: o.pools ?? [
      {
        name: 'system',
        mode: 'System',
        vmSize: 'Standard_D2s_v3',
        replicas: 3,
      },
      { name: 'user', mode: 'User', vmSize: 'Standard_D4s_v3', replicas: 2 },
    ],
  }) as unknown as ObservedObject[];
  let n = 0;
  const objects: ObservedObject[] = rendered.map(r => ({
    ...r,
    metadata: {
      ...r.metadata,
      uid: `uid-${r.kind}-${r.metadata!.name}`,
      resourceVersion: String(++n),
    },
  }));
  const byKind = (kind: string) => objects.filter(x => x.kind === kind);
  const uidOf = (kind: string, nm: string) => `uid-${kind}-${nm}`;
  const ownedBy = (kind: string, nm: string, controller = true) => ({
    apiVersion: 'x',
    kind,
    name: nm,
    uid: uidOf(kind, nm),
    controller,
  });
  const cluster = byKind('Cluster')[0];
  if (o.paused) cluster.spec = { ...cluster.spec, paused: true };
  cluster.metadata!.labels = {};
  for (const x of objects) {
    if (
      x.kind === 'AzureASOManagedControlPlane' ||
      x.kind === 'AzureASOManagedCluster' ||
      x.kind === 'MachinePool'
    )
      x.metadata!.ownerReferences = [ownedBy('Cluster', name)];
    if (x.kind === 'AzureASOManagedMachinePool')
      x.metadata!.ownerReferences = [ownedBy('MachinePool', x.metadata!.name!)];
  }
  const policy = (nm: string): Record<string, string> =>
    o.policies?.[nm]
      ? { 'serviceoperator.azure.com/reconcile-policy': o.policies[nm] }
      : {};
  // The ASO objects CAPZ applies from spec.resources, as ASO reports them once in Azure.
  const aso: ObservedObject[] = [];
  for (const owner of objects.filter(x => Array.isArray(x.spec?.resources))) {
    for (const r of owner.spec!.resources as ObservedObject[]) {
      const nm = r.metadata!.name!;
      const refs = [ownedBy(owner.kind!, owner.metadata!.name!)];
      let id: string;
      if (r.kind === 'ResourceGroup')
        id = `/subscriptions/${SUB}/resourceGroups/${nm}`;
      else if (r.kind === 'ManagedCluster')
        id = `/subscriptions/${SUB}/resourceGroups/${name}/providers/Microsoft.ContainerService/managedClusters/${nm}`;
      else {
        id = `/subscriptions/${SUB}/resourceGroups/${name}/providers/Microsoft.ContainerService/managedClusters/${name}/agentPools/${
          r.spec!.azureName
        }`;
        refs.push(ownedBy('ManagedCluster', name, false));
      }
      if (r.kind === 'ManagedCluster')
        refs.push(ownedBy('ResourceGroup', name, false));
      aso.push({
        ...r,
        metadata: {
          ...r.metadata,
          annotations: { ...r.metadata!.annotations, ...policy(nm) },
          namespace,
          uid: uidOf(r.kind!, nm),
          resourceVersion: String(++n),
          ownerReferences: refs,
        },
        status: { id },
      });
    }
  }
  return [...objects, ...aso];
}

/** A copy of the world with one object changed. */
export function edit(
  objects: ObservedObject[],
  kind: string,
  name: string,
  f: (o: ObservedObject) => void,
): ObservedObject[] {
  return objects.map(o => {
    if (o.kind !== kind || o.metadata?.name !== name) return o;
    const copy = JSON.parse(JSON.stringify(o)) as ObservedObject;
    f(copy);
    return copy;
  });
}

export const clusterOf = (objects: ObservedObject[]) =>
  objects.find(o => o.kind === 'Cluster')!;
