/**
 * The CAPI Cluster and MachinePool controllers, as far as the tree and migration need them:
 *  - the infrastructure and control-plane objects get the `cluster.x-k8s.io/cluster-name` label and an owner
 *    reference to the Cluster (docs/capz-aso-facts.md#capi-adds-labels); MachinePools and
 *    their infrastructure objects likewise;
 *  - finalizers `cluster.cluster.x-k8s.io` / `machinepool.cluster.x-k8s.io`; a paused Cluster (spec.paused) is not
 *    reconciled at all, even when it is deleted (docs/migration-procedure.md#step-7): only its Paused condition is
 *    written;
 *  - the 16 v1beta2 conditions real CAPI v1.13.3 writes on a Cluster (internal/controllers/cluster/
 *    cluster_controller_status.go): InfrastructureReady from the infrastructure's `status.ready` (v1beta1
 *    contract), ControlPlaneInitialized/ControlPlaneAvailable from `status.initialized`/`ready` (a missing object is
 *    `ObjectDoesNotExist`, or `ObjectDeleted` once it had been ready), RemoteConnectionProbe, Deleting, and
 *    WorkersAvailable computed from an empty MachinePool list: MachinePools never feed it, the documented gap
 *    (docs/capz-aso-facts.md#cluster-available); Available sums them. `status.workers` is computed from the same
 *    empty list (v1.13.3 `setWorkersReplicas(..., clusterv1.MachinePoolList{}, ...)`, line 74): with no
 *    MachineDeployments it stays `{}` (docs/real-controllers.md#findings, finding 17);
 *  - deletion one phase at a time (internal/controllers/cluster/cluster_controller.go `reconcileDelete`): the
 *    MachinePools, waited for until none is left, then the control plane, then the infrastructure cluster.
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
  getCondition,
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
    // The descendants CAPI lists by the cluster-name label (getDescendants); CAPI's MachinePool defaulting webhook
    // sets that label from spec.clusterName (internal/webhooks/machinepool.go `Default`, CAPI v1.13.3), which this
    // simulation has no webhook for, so spec.clusterName counts too.
    const pools = this.cache
      .list('MachinePool', namespace)
      .filter(
        mp => label(mp, CLUSTER_NAME) === name || mp.spec?.clusterName === name,
      );

    let deletingState: { reason: string; message: string } | undefined;
    let requeue: Result | undefined;
    if (isDeleting(c)) {
      const d = await this.reconcileDelete(c, pools, cp, infra);
      if (d === 'done') return;
      deletingState = d.state;
      requeue = d.requeue;
    } else if (!hasFinalizer(c, CLUSTER_FINALIZER)) {
      await this.kube.mergePatch(K.Cluster, namespace, name, {
        metadata: {
          finalizers: [...(c.metadata.finalizers ?? []), CLUSTER_FINALIZER],
        },
      });
    }
    if (!isDeleting(c)) {
      if (infra.kind && infra.obj)
        await this.adopt(infra.kind, infra.obj, c, name);
      if (cp.kind && cp.obj) await this.adopt(cp.kind, cp.obj, c, name);
    }

    const conds = this.clusterConditions(c, infra, cp, deletingState);
    let conditions = c.status?.conditions as Condition[] | undefined;
    for (const x of conds)
      conditions = setCondition(conditions, {
        ...x,
        message: x.message ?? '',
        observedGeneration: gen,
      });
    const infraReady = infra.obj?.status?.ready === true;
    const cpInit =
      cp.obj?.status?.initialized === true || cp.obj?.status?.ready === true;
    await this.writeClusterStatus(c, {
      ...(c.status ?? {}),
      conditions,
      initialization: {
        // Once true, CAPI keeps them (a deleted infrastructure or control plane is then `ObjectDeleted`).
        infrastructureProvisioned:
          infraReady ||
          c.status?.initialization?.infrastructureProvisioned === true,
        controlPlaneInitialized:
          cpInit || c.status?.initialization?.controlPlaneInitialized === true,
      },
      workers: {},
      // cluster_controller_status.go `setPhase`: Deleting wins over everything.
      phase: isDeleting(c)
        ? 'Deleting'
        : infraReady && cpInit
        ? 'Provisioned'
        : 'Provisioning',
      observedGeneration: gen,
    });
    return requeue;
  }

  /**
   * CAPI v1.13.3 internal/controllers/cluster/cluster_controller.go `reconcileDelete`, one phase at a time: the
   * descendants the Cluster owns (here MachinePools) are deleted first and waited for until none is left
   * (`WaitingForWorkersDeletion`, requeue), then the control plane (`WaitingForControlPlaneDeletion`), then the
   * infrastructure cluster (`WaitingForInfrastructureDeletion`); only then the finalizer goes. Deleting everything at
   * once (what this simulation did before) let a legacy control plane take `<cluster>-aso-secret` with it while its
   * pools still needed it (docs/real-controllers.md#findings, finding 9).
   */
  private async reconcileDelete(
    c: Obj,
    pools: Obj[],
    cp: { kind?: KindName; obj?: Obj },
    infra: { kind?: KindName; obj?: Obj },
  ): Promise<
    'done' | { state: { reason: string; message: string }; requeue?: Result }
  > {
    const namespace = c.metadata.namespace;
    // filterOwnedDescendants: only the children with an owner reference to the Cluster are deleted by it.
    for (const mp of pools) {
      const owned = (mp.metadata.ownerReferences ?? []).some(
        r => r.uid === c.metadata.uid,
      );
      if (owned && !isDeleting(mp))
        await this.kube.delete(K.MachinePool, namespace, mp.metadata.name);
    }
    if (pools.length) {
      // objectsPendingDeleteNames: "* MachinePools: a, b"; requeued after deleteRequeueAfter (5 s upstream, shorter
      // here, where a MachinePool event also wakes the Cluster).
      return {
        state: {
          reason: 'WaitingForWorkersDeletion',
          message: `* MachinePools: ${pools
            .map(p => p.metadata.name)
            .sort()
            .join(', ')}`,
        },
        requeue: { requeueAfterMs: 500 },
      };
    }
    for (const [phase, ref, part] of [
      ['ControlPlane', c.spec?.controlPlaneRef, cp],
      ['Infrastructure', c.spec?.infrastructureRef, infra],
    ] as const) {
      if (!part.kind || !part.obj) continue;
      if (!isDeleting(part.obj))
        await this.kube
          .delete(K[part.kind], namespace, part.obj.metadata.name)
          .catch(e => {
            if (!isNotFound(e)) throw e;
          });
      // Upstream returns without a requeue and waits for the watch on the referenced object.
      return {
        state: {
          reason: `WaitingFor${phase}Deletion`,
          message: `Waiting for ${ref?.kind} to be deleted`,
        },
      };
    }
    if (hasFinalizer(c, CLUSTER_FINALIZER)) {
      await this.kube
        .mergePatch(K.Cluster, namespace, c.metadata.name, {
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
    return 'done';
  }

  /**
   * The 16 v1beta2 conditions real CAPI v1.13.3 writes on a Cluster (internal/controllers/cluster/
   * cluster_controller_status.go `updateStatus`; docs/real-controllers.md#findings, finding 2), with its reasons and
   * messages (api/core/v1beta2/cluster_types.go, condition_consts.go). Without Machines or MachineDeployments (AKS
   * has neither, and CAPI passes an empty MachinePool list to the worker conditions) the machine, rollout, scaling
   * and remediation conditions are constant. Paused is written by the paused branch above and here as NotPaused.
   */
  private clusterConditions(
    c: Obj,
    infra: { kind?: KindName; obj?: Obj },
    cp: { kind?: KindName; obj?: Obj },
    deletingState: { reason: string; message: string } | undefined,
  ): Cond[] {
    const deleting = isDeleting(c);
    const infraKind = c.spec?.infrastructureRef?.kind ?? 'Infrastructure';
    const cpKind = c.spec?.controlPlaneRef?.kind ?? 'ControlPlane';
    const wasProvisioned =
      c.status?.initialization?.infrastructureProvisioned === true;
    const wasInitialized =
      c.status?.initialization?.controlPlaneInitialized === true;
    const infraReady = infra.obj?.status?.ready === true;
    const cpInit =
      cp.obj?.status?.initialized === true || cp.obj?.status?.ready === true;
    const kubeconfig = this.cache.get(
      'Secret',
      c.metadata.namespace,
      `${c.metadata.name}-kubeconfig`,
    );
    // setInfrastructureReadyCondition / setControlPlaneAvailableCondition: the missing object is ObjectDeleted when
    // it had been provisioned/initialized, else ObjectDoesNotExist (finding 1).
    const missing = (kind: string, was: boolean, type: string): Cond =>
      was
        ? {
            type,
            status: 'False',
            reason: 'ObjectDeleted',
            message: deleting
              ? `${kind} has been deleted`
              : `${kind} has been deleted while the cluster still exists`,
          }
        : {
            type,
            status: 'False',
            reason: 'ObjectDoesNotExist',
            message: `${kind} does not exist`,
          };
    // CAPZ's objects report no Ready/Available condition, so CAPI falls back to the contract fields
    // (`infrastructureReadyFallBackMessage`, `controlPlaneAvailableFallBackMessage`).
    const infraCond: Cond = !infra.obj
      ? missing(infraKind, wasProvisioned, 'InfrastructureReady')
      : infraReady
      ? { type: 'InfrastructureReady', status: 'True', reason: 'Ready' }
      : {
          type: 'InfrastructureReady',
          status: 'False',
          reason: 'NotReady',
          message: `${infraKind} status.initialization.provisioned is false`,
        };
    const cpCond: Cond = !cp.obj
      ? missing(cpKind, wasInitialized, 'ControlPlaneAvailable')
      : cpInit
      ? { type: 'ControlPlaneAvailable', status: 'True', reason: 'Available' }
      : {
          type: 'ControlPlaneAvailable',
          status: 'False',
          reason: 'NotAvailable',
          message: `${cpKind} status.initialization.controlPlaneInitialized is false`,
        };
    // setControlPlaneInitializedCondition: a no-op once True.
    const prevInit = getCondition(c, 'ControlPlaneInitialized');
    const cpInitCond: Cond =
      prevInit?.status === 'True'
        ? {
            type: 'ControlPlaneInitialized',
            status: 'True',
            reason: prevInit.reason,
          }
        : !cp.obj
        ? {
            type: 'ControlPlaneInitialized',
            status: 'Unknown',
            reason: 'ObjectDoesNotExist',
            message: `${cpKind} does not exist`,
          }
        : c.status?.initialization?.controlPlaneInitialized === true || cpInit
        ? {
            type: 'ControlPlaneInitialized',
            status: 'True',
            reason: 'Initialized',
          }
        : {
            type: 'ControlPlaneInitialized',
            status: 'False',
            reason: 'NotInitialized',
            message: 'Control plane not yet initialized',
          };
    const deletingCond: Cond = deleting
      ? {
          type: 'Deleting',
          status: 'True',
          reason: deletingState?.reason ?? 'DeletionCompleted',
          message: deletingState?.message ?? 'Deletion completed',
        }
      : { type: 'Deleting', status: 'False', reason: 'NotDeleting' };
    const probe: Cond =
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
          };
    // MachinePools are not considered (the documented gap): with no MachineDeployments there are "no workers".
    const workers: Cond = {
      type: 'WorkersAvailable',
      status: 'True',
      reason: 'NoWorkers',
    };
    const conds: Cond[] = [
      infraCond,
      cpInitCond,
      cpCond,
      workers,
      probe,
      deletingCond,
      { type: 'Paused', status: 'False', reason: 'NotPaused' },
      {
        type: 'ControlPlaneMachinesReady',
        status: 'True',
        reason: 'NoReplicas',
      },
      { type: 'WorkerMachinesReady', status: 'True', reason: 'NoReplicas' },
      {
        type: 'ControlPlaneMachinesUpToDate',
        status: 'True',
        reason: 'NoReplicas',
      },
      { type: 'WorkerMachinesUpToDate', status: 'True', reason: 'NoReplicas' },
      { type: 'RollingOut', status: 'False', reason: 'NotRollingOut' },
      { type: 'ScalingUp', status: 'False', reason: 'NotScalingUp' },
      { type: 'ScalingDown', status: 'False', reason: 'NotScalingDown' },
      { type: 'Remediating', status: 'False', reason: 'NotRemediating' },
    ];
    // setAvailableCondition: a summary of Deleting (negative polarity), RemoteConnectionProbe, InfrastructureReady,
    // ControlPlaneAvailable and WorkersAvailable; while deleting, a deleted or missing infrastructure/control plane
    // is only informational (clusterConditionCustomMergeStrategy).
    const failing = [deletingCond, probe, infraCond, cpCond, workers].filter(
      x =>
        (x.type === 'Deleting' ? x.status !== 'False' : x.status !== 'True') &&
        !(
          deleting &&
          (x.type === 'InfrastructureReady' ||
            x.type === 'ControlPlaneAvailable') &&
          (x.reason === 'ObjectDeleted' || x.reason === 'ObjectDoesNotExist')
        ),
    );
    conds.push(
      failing.length
        ? {
            type: 'Available',
            status: 'False',
            reason: 'NotAvailable',
            message: failing
              .map(f => `* ${f.type}: ${f.message || f.reason}`)
              .join('\n'),
          }
        : { type: 'Available', status: 'True', reason: 'Available' },
    );
    return conds;
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
    // CAPI copies status.replicas from the infrastructure only while it is ready, and keeps the last count otherwise:
    // an AKS pool being updated keeps its nodes (docs/capz-aso-facts.md#mp-ready-replicas).
    const last: number =
      typeof mp.status?.replicas === 'number' ? mp.status.replicas : 0;
    const replicas: number = ready ? infra.obj?.status?.replicas ?? last : last;
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
      // A pool without MachinePool Machines (AKS's) counts every replica ready and available, and spec.replicas up to
      // date (docs/capz-aso-facts.md#mp-ready-replicas).
      replicas,
      readyReplicas: replicas,
      availableReplicas: replicas,
      upToDateReplicas: desired,
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
