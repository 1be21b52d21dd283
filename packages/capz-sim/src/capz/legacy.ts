/**
 * CAPZ's legacy AzureManagedControlPlane / AzureManagedMachinePool / AzureManagedCluster controllers, as far as
 * migration needs them (docs/capz-aso-facts.md#legacy-api):
 *  - the ASO objects they create (docs/capz-aso-facts.md#legacy-aso-objects, docs/capz-aso-facts.md#legacy-names):
 *    ResourceGroup (name: normalised spec.resourceGroupName) and ManagedCluster (name: normalised control plane name,
 *    owner: the group) controller-owned by the AzureManagedControlPlane, one ManagedClustersAgentPool per
 *    AzureManagedMachinePool (azureName spec.name, owner: the ManagedCluster) controller-owned by it; every one
 *    labelled `cluster.x-k8s.io/cluster-name` and annotated `credential-from: <cluster>-aso-secret`; reconcile-policy
 *    `skip` on first create, then `manage` when "was managed" (always for clusters and pools; for the group only with
 *    CAPZ's owned tag);
 *  - `<cluster>-aso-secret`, labelled `<cluster>: owned` and controller-owned by the control plane
 *    (docs/capz-aso-facts.md#legacy-aso-objects);
 *  - the specs as CAPZ's spec builders write them: ResourceGroup `location` and `tags` = CAPZ's own tags
 *    (`sigs.k8s.io_cluster-api-provider-azure_cluster_<cluster>: owned`, `..._role: common`, `Name`) plus the control
 *    plane's `additionalTags`, on create only (azure/services/groups/spec.go `Parameters`, `infrav1.Build`); the
 *    ManagedCluster's `tags` the same way (azure/services/managedclusters/spec.go); each agent pool from its
 *    AzureManagedMachinePool (azure/scope/managedmachinepool.go `buildAgentPoolSpec`, azure/services/agentpools/
 *    spec.go `Parameters`): `nodeLabels` = spec.nodeLabels, `nodeTaints` = spec.taints as `key=value:Effect`,
 *    `tags` = spec.additionalTags, `availabilityZones`, `maxPods`, `osDiskSizeGB`, `osType`, `enableAutoScaling`
 *    always written (true with spec.scaling's minSize/maxSize), count from the MachinePool;
 *  - agentPoolProfiles sent only for the first create, then stripped from the ManagedCluster spec
 *    (docs/capz-aso-facts.md#legacy-agent-pool-profiles, docs/migration-procedure.md#step-6-2);
 *  - block-move on normal reconcile; pause copies the policy to the pre-pause annotation, sets skip, then removes
 *    block-move; unpause restores it. The AzureManagedCluster never gets block-move
 *    (docs/capz-aso-facts.md#legacy-pause);
 *  - v1beta1-style conditions (with severity) on the control plane and pools (docs/capz-aso-facts.md#legacy-api).
 * Simulated: the credential Secret's values come from the simulator's identity settings instead of an
 * AzureClusterIdentity (whose CRD is not installed here).
 */
import type { Cache } from '../runtime/cache.ts';
import {
  Controller,
  keyOf,
  splitKey,
  type Key,
  type Result,
} from '../runtime/controller.ts';
import { apiVersionOf, K } from '../runtime/kinds.ts';
import { isNotFound, type Kube } from '../runtime/kube.ts';
import {
  ann,
  b64,
  controllerOf,
  getCondition,
  hasFinalizer,
  isDeleting,
  label,
  ownerRef,
  same,
  setCondition,
  unb64,
} from '../runtime/meta.ts';
import type { Condition, Obj } from '../runtime/types.ts';
import { BLOCK_MOVE, CLUSTER_NAME, PAUSED } from './asoManaged.ts';

const POLICY = 'serviceoperator.azure.com/reconcile-policy';
const PRE_PAUSE =
  'sigs.k8s.io/cluster-api-provider-azure-pre-pause-reconcile-policy';
const CREDENTIAL_FROM = 'serviceoperator.azure.com/credential-from';
const AMCP_FINALIZER =
  'azuremanagedcontrolplane.infrastructure.cluster.x-k8s.io';
const AMMP_FINALIZER = 'azurecluster.infrastructure.cluster.x-k8s.io';
export const OWNED_TAG = (cluster: string) =>
  `sigs.k8s.io_cluster-api-provider-azure_cluster_${cluster}`;
const ROLE_TAG = 'sigs.k8s.io_cluster-api-provider-azure_role';

/** CAPZ's `infrav1.Build` for an owned resource of role common: the additional tags, then CAPZ's own. */
export function capzTags(
  cluster: string,
  name: string,
  additional: Record<string, string> = {},
): Record<string, string> {
  return {
    ...additional,
    [OWNED_TAG(cluster)]: 'owned',
    [ROLE_TAG]: 'common',
    Name: name,
  };
}

/**
 * The ManagedClustersAgentPool fields CAPZ's `buildAgentPoolSpec` takes from an AzureManagedMachinePool (and the
 * MachinePool's replicas), under the ARM names ASO uses; the same fields go into the ManagedCluster's
 * agentPoolProfiles for the first create.
 */
export function legacyPoolFields(
  ammp: Obj,
  replicas: number | undefined,
): Record<string, unknown> {
  const s = ammp.spec ?? {};
  const taints = (s.taints ?? []) as Array<{
    key: string;
    value?: string;
    effect: string;
  }>;
  return {
    mode: s.mode,
    vmSize: s.sku,
    type: 'VirtualMachineScaleSets',
    count: replicas ?? 1,
    enableAutoScaling: Boolean(s.scaling),
    ...(s.scaling
      ? { minCount: s.scaling.minSize, maxCount: s.scaling.maxSize }
      : {}),
    ...(s.osType ? { osType: s.osType } : {}),
    ...(s.osDiskSizeGB !== undefined ? { osDiskSizeGB: s.osDiskSizeGB } : {}),
    ...(s.maxPods !== undefined ? { maxPods: s.maxPods } : {}),
    ...(s.availabilityZones?.length
      ? { availabilityZones: [...s.availabilityZones] }
      : {}),
    ...(s.nodeLabels && Object.keys(s.nodeLabels).length
      ? { nodeLabels: { ...s.nodeLabels } }
      : {}),
    ...(taints.length
      ? { nodeTaints: taints.map(t => `${t.key}=${t.value ?? ''}:${t.effect}`) }
      : {}),
    ...(s.additionalTags && Object.keys(s.additionalTags).length
      ? { tags: { ...s.additionalTags } }
      : {}),
  };
}

/** azure/defaults.go GetNormalizedKubernetesName: lowercase, other characters to '-', trimmed. */
export const normalize = (s: string) =>
  s
    .toLowerCase()
    .replace(/[^a-z0-9-]/g, '-')
    .replace(/^-+|-+$/g, '');

export interface LegacyIdentity {
  tenantId: string;
  clientId: string;
  /**
   * With a secret, `<cluster>-aso-secret` is the service-principal form CAPZ writes for a ServicePrincipal
   * AzureClusterIdentity (AZURE_CLIENT_SECRET); without, the workload-identity form (AUTH_MODE)
   * (docs/capz-aso-facts.md#aso-credential-keys).
   */
  clientSecret?: string;
}

type Cond = Omit<Condition, 'lastTransitionTime'>;

/**
 * How long a legacy controller waits after deleting an ASO object before it looks again. CAPZ v1.26.0's
 * azure/services/aso/aso.go `DeleteResource` answers "operation not done" with `requeueInterval` (20 s), and the
 * legacy controllers do not watch the ASO objects (controllers/azuremanagedcontrolplane_controller.go
 * `SetupWithManager`), so an object's disappearance does not wake them: the control plane drops its finalizer (and,
 * by garbage collection, `<cluster>-aso-secret`) at least one such interval after its ManagedCluster is gone. The
 * agent pool objects of a deleting Cluster, garbage-collected when their ManagedCluster goes, still need that Secret
 * for ASO's delete; reacting at once, as this simulation did, let the Secret go first (docs/real-controllers.md#findings,
 * finding 9). Compressed here, as the simulated Azure compresses AKS's minutes.
 */
export const LEGACY_DELETE_REQUEUE_MS = 3_000;

export class LegacyControllers {
  readonly controllers: Controller[];
  private readonly kube: Kube;
  private readonly cache: Cache;
  private readonly identity: LegacyIdentity;
  /** Per owner uid: no new look at its deletion before this time (see LEGACY_DELETE_REQUEUE_MS). */
  private readonly deleteNotBefore = new Map<string, number>();

  constructor(
    kube: Kube,
    cache: Cache,
    identity: LegacyIdentity,
    log: (m: string) => void,
  ) {
    this.kube = kube;
    this.cache = cache;
    this.identity = identity;
    const ownedBy = (kind: string) => (o: Obj) => {
      const c = controllerOf(o);
      return c?.kind === kind ? [`${o.metadata.namespace}/${c.name}`] : [];
    };
    const sameCluster =
      (
        kind:
          | 'AzureManagedControlPlane'
          | 'AzureManagedMachinePool'
          | 'AzureManagedCluster',
      ) =>
      (o: Obj) =>
        this.cache
          .list(kind, o.metadata.namespace)
          .filter(
            x =>
              label(x, CLUSTER_NAME) &&
              label(x, CLUSTER_NAME) ===
                (o.kind === 'Cluster'
                  ? o.metadata.name
                  : label(o, CLUSTER_NAME)),
          )
          .map(keyOf);
    this.controllers = [
      new Controller(
        {
          name: 'capz-legacy-controlplane',
          kind: 'AzureManagedControlPlane',
          watches: [
            { kind: 'ResourceGroup', map: ownedBy('AzureManagedControlPlane') },
            {
              kind: 'ManagedCluster',
              map: ownedBy('AzureManagedControlPlane'),
            },
            { kind: 'Cluster', map: sameCluster('AzureManagedControlPlane') },
            {
              kind: 'AzureManagedMachinePool',
              map: sameCluster('AzureManagedControlPlane'),
            },
            {
              kind: 'MachinePool',
              map: sameCluster('AzureManagedControlPlane'),
            },
            {
              kind: 'Secret',
              map: o =>
                this.cache
                  .list('AzureManagedControlPlane', o.metadata.namespace)
                  .map(keyOf),
            },
          ],
          reconcile: k => this.reconcileControlPlane(k),
        },
        cache,
        log,
      ),
      new Controller(
        {
          name: 'capz-legacy-machinepool',
          kind: 'AzureManagedMachinePool',
          watches: [
            {
              kind: 'ManagedClustersAgentPool',
              map: ownedBy('AzureManagedMachinePool'),
            },
            { kind: 'Cluster', map: sameCluster('AzureManagedMachinePool') },
            {
              kind: 'ManagedCluster',
              map: o =>
                this.cache
                  .list('AzureManagedMachinePool', o.metadata.namespace)
                  .map(keyOf),
            },
            {
              kind: 'MachinePool',
              map: o =>
                this.cache
                  .list('AzureManagedMachinePool', o.metadata.namespace)
                  .filter(
                    x =>
                      x.metadata.name ===
                      o.spec?.template?.spec?.infrastructureRef?.name,
                  )
                  .map(keyOf),
            },
          ],
          reconcile: k => this.reconcileMachinePool(k),
        },
        cache,
        log,
      ),
      new Controller(
        {
          name: 'capz-legacy-cluster',
          kind: 'AzureManagedCluster',
          watches: [
            {
              kind: 'AzureManagedControlPlane',
              map: sameCluster('AzureManagedCluster'),
            },
            { kind: 'Cluster', map: sameCluster('AzureManagedCluster') },
          ],
          reconcile: k => this.reconcileCluster(k),
        },
        cache,
        log,
      ),
    ];
  }

  private cluster(o: Obj): Obj | undefined {
    const name = label(o, CLUSTER_NAME);
    return name
      ? this.cache.get('Cluster', o.metadata.namespace, name)
      : undefined;
  }

  private paused(o: Obj, cluster: Obj): boolean {
    return Boolean(cluster.spec?.paused) || ann(o, PAUSED) !== undefined;
  }

  /** Objects this owner controls: paused to skip with the previous policy saved, then block-move removed (docs/capz-aso-facts.md#legacy-pause). */
  private async pause(
    owner: Obj,
    kinds: Array<
      'ResourceGroup' | 'ManagedCluster' | 'ManagedClustersAgentPool'
    >,
  ): Promise<void> {
    for (const kind of kinds) {
      for (const o of this.cache.list(kind, owner.metadata.namespace)) {
        if (
          controllerOf(o)?.uid !== owner.metadata.uid ||
          ann(o, PRE_PAUSE) !== undefined
        )
          continue;
        await this.kube.mergePatch(
          K[kind],
          o.metadata.namespace,
          o.metadata.name,
          {
            metadata: {
              annotations: {
                [PRE_PAUSE]: ann(o, POLICY) ?? 'manage',
                [POLICY]: 'skip',
              },
            },
          },
        );
      }
    }
    if (ann(owner, BLOCK_MOVE) !== undefined) {
      await this.kube.mergePatch(
        K[owner.kind as 'AzureManagedControlPlane'],
        owner.metadata.namespace,
        owner.metadata.name,
        { metadata: { annotations: { [BLOCK_MOVE]: null } } },
      );
    }
  }

  /** Normal reconcile: finalizer and block-move first, and a paused object's saved policy restored. */
  private async start(
    owner: Obj,
    finalizer: string,
    kinds: Array<
      'ResourceGroup' | 'ManagedCluster' | 'ManagedClustersAgentPool'
    >,
  ): Promise<void> {
    if (
      ann(owner, BLOCK_MOVE) === undefined ||
      !hasFinalizer(owner, finalizer)
    ) {
      await this.kube.mergePatch(
        K[owner.kind as 'AzureManagedControlPlane'],
        owner.metadata.namespace,
        owner.metadata.name,
        {
          metadata: {
            annotations: { [BLOCK_MOVE]: 'true' },
            finalizers: [
              ...new Set([...(owner.metadata.finalizers ?? []), finalizer]),
            ],
          },
        },
      );
    }
    for (const kind of kinds) {
      for (const o of this.cache.list(kind, owner.metadata.namespace)) {
        const saved = ann(o, PRE_PAUSE);
        if (controllerOf(o)?.uid !== owner.metadata.uid || saved === undefined)
          continue;
        await this.kube.mergePatch(
          K[kind],
          o.metadata.namespace,
          o.metadata.name,
          { metadata: { annotations: { [PRE_PAUSE]: null, [POLICY]: saved } } },
        );
      }
    }
  }

  /** Creates an ASO object (reconcile-policy skip) or flips it to manage once it "was managed" (docs/capz-aso-facts.md#legacy-aso-objects). */
  private async ensureAso(
    kind: 'ResourceGroup' | 'ManagedCluster' | 'ManagedClustersAgentPool',
    owner: Obj,
    clusterName: string,
    name: string,
    spec: Record<string, unknown>,
    wasManaged: boolean,
  ): Promise<Obj | undefined> {
    const ns = owner.metadata.namespace;
    const live = this.cache.get(kind, ns, name);
    if (!live) {
      await this.kube.createIfAbsent(K[kind], {
        apiVersion: apiVersionOf(K[kind]),
        kind,
        metadata: {
          name,
          namespace: ns,
          labels: { [CLUSTER_NAME]: clusterName },
          annotations: {
            [CREDENTIAL_FROM]: `${clusterName}-aso-secret`,
            [POLICY]: 'skip',
          },
          ownerReferences: [ownerRef(owner)],
        },
        spec,
      });
      return undefined;
    }
    // An existing object this owner does not control is left alone (the adoption guard of
    // docs/capz-aso-facts.md#legacy-aso-objects).
    if (controllerOf(live)?.uid !== owner.metadata.uid) return live;
    if (
      wasManaged &&
      ann(live, POLICY) === 'skip' &&
      ann(live, PRE_PAUSE) === undefined
    ) {
      await this.kube.mergePatch(K[kind], ns, name, {
        metadata: { annotations: { [POLICY]: 'manage' } },
      });
    }
    return live;
  }

  private async reconcileControlPlane(key: Key): Promise<Result | void> {
    const { namespace, name } = splitKey(key);
    const cp = this.cache.get('AzureManagedControlPlane', namespace, name);
    if (!cp) return;
    const cluster = this.cluster(cp);
    if (!cluster) return; // waiting for CAPI to label and own it
    const aso = ['ResourceGroup', 'ManagedCluster'] as const;
    if (this.paused(cp, cluster)) return this.pause(cp, [...aso]);
    // Deleted in reverse order of creation, one service at a time (CAPZ v1.26.0
    // controllers/azuremanagedcontrolplane_reconciler.go `Delete`; azure/services/aso/aso.go `DeleteResource` returns
    // "operation not done" until the object is gone): the ManagedCluster first, then the ResourceGroup.
    if (isDeleting(cp))
      return this.deleteOwned(cp, AMCP_FINALIZER, [
        ['ManagedCluster'],
        ['ResourceGroup'],
      ]);
    await this.start(cp, AMCP_FINALIZER, [...aso]);
    const clusterName = cluster.metadata.name;

    // The ASO credential Secret, owned by the control plane.
    const secretName = `${clusterName}-aso-secret`;
    if (!this.cache.get('Secret', namespace, secretName)) {
      await this.kube.createIfAbsent(K.Secret, {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: {
          name: secretName,
          namespace,
          labels: { [clusterName]: 'owned' },
          ownerReferences: [ownerRef(cp)],
        },
        type: 'Opaque',
        data: {
          AZURE_SUBSCRIPTION_ID: b64(cp.spec.subscriptionID ?? ''),
          AZURE_TENANT_ID: b64(this.identity.tenantId),
          AZURE_CLIENT_ID: b64(this.identity.clientId),
          ...(this.identity.clientSecret
            ? { AZURE_CLIENT_SECRET: b64(this.identity.clientSecret) }
            : { AUTH_MODE: b64('workloadidentity') }),
        },
      });
    }
    const rgName = normalize(cp.spec.resourceGroupName);
    const rgLive = this.cache.get('ResourceGroup', namespace, rgName);
    const rgOwnedTag =
      rgLive?.status?.tags?.[OWNED_TAG(clusterName)] === 'owned';
    const additionalTags = (cp.spec.additionalTags ?? {}) as Record<
      string,
      string
    >;
    const rg = await this.ensureAso(
      'ResourceGroup',
      cp,
      clusterName,
      rgName,
      {
        azureName: cp.spec.resourceGroupName,
        location: cp.spec.location,
        tags: capzTags(clusterName, cp.spec.resourceGroupName, additionalTags),
      },
      rgOwnedTag,
    );

    const mcName = normalize(name);
    const mcLive = this.cache.get('ManagedCluster', namespace, mcName);
    const aad = cp.spec.aadProfile;
    const mcSpec: Record<string, unknown> = {
      azureName: name,
      owner: { name: rgName },
      location: cp.spec.location,
      dnsPrefix: cp.spec.dnsPrefix ?? name,
      kubernetesVersion: String(cp.spec.version).replace(/^v/, ''),
      identity: { type: 'SystemAssigned' },
      enableRBAC: true,
      tags: capzTags(clusterName, name, additionalTags),
      ...(aad
        ? {
            aadProfile: {
              managed: aad.managed,
              adminGroupObjectIDs: aad.adminGroupObjectIDs,
            },
          }
        : {}),
      ...(cp.spec.disableLocalAccounts !== undefined
        ? { disableLocalAccounts: cp.spec.disableLocalAccounts }
        : {}),
      operatorSpec: {
        secrets: aad?.managed
          ? {
              userCredentials: {
                name: `${clusterName}-user-aso-kubeconfig`,
                key: 'value',
              },
            }
          : {
              adminCredentials: {
                name: `${clusterName}-aso-kubeconfig`,
                key: 'value',
              },
            },
      },
    };
    // The spec builder sends the pools only while the AKS cluster does not exist yet
    // (docs/capz-aso-facts.md#legacy-agent-pool-profiles, `configureAgentPoolProfiles` looks at the existing Azure
    // resource, not at the Kubernetes object): so until ASO reports the cluster (status.id) the ASO spec follows the
    // AzureManagedMachinePools. A control plane reconciled before its pools are labelled first sends none (AKS refuses:
    // a cluster needs a pool) and sends them once they appear.
    const inAzure = Boolean(mcLive?.status?.id);
    const pools = this.cache
      .list('AzureManagedMachinePool', namespace)
      .filter(p => label(p, CLUSTER_NAME) === clusterName)
      .map(p => ({
        name: p.spec.name ?? p.metadata.name,
        ...legacyPoolFields(p, this.replicasOf(p)),
      }));
    if (!inAzure) mcSpec.agentPoolProfiles = pools;
    const mc = rg
      ? await this.ensureAso(
          'ManagedCluster',
          cp,
          clusterName,
          mcName,
          mcSpec,
          true,
        )
      : undefined;
    if (
      mc &&
      !inAzure &&
      pools.length &&
      !same(mc.spec?.agentPoolProfiles ?? [], pools) &&
      controllerOf(mc)?.uid === cp.metadata.uid
    ) {
      await this.kube.mergePatch(K.ManagedCluster, namespace, mcName, {
        spec: { agentPoolProfiles: pools },
      });
    }
    if (
      mc &&
      mc.spec?.agentPoolProfiles !== undefined &&
      (mc.status?.agentPoolProfiles ?? []).length
    ) {
      await this.kube.mergePatch(K.ManagedCluster, namespace, mcName, {
        spec: { agentPoolProfiles: null },
      });
    }

    // Status: v1beta1 conditions, endpoint and kubeconfig.
    const rgReady = getCondition(rg, 'Ready');
    const mcReady = getCondition(mc, 'Ready');
    const conds: Cond[] = [
      this.fromAso('ResourceGroupReady', rg, rgReady),
      this.fromAso('ManagedClusterRunning', mc, mcReady),
    ];
    const failing = conds.find(c => c.status !== 'True');
    conds.push(
      failing
        ? { ...failing, type: 'Ready' }
        : { type: 'Ready', status: 'True', severity: '' },
    );
    const host = mcReady?.status === 'True' ? mc?.status?.fqdn : undefined;
    if (host && cp.spec.controlPlaneEndpoint?.host !== host) {
      await this.kube.mergePatch(K.AzureManagedControlPlane, namespace, name, {
        spec: { controlPlaneEndpoint: { host, port: 443 } },
      });
    }
    if (host && mc) await this.kubeconfig(cp, clusterName, mc);
    let conditions = cp.status?.conditions as Condition[] | undefined;
    for (const c of conds) conditions = setCondition(conditions, c);
    const status = {
      ...(cp.status ?? {}),
      conditions,
      ready: !!host,
      initialized: !!host,
      ...(mc?.status?.currentKubernetesVersion
        ? { version: `v${mc.status.currentKubernetesVersion}` }
        : {}),
    };
    if (!same(cp.status, status))
      await this.kube.mergePatch(
        K.AzureManagedControlPlane,
        namespace,
        name,
        { status },
        'status',
      );
  }

  private replicasOf(ammp: Obj): number | undefined {
    const mp = this.cache
      .list('MachinePool', ammp.metadata.namespace)
      .find(
        m =>
          m.spec?.template?.spec?.infrastructureRef?.name ===
          ammp.metadata.name,
      );
    return mp?.spec?.replicas;
  }

  private fromAso(
    type: string,
    o: Obj | undefined,
    ready: Condition | undefined,
  ): Cond {
    if (!o)
      return {
        type,
        status: 'False',
        severity: 'Info',
        reason: 'Creating',
        message: `${type.replace(/Ready|Running/, '')} is being created`,
      };
    if (ready?.status === 'True') return { type, status: 'True', severity: '' };
    return {
      type,
      status: 'False',
      severity: (ready?.severity as Cond['severity']) || 'Info',
      reason: ready?.reason ?? 'Reconciling',
      message: ready?.message,
    };
  }

  private async kubeconfig(
    cp: Obj,
    clusterName: string,
    mc: Obj,
  ): Promise<void> {
    const src =
      mc.spec?.operatorSpec?.secrets?.adminCredentials ??
      mc.spec?.operatorSpec?.secrets?.userCredentials;
    const value = src
      ? unb64(
          this.cache.get('Secret', cp.metadata.namespace, src.name)?.data?.[
            src.key
          ],
        )
      : undefined;
    if (!value) return;
    const name = `${clusterName}-kubeconfig`;
    const current = this.cache.get('Secret', cp.metadata.namespace, name);
    if (unb64(current?.data?.value) === value) return;
    const secret: Obj = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: {
        name,
        namespace: cp.metadata.namespace,
        labels: { [CLUSTER_NAME]: clusterName },
        ownerReferences: [ownerRef(cp)],
      },
      type: 'cluster.x-k8s.io/secret',
      data: { value: b64(value) },
    };
    if (current)
      await this.kube.replace(K.Secret, {
        ...secret,
        metadata: { ...current.metadata, labels: secret.metadata.labels },
      });
    else await this.kube.createIfAbsent(K.Secret, secret);
  }

  private async reconcileMachinePool(key: Key): Promise<Result | void> {
    const { namespace, name } = splitKey(key);
    const ammp = this.cache.get('AzureManagedMachinePool', namespace, name);
    if (!ammp) return;
    const cluster = this.cluster(ammp);
    if (!cluster) return;
    if (this.paused(ammp, cluster))
      return this.pause(ammp, ['ManagedClustersAgentPool']);
    if (isDeleting(ammp)) {
      // CAPZ v1.26.0 controllers/azuremanagedmachinepool_controller.go `reconcileDelete`: "Cluster was deleted, skip
      // machine pool deletion and let AKS delete the whole cluster. So, remove the finalizer." The pool object then
      // goes by garbage collection once its ManagedCluster is gone (ASO made that its owner too).
      if (isDeleting(cluster))
        return this.deleteOwned(ammp, AMMP_FINALIZER, []);
      return this.deleteOwned(ammp, AMMP_FINALIZER, [
        ['ManagedClustersAgentPool'],
      ]);
    }
    await this.start(ammp, AMMP_FINALIZER, ['ManagedClustersAgentPool']);
    const clusterName = cluster.metadata.name;
    const cpName = cluster.spec?.controlPlaneRef?.name;
    const mc = cpName
      ? this.cache.get('ManagedCluster', namespace, normalize(cpName))
      : undefined;
    if (!mc) return; // the pool is created once the cluster's ManagedCluster exists
    const pool = await this.ensureAso(
      'ManagedClustersAgentPool',
      ammp,
      clusterName,
      normalize(name),
      {
        azureName: ammp.spec.name ?? name,
        owner: { name: mc.metadata.name },
        ...legacyPoolFields(ammp, this.replicasOf(ammp)),
      },
      true,
    );
    const ready = getCondition(pool, 'Ready');
    const cond = this.fromAso('AgentPoolsReady', pool, ready);
    let conditions = ammp.status?.conditions as Condition[] | undefined;
    conditions = setCondition(conditions, cond);
    conditions = setCondition(conditions, { ...cond, type: 'Ready' });
    const status = {
      ...(ammp.status ?? {}),
      conditions,
      ready: cond.status === 'True',
      replicas: pool?.status?.count ?? 0,
    };
    if (!same(ammp.status, status))
      await this.kube.mergePatch(
        K.AzureManagedMachinePool,
        namespace,
        name,
        { status },
        'status',
      );
  }

  private async reconcileCluster(key: Key): Promise<Result | void> {
    const { namespace, name } = splitKey(key);
    const amc = this.cache.get('AzureManagedCluster', namespace, name);
    if (!amc) return;
    const cluster = this.cluster(amc);
    if (!cluster || this.paused(amc, cluster) || isDeleting(amc)) return;
    const cp = this.cache.get(
      'AzureManagedControlPlane',
      namespace,
      cluster.spec?.controlPlaneRef?.name ?? '',
    );
    const endpoint = cp?.spec?.controlPlaneEndpoint;
    if (endpoint?.host && !same(amc.spec?.controlPlaneEndpoint, endpoint)) {
      await this.kube.mergePatch(K.AzureManagedCluster, namespace, name, {
        spec: { controlPlaneEndpoint: endpoint },
      });
    }
    const ready = Boolean(endpoint?.host);
    if (amc.status?.ready !== ready)
      await this.kube.mergePatch(
        K.AzureManagedCluster,
        namespace,
        name,
        { status: { ready } },
        'status',
      );
  }

  /**
   * Deleting a legacy object deletes the ASO objects it controls (ASO then acts on their policy), phase by phase (the
   * kinds of one phase together, the next phase once they are gone), then its finalizer.
   */
  private async deleteOwned(
    owner: Obj,
    finalizer: string,
    phases: Array<
      Array<'ResourceGroup' | 'ManagedCluster' | 'ManagedClustersAgentPool'>
    >,
  ): Promise<Result | void> {
    if (!hasFinalizer(owner, finalizer)) return;
    const uid = owner.metadata.uid!;
    const wait = (this.deleteNotBefore.get(uid) ?? 0) - Date.now();
    if (wait > 0) return { requeueAfterMs: wait };
    for (const kinds of phases) {
      let remaining = 0;
      for (const kind of kinds) {
        for (const o of this.cache.list(kind, owner.metadata.namespace)) {
          if (controllerOf(o)?.uid !== owner.metadata.uid) continue;
          remaining++;
          if (!isDeleting(o))
            await this.kube.delete(
              K[kind],
              o.metadata.namespace,
              o.metadata.name,
            );
        }
      }
      if (remaining) {
        this.deleteNotBefore.set(uid, Date.now() + LEGACY_DELETE_REQUEUE_MS);
        return { requeueAfterMs: LEGACY_DELETE_REQUEUE_MS };
      }
    }
    this.deleteNotBefore.delete(uid);
    await this.kube
      .mergePatch(
        K[owner.kind as 'AzureManagedControlPlane'],
        owner.metadata.namespace,
        owner.metadata.name,
        {
          metadata: {
            finalizers: (owner.metadata.finalizers ?? []).filter(
              f => f !== finalizer,
            ),
            resourceVersion: owner.metadata.resourceVersion,
          },
        },
      )
      .catch(e => {
        if (!isNotFound(e)) throw e;
      });
  }
}
