/**
 * The simulated Azure Service Operator: reconciles ResourceGroup, ManagedCluster, ManagedClustersAgentPool,
 * VirtualNetwork and VirtualNetworksSubnet objects (the last two network.azure.com v1api20201101, which CAPZ's legacy
 * AzureManagedControlPlane writes; docs/real-controllers.md#findings, finding 10) against the simulated Azure, all by the
 * same generic reconciler rules below (ASO v2.18.0 has one generic reconciler for every kind). Each behaviour follows docs/capz-aso-facts.md (ASO behaviours, credentials) and ASO's
 * source (Azure/azure-service-operator, read file by file):
 *  - the finalizer `serviceoperator.azure.com/finalizer` is added on every reconcile of an object that is not being
 *    deleted and lacks it, whatever its reconcile-policy, before the policy is read and before any Azure call:
 *    v2/internal/reconcilers/generic/generic_reconciler.go `createOrUpdate` calls `claimResource` (which adds the
 *    finalizer and commits it) and only then `mergeReconcilePolicy` / `AllowsModify`. `claimResource` first runs the
 *    ARM reconciler's `Claim` (v2/internal/reconcilers/arm/azure_generic_arm_reconciler.go): `ClaimResource`
 *    (v2/internal/reconcilers/common.go: the owner must exist and be Ready, else WaitingForOwner) and `makeInstance`
 *    (the credential must resolve, else Failed); so an object blocked on either gets no finalizer yet (its owner
 *    reference to spec.owner is set all the same, `ApplyOwnership`).
 *    A migration's disarm (finalizers null) is therefore undone by ASO's next reconcile;
 *  - delete: generic_reconciler.go `delete` checks `AllowsDelete()` first: under `skip` or `detach-on-delete` it
 *    removes the finalizer without any Azure call (and without needing a credential); under `manage` without the
 *    finalizer it does nothing in Azure; under `manage` with it, Azure's DELETE, then the finalizer goes;
 *  - reconcile-policy `manage` (PUT, delete on Kubernetes delete), `skip` (GET only; AzureResourceNotFound when
 *    missing; never delete), `detach-on-delete` (PUT, never delete); unknown values fall back to manage
 *    (docs/capz-aso-facts.md#reconcile-policy; v2/pkg/common/annotations/reconcile_policy.go `ParseReconcilePolicy`,
 *    `AllowsDelete`, `AllowsModify`);
 *  - status: replaced by what Azure returns (ASO commits the whole object), so tags or labels a PUT removed
 *    disappear from status too;
 *  - credentials: `credential-from` Secret in the same namespace, else `aso-credential` in the namespace, else the
 *    global `aso-controller-settings` in the operator namespace; a missing Secret is Ready=False Failed (Warning)
 *    with ASO's message, not SecretNotFound (docs/real-controllers.md#findings, finding 6)
 *    (docs/capz-aso-facts.md#aso-credential-scope);
 *  - owners: spec.owner.name must exist and be Ready first, else Ready=False WaitingForOwner
 *    (docs/capz-aso-facts.md#aso-conditions);
 *  - adoption: creating an object for an Azure resource that exists PUTs onto it (docs/capz-aso-facts.md#aso-adoption);
 *  - Ready condition with reason, severity and observedGeneration; ARM error codes become the reason,
 *    Warning when retryable and Error when not (docs/capz-aso-facts.md#aso-conditions);
 *  - ManagedCluster secrets (`operatorSpec.secrets.adminCredentials|userCredentials`) exported after a
 *    successful reconcile; admin credentials fail on clusters with local accounts disabled
 *    (docs/capz-aso-facts.md#aso-secret-export);
 *  - a ManagedCluster PUT without agentPoolProfiles onto an existing cluster that this object never reconciled
 *    "triggers an update cycle" (docs/migration-procedure.md#step-6-2): the cluster goes Updating on every reconcile
 *    and the object never becomes Ready. Inference: modelled as a PUT per reconcile until pools appear in spec or
 *    status.
 */
import { AzureError } from '../azure/errors.ts';
import type { AzureWorld } from '../azure/model.ts';
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
  ann,
  b64,
  getCondition,
  hasFinalizer,
  isDeleting,
  mergePatchFrom,
  ownerRef,
  same,
  setCondition,
  unb64,
} from '../runtime/meta.ts';
import type { Condition, Obj } from '../runtime/types.ts';
import {
  managedClusterStatus,
  agentPoolStatus,
  resourceGroupStatus,
  subnetStatus,
  virtualNetworkStatus,
  poolSpecFromAso,
  clusterSpecFromAso,
} from './shapes.ts';

export const ASO_FINALIZER = 'serviceoperator.azure.com/finalizer';

export const RECONCILE_POLICY = 'serviceoperator.azure.com/reconcile-policy';
/** The API group of each owner kind, for ASO's `ResourceReference.String()`. */
const OWNER_GROUP: Partial<Record<KindName, string>> = {
  ResourceGroup: 'resources.azure.com',
  ManagedCluster: 'containerservice.azure.com',
  VirtualNetwork: 'network.azure.com',
};
export const CREDENTIAL_FROM = 'serviceoperator.azure.com/credential-from';
export const OPERATOR_NAMESPACE =
  'serviceoperator.azure.com/operator-namespace';

export type AsoKind =
  | 'ResourceGroup'
  | 'ManagedCluster'
  | 'ManagedClustersAgentPool'
  | 'VirtualNetwork'
  | 'VirtualNetworksSubnet';
/** Each kind's `spec.owner` kind. */
const OWNER_KIND: Partial<Record<AsoKind, AsoKind>> = {
  ManagedCluster: 'ResourceGroup',
  ManagedClustersAgentPool: 'ManagedCluster',
  VirtualNetwork: 'ResourceGroup',
  VirtualNetworksSubnet: 'VirtualNetwork',
};
type Policy = 'manage' | 'skip' | 'detach-on-delete';

/** A failure a test or the demo forces on one object, shown as its Ready condition until cleared. */
export interface ForcedFailure {
  reason: string;
  severity: 'Warning' | 'Error';
  message: string;
}

export interface AsoOptions {
  /** Namespace of the global `aso-controller-settings` Secret (CAPZ installs ASO in capz-system). */
  operatorNamespace: string;
  log: (msg: string) => void;
}

class Blocked extends Error {
  readonly condition: Omit<Condition, 'lastTransitionTime' | 'type'>;
  constructor(
    reason: string,
    severity: 'Info' | 'Warning' | 'Error',
    message: string,
  ) {
    super(message);
    this.condition = { status: 'False', reason, severity, message };
  }
}

const policyOf = (o: Obj): Policy => {
  const p = ann(o, RECONCILE_POLICY);
  return p === 'skip' || p === 'detach-on-delete' ? p : 'manage';
};

const fromAzureError = (e: AzureError) =>
  new Blocked(
    e.code,
    e.status >= 500 || e.status === 409 || e.status === 429
      ? 'Warning'
      : e.status === 404
      ? 'Warning'
      : 'Error',
    e.message,
  );

export class AsoSimulator {
  readonly controllers: Controller[] = [];
  private readonly forced = new Map<string, ForcedFailure>();
  /** Objects (by uid) whose PUT to Azure succeeded at least once: the "update cycle" rule needs to know. */
  private readonly reconciledOnce = new Set<string>();

  private readonly deps: {
    kube: Kube;
    cache: Cache;
    world: AzureWorld;
    opts: AsoOptions;
  };

  constructor(deps: {
    kube: Kube;
    cache: Cache;
    world: AzureWorld;
    opts: AsoOptions;
  }) {
    this.deps = deps;
    for (const kind of [
      'ResourceGroup',
      'ManagedCluster',
      'ManagedClustersAgentPool',
      'VirtualNetwork',
      'VirtualNetworksSubnet',
    ] as const) {
      const parent = OWNER_KIND[kind];
      this.controllers.push(
        new Controller(
          {
            name: `aso-${kind}`,
            kind,
            watches: [
              // An owner turning Ready unblocks the objects it owns (WaitingForOwner).
              ...(parent
                ? [
                    {
                      kind: parent as KindName,
                      map: (o: Obj) =>
                        this.deps.cache
                          .list(kind, o.metadata.namespace)
                          .filter(c => c.spec?.owner?.name === o.metadata.name)
                          .map(keyOf),
                    },
                  ]
                : []),
              // A credential Secret appearing unblocks a missing-credential failure.
              {
                kind: 'Secret',
                map: (s: Obj) =>
                  this.deps.cache.list(kind, s.metadata.namespace).map(keyOf),
              },
            ],
            reconcile: key => this.reconcile(kind, key),
          },
          deps.cache,
          deps.opts.log,
        ),
      );
    }
    // Azure finishing an operation is what ASO's polling would notice.
    deps.world.on('change', () =>
      this.controllers.forEach(c => c.enqueueAll(deps.cache)),
    );
  }

  /** Forces (or with undefined, clears) a failure on one object, e.g. ReconciliationBlocked or Failed. */
  forceFailure(
    kind: AsoKind,
    namespace: string,
    name: string,
    failure: ForcedFailure | undefined,
  ): void {
    const k = `${kind}/${namespace}/${name}`;
    if (failure) this.forced.set(k, failure);
    else this.forced.delete(k);
    this.controllers
      .find(c => c.spec.kind === kind)
      ?.enqueue(`${namespace}/${name}`);
  }

  private azureName(o: Obj): string {
    return o.spec?.azureName ?? o.metadata.name;
  }

  /**
   * The subscription from the credential Secret, by ASO's precedence (docs/capz-aso-facts.md#aso-credential-scope),
   * failing as ASO v2.18.0 internal/identity/credential_provider.go `GetCredential` does. Its errors are not
   * ReadyConditionImpactingErrors, so they reach the Ready condition as reason `Failed`, severity Warning, message the
   * error's text (internal/reconcilers/generic/generic_reconciler.go `writeReadyConditionErrorOrDefault`;
   * docs/real-controllers.md#findings, finding 6). `core.SecretNotFound` reads `<ns>/<name> does not exist (<cause>)`
   * (pkg/genruntime/core/errors.go), the cause being controller-runtime's cached-read NotFound, `Secret "<name>" not
   * found`, as the real ASO was seen to write it.
   */
  private subscription(o: Obj): string {
    const ns = o.metadata.namespace!;
    const named = ann(o, CREDENTIAL_FROM);
    const secret = named
      ? this.deps.cache.get('Secret', ns, named)
      : this.deps.cache.get('Secret', ns, 'aso-credential') ??
        this.deps.cache.get(
          'Secret',
          this.deps.opts.operatorNamespace,
          'aso-controller-settings',
        );
    if (!secret) {
      throw new Blocked(
        'Failed',
        'Warning',
        named
          ? `${ns}/${named} does not exist (credential secret not found: Secret "${named}" not found)`
          : 'global credential not configured, you must use either namespaced or per-resource credentials',
      );
    }
    const sub = unb64(secret.data?.AZURE_SUBSCRIPTION_ID);
    // newCredentialFromSecret: one SecretNotFound per missing key, aggregated, wrapped by getCredentialFromSecret.
    const nsName = `${secret.metadata.namespace}/${secret.metadata.name}`;
    const missing = [
      'AZURE_SUBSCRIPTION_ID',
      'AZURE_TENANT_ID',
      'AZURE_CLIENT_ID',
    ].filter(k => !unb64(secret.data?.[k]));
    if (missing.length) {
      const errs = missing.map(
        k =>
          `${nsName} does not exist (credential Secret "${nsName}" does not contain key "${k}")`,
      );
      throw new Blocked(
        'Failed',
        'Warning',
        `failed to get credential "${nsName}": ${
          errs.length === 1 ? errs[0] : `[${errs.join(', ')}]`
        }`,
      );
    }
    return sub!;
  }

  private owner(o: Obj, kind: KindName): Obj {
    const name = o.spec?.owner?.name;
    const owner = name
      ? this.deps.cache.get(kind, o.metadata.namespace, name)
      : undefined;
    const ready = getCondition(owner, 'Ready');
    if (!owner || ready?.status !== 'True') {
      // ASO v2.18.0 internal/reconcilers/common.go `ClaimResource`: the same words whether the owner is missing or
      // exists but is not Ready (`NeedsToWaitForOwner`), the owner as `ResourceReference.String()`
      // (pkg/genruntime/resource_reference.go); docs/real-controllers.md#findings, finding 7.
      throw new Blocked(
        'WaitingForOwner',
        'Warning',
        `Owner "${name}, Group/Kind: ${OWNER_GROUP[kind]}/${kind}" cannot be found. Progress is blocked until the owner is created.`,
      );
    }
    return owner;
  }

  /**
   * The owner reference ASO puts on a claimed object pointing to its `spec.owner` (common.go `ApplyOwnership`,
   * internal/ownerutil `MakeOwnerReference`: apiVersion, kind, name, uid; neither controller nor blockOwnerDeletion),
   * or undefined when it is there already. Through it Kubernetes' garbage collector deletes an agent pool object once
   * its ManagedCluster object is gone, as it does to the pools CAPZ leaves behind when a Cluster is deleted.
   */
  private ownerReferencesWith(o: Obj, owner: Obj | undefined) {
    const refs = o.metadata.ownerReferences ?? [];
    if (!owner || refs.some(r => r.uid === owner.metadata.uid))
      return undefined;
    return [
      ...refs,
      {
        apiVersion: owner.apiVersion,
        kind: owner.kind,
        name: owner.metadata.name,
        uid: owner.metadata.uid!,
      },
    ];
  }

  /**
   * generic_reconciler.go `claimResource` through the ARM reconciler's `Claim`: the owner must exist and be Ready
   * (common.go `ClaimResource` / `NeedsToWaitForOwner`), then the credential must resolve (`makeInstance`). Returns the
   * subscription the credential names.
   */
  private claimOwner(kind: AsoKind, o: Obj): Obj | undefined {
    const parent = OWNER_KIND[kind];
    return parent ? this.owner(o, parent) : undefined;
  }

  private async reconcile(kind: AsoKind, key: Key): Promise<Result | void> {
    const { namespace, name } = splitKey(key);
    const obj = this.deps.cache.get(kind, namespace, name);
    if (!obj) return;
    const policy = policyOf(obj);

    // generic_reconciler.go `takeOwnership`, before anything else (deletion included): an object without
    // `serviceoperator.azure.com/operator-namespace` gets this operator's namespace (committed, then requeued; ASO's
    // defaulting webhook sets it already on admission, which this simulation has no webhook for); one claimed by an
    // operator in another namespace is left alone (docs/real-controllers.md#findings, finding 8).
    const operatorNs = ann(obj, OPERATOR_NAMESPACE);
    if (operatorNs === undefined || operatorNs === '') {
      await this.deps.kube.mergePatch(K[kind], namespace, name, {
        metadata: {
          annotations: {
            [OPERATOR_NAMESPACE]: this.deps.opts.operatorNamespace,
          },
        },
      });
      return;
    }
    if (operatorNs !== this.deps.opts.operatorNamespace) return;

    if (isDeleting(obj)) return this.reconcileDelete(kind, obj, policy);

    let status: Record<string, unknown> | undefined;
    let ready: Omit<Condition, 'lastTransitionTime' | 'type'>;
    let requeue: number | undefined;
    try {
      const owner = this.claimOwner(kind, obj);
      // claimResource runs only while the finalizer is missing; ApplyOwnership sets the owner reference in memory
      // before makeInstance resolves the credential, and a credential error is committed with it
      // (WriteReadyConditionError -> CommitUpdate), so the reference lands either way.
      const ownerReferences = hasFinalizer(obj, ASO_FINALIZER)
        ? undefined
        : this.ownerReferencesWith(obj, owner);
      let sub: string;
      try {
        sub = this.subscription(obj);
      } catch (e) {
        if (ownerReferences)
          await this.deps.kube.mergePatch(K[kind], namespace, name, {
            metadata: {
              ownerReferences,
              resourceVersion: obj.metadata.resourceVersion,
            },
          });
        throw e;
      }
      // Claimed: the finalizer is committed before the policy is read and before Azure is touched, whatever the
      // policy (generic_reconciler.go createOrUpdate -> claimResource -> AddFinalizer + CommitUpdate).
      if (!hasFinalizer(obj, ASO_FINALIZER)) {
        await this.deps.kube.mergePatch(K[kind], namespace, name, {
          metadata: {
            finalizers: [...(obj.metadata.finalizers ?? []), ASO_FINALIZER],
            ...(ownerReferences ? { ownerReferences } : {}),
            resourceVersion: obj.metadata.resourceVersion,
          },
        });
      }
      const forced = this.forced.get(`${kind}/${namespace}/${name}`);
      if (forced)
        throw new Blocked(forced.reason, forced.severity, forced.message);
      const r = this.reconcileAzure(kind, obj, policy, sub);
      status = r.status;
      ready = r.done
        ? {
            status: 'True',
            severity: '',
            reason: 'Succeeded',
            message: undefined,
          }
        : {
            status: 'False',
            severity: 'Info',
            reason: 'Reconciling',
            message:
              'The resource is in the process of being reconciled by the operator',
          };
      if (!r.done) requeue = Math.max(20, this.deps.world.operationMs);
      if (r.done && kind === 'ManagedCluster') await this.exportSecrets(obj);
    } catch (e) {
      if (e instanceof Blocked) ready = e.condition;
      else if (e instanceof AzureError) ready = fromAzureError(e).condition;
      else throw e;
      requeue = ready.severity === 'Error' ? undefined : 500;
    }
    const conditions = setCondition(obj.status?.conditions, {
      type: 'Ready',
      ...ready,
      observedGeneration: obj.metadata.generation,
    });
    const next = { ...(status ?? obj.status ?? {}), conditions };
    if (!same(obj.status, next)) {
      try {
        // The status as Azure returned it: keys Azure no longer has (tags a PUT replaced) are removed.
        await this.deps.kube.mergePatch(
          K[kind],
          namespace,
          name,
          { status: mergePatchFrom(obj.status ?? {}, next) },
          'status',
        );
      } catch (e) {
        if (!isNotFound(e)) throw e;
      }
    }
    return requeue === undefined ? undefined : { requeueAfterMs: requeue };
  }

  /**
   * The operation ASO's PUT of this generation started ended Failed in Azure (an upgrade AKS failed, a forced
   * `failNextOperation`): ASO's poller returns the operation's error, which reaches the Ready condition as every ARM
   * error does (its code the reason, {@link fromAzureError}). Thrown while the object's Ready condition is about this
   * generation's PUT (Reconciling) or already reports this error: a Failed resource is not PUT again until the spec
   * changes (_inference_: the real ASO retries on its backoff, and the retry meets the same failure).
   */
  private failedOperation(
    o: Obj,
    resource: { provisioningState: string } | undefined,
    path: string,
  ): void {
    if (resource?.provisioningState !== 'Failed') return;
    const e = this.deps.world.operationError(path);
    const r = getCondition(o, 'Ready');
    if (
      e &&
      r &&
      r.observedGeneration === o.metadata.generation &&
      (r.reason === 'Reconciling' || r.reason === e.code)
    )
      throw e;
  }

  /** Observes Azure, PUTs when the policy allows and the object asks for a change; returns status and whether done. */
  private reconcileAzure(
    kind: AsoKind,
    o: Obj,
    policy: Policy,
    sub: string,
  ): { status?: Record<string, unknown>; done: boolean } {
    const w = this.deps.world;
    const gen = o.metadata.generation;
    // This generation was PUT already: Ready is True for it, or it is Reconciling it (the PUT went out).
    const r = getCondition(o, 'Ready');
    const upToDate =
      !!r &&
      r.observedGeneration === gen &&
      (r.status === 'True' || r.reason === 'Reconciling');

    if (kind === 'ResourceGroup') {
      const rgName = this.azureName(o);
      let rg = w.getResourceGroup(sub, rgName);
      if (policy === 'skip') {
        if (!rg)
          throw new Blocked(
            'AzureResourceNotFound',
            'Warning',
            `Resource group '${rgName}' could not be found. The reconcile-policy is skip, so it is not created.`,
          );
      } else if (!rg || !upToDate) {
        rg = w.putResourceGroup(sub, rgName, {
          location: o.spec.location,
          tags: o.spec.tags,
        }).resourceGroup;
      }
      return { status: resourceGroupStatus(rg), done: true };
    }

    if (kind === 'ManagedCluster') {
      const rgObj = this.owner(o, 'ResourceGroup');
      const rgName = rgObj.spec?.azureName ?? rgObj.metadata.name;
      const mcName = this.azureName(o);
      let mc = w.getManagedCluster(sub, rgName, mcName);
      if (policy === 'skip') {
        if (!mc)
          throw new Blocked(
            'AzureResourceNotFound',
            'Warning',
            `Managed cluster '${mcName}' could not be found in resource group '${rgName}'. The reconcile-policy is skip, so it is not created.`,
          );
        return {
          status: managedClusterStatus(mc),
          done: !['Creating', 'Updating', 'Deleting'].includes(
            mc.provisioningState,
          ),
        };
      }
      const hasPools =
        (o.spec.agentPoolProfiles ?? []).length > 0 ||
        (o.status?.agentPoolProfiles ?? []).length > 0;
      const updateCycle =
        mc && !hasPools && !this.reconciledOnce.has(o.metadata.uid!);
      if (
        mc &&
        ['Creating', 'Updating', 'Deleting'].includes(mc.provisioningState)
      ) {
        return { status: managedClusterStatus(mc), done: false };
      }
      this.failedOperation(
        o,
        mc,
        `/subscriptions/${sub}/resourceGroups/${rgName}/providers/Microsoft.ContainerService/managedClusters/${mcName}`,
      );
      if (!mc || !upToDate || updateCycle) {
        mc = w.putManagedCluster(
          sub,
          rgName,
          mcName,
          clusterSpecFromAso(o.spec),
        ).cluster;
        if (hasPools) this.reconciledOnce.add(o.metadata.uid!);
        return { status: managedClusterStatus(mc), done: false };
      }
      return { status: managedClusterStatus(mc), done: true };
    }

    if (kind === 'VirtualNetwork') {
      // Synchronous in the model (ARM answers a VNet PUT with Succeeded and no polling header, src/arm/network.ts).
      const rgObj = this.owner(o, 'ResourceGroup');
      const rgName = rgObj.spec?.azureName ?? rgObj.metadata.name;
      const name = this.azureName(o);
      let vnet = w.getVirtualNetwork(sub, rgName, name);
      if (policy === 'skip') {
        if (!vnet)
          throw new Blocked(
            'AzureResourceNotFound',
            'Warning',
            `Virtual network '${name}' could not be found in resource group '${rgName}'. The reconcile-policy is skip, so it is not created.`,
          );
      } else if (!vnet || !upToDate) {
        vnet = w.putVirtualNetwork(sub, rgName, name, {
          location: o.spec.location,
          tags: o.spec.tags,
          properties: {
            ...(o.spec.addressSpace
              ? { addressSpace: structuredClone(o.spec.addressSpace) }
              : {}),
          },
        }).vnet;
      }
      return { status: virtualNetworkStatus(vnet), done: true };
    }

    if (kind === 'VirtualNetworksSubnet') {
      const vnetObj = this.owner(o, 'VirtualNetwork');
      const rgObj = this.deps.cache.get(
        'ResourceGroup',
        o.metadata.namespace,
        vnetObj.spec?.owner?.name,
      );
      const rgName = rgObj?.spec?.azureName ?? vnetObj.spec?.owner?.name;
      const vnetName = this.azureName(vnetObj);
      const name = this.azureName(o);
      const subnetOf = () => {
        const vn = w.getVirtualNetwork(sub, rgName, vnetName);
        const sn = vn
          ? Object.values(vn.subnets).find(
              x => x.name.toLowerCase() === name.toLowerCase(),
            )
          : undefined;
        return vn && sn ? { vn, sn } : undefined;
      };
      let found = subnetOf();
      if (policy === 'skip') {
        if (!found)
          throw new Blocked(
            'AzureResourceNotFound',
            'Warning',
            `Subnet '${name}' of virtual network '${vnetName}' could not be found. The reconcile-policy is skip, so it is not created.`,
          );
      } else if (!found || !upToDate) {
        w.putSubnet(sub, rgName, vnetName, name, {
          ...(o.spec.addressPrefix
            ? { addressPrefix: o.spec.addressPrefix }
            : {}),
          ...(o.spec.addressPrefixes
            ? { addressPrefixes: [...o.spec.addressPrefixes] }
            : {}),
        });
        found = subnetOf()!;
      }
      return { status: subnetStatus(found.vn, found.sn), done: true };
    }

    // ManagedClustersAgentPool
    const mcObj = this.owner(o, 'ManagedCluster');
    const rgObj = this.deps.cache.get(
      'ResourceGroup',
      o.metadata.namespace,
      mcObj.spec.owner.name,
    );
    const rgName = rgObj?.spec?.azureName ?? mcObj.spec.owner.name;
    const mcName = this.azureName(mcObj);
    const poolName = this.azureName(o);
    let pool = w.getAgentPool(sub, rgName, mcName, poolName);
    if (policy === 'skip') {
      if (!pool)
        throw new Blocked(
          'AzureResourceNotFound',
          'Warning',
          `Agent pool '${poolName}' of managed cluster '${mcName}' could not be found. The reconcile-policy is skip, so it is not created.`,
        );
      return {
        status: agentPoolStatus(pool, sub, rgName, mcName),
        done: pool.provisioningState === 'Succeeded',
      };
    }
    const mc = w.getManagedCluster(sub, rgName, mcName);
    if (
      mc &&
      ['Creating', 'Updating', 'Deleting'].includes(mc.provisioningState)
    ) {
      // AKS refuses pool changes while the cluster is busy; ASO waits (docs/capz-aso-facts.md#aso-conditions).
      throw new Blocked(
        'ReconciliationBlocked',
        'Warning',
        `Managed cluster '${mcName}' is ${mc.provisioningState}; the agent pool is reconciled when it is done.`,
      );
    }
    this.failedOperation(
      o,
      pool,
      `/subscriptions/${sub}/resourceGroups/${rgName}/providers/Microsoft.ContainerService/managedClusters/${mcName}/agentPools/${poolName}`,
    );
    if (pool && !['Succeeded', 'Failed'].includes(pool.provisioningState))
      return {
        status: agentPoolStatus(pool, sub, rgName, mcName),
        done: false,
      };
    if (!pool || !upToDate) {
      pool = w.putAgentPool(
        sub,
        rgName,
        mcName,
        poolName,
        poolSpecFromAso(o.spec),
      ).pool;
      return {
        status: agentPoolStatus(pool, sub, rgName, mcName),
        done: false,
      };
    }
    return { status: agentPoolStatus(pool, sub, rgName, mcName), done: true };
  }

  /** Writes the kubeconfig Secrets a ManagedCluster asks for (docs/capz-aso-facts.md#aso-secret-export), owned by the ManagedCluster. */
  private async exportSecrets(o: Obj): Promise<void> {
    const secrets = o.spec?.operatorSpec?.secrets ?? {};
    const rgObj = this.deps.cache.get(
      'ResourceGroup',
      o.metadata.namespace,
      o.spec.owner.name,
    );
    const rgName = rgObj?.spec?.azureName ?? o.spec.owner.name;
    for (const [field, which] of [
      ['adminCredentials', 'admin'],
      ['userCredentials', 'user'],
    ] as const) {
      const dest = secrets[field] as { name: string; key: string } | undefined;
      if (!dest) continue;
      const kubeconfig = this.deps.world.listClusterCredentials(
        this.subscription(o),
        rgName,
        this.azureName(o),
        which,
      );
      const existing = this.deps.cache.get(
        'Secret',
        o.metadata.namespace,
        dest.name,
      );
      const owned = (existing?.metadata.ownerReferences ?? []).some(
        r => r.uid === o.metadata.uid,
      );
      if (existing && owned && unb64(existing.data?.[dest.key]) === kubeconfig)
        continue;
      // Server-side apply: CAPZ may write the same Secret (`<cluster>-kubeconfig`) under its own field manager.
      await this.deps.kube.apply(
        K.Secret,
        {
          apiVersion: 'v1',
          kind: 'Secret',
          metadata: {
            name: dest.name,
            namespace: o.metadata.namespace,
            ownerReferences: [{ ...ownerRef(o), controller: false }],
          },
          data: { [dest.key]: b64(kubeconfig) },
        },
        'aso-controller',
      );
    }
  }

  /**
   * generic_reconciler.go `delete`: a policy that does not allow delete (`skip`, `detach-on-delete`) only removes the
   * finalizer, without Azure and without a credential; `manage` without the finalizer does nothing in Azure; `manage`
   * with it deletes in Azure and removes the finalizer once the resource is gone.
   *
   * Under `manage` ASO v2.18.0 never looks at the Kubernetes owner (internal/reconcilers/arm/
   * azure_generic_arm_reconciler_instance.go `deleteResource`: "Be especially cautious of relying on the ...
   * cache as a source of truth about if this resource or its parents have already been deleted ... the safest thing
   * we can do is just issue the DELETE to Azure"): it resolves the credential first (`makeInstance`; a missing Secret
   * fails the delete, which is retried), then issues DELETE on the resource's own ARM id (no id: nothing to delete;
   * containerservice.azure.com skips the GET precheck, `skipDeletionPrecheck`), and a 404, e.g. an agent pool of a
   * ManagedCluster already deleted, counts as deleted. While the DELETE runs the Ready condition is `Deleting` (Info);
   * a failed one is written with severity Warning (`handleDeleteFailed`).
   */
  private async reconcileDelete(
    kind: AsoKind,
    o: Obj,
    policy: Policy,
  ): Promise<Result | void> {
    if (!hasFinalizer(o, ASO_FINALIZER)) return;
    if (policy === 'manage') {
      const w = this.deps.world;
      let gone: boolean;
      try {
        const sub = this.subscription(o);
        const id = this.armIdOf(kind, o);
        if (!id) {
          gone = true;
        } else if (kind === 'ResourceGroup') {
          w.deleteResourceGroup(sub, id.rg);
          gone = !w.getResourceGroup(sub, id.rg);
        } else if (kind === 'ManagedCluster') {
          w.deleteManagedCluster(sub, id.rg, id.mc!);
          gone = !w.getManagedCluster(sub, id.rg, id.mc!);
        } else if (kind === 'VirtualNetwork') {
          // Synchronous in the model: gone once the call returns (a missing group or VNet is ARM's 404, done).
          w.deleteVirtualNetwork(sub, id.rg, id.vnet!);
          gone = true;
        } else if (kind === 'VirtualNetworksSubnet') {
          w.deleteSubnet(sub, id.rg, id.vnet!, id.subnet!);
          gone = true;
        } else {
          w.deleteAgentPool(sub, id.rg, id.mc!, id.pool!);
          gone = !w.getAgentPool(sub, id.rg, id.mc!, id.pool!);
        }
      } catch (e) {
        if (e instanceof AzureError && e.status === 404) {
          gone = true;
        } else if (e instanceof Blocked || e instanceof AzureError) {
          this.deps.opts.log(
            `aso ${kind} ${keyOf(o)}: delete blocked: ${e.message}`,
          );
          const c =
            e instanceof Blocked ? e.condition : fromAzureError(e).condition;
          await this.writeReady(kind, o, { ...c, severity: 'Warning' });
          return { requeueAfterMs: 500 };
        } else {
          throw e;
        }
      }
      if (!gone) {
        await this.writeReady(kind, o, {
          status: 'False',
          severity: 'Info',
          reason: 'Deleting',
          message: 'The resource is being deleted',
        });
        return { requeueAfterMs: Math.max(20, this.deps.world.operationMs) };
      }
    }
    await this.deps.kube
      .mergePatch(K[kind], o.metadata.namespace, o.metadata.name, {
        metadata: {
          finalizers: (o.metadata.finalizers ?? []).filter(
            f => f !== ASO_FINALIZER,
          ),
          resourceVersion: o.metadata.resourceVersion,
        },
      })
      .catch(e => {
        if (!isNotFound(e)) throw e;
      });
  }

  /**
   * The Azure names of the resource an object stands for: from its own ARM id (status.id, what ASO keeps as the
   * `serviceoperator.azure.com/resource-id` annotation) when it reached Azure, else from its owners' objects; undefined
   * when neither says (ASO: "Not issuing ARM delete as resource had no ResourceID annotation").
   */
  private armIdOf(
    kind: AsoKind,
    o: Obj,
  ):
    | { rg: string; mc?: string; pool?: string; vnet?: string; subnet?: string }
    | undefined {
    const id = typeof o.status?.id === 'string' ? o.status.id : undefined;
    const net = id
      ? /\/resourcegroups\/([^/]+)\/providers\/Microsoft\.Network\/virtualNetworks\/([^/]+)(?:\/subnets\/([^/]+))?/i.exec(
          id,
        )
      : null;
    if (net) return { rg: net[1], vnet: net[2], subnet: net[3] };
    const m = id
      ? /\/resourcegroups\/([^/]+)(?:\/providers\/Microsoft\.ContainerService\/managedClusters\/([^/]+)(?:\/agentPools\/([^/]+))?)?/i.exec(
          id,
        )
      : null;
    if (m) return { rg: m[1], mc: m[2], pool: m[3] };
    const ns = o.metadata.namespace;
    const rgOf = (rgName: string) => {
      const rgObj = this.deps.cache.get('ResourceGroup', ns, rgName);
      return rgObj?.spec?.azureName ?? rgName;
    };
    if (kind === 'ResourceGroup') return { rg: this.azureName(o) };
    if (kind === 'ManagedCluster')
      return o.spec?.owner?.name
        ? { rg: rgOf(o.spec.owner.name), mc: this.azureName(o) }
        : undefined;
    if (kind === 'VirtualNetwork')
      return o.spec?.owner?.name
        ? { rg: rgOf(o.spec.owner.name), vnet: this.azureName(o) }
        : undefined;
    if (kind === 'VirtualNetworksSubnet') {
      const vnetObj = this.deps.cache.get(
        'VirtualNetwork',
        ns,
        o.spec?.owner?.name,
      );
      if (!vnetObj?.spec?.owner?.name) return undefined;
      return {
        rg: rgOf(vnetObj.spec.owner.name),
        vnet: this.azureName(vnetObj),
        subnet: this.azureName(o),
      };
    }
    const mcObj = this.deps.cache.get(
      'ManagedCluster',
      ns,
      o.spec?.owner?.name,
    );
    if (!mcObj?.spec?.owner?.name) return undefined;
    return {
      rg: rgOf(mcObj.spec.owner.name),
      mc: this.azureName(mcObj),
      pool: this.azureName(o),
    };
  }

  /** Writes the Ready condition of an object (only when it changes). */
  private async writeReady(
    kind: AsoKind,
    o: Obj,
    ready: Omit<Condition, 'lastTransitionTime' | 'type'>,
  ): Promise<void> {
    const conditions = setCondition(o.status?.conditions, {
      type: 'Ready',
      ...ready,
      observedGeneration: o.metadata.generation,
    });
    if (same(o.status?.conditions, conditions)) return;
    await this.deps.kube
      .mergePatch(
        K[kind],
        o.metadata.namespace,
        o.metadata.name,
        { status: { conditions } },
        'status',
      )
      .catch(e => {
        if (!isNotFound(e)) throw e;
      });
  }
}
