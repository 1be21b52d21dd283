/**
 * The CAPI Cluster and MachinePool controllers, as far as the tree and migration need them:
 *  - the infrastructure and control-plane objects get the `cluster.x-k8s.io/cluster-name` label and an owner
 *    reference to the Cluster (docs/capz-aso-facts.md#capi-adds-labels); MachinePools and
 *    their infrastructure objects likewise;
 *  - finalizers `cluster.cluster.x-k8s.io` / `machinepool.cluster.x-k8s.io`; a paused Cluster (spec.paused) is not
 *    reconciled at all, even when it is deleted (docs/migration-procedure.md#step-7): only its Paused condition is
 *    written;
 *  - v1beta2 conditions on the Cluster: InfrastructureReady from the infrastructure's `status.ready` (v1beta1
 *    contract), ControlPlaneAvailable from `status.initialized`/`ready`, RemoteConnectionProbe, and WorkersAvailable
 *    computed from an empty MachinePool list: MachinePools never feed it, the documented gap
 *    (docs/capz-aso-facts.md#cluster-available); Available sums them. MachinePool replicas still count in
 *    `status.workers` (docs/capz-aso-facts.md#cluster-available).
 * Simulated: RemoteConnectionProbe succeeds once the `<cluster>-kubeconfig` Secret exists (no workload cluster).
 */
import type { Cache } from '../runtime/cache.ts';
import {
  Controller,
  keyOf,
  splitKey,
  type Key,
  type Result,
} from '../runtime/controller.ts';
import { K, type KindName } from '../runtime/kinds.ts';
import { isNotFound, type Kube } from '../runtime/kube.ts';
import {
  hasFinalizer,
  isDeleting,
  label,
  ownerRef,
  same,
  setCondition,
} from '../runtime/meta.ts';
import type { Condition, Obj } from '../runtime/types.ts';

const CLUSTER_NAME = 'cluster.x-k8s.io/cluster-name';
const CLUSTER_FINALIZER = 'cluster.cluster.x-k8s.io';
const MP_FINALIZER = 'machinepool.cluster.x-k8s.io';
const KNOWN: Record<string, KindName> = {
  AzureASOManagedCluster: 'AzureASOManagedCluster',
  AzureASOManagedControlPlane: 'AzureASOManagedControlPlane',
  AzureASOManagedMachinePool: 'AzureASOManagedMachinePool',
  AzureManagedCluster: 'AzureManagedCluster',
  AzureManagedControlPlane: 'AzureManagedControlPlane',
  AzureManagedMachinePool: 'AzureManagedMachinePool',
};

type Cond = Omit<Condition, 'lastTransitionTime'>;

export class CapiControllers {
  readonly controllers: Controller[];
  private readonly kube: Kube;
  private readonly cache: Cache;

  constructor(kube: Kube, cache: Cache, log: (m: string) => void) {
    this.kube = kube;
    this.cache = cache;
    const toCluster = (o: Obj) => {
      const c =
        label(o, CLUSTER_NAME) ??
        (o.kind === 'MachinePool' ? o.spec?.clusterName : undefined);
      const byRef = this.cache
        .list('Cluster', o.metadata.namespace)
        .filter(
          cl =>
            cl.spec?.infrastructureRef?.name === o.metadata.name ||
            cl.spec?.controlPlaneRef?.name === o.metadata.name,
        );
      return [
        ...(c ? [`${o.metadata.namespace}/${c}`] : []),
        ...byRef.map(keyOf),
      ];
    };
    const toMachinePool = (o: Obj) =>
      this.cache
        .list('MachinePool', o.metadata.namespace)
        .filter(
          mp =>
            mp.spec?.template?.spec?.infrastructureRef?.name ===
            o.metadata.name,
        )
        .map(keyOf);
    const infra = Object.values(KNOWN);
    this.controllers = [
      new Controller(
        {
          name: 'capi-cluster',
          kind: 'Cluster',
          watches: [
            ...infra.map(k => ({ kind: k, map: toCluster })),
            { kind: 'MachinePool', map: toCluster },
            {
              kind: 'Secret',
              map: (s: Obj) =>
                label(s, CLUSTER_NAME)
                  ? [`${s.metadata.namespace}/${label(s, CLUSTER_NAME)}`]
                  : [],
            },
          ],
          reconcile: key => this.reconcileCluster(key),
        },
        cache,
        log,
      ),
      new Controller(
        {
          name: 'capi-machinepool',
          kind: 'MachinePool',
          watches: [
            ...infra.map(k => ({ kind: k, map: toMachinePool })),
            {
              kind: 'Cluster',
              map: (c: Obj) =>
                this.cache
                  .list('MachinePool', c.metadata.namespace)
                  .filter(mp => mp.spec?.clusterName === c.metadata.name)
                  .map(keyOf),
            },
          ],
          reconcile: key => this.reconcileMachinePool(key),
        },
        cache,
        log,
      ),
    ];
  }

  private ref(
    o: Obj,
    ref: { kind?: string; name?: string } | undefined,
  ): { kind?: KindName; obj?: Obj } {
    const kind = ref?.kind ? KNOWN[ref.kind] : undefined;
    return {
      kind,
      obj:
        kind && ref?.name
          ? this.cache.get(kind, o.metadata.namespace, ref.name)
          : undefined,
    };
  }

  /** Label and owner reference on an object the Cluster or MachinePool references (ensureOwnerRefAndLabel). */
  private async adopt(
    kind: KindName,
    obj: Obj,
    owner: Obj,
    clusterName: string,
  ): Promise<void> {
    const refs = obj.metadata.ownerReferences ?? [];
    const hasRef = refs.some(r => r.uid === owner.metadata.uid);
    if (hasRef && label(obj, CLUSTER_NAME) === clusterName) return;
    // A CAPZ controller reference (e.g. on nothing here) stays controller; CAPI's is added beside it.
    const controlled = refs.some(r => r.controller);
    await this.kube.mergePatch(
      K[kind],
      obj.metadata.namespace,
      obj.metadata.name,
      {
        metadata: {
          labels: { [CLUSTER_NAME]: clusterName },
          ...(hasRef
            ? {}
            : { ownerReferences: [...refs, ownerRef(owner, !controlled)] }),
        },
      },
    );
  }

  private async reconcileCluster(key: Key): Promise<Result | void> {
    const { namespace, name } = splitKey(key);
    const c = this.cache.get('Cluster', namespace, name);
    if (!c) return;
    const gen = c.metadata.generation;
    if (c.spec?.paused) {
      // CAPI does not reconcile paused objects, even when deleted; it only reports that it is paused.
      return this.writeClusterStatus(c, {
        ...(c.status ?? {}),
        conditions: setCondition(c.status?.conditions, {
          type: 'Paused',
          status: 'True',
          reason: 'Paused',
          message: '',
          observedGeneration: gen,
        }),
      });
    }
    const infra = this.ref(c, c.spec?.infrastructureRef);
    const cp = this.ref(c, c.spec?.controlPlaneRef);
    const pools = this.cache
      .list('MachinePool', namespace)
      .filter(mp => mp.spec?.clusterName === name);

    if (isDeleting(c)) {
      // Deletion order: machine pools, control plane, infrastructure; then the finalizer goes.
      let pending = false;
      for (const [kind, obj] of [
        ...pools.map(p => ['MachinePool', p] as const),
        [cp.kind, cp.obj] as const,
        [infra.kind, infra.obj] as const,
      ]) {
        if (!kind || !obj) continue;
        pending = true;
        if (!isDeleting(obj))
          await this.kube.delete(K[kind], namespace, obj.metadata.name);
      }
      if (pending) return { requeueAfterMs: 200 };
      if (hasFinalizer(c, CLUSTER_FINALIZER)) {
        await this.kube
          .mergePatch(K.Cluster, namespace, name, {
            metadata: {
              finalizers: (c.metadata.finalizers ?? []).filter(
                f => f !== CLUSTER_FINALIZER,
              ),
              resourceVersion: c.metadata.resourceVersion,
            },
          })
          .catch(e => {
            if (!isNotFound(e)) throw e;
          });
      }
      return;
    }
    if (!hasFinalizer(c, CLUSTER_FINALIZER)) {
      await this.kube.mergePatch(K.Cluster, namespace, name, {
        metadata: {
          finalizers: [...(c.metadata.finalizers ?? []), CLUSTER_FINALIZER],
        },
      });
    }
    if (infra.kind && infra.obj)
      await this.adopt(infra.kind, infra.obj, c, name);
    if (cp.kind && cp.obj) await this.adopt(cp.kind, cp.obj, c, name);

    const infraReady = infra.obj?.status?.ready === true;
    const cpInit =
      cp.obj?.status?.initialized === true || cp.obj?.status?.ready === true;
    const kubeconfig = this.cache.get(
      'Secret',
      namespace,
      `${name}-kubeconfig`,
    );
    const conds: Cond[] = [
      infraReady
        ? { type: 'InfrastructureReady', status: 'True', reason: 'Ready' }
        : {
            type: 'InfrastructureReady',
            status: 'False',
            reason: infra.obj ? 'NotReady' : 'DoesNotExist',
            message: `${c.spec?.infrastructureRef?.kind ?? 'Infrastructure'} ${
              infra.obj ? 'status.ready is false' : 'does not exist'
            }`,
          },
      cpInit
        ? { type: 'ControlPlaneAvailable', status: 'True', reason: 'Available' }
        : {
            type: 'ControlPlaneAvailable',
            status: 'False',
            reason: cp.obj ? 'NotAvailable' : 'DoesNotExist',
            message: `${c.spec?.controlPlaneRef?.kind ?? 'ControlPlane'} ${
              cp.obj ? 'is not initialized' : 'does not exist'
            }`,
          },
      // MachinePools are not considered (the documented gap): with no MachineDeployments there are "no workers".
      { type: 'WorkersAvailable', status: 'True', reason: 'NoWorkers' },
      cpInit && kubeconfig
        ? {
            type: 'RemoteConnectionProbe',
            status: 'True',
            reason: 'ProbeSucceeded',
          }
        : {
            type: 'RemoteConnectionProbe',
            status: 'False',
            reason: 'ProbeFailed',
            message: 'Remote connection not established yet',
          },
      { type: 'Paused', status: 'False', reason: 'NotPaused' },
    ];
    const failing = conds.filter(
      x => x.type !== 'Paused' && x.status !== 'True',
    );
    conds.push(
      failing.length
        ? {
            type: 'Available',
            status: 'False',
            reason: 'NotAvailable',
            message: failing
              .map(f => `* ${f.type}: ${f.message ?? f.reason}`)
              .join('\n'),
          }
        : { type: 'Available', status: 'True', reason: 'Available' },
    );
    let conditions = c.status?.conditions as Condition[] | undefined;
    for (const x of conds)
      conditions = setCondition(conditions, {
        ...x,
        message: x.message ?? '',
        observedGeneration: gen,
      });
    const sum = (f: (mp: Obj) => number | undefined) =>
      pools.reduce((n, mp) => n + (f(mp) ?? 0), 0);
    return this.writeClusterStatus(c, {
      ...(c.status ?? {}),
      conditions,
      initialization: {
        infrastructureProvisioned: infraReady,
        controlPlaneInitialized: cpInit,
      },
      workers: {
        desiredReplicas: sum(mp => mp.spec?.replicas),
        replicas: sum(mp => mp.status?.replicas),
        readyReplicas: sum(mp => mp.status?.readyReplicas),
        availableReplicas: sum(mp => mp.status?.availableReplicas),
        upToDateReplicas: sum(mp => mp.status?.upToDateReplicas),
      },
      phase: infraReady && cpInit ? 'Provisioned' : 'Provisioning',
      observedGeneration: gen,
    });
  }

  private async writeClusterStatus(
    c: Obj,
    status: Record<string, unknown>,
  ): Promise<void> {
    if (same(c.status, status)) return;
    await this.kube
      .mergePatch(
        K.Cluster,
        c.metadata.namespace,
        c.metadata.name,
        { status },
        'status',
      )
      .catch(e => {
        if (!isNotFound(e)) throw e;
      });
  }

  private async reconcileMachinePool(key: Key): Promise<Result | void> {
    const { namespace, name } = splitKey(key);
    const mp = this.cache.get('MachinePool', namespace, name);
    if (!mp) return;
    const cluster = this.cache.get('Cluster', namespace, mp.spec?.clusterName);
    if (cluster?.spec?.paused) return;
    const infra = this.ref(mp, mp.spec?.template?.spec?.infrastructureRef);
    if (isDeleting(mp)) {
      if (infra.kind && infra.obj) {
        if (!isDeleting(infra.obj))
          await this.kube.delete(
            K[infra.kind],
            namespace,
            infra.obj.metadata.name,
          );
        return { requeueAfterMs: 200 };
      }
      if (hasFinalizer(mp, MP_FINALIZER)) {
        await this.kube
          .mergePatch(K.MachinePool, namespace, name, {
            metadata: {
              finalizers: (mp.metadata.finalizers ?? []).filter(
                f => f !== MP_FINALIZER,
              ),
              resourceVersion: mp.metadata.resourceVersion,
            },
          })
          .catch(e => {
            if (!isNotFound(e)) throw e;
          });
      }
      return;
    }
    if (!cluster) return;
    const patchMeta: Record<string, unknown> = {};
    if (label(mp, CLUSTER_NAME) !== cluster.metadata.name)
      patchMeta.labels = { [CLUSTER_NAME]: cluster.metadata.name };
    if (
      !(mp.metadata.ownerReferences ?? []).some(
        r => r.uid === cluster.metadata.uid,
      )
    ) {
      patchMeta.ownerReferences = [
        ...(mp.metadata.ownerReferences ?? []),
        ownerRef(cluster, false),
      ];
    }
    if (!hasFinalizer(mp, MP_FINALIZER))
      patchMeta.finalizers = [...(mp.metadata.finalizers ?? []), MP_FINALIZER];
    if (Object.keys(patchMeta).length)
      await this.kube.mergePatch(K.MachinePool, namespace, name, {
        metadata: patchMeta,
      });
    if (infra.kind && infra.obj)
      await this.adopt(infra.kind, infra.obj, mp, cluster.metadata.name);

    const ready = infra.obj?.status?.ready === true;
    const replicas: number = infra.obj?.status?.replicas ?? 0;
    const desired: number = mp.spec?.replicas ?? 1;
    let conditions = mp.status?.conditions as Condition[] | undefined;
    conditions = setCondition(
      conditions,
      ready
        ? {
            type: 'InfrastructureReady',
            status: 'True',
            reason: 'Ready',
            message: '',
            observedGeneration: mp.metadata.generation,
          }
        : {
            type: 'InfrastructureReady',
            status: 'False',
            reason: 'NotReady',
            message: `${infra.obj?.kind ?? 'Infrastructure'} is not ready`,
            observedGeneration: mp.metadata.generation,
          },
    );
    conditions = setCondition(
      conditions,
      ready && replicas >= desired
        ? {
            type: 'Available',
            status: 'True',
            reason: 'Available',
            message: '',
            observedGeneration: mp.metadata.generation,
          }
        : {
            type: 'Available',
            status: 'False',
            reason: 'NotAvailable',
            message: `${
              ready ? replicas : 0
            } of ${desired} replicas are available`,
            observedGeneration: mp.metadata.generation,
          },
    );
    const status = {
      ...(mp.status ?? {}),
      conditions,
      initialization: {
        infrastructureProvisioned: ready,
        bootstrapDataSecretCreated: true,
      },
      replicas,
      readyReplicas: ready ? replicas : 0,
      availableReplicas: ready ? replicas : 0,
      upToDateReplicas: ready ? replicas : 0,
      phase: ready
        ? replicas === desired
          ? 'Running'
          : 'ScalingUp'
        : 'Provisioning',
      observedGeneration: mp.metadata.generation,
    };
    if (!same(mp.status, status))
      await this.kube.mergePatch(
        K.MachinePool,
        namespace,
        name,
        { status },
        'status',
      );
  }
}
