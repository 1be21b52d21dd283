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
 *  - v1beta1-style conditions (with severity) on the control plane and pools (docs/capz-aso-facts.md#legacy-api);
 *  - what the real managers were seen to write for CAPZ's `aks` template (docs/real-controllers.md#findings, findings
 *    10–14): the VNet and subnet, one CAPZ service at a time, CAPZ's eight control plane conditions, providerIDs from
 *    the VMSS VMs, the webhooks' defaults, the Secrets, the last-applied-tags annotation and the spec fields (each
 *    with its upstream lines where it is written).
 * Simulated: the credential Secret's values come from the simulator's identity settings instead of an
 * AzureClusterIdentity (whose CRD is not installed here).
 */
import { listScaleSets, listScaleSetVms } from '../arm/compute.ts';
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
/** CAPZ v1.26.0 azure/services/aso/tags.go line 34 `tagsLastAppliedAnnotation`. */
export const LAST_APPLIED_TAGS =
  'sigs.k8s.io/cluster-api-provider-azure-last-applied-tags';
/** CAPZ v1.26.0 api/v1beta1 `LabelAgentPoolMode`, set by the AzureManagedMachinePool defaulting webhook. */
export const AGENT_POOL_MODE_LABEL =
  'azuremanagedmachinepool.infrastructure.cluster.x-k8s.io/agentpoolmode';

/** The ASO kinds a legacy control plane controls, in CAPZ's service order (azuremanagedcontrolplane_reconciler.go lines 59–66). */
type CpAsoKind =
  | 'ResourceGroup'
  | 'VirtualNetwork'
  | 'VirtualNetworksSubnet'
  | 'ManagedCluster';
type LegacyAsoKind = CpAsoKind | 'ManagedClustersAgentPool';
const CP_ASO_KINDS: CpAsoKind[] = [
  'ResourceGroup',
  'VirtualNetwork',
  'VirtualNetworksSubnet',
  'ManagedCluster',
];

/** azure.SubnetID (CAPZ v1.26.0 azure/defaults.go line 194): the ARM id CAPZ puts into each agent pool's vnetSubnetReference. */
export const subnetArmId = (
  sub: string,
  rg: string,
  vnet: string,
  subnet: string,
) =>
  `/subscriptions/${sub}/resourceGroups/${rg}/providers/Microsoft.Network/virtualNetworks/${vnet}/subnets/${subnet}`;

/**
 * What CAPZ's AzureManagedControlPlane defaulting webhook adds (CAPZ v1.26.0 internal/webhooks/
 * azuremanagedcontrolplane_webhook.go `Default` lines 64–79, internal/api/v1beta1/azuremanagedcontrolplane_default.go
 * lines 54–138): sku Free, resourceGroupName = the cluster, nodeResourceGroupName `MC_<rg>_<name>_<location>`, the
 * virtual network (name = the control plane's, 10.0.0.0/8, group = resourceGroupName) and its subnet (name = the
 * control plane's, 10.240.0.0/16; the overlay CIDRs with networkPluginMode overlay), oidcIssuerProfile and dnsPrefix.
 * Returns the spec fields to merge, or undefined when nothing is missing.
 */
export function controlPlaneDefaults(
  cp: Obj,
): Record<string, unknown> | undefined {
  const s = cp.spec ?? {};
  const overlay = s.networkPluginMode === 'overlay';
  const patch: Record<string, unknown> = {};
  if (!s.sku) patch.sku = { tier: 'Free' };
  const rg = s.resourceGroupName || label(cp, CLUSTER_NAME);
  if (!s.resourceGroupName && rg) patch.resourceGroupName = rg;
  if (!s.nodeResourceGroupName)
    patch.nodeResourceGroupName = `MC_${rg}_${cp.metadata.name}_${s.location}`;
  const vn = s.virtualNetwork ?? {};
  const vnet = {
    name: vn.name || cp.metadata.name,
    cidrBlock: vn.cidrBlock || (overlay ? '10.224.0.0/12' : '10.0.0.0/8'),
    resourceGroup: vn.resourceGroup || rg,
    subnet: {
      ...(vn.subnet ?? {}),
      name: vn.subnet?.name || cp.metadata.name,
      cidrBlock:
        vn.subnet?.cidrBlock || (overlay ? '10.224.0.0/16' : '10.240.0.0/16'),
    },
  };
  if (!same({ ...vn, subnet: { ...(vn.subnet ?? {}) } }, { ...vn, ...vnet }))
    patch.virtualNetwork = vnet;
  if (!s.oidcIssuerProfile) patch.oidcIssuerProfile = {};
  if (s.dnsPrefix === undefined) patch.dnsPrefix = cp.metadata.name;
  return Object.keys(patch).length ? patch : undefined;
}

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
  cp?: Obj,
  version?: string,
): Record<string, unknown> {
  const s = ammp.spec ?? {};
  // CAPZ v1.26.0 azure/scope/managedmachinepool.go `buildAgentPoolSpec` lines 161–221 and azure/services/agentpools/
  // spec.go `Parameters` lines 217–274: osDiskSizeGB always (0 = AKS's default), osDiskType and scaleDownMode (CRD
  // defaults Managed / Delete), orchestratorVersion from the MachinePool, and the subnet `getAgentPoolSubnet` names
  // (spec.subnetName, else the control plane's) as vnetSubnetReference (docs/real-controllers.md#findings, finding 14).
  const vn = cp?.spec?.virtualNetwork;
  const subnet = s.subnetName ?? vn?.subnet?.name;
  const real = cp
    ? {
        osDiskSizeGB: s.osDiskSizeGB ?? 0,
        ...(s.osDiskType ? { osDiskType: s.osDiskType } : {}),
        ...(s.scaleDownMode ? { scaleDownMode: s.scaleDownMode } : {}),
        ...(version ? { orchestratorVersion: version.replace(/^v/, '') } : {}),
        ...(vn?.name && subnet
          ? {
              vnetSubnetReference: {
                armId: subnetArmId(
                  cp.spec.subscriptionID,
                  vn.resourceGroup,
                  vn.name,
                  subnet,
                ),
              },
            }
          : {}),
      }
    : {};
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
    ...real,
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

/** One CAPZ service step: the ASO object, whether CAPZ would go on to the next service, whether it wrote it now. */
interface Step {
  live?: Obj;
  settled: boolean;
  changed: boolean;
}

/**
 * A service's condition as `UpdatePutStatus` writes it (CAPZ v1.26.0 azure/scope/managedcontrolplane.go lines
 * 887–897): True when done; `Creating` (Info, "<service> creating or updating") for "operation not done" (the object
 * was just written, or ASO is Reconciling it, aso.go lines 132–137, 287–305); else `Failed` (Error, "<service> failed
 * to create or update. err: resource is not Ready: <ASO's message>", aso.go line 139). An object ASO has not given a
 * Ready condition yet counts as not done: real CAPZ looks again only 20 s after writing it (finding 15), by when ASO
 * has, while this simulation reacts at once.
 */
function putStatus(type: string, service: string, r: Step): Cond {
  if (r.settled) return { type, status: 'True', severity: '' };
  const ready = getCondition(r.live, 'Ready');
  if (!r.live || r.changed || !ready || ready.reason === 'Reconciling')
    return {
      type,
      status: 'False',
      severity: 'Info',
      reason: 'Creating',
      message: `${service} creating or updating`,
    };
  return {
    type,
    status: 'False',
    severity: 'Error',
    reason: 'Failed',
    message: `${service} failed to create or update. err: resource is not Ready: ${
      ready.message ?? ''
    }`,
  };
}

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
  private readonly world: AzureWorld;
  /** Per owner uid: no new look at its deletion before this time (see LEGACY_DELETE_REQUEUE_MS). */
  private readonly deleteNotBefore = new Map<string, number>();

  constructor(
    kube: Kube,
    cache: Cache,
    identity: LegacyIdentity,
    world: AzureWorld,
    log: (m: string) => void,
  ) {
    this.kube = kube;
    this.cache = cache;
    this.identity = identity;
    this.world = world;
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
            {
              kind: 'VirtualNetwork',
              map: ownedBy('AzureManagedControlPlane'),
            },
            {
              kind: 'VirtualNetworksSubnet',
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
  private async pause(owner: Obj, kinds: LegacyAsoKind[]): Promise<void> {
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
    kinds: LegacyAsoKind[],
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

  /**
   * One CAPZ ASO service step for one object (CAPZ v1.26.0 azure/services/aso/aso.go `CreateOrUpdateResource` lines
   * 78–231): a missing object is created with reconcile-policy skip; an existing one it controls is flipped to
   * manage once it "was managed" (docs/capz-aso-facts.md#legacy-aso-objects) or once ASO found it missing in Azure
   * under skip (lines 117–131, "adopting"), and gets the annotations CAPZ sets on every reconcile (the last-applied
   * tags, tags.go line 37 `reconcileTags`). `settled` says whether CAPZ would go on to the next service: an object it
   * does not control is skipped as done (lines 104–109); one it controls must be Ready and unchanged by this step, else
   * the step answers "operation not done" (lines 132–137, 287–305) or the not-Ready error (line 139).
   */
  private async ensureAso(
    kind: LegacyAsoKind,
    owner: Obj,
    clusterName: string,
    name: string,
    spec: Record<string, unknown>,
    wasManaged: boolean,
    annotations: Record<string, string> = {},
  ): Promise<Step> {
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
            ...annotations,
            [CREDENTIAL_FROM]: `${clusterName}-aso-secret`,
            [POLICY]: 'skip',
          },
          ownerReferences: [ownerRef(owner)],
        },
        spec,
      });
      return { settled: false, changed: true };
    }
    // An existing object this owner does not control is left alone (the adoption guard of
    // docs/capz-aso-facts.md#legacy-aso-objects).
    if (controllerOf(live)?.uid !== owner.metadata.uid)
      return { live, settled: true, changed: false };
    const ready = getCondition(live, 'Ready');
    const paused = ann(live, PRE_PAUSE) !== undefined;
    const adopt =
      ready?.status !== 'True' &&
      ready?.reason === 'AzureResourceNotFound' &&
      ann(live, POLICY) === 'skip';
    const patch: Record<string, string> = {};
    for (const [k, v] of Object.entries(annotations))
      if (ann(live, k) !== v) patch[k] = v;
    if ((wasManaged || adopt) && ann(live, POLICY) === 'skip' && !paused)
      patch[POLICY] = 'manage';
    if (Object.keys(patch).length) {
      await this.kube.mergePatch(K[kind], ns, name, {
        metadata: { annotations: patch },
      });
      return { live, settled: false, changed: true };
    }
    return { live, settled: ready?.status === 'True', changed: false };
  }

  private async reconcileControlPlane(key: Key): Promise<Result | void> {
    const { namespace, name } = splitKey(key);
    const cp = this.cache.get('AzureManagedControlPlane', namespace, name);
    if (!cp) return;
    const cluster = this.cluster(cp);
    if (!cluster) return; // waiting for CAPI to label and own it
    // The simulation runs no admission webhooks: CAPZ's defaulting webhook would have added these on admission, so the
    // controller adds them before anything else (as the simulated ASO adds its webhook's operator-namespace, finding 8).
    const defaults = isDeleting(cp) ? undefined : controlPlaneDefaults(cp);
    if (defaults) {
      await this.kube.mergePatch(K.AzureManagedControlPlane, namespace, name, {
        spec: defaults,
      });
      return;
    }
    if (this.paused(cp, cluster)) return this.pause(cp, CP_ASO_KINDS);
    // Deleted in reverse order of creation, one service at a time (CAPZ v1.26.0
    // controllers/azuremanagedcontrolplane_reconciler.go `Delete` lines 108–121; azure/services/aso/aso.go
    // `DeleteResource` returns "operation not done" until the object is gone): the ManagedCluster, the subnet, the
    // VNet, then the ResourceGroup.
    if (isDeleting(cp))
      return this.deleteOwned(cp, AMCP_FINALIZER, [
        ['ManagedCluster'],
        ['VirtualNetworksSubnet'],
        ['VirtualNetwork'],
        ['ResourceGroup'],
      ]);
    await this.start(cp, AMCP_FINALIZER, CP_ASO_KINDS);
    const clusterName = cluster.metadata.name;

    // The ASO credential Secret, owned by the control plane: `controller: true` and no blockOwnerDeletion (CAPZ
    // v1.26.0 controllers/asosecret_controller.go lines 236–242; docs/real-controllers.md#findings, finding 13).
    const secretName = `${clusterName}-aso-secret`;
    if (!this.cache.get('Secret', namespace, secretName)) {
      const { blockOwnerDeletion: _omitted, ...owner } = ownerRef(cp);
      await this.kube.createIfAbsent(K.Secret, {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: {
          name: secretName,
          namespace,
          labels: { [clusterName]: 'owned' },
          ownerReferences: [owner],
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
    const additionalTags = (cp.spec.additionalTags ?? {}) as Record<
      string,
      string
    >;
    // tags.go `reconcileTags`: the JSON of the additional tags CAPZ applied (Go marshals map keys sorted), on the
    // ResourceGroup and the ManagedCluster, the two specs with `GetAdditionalTags` (groups/spec.go,
    // managedclusters/spec.go); docs/real-controllers.md#findings, finding 14.
    const lastApplied = {
      [LAST_APPLIED_TAGS]: JSON.stringify(
        Object.fromEntries(
          Object.entries(additionalTags).sort(([a], [b]) =>
            a < b ? -1 : a > b ? 1 : 0,
          ),
        ),
      ),
    };

    // CAPZ's services in order (azuremanagedcontrolplane_reconciler.go lines 59–66), each reached only when the one
    // before is done (`Reconcile` lines 73–88 stop at the first error, and a service whose object is not Ready yet
    // errs); each writes its condition (`UpdatePutStatus`, azure/scope/managedcontrolplane.go lines 887–897).
    const conds: Cond[] = [];
    const step = (type: string, service: string, r: Step) => {
      conds.push(putStatus(type, service, r));
      return r.settled;
    };

    const rgName = normalize(cp.spec.resourceGroupName);
    const rgLive = this.cache.get('ResourceGroup', namespace, rgName);
    const rgOwnedTag =
      rgLive?.status?.tags?.[OWNED_TAG(clusterName)] === 'owned';
    const rgStep = await this.ensureAso(
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
      lastApplied,
    );

    // The VNet and its subnet (finding 10): azure/scope/managedcontrolplane.go `VNetSpec` lines 298–307 and
    // `SubnetSpecs` lines 341–354; azure/services/virtualnetworks/spec.go `Parameters` lines 53–80 (CAPZ's owned tags
    // on create, owner the VNet's group) and `WasManaged` line 84 (the owned tag in Azure); azure/services/subnets/
    // spec.go `ResourceRef` line 53 (`<vnet>-<subnet>`), `Parameters` lines 59–75, `WasManaged` line 112 (the VNet's).
    const vn = cp.spec.virtualNetwork;
    const vnetName = normalize(vn.name);
    const vnetLive = this.cache.get('VirtualNetwork', namespace, vnetName);
    const vnetManaged =
      vnetLive?.status?.tags?.[OWNED_TAG(clusterName)] === 'owned';
    const subnetName = normalize(`${vn.name}-${vn.subnet.name.toLowerCase()}`);

    let mc: Obj | undefined;
    if (step('ResourceGroupReady', 'groups', rgStep)) {
      const vnetStep = await this.ensureAso(
        'VirtualNetwork',
        cp,
        clusterName,
        vnetName,
        {
          azureName: vn.name,
          owner: { name: normalize(vn.resourceGroup) },
          location: cp.spec.location,
          addressSpace: { addressPrefixes: [vn.cidrBlock] },
          tags: capzTags(clusterName, vn.name, additionalTags),
        },
        vnetManaged,
      );
      if (step('VNetReady', 'virtualnetworks', vnetStep)) {
        const subnetStep = await this.ensureAso(
          'VirtualNetworksSubnet',
          cp,
          clusterName,
          subnetName,
          {
            azureName: vn.subnet.name,
            owner: { name: vnetName },
            addressPrefixes: [vn.subnet.cidrBlock],
            addressPrefix: vn.subnet.cidrBlock,
          },
          vnetManaged,
        );
        if (step('SubnetsReady', 'subnets', subnetStep)) {
          const mcStep = await this.reconcileManagedCluster(
            cp,
            cluster,
            lastApplied,
          );
          mc = mcStep.live;
          // Private endpoints, fleet membership and AKS extensions: none asked for, so their services succeed with
          // nothing to do (privateendpoints.go line 39, fleetsmembers.go line 44, aksextensions.go line 51).
          if (step('ManagedClusterRunning', 'managedclusters', mcStep))
            for (const type of [
              'PrivateEndpointsReady',
              'FleetReady',
              'AKSExtensionsReady',
            ])
              conds.push({ type, status: 'True', severity: '' });
        }
      }
    }
    mc ??= this.cache.get('ManagedCluster', namespace, normalize(name));

    // Status: v1beta1 conditions (the steps not reached keep their last value, as CAPZ leaves them), endpoint,
    // kubeconfig and CA.
    const mcReady = getCondition(mc, 'Ready');
    const host = mcReady?.status === 'True' ? mc?.status?.fqdn : undefined;
    if (host && cp.spec.controlPlaneEndpoint?.host !== host) {
      await this.kube.mergePatch(K.AzureManagedControlPlane, namespace, name, {
        spec: { controlPlaneEndpoint: { host, port: 443 } },
      });
    }
    if (host && mc) await this.kubeconfig(cp, clusterName, mc);
    let conditions = cp.status?.conditions as Condition[] | undefined;
    for (const c of conds) conditions = setCondition(conditions, c);
    // v1beta1 `SetSummary` (scope.PatchObject, managedcontrolplane.go line 239): Ready mirrors the most severe
    // condition that is not True.
    const rank = (c: Condition) =>
      (({ Error: 0, Warning: 1, Info: 2 } as Record<string, number>)[
        c.severity ?? ''
      ] ?? 3);
    const failing = (conditions ?? [])
      .filter(c => c.type !== 'Ready' && c.status !== 'True')
      .sort((a, b) => rank(a) - rank(b))[0];
    const { lastTransitionTime: _t, ...summary } = failing ?? {
      type: 'Ready',
      status: 'True',
      severity: '',
      lastTransitionTime: '',
    };
    conditions = setCondition(conditions, { ...summary, type: 'Ready' });
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

  /** The managedclusters service step: the ManagedCluster as CAPZ's spec builder writes it. */
  private async reconcileManagedCluster(
    cp: Obj,
    cluster: Obj,
    lastApplied: Record<string, string>,
  ): Promise<Step> {
    const namespace = cp.metadata.namespace;
    const name = cp.metadata.name;
    const clusterName = cluster.metadata.name;
    const rgName = normalize(cp.spec.resourceGroupName);
    const additionalTags = (cp.spec.additionalTags ?? {}) as Record<
      string,
      string
    >;
    const mcName = normalize(name);
    const mcLive = this.cache.get('ManagedCluster', namespace, mcName);
    const aad = cp.spec.aadProfile;
    // Service CIDR from the Cluster when it names exactly one (managedcontrolplane.go lines 585–590), DNS IP its .10
    // (managedclusters/spec.go `calculateDNSServiceIP` lines 565–574).
    const services = cluster.spec?.clusterNetwork?.services?.cidrBlocks ?? [];
    const pods = cluster.spec?.clusterNetwork?.pods?.cidrBlocks ?? [];
    const serviceCidr: string | undefined =
      services.length === 1 ? services[0] : undefined;
    const dnsServiceIP =
      cp.spec.dnsServiceIP ??
      (serviceCidr
        ? serviceCidr
            .split('/')[0]
            .split('.')
            .slice(0, 3)
            .concat('10')
            .join('.')
        : undefined);
    const sshKey = cp.spec.sshPublicKey
      ? Buffer.from(cp.spec.sshPublicKey, 'base64').toString('utf8')
      : undefined;
    const oidc = cp.spec.oidcIssuerProfile;
    // azure/services/managedclusters/spec.go `Parameters` lines 411–452: basic properties (lines 486–507: owner,
    // identity, location, nodeResourceGroup, enableRBAC, dnsPrefix, version, servicePrincipalProfile msi), network
    // profile (lines 510–542), linux profile (577–599), operator spec (602–611, 614–640), AAD, SKU (661–671) and
    // OIDC issuer (731–748); docs/real-controllers.md#findings, finding 14.
    const mcSpec: Record<string, unknown> = {
      azureName: name,
      owner: { name: rgName },
      location: cp.spec.location,
      nodeResourceGroup: cp.spec.nodeResourceGroupName,
      dnsPrefix: cp.spec.dnsPrefix ?? name,
      kubernetesVersion: String(cp.spec.version).replace(/^v/, ''),
      identity: { type: 'SystemAssigned' },
      enableRBAC: true,
      servicePrincipalProfile: { clientId: 'msi' },
      tags: capzTags(clusterName, name, additionalTags),
      networkProfile: {
        ...(cp.spec.networkPlugin
          ? { networkPlugin: cp.spec.networkPlugin }
          : {}),
        ...(cp.spec.loadBalancerSKU
          ? { loadBalancerSku: String(cp.spec.loadBalancerSKU).toLowerCase() }
          : {}),
        ...(cp.spec.networkPolicy
          ? { networkPolicy: cp.spec.networkPolicy }
          : {}),
        ...(cp.spec.networkPluginMode
          ? { networkPluginMode: cp.spec.networkPluginMode }
          : {}),
        ...(pods.length === 1 ? { podCidr: pods[0] } : {}),
        ...(serviceCidr ? { serviceCidr, dnsServiceIP } : {}),
        ...(cp.spec.outboundType ? { outboundType: cp.spec.outboundType } : {}),
      },
      ...(sshKey
        ? {
            linuxProfile: {
              adminUsername: 'azureuser',
              ssh: { publicKeys: [{ keyData: sshKey }] },
            },
          }
        : {}),
      ...(aad
        ? {
            aadProfile: {
              managed: aad.managed,
              enableAzureRBAC: aad.managed,
              adminGroupObjectIDs: aad.adminGroupObjectIDs,
            },
          }
        : {}),
      ...(aad && cp.spec.disableLocalAccounts !== undefined
        ? { disableLocalAccounts: cp.spec.disableLocalAccounts }
        : {}),
      ...(cp.spec.sku ? { sku: { name: 'Base', tier: cp.spec.sku.tier } } : {}),
      ...(oidc ? { oidcIssuerProfile: { enabled: oidc.enabled } } : {}),
      operatorSpec: {
        ...(oidc?.enabled
          ? {
              configMaps: {
                oidcIssuerProfile: {
                  name: `${clusterName}-aso-oidc-issuer-profile`,
                  key: 'oidc-issuer-profile-url',
                },
              },
            }
          : {}),
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
        ...legacyPoolFields(
          p,
          this.replicasOf(p),
          cp,
          this.machinePoolOf(p)?.spec?.template?.spec?.version,
        ),
      }));
    if (!inAzure) mcSpec.agentPoolProfiles = pools;
    const step = await this.ensureAso(
      'ManagedCluster',
      cp,
      clusterName,
      mcName,
      mcSpec,
      true,
      lastApplied,
    );
    const mc = step.live;
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
      return { live: mc, settled: false, changed: true };
    }
    if (
      mc &&
      mc.spec?.agentPoolProfiles !== undefined &&
      (mc.status?.agentPoolProfiles ?? []).length
    ) {
      await this.kube.mergePatch(K.ManagedCluster, namespace, mcName, {
        spec: { agentPoolProfiles: null },
      });
      return { live: mc, settled: false, changed: true };
    }
    return step;
  }

  private machinePoolOf(ammp: Obj): Obj | undefined {
    return this.cache
      .list('MachinePool', ammp.metadata.namespace)
      .find(
        m =>
          m.spec?.template?.spec?.infrastructureRef?.name ===
          ammp.metadata.name,
      );
  }

  private replicasOf(ammp: Obj): number | undefined {
    return this.machinePoolOf(ammp)?.spec?.replicas;
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
    // `<cluster>-kubeconfig` with no type, so Opaque (CAPZ v1.26.0 azure/scope/managedcontrolplane.go
    // `MakeEmptyKubeConfigSecret` lines 767–777, written by azuremanagedcontrolplane_reconciler.go lines 133–154).
    await this.writeSecret(cp, `${clusterName}-kubeconfig`, {
      labels: { [CLUSTER_NAME]: clusterName },
      data: { value: b64(value) },
    });
    // `<cluster>-ca`: the kubeconfig's CA as tls.crt and the literal `foo` as tls.key, controller-owned by the control
    // plane (azuremanagedcontrolplane_reconciler.go lines 157–174, `MakeClusterCA` lines 801–811); finding 13.
    const ca = /certificate-authority-data:\s*(\S+)/.exec(value)?.[1] ?? '';
    await this.writeSecret(cp, `${clusterName}-ca`, {
      data: { 'tls.crt': ca, 'tls.key': b64('foo') },
    });
  }

  /** controllerutil.CreateOrUpdate of an Opaque Secret controller-owned by the control plane (data and labels). */
  private async writeSecret(
    cp: Obj,
    name: string,
    want: { labels?: Record<string, string>; data: Record<string, string> },
  ): Promise<void> {
    const ns = cp.metadata.namespace;
    let current = this.cache.get('Secret', ns, name);
    if (current && (current.type ?? 'Opaque') !== 'Opaque') {
      // A Secret's type is immutable: one an older simulation wrote as `cluster.x-k8s.io/secret` is replaced.
      await this.kube.delete(K.Secret, ns, name);
      current = undefined;
    }
    if (
      current &&
      same(current.data, want.data) &&
      Object.entries(want.labels ?? {}).every(
        ([k, v]) => label(current, k) === v,
      )
    )
      return;
    const secret: Obj = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: {
        name,
        namespace: ns,
        ...(want.labels ? { labels: want.labels } : {}),
        ownerReferences: [ownerRef(cp)],
      },
      type: 'Opaque',
      data: want.data,
    };
    if (current)
      await this.kube.replace(K.Secret, {
        ...secret,
        metadata: {
          ...current.metadata,
          labels: { ...(current.metadata.labels ?? {}), ...want.labels },
        },
      });
    else await this.kube.createIfAbsent(K.Secret, secret);
  }

  private async reconcileMachinePool(key: Key): Promise<Result | void> {
    const { namespace, name } = splitKey(key);
    const ammp = this.cache.get('AzureManagedMachinePool', namespace, name);
    if (!ammp) return;
    // CAPZ's AzureManagedMachinePool defaulting webhook (CAPZ v1.26.0 internal/webhooks/
    // azuremanagedmachinepool_webhook.go `Default` lines 56–71): the agentpoolmode label = spec.mode, spec.name = the
    // object's name. This simulation runs no admission webhooks, so the controller defaults every pool before anything
    // else, whoever wrote it (seeds, tests, the demo's users), as the webhook would have on admission (finding 12).
    if (!isDeleting(ammp)) {
      const wantMode =
        ammp.spec?.mode !== undefined &&
        label(ammp, AGENT_POOL_MODE_LABEL) !== ammp.spec.mode;
      const wantName = !ammp.spec?.name;
      if (wantMode || wantName) {
        await this.kube.mergePatch(K.AzureManagedMachinePool, namespace, name, {
          ...(wantMode
            ? {
                metadata: {
                  labels: { [AGENT_POOL_MODE_LABEL]: ammp.spec.mode },
                },
              }
            : {}),
          ...(wantName ? { spec: { name } } : {}),
        });
        return;
      }
    }
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
    const cp = cpName
      ? this.cache.get('AzureManagedControlPlane', namespace, cpName)
      : undefined;
    const { live: pool } = await this.ensureAso(
      'ManagedClustersAgentPool',
      ammp,
      clusterName,
      normalize(name),
      {
        azureName: ammp.spec.name ?? name,
        owner: { name: mc.metadata.name },
        ...legacyPoolFields(
          ammp,
          this.replicasOf(ammp),
          cp,
          this.machinePoolOf(ammp)?.spec?.template?.spec?.version,
        ),
      },
      true,
    );
    const ready = getCondition(pool, 'Ready');
    const cond = this.fromAso('AgentPoolsReady', pool, ready);
    // Once the agent pool is done, the VMSS VMs through ARM become spec.providerIDList (sorted) and their number
    // status.replicas (CAPZ v1.26.0 controllers/azuremanagedmachinepool_reconciler.go lines 130–172); no VMSS yet is a
    // transient error (line 150, retried in 20 s; compressed here as the rest of the simulated timing).
    const providerIDs =
      cond.status === 'True' && cp
        ? this.providerIds(cp, ammp.spec.name ?? name)
        : undefined;
    if (providerIDs && !same(ammp.spec.providerIDList ?? [], providerIDs)) {
      await this.kube.mergePatch(K.AzureManagedMachinePool, namespace, name, {
        spec: { providerIDList: providerIDs },
      });
    }
    let conditions = ammp.status?.conditions as Condition[] | undefined;
    conditions = setCondition(conditions, cond);
    conditions = setCondition(conditions, { ...cond, type: 'Ready' });
    const status = {
      ...(ammp.status ?? {}),
      conditions,
      ready: cond.status === 'True' && providerIDs !== undefined,
      replicas: providerIDs?.length ?? ammp.status?.replicas ?? 0,
    };
    if (!same(ammp.status, status))
      await this.kube.mergePatch(
        K.AzureManagedMachinePool,
        namespace,
        name,
        { status },
        'status',
      );
    if (cond.status === 'True' && !providerIDs) return { requeueAfterMs: 500 };
  }

  /**
   * The pool's VMSS VM ids as providerIDs, read as CAPZ reads them through ARM (the simulated ARM's compute routes,
   * src/arm/compute.ts): the first VMSS of the node resource group tagged `poolName` or `aks-managed-poolName` = the
   * pool, its VMs' ids prefixed `azure://` with the resource group lower-cased (cloud-provider-azure
   * `ConvertResourceGroupNameToLower`), sorted. Undefined when there is no such VMSS (or group) yet.
   */
  private providerIds(cp: Obj, pool: string): string[] | undefined {
    const sub = cp.spec.subscriptionID;
    const nodeRg = cp.spec.nodeResourceGroupName;
    if (!sub || !nodeRg) return undefined;
    try {
      const match = listScaleSets(this.world, sub, nodeRg).value.find(
        ss =>
          (ss.tags as Record<string, string>).poolName === pool ||
          ss.tags['aks-managed-poolName'] === pool,
      );
      if (!match) return undefined;
      return listScaleSetVms(this.world, sub, nodeRg, match.name)
        .value.map(
          vm =>
            `azure://${vm.id.replace(
              /\/resourceGroups\/([^/]+)\//i,
              (_m, g: string) => `/resourceGroups/${g.toLowerCase()}/`,
            )}`,
        )
        .sort();
    } catch (e) {
      if (e instanceof AzureError) return undefined;
      throw e;
    }
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
    phases: LegacyAsoKind[][],
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
