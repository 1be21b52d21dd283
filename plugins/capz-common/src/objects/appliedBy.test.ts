import {
  appliedBy,
  clusterAppliedBy,
  clusterKustomization,
  describeAppliedBy,
  gitOpsRefusal,
  helmWarning,
} from './appliedBy';
import type { ObservedObject } from './types';

const mp = (
  metadata: NonNullable<ObservedObject['metadata']> = {},
): ObservedObject => ({
  apiVersion: 'cluster.x-k8s.io/v1beta2',
  kind: 'MachinePool',
  metadata: { name: 'c1-pool0', namespace: 'default', ...metadata },
});

const FLUX = {
  'kustomize.toolkit.fluxcd.io/name': 'clusters',
  'kustomize.toolkit.fluxcd.io/namespace': 'flux-system',
};

describe('appliedBy', () => {
  it('finds nothing on an object no tool marks', () => {
    expect(appliedBy(mp())).toBeUndefined();
    expect(
      appliedBy(
        mp({
          managedFields: [{ manager: 'capz-backstage', operation: 'Apply' }],
        }),
      ),
    ).toBeUndefined();
    expect(appliedBy(undefined)).toBeUndefined();
  });

  it("names the Flux Kustomization from kustomize-controller's two labels", () => {
    expect(appliedBy(mp({ labels: FLUX }))).toEqual({
      tool: 'flux-kustomization',
      source: { namespace: 'flux-system', name: 'clusters' },
      reconciles: true,
    });
    // One label alone is not Flux's mark (both are set on every applied object).
    expect(
      appliedBy(mp({ labels: { 'kustomize.toolkit.fluxcd.io/name': 'x' } })),
    ).toBeUndefined();
  });

  it("takes Flux's per-object opt-outs on the live object, except for a delete", () => {
    const optOuts: Array<{
      labels: Record<string, string>;
      annotations?: Record<string, string>;
    }> = [
      {
        labels: {
          ...FLUX,
          'kustomize.toolkit.fluxcd.io/reconcile': 'disabled',
        },
      },
      {
        labels: FLUX,
        annotations: { 'kustomize.toolkit.fluxcd.io/reconcile': 'disabled' },
      },
      {
        labels: FLUX,
        annotations: { 'kustomize.toolkit.fluxcd.io/ssa': 'Ignore' },
      },
    ];
    for (const optOut of optOuts) {
      const o = mp({
        ...optOut,
        managedFields: [
          { manager: 'kustomize-controller', operation: 'Apply' },
        ],
      });
      expect(appliedBy(o)).toBeUndefined();
      expect(appliedBy(o, { deleting: true })?.source).toEqual({
        namespace: 'flux-system',
        name: 'clusters',
      });
    }
    // `ssa: Merge` is still applied with force.
    expect(
      appliedBy(
        mp({
          labels: FLUX,
          annotations: { 'kustomize.toolkit.fluxcd.io/ssa': 'Merge' },
        }),
      )?.tool,
    ).toBe('flux-kustomization');
  });

  it("names the Flux HelmRelease from helm-controller's labels, before Helm's own marks", () => {
    expect(
      appliedBy(
        mp({
          labels: {
            'helm.toolkit.fluxcd.io/name': 'aks',
            'helm.toolkit.fluxcd.io/namespace': 'flux-system',
            'app.kubernetes.io/managed-by': 'Helm',
          },
          annotations: {
            'meta.helm.sh/release-name': 'aks',
            'meta.helm.sh/release-namespace': 'flux-system',
          },
        }),
      ),
    ).toEqual({
      tool: 'flux-helmrelease',
      source: { namespace: 'flux-system', name: 'aks' },
      reconciles: true,
    });
  });

  it('names the Argo CD Application from a tracking id that names this very object', () => {
    const tracked = (id: string) =>
      appliedBy(mp({ annotations: { 'argocd.argoproj.io/tracking-id': id } }));
    expect(
      tracked('clusters:cluster.x-k8s.io/MachinePool:default/c1-pool0'),
    ).toEqual({
      tool: 'argocd',
      source: { name: 'clusters' },
      reconciles: true,
    });
    // Copied from another object (another name, kind, group or namespace): not this object's.
    expect(
      tracked('clusters:cluster.x-k8s.io/MachinePool:default/other'),
    ).toBeUndefined();
    expect(
      tracked('clusters:cluster.x-k8s.io/Cluster:default/c1-pool0'),
    ).toBeUndefined();
    expect(
      tracked('clusters:apps/MachinePool:default/c1-pool0'),
    ).toBeUndefined();
    expect(
      tracked('clusters:cluster.x-k8s.io/MachinePool:other/c1-pool0'),
    ).toBeUndefined();
    expect(tracked('not a tracking id')).toBeUndefined();
    // An Application outside Argo CD's namespace is named <namespace>_<name>.
    expect(
      tracked('team_clusters:cluster.x-k8s.io/MachinePool:default/c1-pool0')
        ?.source,
    ).toEqual({ name: 'team_clusters' });
  });

  it('takes app.kubernetes.io/instance as the Application only when argocd-controller wrote the object', () => {
    const labels = { 'app.kubernetes.io/instance': 'clusters' };
    expect(appliedBy(mp({ labels }))).toBeUndefined();
    expect(
      appliedBy(
        mp({
          labels,
          managedFields: [
            { manager: 'argocd-controller', operation: 'Update' },
          ],
        }),
      ),
    ).toEqual({
      tool: 'argocd',
      source: { name: 'clusters' },
      reconciles: true,
    });
  });

  it('names a plain Helm release, which does not reconcile', () => {
    const a = appliedBy(
      mp({
        labels: { 'app.kubernetes.io/managed-by': 'Helm' },
        annotations: {
          'meta.helm.sh/release-name': 'aks',
          'meta.helm.sh/release-namespace': 'infra',
        },
      }),
    );
    expect(a).toEqual({
      tool: 'helm',
      source: { namespace: 'infra', name: 'aks' },
      reconciles: false,
    });
    // The annotation without Helm's managed-by label is not Helm's mark.
    expect(
      appliedBy(mp({ annotations: { 'meta.helm.sh/release-name': 'aks' } })),
    ).toBeUndefined();
  });

  it('falls back to the field managers of the controllers, never on status-only entries', () => {
    const by = (manager: string, subresource?: string) =>
      appliedBy(
        mp({
          managedFields: [
            { manager: 'capz-backstage', operation: 'Apply' },
            {
              manager,
              operation: 'Apply',
              ...(subresource ? { subresource } : {}),
            },
          ],
        }),
      );
    expect(by('kustomize-controller')).toEqual({
      tool: 'flux-kustomization',
      fieldManager: 'kustomize-controller',
      reconciles: true,
    });
    expect(by('helm-controller')?.tool).toBe('flux-helmrelease');
    expect(by('argocd-controller')?.tool).toBe('argocd');
    expect(by('kustomize-controller', 'status')).toBeUndefined();
  });
});

describe('gitOpsRefusal and describeAppliedBy', () => {
  const ref = { kind: 'MachinePool', namespace: 'default', name: 'c1-pool0' };
  it('names the Kustomization, what its next reconcile does, and where to change it', () => {
    const a = appliedBy(mp({ labels: FLUX }))!;
    expect(
      gitOpsRefusal(a, ref, { operation: 'update', paths: ['spec.replicas'] }),
    ).toBe(
      "Flux's Kustomization flux-system/clusters applies MachinePool default/c1-pool0: it would put spec.replicas back at its next reconcile; change it in Git.",
    );
    expect(gitOpsRefusal(a, ref, { operation: 'delete' })).toBe(
      "Flux's Kustomization flux-system/clusters applies MachinePool default/c1-pool0: it would create it again at its next reconcile; remove it from Git instead.",
    );
  });
  it('names each tool', () => {
    expect(
      describeAppliedBy({
        tool: 'argocd',
        source: { name: 'apps' },
        reconciles: true,
      }),
    ).toBe("Argo CD's Application apps");
    expect(
      describeAppliedBy({
        tool: 'flux-helmrelease',
        source: { namespace: 'ns', name: 'r' },
        reconciles: true,
      }),
    ).toBe("Flux's HelmRelease ns/r");
    expect(
      describeAppliedBy({
        tool: 'flux-kustomization',
        fieldManager: 'kustomize-controller',
        reconciles: true,
      }),
    ).toBe(
      "Flux's kustomize-controller (its field manager kustomize-controller says so; no label names the Kustomization)",
    );
    expect(
      helmWarning(
        {
          tool: 'helm',
          source: { namespace: 'infra', name: 'aks' },
          reconciles: false,
        },
        ref,
      ),
    ).toMatch(
      /^Helm release infra\/aks installed MachinePool default\/c1-pool0: nothing puts/,
    );
  });
});

describe('clusterAppliedBy', () => {
  it('is the first object a reconciling tool applies, else a Helm release, else nothing', () => {
    const plain = mp({ name: 'a' });
    const helm = mp({
      name: 'b',
      labels: { 'app.kubernetes.io/managed-by': 'Helm' },
      annotations: { 'meta.helm.sh/release-name': 'r' },
    });
    const flux = mp({ name: 'c', labels: FLUX });
    expect(clusterAppliedBy([plain])).toBeUndefined();
    expect(clusterAppliedBy([plain, helm])?.appliedBy.tool).toBe('helm');
    const found = clusterAppliedBy([plain, helm, flux]);
    expect(found?.appliedBy.tool).toBe('flux-kustomization');
    expect(found?.object.metadata?.name).toBe('c');
  });
});

describe('clusterKustomization', () => {
  it("is the Kustomization of the Cluster, else of the first other object Flux applies; Argo CD's or an opted-out object's are none", () => {
    const cluster = (labels?: Record<string, string>): ObservedObject => ({
      apiVersion: 'cluster.x-k8s.io/v1beta2',
      kind: 'Cluster',
      metadata: { name: 'c1', namespace: 'default', labels },
    });
    const pools = mp({
      labels: {
        'kustomize.toolkit.fluxcd.io/name': 'pools',
        'kustomize.toolkit.fluxcd.io/namespace': 'flux-system',
      },
    });
    expect(clusterKustomization([cluster(FLUX), pools])).toEqual({
      namespace: 'flux-system',
      name: 'clusters',
    });
    expect(clusterKustomization([cluster(), pools])).toEqual({
      namespace: 'flux-system',
      name: 'pools',
    });
    // Argo CD applies the Cluster: the pool's Kustomization is still where the cluster's Git source is.
    const argo = cluster();
    argo.metadata!.annotations = {
      'argocd.argoproj.io/tracking-id':
        'apps:cluster.x-k8s.io/Cluster:default/c1',
    };
    expect(clusterKustomization([argo, pools])?.name).toBe('pools');
    expect(clusterKustomization([argo])).toBeUndefined();
    // Marked `reconcile: disabled`, Flux skips it (docs/flux-facts.md#flux-annotations).
    expect(
      clusterKustomization([
        cluster({
          ...FLUX,
          'kustomize.toolkit.fluxcd.io/reconcile': 'disabled',
        }),
      ]),
    ).toBeUndefined();
    // Only the name label: not Flux's mark.
    expect(
      clusterKustomization([
        cluster({ 'kustomize.toolkit.fluxcd.io/name': 'clusters' }),
      ]),
    ).toBeUndefined();
  });
});
