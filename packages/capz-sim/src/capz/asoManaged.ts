/**
 * CAPZ's AzureASOManagedCluster / ControlPlane / MachinePool controllers (docs/capz-aso-facts.md#aso-managed-status,
 * docs/capz-aso-facts.md#aso-managed-metadata, docs/capz-aso-facts.md#capz-mutators):
 *  - finalizers (`cluster.cluster.x-k8s.io` on the cluster and machine pool, the control plane's own) and the
 *    `clusterctl.cluster.x-k8s.io/block-move` annotation at the start of normal reconciliation
 *    (docs/capz-aso-facts.md#aso-managed-metadata);
 *  - the owned-kinds annotation: a kind new to spec.resources is first recorded, and only applied on a later
 *    reconcile (docs/capz-aso-facts.md#aso-managed-metadata: "record, then create");
 *  - each embedded ASO object server-side applied (field manager capz-manager, forced) with a controller owner
 *    reference, in the CAPZ object's namespace; owned objects of recorded kinds no longer listed are deleted
 *    (docs/capz-aso-facts.md#aso-managed-metadata);
 *  - mutators: ManagedCluster kubernetesVersion from spec.version, agentPoolProfiles only for the initial create and
 *    never user-set (Incompatible), adminCredentials defaulted to `<cluster>-kubeconfig`; agent pool
 *    orchestratorVersion and count from the MachinePool, autoscaling marks the MachinePool
 *    (docs/capz-aso-facts.md#capz-mutators);
 *  - status: `resources[]` ready only when the ASO object's Ready is True at its current generation; ready /
 *    initialized / version / replicas / controlPlaneEndpoint; the `<cluster>-kubeconfig` Secret
 *    (docs/capz-aso-facts.md#aso-managed-status, docs/capz-aso-facts.md#entra-only-kubeconfig);
 *  - pause (Cluster.spec.paused or `cluster.x-k8s.io/paused`): every embedded object re-applied with
 *    reconcile-policy skip, then block-move removed (docs/capz-aso-facts.md#aso-managed-pause).
 * Simulated because no workload cluster exists: providerIDList is generated from the pool's count instead of read
 * from Nodes (docs/capz-aso-facts.md#aso-managed-status), and Entra-only kubeconfigs get a placeholder token instead of
 * a real Entra token (docs/capz-aso-facts.md#entra-only-kubeconfig).
 */
import type { Cache } from '../runtime/cache.ts';
import {
  Controller,
  keyOf,
  splitKey,
  type Key,
  type Result,
} from '../runtime/controller.ts';
import { K, type Kind, type KindName } from '../runtime/kinds.ts';
import { isNotFound, type Kube } from '../runtime/kube.ts';
import {
  ann,
  b64,
  controllerOf,
  getCondition,
  groupOf,
  hasFinalizer,
  isDeleting,
  label,
  ownerRef,
  same,
  unb64,
} from '../runtime/meta.ts';
import type { Obj } from '../runtime/types.ts';

export const OWNED_KINDS =
  'sigs.k8s.io/cluster-api-provider-azure-owned-aso-kinds';
export const BLOCK_MOVE = 'clusterctl.cluster.x-k8s.io/block-move';
export const PAUSED = 'cluster.x-k8s.io/paused';
export const CLUSTER_NAME = 'cluster.x-k8s.io/cluster-name';
const RECONCILE_POLICY = 'serviceoperator.azure.com/reconcile-policy';
const FIELD_MANAGER = 'capz-manager';

type CapzKind =
  | 'AzureASOManagedCluster'
  | 'AzureASOManagedControlPlane'
  | 'AzureASOManagedMachinePool';
const FINALIZER: Record<CapzKind, string> = {
  AzureASOManagedCluster: 'cluster.cluster.x-k8s.io',
  AzureASOManagedControlPlane:
    'azureasomanagedcontrolplane.infrastructure.cluster.x-k8s.io',
  AzureASOManagedMachinePool: 'cluster.cluster.x-k8s.io',
};

const ASO_KINDS: Record<string, KindName> = {
  'resources.azure.com/ResourceGroup': 'ResourceGroup',
  'containerservice.azure.com/ManagedCluster': 'ManagedCluster',
  'containerservice.azure.com/ManagedClustersAgentPool':
    'ManagedClustersAgentPool',
  // Real CAPZ applies any ASO kind listed in spec.resources as unstructured objects (CAPZ v1.26.0
  // controllers/resource_reconciler.go line 54 `resources []*unstructured.Unstructured`, `Reconcile` line 69); these
  // two are the other kinds the simulated world has CRDs and an ASO for (docs/real-controllers.md#findings, finding 10).
  'network.azure.com/VirtualNetwork': 'VirtualNetwork',
  'network.azure.com/VirtualNetworksSubnet': 'VirtualNetworksSubnet',
};

/** A terminal error: the user's spec conflicts with what CAPZ must set (docs/capz-aso-facts.md#capz-mutators). */
class Incompatible extends Error {}

const kindToken = (r: Obj) =>
  `${r.kind}.${r.apiVersion.split('/')[1]}.${groupOf(r.apiVersion)}`;
const asoKindOf = (r: Obj): KindName | undefined =>
  ASO_KINDS[`${groupOf(r.apiVersion)}/${r.kind}`];

export class AsoManagedControllers {
  readonly controllers: Controller[];
  private readonly kube: Kube;
  private readonly cache: Cache;
  private readonly log: (m: string) => void;

  constructor(kube: Kube, cache: Cache, log: (m: string) => void) {
    this.kube = kube;
    this.cache = cache;
    this.log = log;
    // Any change to an owned ASO object, the owning Cluster or MachinePool reconciles the CAPZ object.
    const byController = (kind: CapzKind) => (o: Obj) => {
      const c = controllerOf(o);
      return c?.kind === kind ? [`${o.metadata.namespace}/${c.name}`] : [];
    };
    const byClusterLabel = (kind: CapzKind) => (o: Obj) =>
      this.cache
        .list(kind, o.metadata.namespace)
        .filter(
          x =>
            label(x, CLUSTER_NAME) ===
            (o.kind === 'Cluster' ? o.metadata.name : label(o, CLUSTER_NAME)),
        )
        .map(keyOf);
    const asoWatches = (kind: CapzKind) =>
      (
        [
          'ResourceGroup',
          'ManagedCluster',
          'ManagedClustersAgentPool',
          'VirtualNetwork',
          'VirtualNetworksSubnet',
        ] as const
      ).map(k => ({ kind: k as KindName, map: byController(kind) }));
    this.controllers = (
      [
        'AzureASOManagedCluster',
        'AzureASOManagedControlPlane',
        'AzureASOManagedMachinePool',
      ] as const
    ).map(
      kind =>
        new Controller(
          {
            name: `capz-${kind}`,
            kind,
            watches: [
              ...asoWatches(kind),
              { kind: 'Cluster', map: byClusterLabel(kind) },
              { kind: 'MachinePool', map: byClusterLabel(kind) },
              // The cluster copies the control plane's endpoint; the control plane builds pools from machine pools.
              {
                kind: 'AzureASOManagedControlPlane',
                map: byClusterLabel(kind),
              },
              { kind: 'AzureASOManagedMachinePool', map: byClusterLabel(kind) },
              {
                kind: 'Secret',
                map: o =>
                  kind === 'AzureASOManagedControlPlane'
                    ? this.cache.list(kind, o.metadata.namespace).map(keyOf)
                    : [],
              },
            ],
            reconcile: key => this.reconcile(kind, key),
          },
          cache,
          log,
        ),
    );
  }

  /** The owning CAPI Cluster: through the owner reference CAPI sets (and, for pools, their MachinePool). */
  private clusterOf(
    kind: CapzKind,
    o: Obj,
  ): { cluster?: Obj; machinePool?: Obj } {
    const ns = o.metadata.namespace;
    if (kind === 'AzureASOManagedMachinePool') {
      const mpRef = (o.metadata.ownerReferences ?? []).find(
        r => r.kind === 'MachinePool',
      );
      const machinePool = mpRef
        ? this.cache.get('MachinePool', ns, mpRef.name)
        : undefined;
      return {
        machinePool,
        cluster: machinePool
          ? this.cache.get('Cluster', ns, machinePool.spec.clusterName)
          : undefined,
      };
    }
    const ref = (o.metadata.ownerReferences ?? []).find(
      r => r.kind === 'Cluster',
    );
    return {
      cluster: ref ? this.cache.get('Cluster', ns, ref.name) : undefined,
    };
  }

  private async reconcile(kind: CapzKind, key: Key): Promise<Result | void> {
    const { namespace, name } = splitKey(key);
    const o = this.cache.get(kind, namespace, name);
    if (!o) return;
    const { cluster, machinePool } = this.clusterOf(kind, o);
    if (isDeleting(o)) return this.reconcileDelete(kind, o, cluster);
    // Waiting for the Cluster controller to set the owner reference, as CAPZ does.
    if (!cluster || (kind === 'AzureASOManagedMachinePool' && !machinePool))
      return;
    const resources: Obj[] = (o.spec?.resources ?? []).map((r: Obj) => ({
      ...r,
      metadata: { ...r.metadata, namespace },
    }));

    if (cluster.spec?.paused || ann(o, PAUSED) !== undefined)
      return this.pause(o, resources);

    // Finalizer and block-move before anything else.
    const annotations: Record<string, string | null> = {};
    if (ann(o, BLOCK_MOVE) === undefined) annotations[BLOCK_MOVE] = 'true';
    // Record every kind before creating objects of it, so none can be orphaned.
    const recorded = (ann(o, OWNED_KINDS) ?? '').split(';').filter(Boolean);
    const missing = [...new Set(resources.map(kindToken))].filter(
      t => !recorded.includes(t),
    );
    if (missing.length)
      annotations[OWNED_KINDS] = [...recorded, ...missing].join(';');
    if (Object.keys(annotations).length || !hasFinalizer(o, FINALIZER[kind])) {
      await this.kube.mergePatch(K[kind], namespace, name, {
        metadata: {
          annotations,
          finalizers: [
            ...new Set([...(o.metadata.finalizers ?? []), FINALIZER[kind]]),
          ],
        },
      });
      if (missing.length) return; // applied on the next reconcile (the patch above triggers it)
    }

    let statusPatch: Record<string, unknown> = {};
    try {
      for (const r of resources) {
        const asoKind = asoKindOf(r);
        if (!asoKind) continue; // kinds this simulation has no CRD for are recorded but not applied
        const mutated = this.mutate(kind, o, r, cluster, machinePool);
        await this.kube.apply(
          K[asoKind],
          {
            ...mutated,
            metadata: { ...mutated.metadata, ownerReferences: [ownerRef(o)] },
          },
          FIELD_MANAGER,
        );
      }
      await this.deleteUnlisted(o, resources, recorded);
      statusPatch = await this.status(kind, o, resources, cluster, machinePool);
    } catch (e) {
      if (!(e instanceof Incompatible)) throw e;
      this.log(`${kind} ${key}: ${e.message}`);
      statusPatch = { ready: false };
    }
    const next = { ...(o.status ?? {}), ...statusPatch };
    if (!same(o.status, next))
      await this.kube.mergePatch(
        K[kind],
        namespace,
        name,
        { status: statusPatch },
        'status',
      );
  }

  /** 1.5: what CAPZ sets on the embedded objects. */
  private mutate(
    kind: CapzKind,
    o: Obj,
    r: Obj,
    cluster: Obj,
    machinePool?: Obj,
  ): Obj {
    const spec = structuredClone(r.spec ?? {});
    if (kind === 'AzureASOManagedControlPlane' && r.kind === 'ManagedCluster') {
      if (o.spec?.version)
        spec.kubernetesVersion = String(o.spec.version).replace(/^v/, '');
      if (spec.agentPoolProfiles !== undefined) {
        throw new Incompatible(
          'ManagedCluster spec.agentPoolProfiles must not be set: pools come from AzureASOManagedMachinePools',
        );
      }
      const live = this.cache.get(
        'ManagedCluster',
        o.metadata.namespace,
        r.metadata.name,
      );
      if (!(live?.status?.agentPoolProfiles ?? []).length) {
        // Initial create only: AKS requires pools in the first PUT (ASO issue #2791).
        const pools = this.cache
          .list('AzureASOManagedMachinePool', o.metadata.namespace)
          .filter(p => label(p, CLUSTER_NAME) === cluster.metadata.name)
          .flatMap(p =>
            (p.spec?.resources ?? [])
              .filter((x: Obj) => x.kind === 'ManagedClustersAgentPool')
              .map((x: Obj) => ({ p, x })),
          )
          .map(({ p, x }: { p: Obj; x: Obj }) => {
            const mpRef = ((p as Obj).metadata.ownerReferences ?? []).find(
              ref => ref.kind === 'MachinePool',
            );
            const mp = mpRef
              ? this.cache.get('MachinePool', o.metadata.namespace, mpRef.name)
              : undefined;
            const { owner: _o, azureName, ...pool } = x.spec ?? {};
            return {
              ...pool,
              name: azureName ?? x.metadata.name,
              count: mp?.spec?.replicas ?? pool.count ?? 1,
            };
          });
        if (pools.length) spec.agentPoolProfiles = pools;
      }
      const secrets = spec.operatorSpec?.secrets ?? {};
      if (!secrets.userCredentials && !secrets.adminCredentials) {
        spec.operatorSpec = {
          ...spec.operatorSpec,
          secrets: {
            ...secrets,
            adminCredentials: {
              name: `${cluster.metadata.name}-kubeconfig`,
              key: 'value',
            },
          },
        };
      }
    }
    if (
      kind === 'AzureASOManagedMachinePool' &&
      r.kind === 'ManagedClustersAgentPool' &&
      machinePool
    ) {
      const version = machinePool.spec?.template?.spec?.version;
      if (version) spec.orchestratorVersion = String(version).replace(/^v/, '');
      const live = this.cache.get(
        'ManagedClustersAgentPool',
        o.metadata.namespace,
        r.metadata.name,
      );
      const autoscaled =
        spec.enableAutoScaling === true && live?.status?.count !== undefined;
      if (!autoscaled && machinePool.spec?.replicas !== undefined)
        spec.count = machinePool.spec.replicas;
    }
    return { ...r, spec };
  }

  /** Owned objects of recorded kinds that spec.resources no longer lists are deleted (group, kind, name; docs/capz-aso-facts.md#aso-managed-metadata). */
  private async deleteUnlisted(
    o: Obj,
    resources: Obj[],
    recorded: string[],
  ): Promise<void> {
    for (const token of recorded) {
      const [k, , ...g] = token.split('.');
      const asoKind = ASO_KINDS[`${g.join('.')}/${k}`];
      if (!asoKind) continue;
      for (const live of this.cache.list(asoKind, o.metadata.namespace)) {
        if (controllerOf(live)?.uid !== o.metadata.uid || isDeleting(live))
          continue;
        if (
          !resources.some(
            r =>
              r.kind === live.kind &&
              groupOf(r.apiVersion) === groupOf(live.apiVersion) &&
              r.metadata.name === live.metadata.name,
          )
        ) {
          await this.kube.delete(
            K[asoKind],
            o.metadata.namespace,
            live.metadata.name,
          );
        }
      }
    }
  }

  private resourceStatuses(o: Obj, resources: Obj[]) {
    const recorded = (ann(o, OWNED_KINDS) ?? '').split(';');
    return resources.map(r => {
      const asoKind = asoKindOf(r);
      const live = asoKind
        ? this.cache.get(asoKind, o.metadata.namespace, r.metadata.name)
        : undefined;
      const ready = getCondition(live, 'Ready');
      return {
        resource: {
          group: groupOf(r.apiVersion),
          version: r.apiVersion.split('/')[1],
          kind: r.kind,
          name: r.metadata.name,
        },
        ready:
          recorded.includes(kindToken(r)) &&
          !!live &&
          !isDeleting(live) &&
          ready?.status === 'True' &&
          (ready.observedGeneration ?? 0) >= (live.metadata.generation ?? 0),
      };
    });
  }

  private async status(
    kind: CapzKind,
    o: Obj,
    resources: Obj[],
    cluster: Obj,
    machinePool?: Obj,
  ): Promise<Record<string, unknown>> {
    const ns = o.metadata.namespace;
    const statuses = this.resourceStatuses(o, resources);
    const allReady = statuses.every(s => s.ready);
    if (kind === 'AzureASOManagedCluster') {
      const cpRef = cluster.spec?.controlPlaneRef;
      const cp = cpRef
        ? this.cache.get('AzureASOManagedControlPlane', ns, cpRef.name)
        : undefined;
      const endpoint = cp?.status?.controlPlaneEndpoint;
      if (
        allReady &&
        endpoint?.host &&
        !same(o.spec?.controlPlaneEndpoint, endpoint)
      ) {
        await this.kube.mergePatch(
          K.AzureASOManagedCluster,
          ns,
          o.metadata.name,
          { spec: { controlPlaneEndpoint: endpoint } },
        );
      }
      return { resources: statuses, ready: allReady && !!endpoint?.host };
    }
    if (kind === 'AzureASOManagedControlPlane') {
      const mcRes = resources.find(r => r.kind === 'ManagedCluster');
      const mc = mcRes
        ? this.cache.get('ManagedCluster', ns, mcRes.metadata.name)
        : undefined;
      const host = allReady
        ? mc?.status?.privateFQDN ?? mc?.status?.fqdn
        : undefined;
      if (host && mc) await this.reconcileKubeconfig(o, cluster, mc);
      const version = mc?.status?.currentKubernetesVersion
        ? `v${mc.status.currentKubernetesVersion}`
        : undefined;
      return {
        resources: statuses,
        ...(host ? { controlPlaneEndpoint: { host, port: 443 } } : {}),
        ready: !!host,
        initialized: !!host,
        ...(version ? { version } : {}),
      };
    }
    // AzureASOManagedMachinePool
    const poolRes = resources.find(r => r.kind === 'ManagedClustersAgentPool');
    const pool = poolRes
      ? this.cache.get('ManagedClustersAgentPool', ns, poolRes.metadata.name)
      : undefined;
    const mc = pool
      ? this.cache.get('ManagedCluster', ns, pool.spec?.owner?.name)
      : undefined;
    const nodeRG = mc?.status?.nodeResourceGroup;
    if (!allReady || !nodeRG || !pool)
      return { resources: statuses, ready: false };
    const count: number = pool.status?.count ?? 0;
    const azureName = pool.spec?.azureName ?? pool.metadata.name;
    const sub = String(mc?.status?.id ?? '').split('/')[2] ?? 'sub';
    const providerIDList = Array.from(
      { length: count },
      (_, i) =>
        `azure:///subscriptions/${sub}/resourceGroups/${nodeRG.toLowerCase()}/providers/Microsoft.Compute/virtualMachineScaleSets/aks-${azureName}-vmss/virtualMachines/${i}`,
    );
    if (!same(o.spec?.providerIDList ?? [], providerIDList)) {
      await this.kube.mergePatch(
        K.AzureASOManagedMachinePool,
        ns,
        o.metadata.name,
        { spec: { providerIDList } },
      );
    }
    if (pool.spec?.enableAutoScaling && machinePool) {
      const patch: Record<string, unknown> = {};
      if (machinePool.spec?.replicas !== count)
        patch.spec = { replicas: count };
      if (ann(machinePool, 'cluster.x-k8s.io/replicas-managed-by') !== 'aks')
        patch.metadata = {
          annotations: { 'cluster.x-k8s.io/replicas-managed-by': 'aks' },
        };
      if (Object.keys(patch).length)
        await this.kube.mergePatch(
          K.MachinePool,
          ns,
          machinePool.metadata.name,
          patch,
        );
    } else if (
      machinePool &&
      ann(machinePool, 'cluster.x-k8s.io/replicas-managed-by') === 'aks'
    ) {
      // Autoscaling off: CAPZ hands the count back to the MachinePool by removing the annotation it set (v1.26.0
      // pkg/mutators/azureasomanagedmachinepool.go reconcileAutoscaling, the `delete` at line 124); another
      // manager's value is left alone.
      await this.kube.mergePatch(K.MachinePool, ns, machinePool.metadata.name, {
        metadata: {
          annotations: { 'cluster.x-k8s.io/replicas-managed-by': null },
        },
      });
    }
    return { resources: statuses, replicas: count, ready: true };
  }

  /** `<cluster>-kubeconfig` (key `value`) from the ASO-exported Secret; adminCredentials wins over userCredentials. */
  private async reconcileKubeconfig(
    cp: Obj,
    cluster: Obj,
    mc: Obj,
  ): Promise<void> {
    const secrets = mc.spec?.operatorSpec?.secrets ?? {};
    const src = secrets.adminCredentials ?? secrets.userCredentials;
    if (!src) return;
    const exported = this.cache.get('Secret', cp.metadata.namespace, src.name);
    let kubeconfig = unb64(exported?.data?.[src.key]);
    if (!kubeconfig) return;
    if (mc.status?.aadProfile?.managed && mc.status?.disableLocalAccounts) {
      // CAPZ swaps the kubelogin exec plugin for an Entra token; simulated with a placeholder token.
      kubeconfig = kubeconfig.replace(
        /    exec:[\s\S]*$/,
        '    token: simulated-entra-token\n',
      );
    }
    const name = `${cluster.metadata.name}-kubeconfig`;
    const current = this.cache.get('Secret', cp.metadata.namespace, name);
    if (
      unb64(current?.data?.value) === kubeconfig &&
      controllerOf(current)?.uid === cp.metadata.uid
    )
      return;
    await this.kube.apply(
      K.Secret,
      {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: {
          name,
          namespace: cp.metadata.namespace,
          labels: { [CLUSTER_NAME]: cluster.metadata.name },
          ownerReferences: [ownerRef(cp)],
        },
        // No type: with the default adminCredentials ASO has already created this Secret (Opaque; type is immutable).
        data: { value: b64(kubeconfig) },
      },
      FIELD_MANAGER,
    );
  }

  /** 1.4 pause: embedded objects to reconcile-policy skip, then block-move removed. */
  private async pause(o: Obj, resources: Obj[]): Promise<void> {
    for (const r of resources) {
      const asoKind = asoKindOf(r);
      if (!asoKind) continue;
      const userPolicy = r.metadata.annotations?.[RECONCILE_POLICY];
      if (userPolicy && userPolicy !== 'skip') {
        this.log(
          `${o.kind} ${keyOf(
            o,
          )}: Incompatible: reconcile-policy ${userPolicy} set in spec.resources`,
        );
        return;
      }
      const live = this.cache.get(
        asoKind,
        o.metadata.namespace,
        r.metadata.name,
      );
      if (live && ann(live, RECONCILE_POLICY) === 'skip') continue;
      await this.kube.apply(
        K[asoKind],
        {
          ...r,
          metadata: {
            ...r.metadata,
            annotations: {
              ...r.metadata.annotations,
              [RECONCILE_POLICY]: 'skip',
            },
            ownerReferences: [ownerRef(o)],
          },
        },
        FIELD_MANAGER,
      );
    }
    if (ann(o, BLOCK_MOVE) !== undefined) {
      await this.kube.mergePatch(
        K[o.kind as CapzKind] as Kind,
        o.metadata.namespace,
        o.metadata.name,
        { metadata: { annotations: { [BLOCK_MOVE]: null } } },
      );
    }
  }

  /**
   * Deleting the CAPZ object deletes the ASO objects it owns first, then drops its finalizer. Except an
   * AzureASOManagedMachinePool whose Cluster is being deleted: it drops its finalizer and leaves its
   * ManagedClustersAgentPool alone, "deleted with the rest of the ManagedCluster" (CAPZ v1.26.0
   * controllers/azureasomanagedmachinepool_controller.go `reconcileDelete`): AKS would refuse to delete the last
   * System pool, and the pool object goes by garbage collection once its ManagedCluster (an owner ASO gave it) is gone.
   */
  private async reconcileDelete(
    kind: CapzKind,
    o: Obj,
    cluster: Obj | undefined,
  ): Promise<Result | void> {
    if (!hasFinalizer(o, FINALIZER[kind])) return;
    if (kind === 'AzureASOManagedMachinePool' && cluster && isDeleting(cluster))
      return this.dropFinalizer(kind, o);
    let remaining = 0;
    for (const asoKind of [
      'ManagedClustersAgentPool',
      'ManagedCluster',
      'ResourceGroup',
    ] as const) {
      for (const live of this.cache.list(asoKind, o.metadata.namespace)) {
        if (controllerOf(live)?.uid !== o.metadata.uid) continue;
        remaining++;
        if (!isDeleting(live))
          await this.kube.delete(
            K[asoKind],
            o.metadata.namespace,
            live.metadata.name,
          );
      }
    }
    if (remaining) return { requeueAfterMs: 200 };
    return this.dropFinalizer(kind, o);
  }

  private async dropFinalizer(kind: CapzKind, o: Obj): Promise<void> {
    try {
      await this.kube.mergePatch(
        K[kind],
        o.metadata.namespace,
        o.metadata.name,
        {
          metadata: {
            finalizers: (o.metadata.finalizers ?? []).filter(
              f => f !== FINALIZER[kind],
            ),
            resourceVersion: o.metadata.resourceVersion,
          },
        },
      );
    } catch (e) {
      if (!isNotFound(e)) throw e;
    }
  }
}
