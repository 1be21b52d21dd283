/**
 * CAPZ's adoption controllers (docs/capz-aso-facts.md#adopt-annotation and the adoption facts after it): an ASO
 * ManagedCluster or ManagedClustersAgentPool with `sigs.k8s.io/cluster-api-provider-azure-adopt: "true"` gets the CAPI
 * and CAPZ objects that manage it, in its own namespace and named after it. Every create ignores AlreadyExists, so a
 * half-finished adoption resumes (2, "idempotence"). The embedded copies are rewritten to apiVersion v1api20240901
 * here, the newest version this simulated ASO serves (real CAPZ v1.26 writes v1api20250801; see the README).
 */
import type { Cache } from '../runtime/cache.ts';
import { Controller, splitKey, type Key } from '../runtime/controller.ts';
import { apiVersionOf, K } from '../runtime/kinds.ts';
import type { Kube } from '../runtime/kube.ts';
import { ann, controllerOf, groupOf, label } from '../runtime/meta.ts';
import type { Obj } from '../runtime/types.ts';

export const ADOPT = 'sigs.k8s.io/cluster-api-provider-azure-adopt';
const CAPZ = 'infrastructure.cluster.x-k8s.io';

/**
 * Both adoption controllers see creates, and updates only when the adopt annotation changed; never deletions
 * (CAPZ v1.26.0 controllers/agentpooladopt_controller.go lines 46-52, managedclusteradopt_controller.go lines 53-58,
 * `WithEventFilter`). So an agent pool object that loses its AzureASOManagedMachinePool owner (a deleting Cluster
 * leaves its pools to their ManagedCluster, and the garbage collector drops the reference) is not adopted again:
 * that update does not reach the reconciler (docs/real-controllers.md#findings, finding 16).
 */
const ADOPT_EVENTS = {
  update: (old: Obj | undefined, now: Obj) =>
    ann(old, ADOPT) !== ann(now, ADOPT),
  delete: false,
};

/** An error with the message the real controller reports; the reconcile is retried with backoff. */
export class AdoptError extends Error {}

const ownedBy = (o: Obj, kind: string) =>
  (o.metadata.ownerReferences ?? []).some(
    r => groupOf(r.apiVersion) === CAPZ && r.kind === kind,
  );

/** Name and spec only: annotations (credential-from, the adopt annotation), labels and status are dropped (docs/capz-aso-facts.md#adopt-managed-cluster). */
const embed = (o: Obj, apiVersion: string, spec: any) => ({
  apiVersion,
  kind: o.kind,
  metadata: { name: o.metadata.name },
  spec,
});

export class AdoptionControllers {
  readonly controllers: Controller[];
  /** The last error each object's adoption hit, for tests and the demo (the real controller logs it). */
  readonly lastError = new Map<string, string>();
  private readonly kube: Kube;
  private readonly cache: Cache;

  constructor(kube: Kube, cache: Cache, log: (m: string) => void) {
    this.kube = kube;
    this.cache = cache;
    const wrap =
      (kind: string, fn: (key: Key) => Promise<void>) => async (key: Key) => {
        try {
          await fn(key);
          this.lastError.delete(`${kind}/${key}`);
        } catch (e) {
          this.lastError.set(`${kind}/${key}`, (e as Error).message);
          throw e;
        }
      };
    this.controllers = [
      new Controller(
        {
          name: 'capz-managedcluster-adopt',
          kind: 'ManagedCluster',
          predicate: ADOPT_EVENTS,
          reconcile: wrap('ManagedCluster', k => this.adoptManagedCluster(k)),
        },
        cache,
        log,
      ),
      new Controller(
        {
          name: 'capz-agentpool-adopt',
          kind: 'ManagedClustersAgentPool',
          // No watches on other kinds: while its ManagedCluster is not yet owned or the control plane not yet labelled
          // the reconcile fails and is retried with backoff, as the real one is (docs/capz-aso-facts.md#adopt-agent-pool).
          predicate: ADOPT_EVENTS,
          reconcile: wrap('ManagedClustersAgentPool', k =>
            this.adoptAgentPool(k),
          ),
        },
        cache,
        log,
      ),
    ];
  }

  /** 2.1 ManagedCluster adoption. */
  private async adoptManagedCluster(key: Key): Promise<void> {
    const { namespace, name } = splitKey(key);
    const mc = this.cache.get('ManagedCluster', namespace, name);
    if (
      !mc ||
      ann(mc, ADOPT) !== 'true' ||
      ownedBy(mc, 'AzureASOManagedControlPlane')
    )
      return; // step 1
    const ref = (kind: string) => ({ apiGroup: CAPZ, kind, name });
    // Step 2: the Cluster, with references only (no clusterNetwork, topology or labels).
    await this.kube.createIfAbsent(K.Cluster, {
      apiVersion: apiVersionOf(K.Cluster),
      kind: 'Cluster',
      metadata: { name, namespace },
      spec: {
        infrastructureRef: ref('AzureASOManagedCluster'),
        controlPlaneRef: ref('AzureASOManagedControlPlane'),
      },
    });
    // Step 3: the ResourceGroup must already exist as an ASO object.
    const rgName = mc.spec?.owner?.name;
    const rg = rgName
      ? await this.kube.get(K.ResourceGroup, namespace, rgName)
      : undefined;
    if (!rg) {
      throw new AdoptError(
        `failed to get ResourceGroup ${namespace}/${rgName}: resourcegroups.resources.azure.com "${rgName}" not found`,
      );
    }
    // Step 4: the AzureASOManagedCluster embeds the group (name and spec only).
    await this.kube.createIfAbsent(K.AzureASOManagedCluster, {
      apiVersion: apiVersionOf(K.AzureASOManagedCluster),
      kind: 'AzureASOManagedCluster',
      metadata: { name, namespace },
      spec: { resources: [embed(rg, apiVersionOf(K.ResourceGroup), rg.spec)] },
    });
    // Step 5: pools come from AzureASOManagedMachinePools from now on.
    if (mc.spec?.agentPoolProfiles !== undefined) {
      await this.kube.mergePatch(K.ManagedCluster, namespace, name, {
        spec: { agentPoolProfiles: null },
      });
    }
    // Step 6: the AzureASOManagedControlPlane embeds the ManagedCluster without pools; spec.version is not set.
    const { agentPoolProfiles: _dropped, ...spec } = mc.spec ?? {};
    await this.kube.createIfAbsent(K.AzureASOManagedControlPlane, {
      apiVersion: apiVersionOf(K.AzureASOManagedControlPlane),
      kind: 'AzureASOManagedControlPlane',
      metadata: { name, namespace },
      spec: { resources: [embed(mc, apiVersionOf(K.ManagedCluster), spec)] },
    });
  }

  /** 2.2 ManagedClustersAgentPool adoption. */
  private async adoptAgentPool(key: Key): Promise<void> {
    const { namespace, name } = splitKey(key);
    const pool = this.cache.get('ManagedClustersAgentPool', namespace, name);
    if (
      !pool ||
      ann(pool, ADOPT) !== 'true' ||
      ownedBy(pool, 'AzureASOManagedMachinePool')
    )
      return; // step 1
    const { count, ...spec } = pool.spec ?? {}; // step 2: count moves to the MachinePool
    const ownerName = pool.spec?.owner?.name;
    if (!ownerName)
      throw new AdoptError(`agent pool ${namespace}/${name} has no owner`); // step 3
    // Step 4: the ManagedCluster must be controlled by an AzureASOManagedControlPlane of the same name.
    const mc = this.cache.get('ManagedCluster', namespace, ownerName);
    const ctrl = controllerOf(mc);
    if (
      !mc ||
      !ctrl ||
      ctrl.kind !== 'AzureASOManagedControlPlane' ||
      groupOf(ctrl.apiVersion) !== CAPZ ||
      ctrl.name !== ownerName
    ) {
      throw new AdoptError(
        `ManagedCluster ${namespace}/${ownerName} is not owned by any AzureASOManagedControlPlane`,
      );
    }
    // Step 5: the control plane's cluster-name label, set by CAPI; without it the MachinePool cannot be created.
    const cp = this.cache.get(
      'AzureASOManagedControlPlane',
      namespace,
      ownerName,
    );
    const clusterName = label(cp, 'cluster.x-k8s.io/cluster-name');
    if (!clusterName) {
      throw new AdoptError(
        `MachinePool.cluster.x-k8s.io "${name}" is invalid: spec.clusterName: Invalid value: "": spec.clusterName in body should be at least 1 chars long`,
      );
    }
    // Step 6: the MachinePool.
    await this.kube.createIfAbsent(K.MachinePool, {
      apiVersion: apiVersionOf(K.MachinePool),
      kind: 'MachinePool',
      metadata: {
        name,
        namespace,
        ...(pool.spec?.enableAutoScaling
          ? { annotations: { 'cluster.x-k8s.io/replicas-managed-by': 'aks' } }
          : {}),
      },
      spec: {
        clusterName,
        ...(count !== undefined ? { replicas: count } : {}),
        template: {
          spec: {
            clusterName,
            bootstrap: { dataSecretName: '' },
            infrastructureRef: {
              apiGroup: CAPZ,
              kind: 'AzureASOManagedMachinePool',
              name,
            },
          },
        },
      },
    });
    // Step 7: the AzureASOManagedMachinePool embeds the pool copy.
    await this.kube.createIfAbsent(K.AzureASOManagedMachinePool, {
      apiVersion: apiVersionOf(K.AzureASOManagedMachinePool),
      kind: 'AzureASOManagedMachinePool',
      metadata: { name, namespace },
      spec: {
        resources: [
          embed(pool, apiVersionOf(K.ManagedClustersAgentPool), spec),
        ],
      },
    });
  }
}
