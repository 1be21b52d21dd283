/**
 * The simulated Azure Service Operator: reconciles ResourceGroup, ManagedCluster and ManagedClustersAgentPool objects
 * against the simulated Azure. Each behaviour follows docs/capz-aso-facts.md (ASO behaviours, credentials) and ASO's
 * source (Azure/azure-service-operator, read file by file):
 *  - the finalizer `serviceoperator.azure.com/finalizer` is added on every reconcile of an object that is not being
 *    deleted and lacks it, whatever its reconcile-policy, before the policy is read and before any Azure call:
 *    v2/internal/reconcilers/generic/generic_reconciler.go `createOrUpdate` calls `claimResource` (which adds the
 *    finalizer and commits it) and only then `mergeReconcilePolicy` / `AllowsModify`. `claimResource` first runs the
 *    ARM reconciler's `Claim` (v2/internal/reconcilers/arm/azure_generic_arm_reconciler.go): `ClaimResource`
 *    (v2/internal/reconcilers/common.go: the owner must exist and be Ready, else WaitingForOwner) and `makeInstance`
 *    (the credential must resolve, else SecretNotFound); so an object blocked on either gets no finalizer yet.
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
 *    global `aso-controller-settings` in the operator namespace; a missing Secret is Ready=False SecretNotFound
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
  poolSpecFromAso,
  clusterSpecFromAso,
} from './shapes.ts';

export const ASO_FINALIZER = 'serviceoperator.azure.com/finalizer';

/** The resource group named by an ARM id (`/subscriptions/<s>/resourceGroups/<g>/...`). */
const groupOfArmId = (id: unknown): string | undefined =>
  typeof id === 'string'
    ? /\/resourcegroups\/([^/]+)/i.exec(id)?.[1]
    : undefined;
export const RECONCILE_POLICY = 'serviceoperator.azure.com/reconcile-policy';
export const CREDENTIAL_FROM = 'serviceoperator.azure.com/credential-from';

type AsoKind = 'ResourceGroup' | 'ManagedCluster' | 'ManagedClustersAgentPool';
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
    ] as const) {
      const children: Partial<Record<AsoKind, KindName>> = {
        ResourceGroup: 'ManagedCluster',
        ManagedCluster: 'ManagedClustersAgentPool',
      };
      const child = children[kind];
      this.controllers.push(
        new Controller(
          {
            name: `aso-${kind}`,
            kind,
            watches: [
              // An owner turning Ready unblocks its children (WaitingForOwner).
              ...(child
                ? [
                    {
                      kind: kind as KindName,
                      map: (o: Obj) =>
                        this.deps.cache
                          .list(child, o.metadata.namespace)
                          .filter(c => c.spec?.owner?.name === o.metadata.name)
                          .map(keyOf),
                    },
                  ]
                : []),
              // A credential Secret appearing unblocks SecretNotFound.
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

  /** The subscription from the credential Secret, by ASO's precedence (docs/capz-aso-facts.md#aso-credential-scope). */
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
        'SecretNotFound',
        'Warning',
        named
          ? `credential secret "${ns}/${named}" not found: secrets "${named}" not found`
          : `credential secret "${ns}/aso-credential" not found and global credential not configured`,
      );
    }
    const sub = unb64(secret.data?.AZURE_SUBSCRIPTION_ID);
    if (
      !sub ||
      !unb64(secret.data?.AZURE_TENANT_ID) ||
      !unb64(secret.data?.AZURE_CLIENT_ID)
    ) {
      throw new Blocked(
        'InvalidCredential',
        'Error',
        `credential secret "${secret.metadata.namespace}/${secret.metadata.name}" must have AZURE_SUBSCRIPTION_ID, AZURE_TENANT_ID and AZURE_CLIENT_ID`,
      );
    }
    return sub;
  }

  private owner(o: Obj, kind: KindName): Obj {
    const name = o.spec?.owner?.name;
    const owner = name
      ? this.deps.cache.get(kind, o.metadata.namespace, name)
      : undefined;
    const ready = getCondition(owner, 'Ready');
    if (!owner || ready?.status !== 'True') {
      throw new Blocked(
        'WaitingForOwner',
        'Warning',
        `Owner "${o.metadata.namespace}/${name}" of kind ${kind} ${
          owner ? 'is not ready' : 'cannot be found'
        }. Progress is blocked until the owner is ready.`,
      );
    }
    return owner;
  }

  /**
   * generic_reconciler.go `claimResource` through the ARM reconciler's `Claim`: the owner must exist and be Ready
   * (common.go `ClaimResource` / `NeedsToWaitForOwner`), then the credential must resolve (`makeInstance`). Returns the
   * subscription the credential names.
   */
  private claim(kind: AsoKind, o: Obj): string {
    if (kind === 'ManagedCluster') this.owner(o, 'ResourceGroup');
    if (kind === 'ManagedClustersAgentPool') this.owner(o, 'ManagedCluster');
    return this.subscription(o);
  }

  private async reconcile(kind: AsoKind, key: Key): Promise<Result | void> {
    const { namespace, name } = splitKey(key);
    const obj = this.deps.cache.get(kind, namespace, name);
    if (!obj) return;
    const policy = policyOf(obj);

    if (isDeleting(obj)) return this.reconcileDelete(kind, obj, policy);

    let status: Record<string, unknown> | undefined;
    let ready: Omit<Condition, 'lastTransitionTime' | 'type'>;
    let requeue: number | undefined;
    try {
      const sub = this.claim(kind, obj);
      // Claimed: the finalizer is committed before the policy is read and before Azure is touched, whatever the
      // policy (generic_reconciler.go createOrUpdate -> claimResource -> AddFinalizer + CommitUpdate).
      if (!hasFinalizer(obj, ASO_FINALIZER)) {
        await this.deps.kube.mergePatch(K[kind], namespace, name, {
          metadata: {
            finalizers: [...(obj.metadata.finalizers ?? []), ASO_FINALIZER],
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
    if (pool && pool.provisioningState !== 'Succeeded')
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
   */
  private async reconcileDelete(
    kind: AsoKind,
    o: Obj,
    policy: Policy,
  ): Promise<Result | void> {
    if (!hasFinalizer(o, ASO_FINALIZER)) return;
    if (policy === 'manage') {
      const w = this.deps.world;
      let gone = true;
      try {
        const sub = this.subscription(o);
        if (kind === 'ResourceGroup') {
          w.deleteResourceGroup(sub, this.azureName(o));
        } else if (kind === 'ManagedCluster') {
          // ASO deletes by the resource's own ARM id (its status.id here), so an owner object already gone does
          // not matter; the owner's names are the fallback for a resource never reconciled.
          const rgObj = this.deps.cache.get(
            'ResourceGroup',
            o.metadata.namespace,
            o.spec.owner.name,
          );
          const rg =
            groupOfArmId(o.status?.id) ??
            rgObj?.spec?.azureName ??
            o.spec.owner.name;
          if (
            w.getResourceGroup(sub, rg) &&
            w.getManagedCluster(sub, rg, this.azureName(o))
          ) {
            w.deleteManagedCluster(sub, rg, this.azureName(o));
            gone = !w.getManagedCluster(sub, rg, this.azureName(o));
          }
        } else {
          const mcObj = this.deps.cache.get(
            'ManagedCluster',
            o.metadata.namespace,
            o.spec.owner.name,
          );
          if (mcObj) {
            const rgObj = this.deps.cache.get(
              'ResourceGroup',
              o.metadata.namespace,
              mcObj.spec.owner.name,
            );
            const rg = rgObj?.spec?.azureName ?? mcObj.spec.owner.name;
            const mcName = mcObj.spec?.azureName ?? mcObj.metadata.name;
            if (w.getAgentPool(sub, rg, mcName, this.azureName(o))) {
              w.deleteAgentPool(sub, rg, mcName, this.azureName(o));
              gone = !w.getAgentPool(sub, rg, mcName, this.azureName(o));
            }
          }
        }
      } catch (e) {
        // Without a credential ASO cannot delete in Azure; it keeps the finalizer and retries.
        if (e instanceof Blocked || e instanceof AzureError) {
          this.deps.opts.log(
            `aso ${kind} ${keyOf(o)}: delete blocked: ${e.message}`,
          );
          return { requeueAfterMs: 500 };
        }
        throw e;
      }
      if (!gone)
        return { requeueAfterMs: Math.max(20, this.deps.world.operationMs) };
    }
    await this.deps.kube.mergePatch(
      K[kind],
      o.metadata.namespace,
      o.metadata.name,
      {
        metadata: {
          finalizers: (o.metadata.finalizers ?? []).filter(
            f => f !== ASO_FINALIZER,
          ),
          resourceVersion: o.metadata.resourceVersion,
        },
      },
    );
  }
}
