import {
  generateAksAsoClusterManifests,
  type KubeObject,
} from '../manifests/aksAsoCluster';
import type { ObservedObject } from '../objects/types';
import { manifestForGit } from './manifestExport';

/** The new cluster of a migration: one autoscaled pool, in the target namespace. */
const manifests = generateAksAsoClusterManifests({
  name: 'legacy-1',
  namespace: 'team-legacy-aso',
  location: 'westeurope',
  kubernetesVersion: 'v1.33.2',
  credentialSecretName: 'aso-credential',
  owner: 'group:default/team-a',
  pools: [
    {
      name: 'pool0',
      mode: 'System',
      vmSize: 'Standard_D2s_v3',
      replicas: 2,
      autoscaling: { minCount: 1, maxCount: 4 },
    },
  ],
});
const byKind = (kind: string) => manifests.find(o => o.kind === kind)!;

const FLUX_LABELS = {
  'kustomize.toolkit.fluxcd.io/name': 'clusters',
  'kustomize.toolkit.fluxcd.io/namespace': 'flux-system',
};

/** A manifest as the API server answers it once created by the job and reconciled by CAPI and CAPZ. */
function live(
  o: KubeObject,
  extra: {
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    spec?: Record<string, unknown>;
    status?: Record<string, unknown>;
  } = {},
): ObservedObject {
  const copy = JSON.parse(JSON.stringify(o)) as KubeObject;
  return {
    apiVersion: copy.apiVersion,
    kind: copy.kind,
    metadata: {
      ...copy.metadata,
      uid: '5f1c0b1e-0000-4000-8000-000000000001',
      resourceVersion: '48213',
      generation: 3,
      creationTimestamp: '2026-12-01T10:00:00Z',
      labels: {
        ...copy.metadata.labels,
        'cluster.x-k8s.io/cluster-name': 'legacy-1',
        ...extra.labels,
      },
      annotations: {
        ...copy.metadata.annotations,
        'capz.io/job': 'migrate-7f3a',
        ...extra.annotations,
      },
      ownerReferences: [
        {
          apiVersion: 'cluster.x-k8s.io/v1beta2',
          kind: 'Cluster',
          name: 'legacy-1',
          uid: 'u',
          controller: true,
        },
      ],
      managedFields: [
        { manager: 'capz-backstage', operation: 'Apply' },
        { manager: 'manager', operation: 'Update', subresource: 'status' },
      ],
      finalizers: ['cluster.cluster.x-k8s.io'],
    } as ObservedObject['metadata'],
    spec: { ...copy.spec, ...extra.spec },
    status: { ready: true, ...extra.status },
  };
}

describe('manifestForGit', () => {
  it("gives back the template's own documents from the live objects: status, server metadata, the job's and Flux's marks and the controllers' fields dropped", () => {
    const liveObjects = [
      live(byKind('Cluster'), {
        labels: FLUX_LABELS,
        annotations: {
          'kubectl.kubernetes.io/last-applied-configuration': '{"kind":"x"}',
        },
        spec: {
          controlPlaneEndpoint: {
            host: 'legacy-1-abc.hcp.westeurope.azmk8s.io',
            port: 443,
          },
        },
        status: { phase: 'Provisioned' },
      }),
      live(byKind('AzureASOManagedControlPlane'), {
        annotations: { 'clusterctl.cluster.x-k8s.io/block-move': 'true' },
        status: {
          controlPlaneEndpoint: { host: 'h', port: 443 },
          version: 'v1.33.2',
        },
      }),
      live(byKind('AzureASOManagedCluster'), {
        annotations: { 'clusterctl.cluster.x-k8s.io/block-move': 'true' },
        spec: {
          controlPlaneEndpoint: {
            host: 'legacy-1-abc.hcp.westeurope.azmk8s.io',
            port: 443,
          },
        },
      }),
      live(byKind('MachinePool'), {
        annotations: { 'cluster.x-k8s.io/replicas-managed-by': 'aks' },
        // CAPZ copied AKS's count (3) over the template's 2.
        spec: {
          replicas: 3,
          providerIDList: [
            'azure:///subscriptions/s/resourceGroups/mc_rg/providers/Microsoft.Compute/virtualMachineScaleSets/aks-pool0-1/virtualMachines/0',
          ],
        },
        status: { replicas: 3 },
      }),
      live(byKind('AzureASOManagedMachinePool'), {
        annotations: { 'clusterctl.cluster.x-k8s.io/block-move': 'true' },
        spec: { providerIDList: ['azure:///vm0', 'azure:///vm1'] },
        status: { replicas: 3 },
      }),
    ];
    const exported = liveObjects.map(manifestForGit);
    // The template's MachinePool without its replicas: CAPZ owns them while AKS autoscales.
    const expected = manifests.map(o => JSON.parse(JSON.stringify(o)));
    for (const o of expected) {
      o.metadata.labels = { 'cluster.x-k8s.io/cluster-name': 'legacy-1' };
      if (o.kind === 'MachinePool') delete o.spec.replicas;
    }
    expect(exported).toEqual(expected);
    // Nothing else: no status, no server metadata, in the order Git would read it.
    expect(Object.keys(exported[0])).toEqual([
      'apiVersion',
      'kind',
      'metadata',
      'spec',
    ]);
    expect(Object.keys(exported[0].metadata)).toEqual([
      'name',
      'namespace',
      'labels',
      'annotations',
    ]);
    expect(exported[0].metadata.annotations).toEqual({
      'capz.io/owner': 'group:default/team-a',
    });
  });

  it("keeps a MachinePool's replicas without the replicas-managed-by annotation, drops them with it (whatever its value), and keeps a value of the annotation that is not CAPZ's", () => {
    const pool = byKind('MachinePool');
    const plain = manifestForGit(live(pool, { spec: { replicas: 2 } }));
    expect(plain.spec?.replicas).toBe(2);
    expect(plain.metadata.annotations).toBeUndefined();

    const external = manifestForGit(
      live(pool, {
        annotations: {
          'cluster.x-k8s.io/replicas-managed-by': 'external-autoscaler',
        },
        spec: { replicas: 5 },
      }),
    );
    expect(external.spec).not.toHaveProperty('replicas');
    expect(external.metadata.annotations).toEqual({
      'cluster.x-k8s.io/replicas-managed-by': 'external-autoscaler',
    });

    // CAPZ's value is CAPZ's to write and remove.
    const aks = manifestForGit(
      live(pool, {
        annotations: { 'cluster.x-k8s.io/replicas-managed-by': 'aks' },
        spec: { replicas: 5 },
      }),
    );
    expect(aks.spec).not.toHaveProperty('replicas');
    expect(aks.metadata.annotations).toBeUndefined();
    // The spec's other fields stay.
    expect(aks.spec).toEqual({
      clusterName: 'legacy-1',
      template: pool.spec!.template,
    });
  });

  it('drops providerIDList and controlPlaneEndpoint only on the kinds whose controller writes them', () => {
    const endpoint = { host: 'h.example', port: 443 };
    expect(
      manifestForGit(
        live(byKind('Cluster'), { spec: { controlPlaneEndpoint: endpoint } }),
      ).spec,
    ).not.toHaveProperty('controlPlaneEndpoint');
    expect(
      manifestForGit(
        live(byKind('AzureASOManagedCluster'), {
          spec: { controlPlaneEndpoint: endpoint },
        }),
      ).spec,
    ).not.toHaveProperty('controlPlaneEndpoint');
    expect(
      manifestForGit(
        live(byKind('AzureASOManagedMachinePool'), {
          spec: { providerIDList: ['azure:///vm0'] },
        }),
      ).spec,
    ).not.toHaveProperty('providerIDList');
    // The legacy AzureManagedControlPlane is not one of them: its spec is kept whole.
    const legacy = manifestForGit({
      apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1',
      kind: 'AzureManagedControlPlane',
      metadata: { name: 'legacy-1', namespace: 'team-legacy' },
      spec: { controlPlaneEndpoint: endpoint, version: 'v1.33.2' },
    });
    expect(legacy.spec).toEqual({
      controlPlaneEndpoint: endpoint,
      version: 'v1.33.2',
    });
    // Another group's MachinePool is not CAPI's.
    expect(
      manifestForGit({
        apiVersion: 'example.com/v1',
        kind: 'MachinePool',
        metadata: { name: 'x', namespace: 'n' },
        spec: { providerIDList: ['a'] },
      }).spec,
    ).toEqual({ providerIDList: ['a'] });
  });

  it("drops a MachinePool's bootstrap dataSecretName only when a bootstrap config writes it", () => {
    const pool = byKind('MachinePool');
    const withConfig = live(pool);
    (withConfig.spec as any).template.spec.bootstrap = {
      configRef: {
        apiGroup: 'bootstrap.cluster.x-k8s.io',
        kind: 'KubeadmConfig',
        name: 'c',
      },
      dataSecretName: 'c-bootstrap',
    };
    expect(
      (manifestForGit(withConfig).spec as any).template.spec.bootstrap,
    ).toEqual({
      configRef: {
        apiGroup: 'bootstrap.cluster.x-k8s.io',
        kind: 'KubeadmConfig',
        name: 'c',
      },
    });
    // AKS's pools: the user's empty name, kept.
    expect(
      (manifestForGit(live(pool)).spec as any).template.spec.bootstrap,
    ).toEqual({ dataSecretName: '' });
  });

  it('copies deeply, keeps another top-level field but status, leaves empty maps out, and refuses an object without a name', () => {
    const cm = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: 'settings',
        namespace: 'team-legacy-aso',
        labels: { ...FLUX_LABELS },
        annotations: { 'capz.io/job': 'j' },
      },
      data: { a: '1' },
      status: {},
    } as ObservedObject;
    const out = manifestForGit(cm);
    expect(out).toEqual({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'settings', namespace: 'team-legacy-aso' },
      data: { a: '1' },
    });
    (out.data as any).a = '2';
    expect((cm as any).data.a).toBe('1');

    const cp = live(byKind('AzureASOManagedControlPlane'));
    const exported = manifestForGit(cp);
    (exported.spec as any).resources[0].spec.location = 'northeurope';
    expect((cp.spec as any).resources[0].spec.location).toBe('westeurope');

    expect(() =>
      manifestForGit({ apiVersion: 'v1', kind: 'ConfigMap', metadata: {} }),
    ).toThrow('no metadata.name');
  });
});
