/**
 * An in-process model of the slice of Azure that CAPZ and ASO touch: subscriptions, resource groups, AKS managed
 * clusters and their agent pools (docs/azure-facts.md#arm-resource-groups, docs/azure-facts.md#arm-managed-clusters,
 * docs/azure-facts.md#arm-agent-pools). Long-running operations move through provisioning states over `operationMs`,
 * like ARM's LROs, and AKS refuses a change while it is busy (docs/capz-aso-facts.md#aso-conditions,
 * docs/azure-facts.md#arm-managed-clusters). Every create, update and delete is counted, so tests can prove that
 * nothing real was lost.
 *
 * A PUT is ARM's create-or-replace, not a merge (ARM's PATCH is the merge: Microsoft.Resources "Resource Groups -
 * Update" retains unspecified fields, its PUT "Create Or Update" does not; the Tags API's `Replace` vs `Merge`):
 *  - resource group PUT: `tags` replaced, omitted = no tags;
 *  - managed cluster PUT: the cluster's `tags` replaced, omitted = no tags;
 *  - agent pool PUT (and each pool in a managed cluster PUT's `agentPoolProfiles`): `nodeLabels`, `nodeTaints` and
 *    `tags` replaced (omitted = none; CAPZ sends an empty map "as this tells AKS to delete any existing tags",
 *    azure/services/agentpools/spec.go before v1.14), `enableAutoScaling` omitted = false, and `minCount`/`maxCount`
 *    are kept only with autoscaling on (autoscaling on without both is AKS's 400 InvalidParameter);
 *  - fields AKS does not let change in place keep their value when omitted (what a re-PUT of the same pool does):
 *    `vmSize`, `osType`, `osSKU`, `availabilityZones`, `maxPods`, `osDiskSizeGB` (0 = AKS's default size); `count`
 *    when omitted (CAPZ's adopted pools and autoscaled pools leave it out, docs/capz-aso-facts.md#capz-mutators,
 *    docs/capz-aso-facts.md#adopt-agent-pool); the cluster's `dnsPrefix`, `networkProfile`, `identity`, and
 *    `kubernetesVersion`/`disableLocalAccounts`/`aadProfile` when omitted (as before). Defaults on create follow AKS:
 *    osSKU Ubuntu (Windows2022 for Windows), osDiskSizeGB 128, maxPods 30 with Azure CNI and 110 with kubenet, no
 *    zones. Which omitted fields keep their value is an inference from the AKS API reference (immutable properties),
 *    not stated in docs/azure-facts.md.
 */
import { EventEmitter } from 'node:events';
import { createHash, randomUUID } from 'node:crypto';
import { AzureError, notFound } from './errors.ts';

export type ProvisioningState =
  | 'Creating'
  | 'Updating'
  | 'Succeeded'
  | 'Failed'
  | 'Deleting'
  | 'Canceled';

/**
 * What an ARM PUT carried that the model does not represent field by field (e.g. a managed cluster's `sku`,
 * `properties.oidcIssuerProfile`, `addonProfiles`, a pool's `upgradeSettings`): kept verbatim so a GET echoes it, and
 * replaced by the next PUT like every other field (docs/azure-facts.md#arm-write-api).
 */
export interface WireExtra {
  /** top-level members besides id/name/type/location/tags/identity/properties */
  top?: Record<string, unknown>;
  /** members of `properties` the model does not map */
  properties?: Record<string, unknown>;
}

export interface ResourceGroup {
  subscriptionId: string;
  name: string;
  location: string;
  tags: Record<string, string>;
  provisioningState: ProvisioningState;
}

/** What a PUT of an agent pool (or a pool of a managed cluster PUT) carries; field names as ARM's. */
export interface AgentPoolSpec {
  count?: number;
  vmSize?: string;
  mode?: 'System' | 'User';
  osType?: string;
  osSKU?: string;
  type?: string;
  orchestratorVersion?: string;
  enableAutoScaling?: boolean;
  minCount?: number;
  maxCount?: number;
  availabilityZones?: string[];
  maxPods?: number;
  osDiskSizeGB?: number;
  nodeLabels?: Record<string, string>;
  /** `key=value:Effect`, as AKS writes taints. */
  nodeTaints?: string[];
  tags?: Record<string, string>;
  /** Unmapped wire fields of the PUT (see {@link WireExtra}). */
  extra?: WireExtra;
}

export interface AgentPool
  extends Required<
    Pick<
      AgentPoolSpec,
      'count' | 'vmSize' | 'mode' | 'osType' | 'osSKU' | 'type'
    >
  > {
  name: string;
  orchestratorVersion: string;
  currentOrchestratorVersion: string;
  enableAutoScaling: boolean;
  minCount?: number;
  maxCount?: number;
  availabilityZones: string[];
  maxPods: number;
  osDiskSizeGB: number;
  nodeLabels: Record<string, string>;
  nodeTaints: string[];
  tags: Record<string, string>;
  provisioningState: ProvisioningState;
  powerState: { code: 'Running' | 'Stopped' };
  nodeImageVersion: string;
  /**
   * The instance ids of the pool's VMSS, ascending: what the VMSS's `virtualMachines` list answers and what the
   * workload Node sync makes one Node each for, so that the legacy CAPZ path (providerIDs from ARM) and the CAPI/
   * AzureASOManagedMachinePool path (providerIDs from Nodes) see the same machines (docs/real-controllers.md#legacy-path).
   * Scale-out appends new ids, scale-in removes the highest first, an id is never given out twice in one VMSS.
   */
  instanceIds: number[];
  /** The next instance id the VMSS gives out. */
  nextInstanceId: number;
  extra?: WireExtra;
}

/**
 * A virtual network (Microsoft.Network/virtualNetworks) and its subnets, as ASO's network.azure.com v1api20201101
 * VirtualNetwork / VirtualNetworksSubnet write them for CAPZ's legacy AzureManagedControlPlane (CAPZ v1.26.0
 * `azure/services/virtualnetworks`, `azure/services/subnets`). Kept as the PUT's `properties`, verbatim, plus what
 * ARM adds (`provisioningState`, ids); nothing in the model reads them.
 */
export interface VirtualNetwork {
  subscriptionId: string;
  resourceGroup: string;
  name: string;
  location: string;
  tags: Record<string, string>;
  properties: Record<string, unknown>;
  subnets: Record<
    string,
    { name: string; properties: Record<string, unknown> }
  >;
}

export interface ManagedClusterSpec {
  location: string;
  dnsPrefix?: string;
  kubernetesVersion?: string;
  enableRBAC?: boolean;
  disableLocalAccounts?: boolean;
  aadProfile?: {
    managed?: boolean;
    enableAzureRBAC?: boolean;
    adminGroupObjectIDs?: string[];
  };
  networkProfile?: Record<string, unknown>;
  identity?: { type: string };
  tags?: Record<string, string>;
  /** Required on create (AKS needs at least one pool; ASO issue #2791). */
  agentPoolProfiles?: Array<AgentPoolSpec & { name: string }>;
  /** AKS lets a create name the node resource group (default `MC_<rg>_<name>_<region>`); kept on update. */
  nodeResourceGroup?: string;
  /** Unmapped wire fields of the PUT (see {@link WireExtra}). */
  extra?: WireExtra;
}

export interface ManagedCluster {
  subscriptionId: string;
  resourceGroup: string;
  name: string;
  location: string;
  dnsPrefix: string;
  kubernetesVersion: string;
  currentKubernetesVersion: string;
  enableRBAC: boolean;
  disableLocalAccounts: boolean;
  aadProfile?: ManagedClusterSpec['aadProfile'];
  networkProfile: Record<string, unknown>;
  identity: { type: string };
  tags: Record<string, string>;
  fqdn: string;
  azurePortalFQDN: string;
  nodeResourceGroup: string;
  resourceUID: string;
  provisioningState: ProvisioningState;
  powerState: { code: 'Running' | 'Stopped' };
  agentPools: Record<string, AgentPool>;
  extra?: WireExtra;
}

type Kind = 'resourceGroups' | 'managedClusters' | 'agentPools';
export type Counters = Record<
  'created' | 'updated' | 'deleted',
  Record<Kind, number>
>;

const zero = (): Record<Kind, number> => ({
  resourceGroups: 0,
  managedClusters: 0,
  agentPools: 0,
});
/** Network writes, counted apart from {@link Counters} (whose shape tests and persisted state files compare). */
export type NetworkCounters = Record<
  'created' | 'updated' | 'deleted',
  { virtualNetworks: number; subnets: number }
>;
const zeroNet = () => ({ virtualNetworks: 0, subnets: 0 });
const key = (...parts: string[]) => parts.map(p => p.toLowerCase()).join('/');
const DEFAULT_VERSION = '1.33.2';

/**
 * What AKS offers in every simulated region (managedClusters.listKubernetesVersions, api-version 2024-09-01): one
 * entry per minor with `isDefault`, `isPreview`, `capabilities.supportPlan` and `patchVersions` keyed by patch with
 * their `upgrades`, as `KubernetesVersionListResult` in @azure/arm-containerservice has them. 1.33 is the default
 * (the model's default version is 1.33.2); 1.34 is a preview.
 */
export const KUBERNETES_VERSIONS: Array<{
  minor: string;
  patches: string[];
  isDefault?: boolean;
  isPreview?: boolean;
  lts?: boolean;
}> = [
  { minor: '1.31', patches: ['1.31.9', '1.31.10'], lts: true },
  { minor: '1.32', patches: ['1.32.5', '1.32.6'] },
  { minor: '1.33', patches: ['1.33.1', '1.33.2'], isDefault: true },
  { minor: '1.34', patches: ['1.34.0'], isPreview: true },
];

export type OfferedMinor = (typeof KUBERNETES_VERSIONS)[number];

/**
 * AKS's refusal of a version it does not offer in the region (every patch of {@link AzureWorld.kubernetesVersions},
 * previews included, as `az aks create --kubernetes-version` takes them): 400 `AgentPoolK8sVersionNotSupported` with
 * AKS's own words, for a cluster's `kubernetesVersion` and a pool's `orchestratorVersion` alike
 * (docs/azure-facts.md#arm-unsupported-version). A value the resource already has is not checked again: a version
 * AKS stopped offering keeps running.
 */
function requireOfferedVersion(
  offered: readonly OfferedMinor[],
  version: string,
): void {
  if (offered.some(m => m.patches.includes(version))) return;
  throw new AzureError(
    400,
    'AgentPoolK8sVersionNotSupported',
    `Version ${version} is not supported in this region. Please use [az aks get-versions] command to get the supported version list in this region. For more information, please check https://aka.ms/supported-version-list`,
  );
}

/** AKS's cluster auto-upgrade channels (`properties.autoUpgradeProfile.upgradeChannel`, default `none`). */
export type UpgradeChannel =
  | 'none'
  | 'patch'
  | 'stable'
  | 'rapid'
  | 'node-image';

const versionParts = (v: string) => v.split('.').map(Number);
/** Compares two `major.minor[.patch]` versions numerically. */
export function compareVersions(a: string, b: string): number {
  const x = versionParts(a);
  const y = versionParts(b);
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    const d = (x[i] ?? 0) - (y[i] ?? 0);
    if (d) return d;
  }
  return 0;
}
const minorOf = (v: string) => v.split('.').slice(0, 2).join('.');

/**
 * Where an auto-upgrade channel moves a cluster running `current` when AKS's auto-upgrade runs, among the versions the
 * region offers (docs/azure-facts.md#aks-auto-upgrade, AKS "Automatically upgrade an AKS cluster"): `patch` to the
 * latest patch of its minor; `stable` towards the latest patch of minor N-1 and `rapid` towards the latest patch of
 * minor N, N being the latest GA minor (previews never count), one minor at a time (a cluster two minors behind goes
 * to the next minor's latest patch first); `node-image` and `none` never change the Kubernetes version. A cluster at
 * or past the channel's minor keeps its version under `stable` (_inference_: the docs only describe clusters behind
 * it); under `rapid` at N it takes N's latest patch. Undefined: nothing to do.
 */
export function autoUpgradeTarget(
  channel: string | undefined,
  current: string,
  offered: readonly OfferedMinor[],
): string | undefined {
  const ga = offered
    .filter(m => !m.isPreview && m.patches.length)
    .sort((a, b) => compareVersions(a.minor, b.minor));
  const latestPatch = (minor: string) =>
    ga
      .find(m => m.minor === minor)
      ?.patches.slice()
      .sort(compareVersions)
      .at(-1);
  const newer = (v: string | undefined) =>
    v && compareVersions(v, current) > 0 ? v : undefined;
  const cur = minorOf(current);
  if (channel === 'patch') return newer(latestPatch(cur));
  if (channel !== 'stable' && channel !== 'rapid') return undefined;
  if (!ga.length) return undefined;
  const target =
    channel === 'rapid'
      ? ga[ga.length - 1].minor
      : ga[Math.max(0, ga.length - 2)].minor;
  const c = compareVersions(cur, target);
  if (c > 0) return undefined;
  if (c === 0) return newer(latestPatch(cur));
  const next = ga.find(m => compareVersions(m.minor, cur) > 0);
  return next ? newer(latestPatch(next.minor)) : undefined;
}

/** The end of support of one minor, as the backend's release calendar has it (`AksMinorLifecycle`). */
export interface MinorSupport {
  /** `1.33` */
  minor: string;
  /** Last day of community support, `YYYY-MM-DD`. */
  endOfLife: string;
  /** Last day of long-term support, for a minor the region offers with the AKSLongTermSupport plan. */
  ltsEndOfLife?: string;
}

/** An upgrade that fails on demand: see {@link AzureWorld.failUpgrade}. */
export interface UpgradeFailureRule {
  /** The target version whose upgrade fails (`1.33.2`; a minor `1.33` matches its patches). */
  version: string;
  /** Only this cluster (AKS name, case-insensitive); default every cluster. */
  cluster?: string;
  /** Only clusters in this resource group (case-insensitive). */
  resourceGroup?: string;
  /** The error AKS answers; default `UpgradeFailed` with AKS's drain-failure message. */
  error?: { code: string; message: string };
}

/** What one auto-upgrade did (see {@link AzureWorld.autoUpgradeNow}). */
export interface AutoUpgrade {
  subscriptionId: string;
  resourceGroup: string;
  name: string;
  channel: UpgradeChannel;
  from: string;
  to: string;
}

export interface AzureWorldOptions {
  /** How long a create/update/delete of a cluster or pool takes (ARM LRO); default 200 ms. */
  operationMs?: number;
  /**
   * Runs AKS's cluster auto-upgrade ({@link AzureWorld.autoUpgradeNow}) every so many ms; default never (a test or
   * the demo's control calls it).
   */
  autoUpgradeMs?: number;
  /** The simulator's clock, for end-of-support dates; default the wall clock. */
  now?: () => Date;
  /**
   * End-of-support dates per minor (the backend's release calendar, `AKS_RELEASE_CALENDAR` of capz-common, fits):
   * from the day after `endOfLife` (`ltsEndOfLife` for a minor the region offers as LTS) the region no longer offers
   * the minor. Default none: every version of {@link KUBERNETES_VERSIONS} is offered whatever the date.
   */
  versionSupport?: readonly MinorSupport[];
  subscriptions?: string[];
  /**
   * Where a cluster's credentials point: a real API server (the shared workload cluster of src/workload/, which holds
   * a Node per VMSS instance). Without it the kubeconfigs name the cluster's fqdn, which nothing serves. With it the
   * admin kubeconfig carries this identity also on an Entra cluster (AKS's admin credentials are the local account,
   * which bypasses Entra ID), and an Entra cluster's user kubeconfig keeps the kubelogin `exec`
   * (docs/real-controllers.md#workload-clusters).
   */
  kubeconfigFor?(cluster: ManagedCluster): {
    server: string;
    caPem: string;
    token?: string;
    clientCertificatePem?: string;
    clientKeyPem?: string;
  };
}

/** What persists across restarts of the demo: the whole state, never the timers. */
export interface AzureSnapshot {
  subscriptions: string[];
  resourceGroups: ResourceGroup[];
  managedClusters: ManagedCluster[];
  /** Absent in state files written before the model had networks. */
  virtualNetworks?: VirtualNetwork[];
  counters: Counters;
}

/**
 * The cluster's auto-upgrade channel: `properties.autoUpgradeProfile.upgradeChannel` of its last PUT (kept verbatim in
 * {@link WireExtra}, echoed by GET), undefined for `none` or none set.
 */
export function upgradeChannelOf(
  mc: Pick<ManagedCluster, 'extra'>,
): UpgradeChannel | undefined {
  const p = mc.extra?.properties?.autoUpgradeProfile as
    | { upgradeChannel?: string }
    | undefined;
  const c = p?.upgradeChannel?.toLowerCase();
  return c === 'patch' || c === 'stable' || c === 'rapid' || c === 'node-image'
    ? c
    : undefined;
}

export class AzureWorld extends EventEmitter {
  operationMs: number;
  private readonly subscriptions = new Set<string>();
  private readonly groups = new Map<string, ResourceGroup>();
  private readonly clusters = new Map<string, ManagedCluster>();
  private readonly vnets = new Map<string, VirtualNetwork>();
  private readonly failures = new Map<string, AzureError>();
  private readonly asyncFailures = new Map<string, AzureError>();
  private readonly operationErrors = new Map<string, AzureError>();
  private readonly timers = new Set<NodeJS.Timeout>();
  /** What each pending timer will run, so tests can end every operation at once (completePendingOperations). */
  private readonly pendingSteps = new Map<NodeJS.Timeout, () => void>();
  counters: Counters = { created: zero(), updated: zero(), deleted: zero() };
  networkCounters: NetworkCounters = {
    created: zeroNet(),
    updated: zeroNet(),
    deleted: zeroNet(),
  };

  private readonly kubeconfigFor: AzureWorldOptions['kubeconfigFor'];
  private readonly now: () => Date;
  private readonly versionSupport: readonly MinorSupport[];
  private upgradeFailures: UpgradeFailureRule[] = [];
  private autoUpgradeTimer?: NodeJS.Timeout;

  constructor(opts: AzureWorldOptions = {}) {
    super();
    this.operationMs = opts.operationMs ?? 200;
    this.kubeconfigFor = opts.kubeconfigFor;
    this.now = opts.now ?? (() => new Date());
    this.versionSupport = opts.versionSupport ?? [];
    for (const s of opts.subscriptions ?? []) this.addSubscription(s);
    if (opts.autoUpgradeMs) {
      this.autoUpgradeTimer = setInterval(
        () => this.autoUpgradeNow(),
        opts.autoUpgradeMs,
      );
      this.autoUpgradeTimer.unref();
    }
  }

  /**
   * What the region offers today (managedClusters.listKubernetesVersions): {@link KUBERNETES_VERSIONS} without the
   * minors past their end of support by the simulator's clock (`versionSupport`; a day is over at its end, UTC). AKS
   * stops offering a version once it leaves support (docs/azure-facts.md#aks-version-end-of-support).
   */
  kubernetesVersions(): OfferedMinor[] {
    const today = this.now().toISOString().slice(0, 10);
    return KUBERNETES_VERSIONS.filter(m => {
      const s = this.versionSupport.find(x => x.minor === m.minor);
      if (!s) return true;
      const last = m.lts && s.ltsEndOfLife ? s.ltsEndOfLife : s.endOfLife;
      return today <= last;
    });
  }

  /**
   * Makes every upgrade (a cluster's `kubernetesVersion` or a pool's `orchestratorVersion` moving to a version it does
   * not run, by a PUT or by auto-upgrade) to `rule.version` fail, until {@link clearUpgradeFailures}: the PUT is
   * accepted, its operation ends `Failed` with AKS's `UpgradeFailed` (or `rule.error`), the resource's
   * provisioningState is `Failed` and the running version stays (docs/azure-facts.md#aks-upgrade-failed).
   */
  failUpgrade(rule: UpgradeFailureRule): void {
    this.upgradeFailures.push(structuredClone(rule));
  }

  clearUpgradeFailures(): void {
    this.upgradeFailures = [];
  }

  /** The failure an upgrade of this cluster (or its pool) to `to` meets, if a rule says so. */
  private upgradeFailure(
    mc: Pick<ManagedCluster, 'resourceGroup' | 'name' | 'agentPools'>,
    to: string,
    pool?: string,
  ): AzureError | undefined {
    const eq = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();
    const rule = this.upgradeFailures.find(
      r =>
        (r.version === to || r.version === minorOf(to)) &&
        (!r.cluster || eq(r.cluster, mc.name)) &&
        (!r.resourceGroup || eq(r.resourceGroup, mc.resourceGroup)),
    );
    if (!rule) return undefined;
    if (rule.error)
      return new AzureError(400, rule.error.code, rule.error.message);
    // AKS's words for an upgrade that a PodDisruptionBudget blocks (docs/azure-facts.md#aks-upgrade-failed).
    const poolName =
      pool ?? Object.keys(mc.agentPools).sort()[0] ?? 'nodepool1';
    const hash = createHash('sha256')
      .update(`${mc.resourceGroup}/${mc.name}/${poolName}`)
      .digest('hex')
      .slice(0, 8);
    return new AzureError(
      400,
      'UpgradeFailed',
      `Drain node aks-${poolName}-${hash}-vmss000000 failed when evicting pod app-0 failed with Too Many Requests error. This is often caused by a restrictive Pod Disruption Budget (PDB) policy. See https://aka.ms/aks/debugdrainfailures. Original error: Cannot evict pod as it would violate the pod's disruption budget.. PDB debug info: default/app-0 blocked by pdb app-pdb with 0 unready pods.`,
    );
  }

  /**
   * AKS's cluster auto-upgrade, run now (the maintenance tick; `autoUpgradeMs` runs it on a period): every cluster
   * that is Succeeded and has an `autoUpgradeProfile.upgradeChannel` moving it ({@link autoUpgradeTarget}) starts an
   * upgrade as AKS does it: the control plane, then every agent pool, to the same version
   * (docs/azure-facts.md#aks-auto-upgrade). The cluster is Updating with `kubernetesVersion` set, and after
   * `operationMs` Succeeded with `currentKubernetesVersion` and the pools' versions moved (or Failed, the versions
   * kept, when {@link failUpgrade} says so). AKS's own upgrades are not counted in {@link counters} (nobody PUT).
   */
  autoUpgradeNow(): AutoUpgrade[] {
    const started: AutoUpgrade[] = [];
    for (const mc of this.clusters.values()) {
      const channel = upgradeChannelOf(mc);
      if (!channel || mc.provisioningState !== 'Succeeded') continue;
      const from = mc.currentKubernetesVersion;
      const to = autoUpgradeTarget(channel, from, this.kubernetesVersions());
      if (!to) continue;
      const failure = this.upgradeFailure(mc, to);
      mc.kubernetesVersion = to;
      mc.provisioningState = 'Updating';
      const pools = Object.values(mc.agentPools).filter(
        p => p.provisioningState === 'Succeeded',
      );
      for (const p of pools) {
        p.orchestratorVersion = to;
        p.provisioningState = 'Updating';
      }
      this.later(() => {
        if (mc.provisioningState === 'Deleting') return;
        if (failure) {
          // The running versions stay (the goal versions say what was tried); the pools are Failed with the cluster.
          mc.provisioningState = 'Failed';
          for (const p of pools) {
            if (p.provisioningState === 'Deleting') continue;
            p.provisioningState = 'Failed';
          }
          return;
        }
        mc.provisioningState = 'Succeeded';
        mc.currentKubernetesVersion = to;
        for (const p of pools) this.settlePool(p, mc);
      });
      started.push({
        subscriptionId: mc.subscriptionId,
        resourceGroup: mc.resourceGroup,
        name: mc.name,
        channel,
        from,
        to,
      });
    }
    if (started.length) this.emit('change');
    return started;
  }

  addSubscription(id: string): void {
    this.subscriptions.add(id.toLowerCase());
  }

  hasSubscription(id: string): boolean {
    return this.subscriptions.has(id.toLowerCase());
  }

  private requireSubscription(id: string): void {
    if (!this.hasSubscription(id)) {
      throw new AzureError(
        404,
        'SubscriptionNotFound',
        `The subscription '${id}' could not be found.`,
      );
    }
  }

  /** Makes the next write to the resource with this ARM-style path fail with the given error (once). */
  failNext(resourcePath: string, error: AzureError): void {
    this.failures.set(resourcePath.toLowerCase(), error);
  }

  /**
   * Makes the next create/update LRO of the managed cluster or agent pool at this ARM-style path end `Failed` with
   * this error (the PUT itself is accepted, as AKS accepts a PUT whose operation fails later); the resource's
   * provisioningState becomes `Failed` and {@link operationError} returns the error until the next PUT.
   */
  failNextOperation(resourcePath: string, error: AzureError): void {
    this.asyncFailures.set(resourcePath.toLowerCase(), error);
  }

  /** Why the last create/update LRO of the resource at this path failed, if it did (see failNextOperation). */
  operationError(resourcePath: string): AzureError | undefined {
    return this.operationErrors.get(resourcePath.toLowerCase());
  }

  /** Takes the async failure planned for this path (if any) and forgets the previous operation's error. */
  private startOperation(resourcePath: string): AzureError | undefined {
    const p = resourcePath.toLowerCase();
    const e = this.asyncFailures.get(p);
    this.asyncFailures.delete(p);
    this.operationErrors.delete(p);
    return e;
  }

  private consumeFailure(resourcePath: string): void {
    const e = this.failures.get(resourcePath.toLowerCase());
    if (e) {
      this.failures.delete(resourcePath.toLowerCase());
      throw e;
    }
  }

  private later(fn: () => void): void {
    const t = setTimeout(() => {
      this.timers.delete(t);
      this.pendingSteps.delete(t);
      fn();
      this.emit('change');
    }, this.operationMs);
    this.timers.add(t);
    this.pendingSteps.set(t, fn);
  }

  /**
   * Runs every pending operation step now, in the order they were started, as if `operationMs` had passed; a test
   * can then observe "in progress" and "done" without waiting on a clock.
   */
  completePendingOperations(): void {
    for (const [t, fn] of [...this.pendingSteps]) {
      clearTimeout(t);
      this.timers.delete(t);
      this.pendingSteps.delete(t);
      fn();
      this.emit('change');
    }
  }

  /** Stops pending operations (they never complete). */
  close(): void {
    if (this.autoUpgradeTimer) clearInterval(this.autoUpgradeTimer);
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    this.pendingSteps.clear();
  }

  // ---- resource groups (synchronous in ARM: 200/201, docs/azure-facts.md#arm-resource-groups) ----

  getResourceGroup(sub: string, name: string): ResourceGroup | undefined {
    this.requireSubscription(sub);
    return this.groups.get(key(sub, name));
  }

  requireResourceGroup(sub: string, name: string): ResourceGroup {
    const rg = this.getResourceGroup(sub, name);
    if (!rg) throw notFound('Microsoft.Resources/resourceGroups', name);
    return rg;
  }

  listResourceGroups(sub: string): ResourceGroup[] {
    this.requireSubscription(sub);
    return [...this.groups.values()].filter(
      g => g.subscriptionId.toLowerCase() === sub.toLowerCase(),
    );
  }

  putResourceGroup(
    sub: string,
    name: string,
    spec: { location: string; tags?: Record<string, string> },
  ) {
    this.requireSubscription(sub);
    this.consumeFailure(`/subscriptions/${sub}/resourceGroups/${name}`);
    const existing = this.groups.get(key(sub, name));
    if (
      existing &&
      existing.location.toLowerCase() !== spec.location.toLowerCase()
    ) {
      throw new AzureError(
        409,
        'InvalidResourceGroupLocation',
        `Invalid resource group location '${spec.location}'. The Resource group already exists in location '${existing.location}'.`,
      );
    }
    const rg: ResourceGroup = {
      subscriptionId: sub,
      name: existing?.name ?? name,
      location: spec.location,
      // A PUT replaces the group's tags: omitted means none (module header).
      tags: { ...(spec.tags ?? {}) },
      provisioningState: 'Succeeded',
    };
    this.groups.set(key(sub, name), rg);
    this.counters[existing ? 'updated' : 'created'].resourceGroups++;
    this.emit('change');
    return { created: !existing, resourceGroup: rg };
  }

  /** Deleting a group deletes everything in it (docs/azure-facts.md#arm-resource-groups), counted per resource. */
  deleteResourceGroup(sub: string, name: string): boolean {
    this.requireSubscription(sub);
    this.consumeFailure(`/subscriptions/${sub}/resourceGroups/${name}`);
    const rg = this.groups.get(key(sub, name));
    if (!rg) return false;
    for (const mc of this.listManagedClusters(sub, name))
      this.removeCluster(mc);
    for (const vn of this.listVirtualNetworks(sub, name))
      this.removeVirtualNetwork(vn);
    this.groups.delete(key(sub, name));
    this.counters.deleted.resourceGroups++;
    this.emit('change');
    return true;
  }

  // ---- managed clusters (LROs, docs/azure-facts.md#arm-managed-clusters) ----

  getManagedCluster(
    sub: string,
    rg: string,
    name: string,
  ): ManagedCluster | undefined {
    this.requireSubscription(sub);
    return this.clusters.get(key(sub, rg, name));
  }

  requireManagedCluster(sub: string, rg: string, name: string): ManagedCluster {
    this.requireResourceGroup(sub, rg);
    const mc = this.getManagedCluster(sub, rg, name);
    if (!mc)
      throw notFound('Microsoft.ContainerService/managedClusters', name, rg);
    return mc;
  }

  listManagedClusters(sub: string, rg?: string): ManagedCluster[] {
    this.requireSubscription(sub);
    if (rg) this.requireResourceGroup(sub, rg);
    return [...this.clusters.values()].filter(
      c =>
        c.subscriptionId.toLowerCase() === sub.toLowerCase() &&
        (!rg || c.resourceGroup.toLowerCase() === rg.toLowerCase()),
    );
  }

  private static busy(state: ProvisioningState): boolean {
    return !['Succeeded', 'Failed', 'Canceled'].includes(state);
  }

  putManagedCluster(
    sub: string,
    rg: string,
    name: string,
    spec: ManagedClusterSpec,
  ): { created: boolean; cluster: ManagedCluster } {
    const group = this.requireResourceGroup(sub, rg);
    const path = `/subscriptions/${sub}/resourceGroups/${rg}/providers/Microsoft.ContainerService/managedClusters/${name}`;
    this.consumeFailure(path);
    const existing = this.clusters.get(key(sub, rg, name));
    if (existing && AzureWorld.busy(existing.provisioningState)) {
      throw new AzureError(
        409,
        'OperationNotAllowed',
        `Operation is not allowed because there's an in progress ${existing.provisioningState.toLowerCase()} operation on managed cluster '${name}'.`,
      );
    }
    if (!existing && !spec.agentPoolProfiles?.length) {
      throw new AzureError(
        400,
        'InvalidParameter',
        'The value of parameter agentPoolProfiles is invalid. A managed cluster needs at least one agent pool.',
      );
    }
    for (const p of spec.agentPoolProfiles ?? [])
      AzureWorld.validatePool(p.name, p);
    const version =
      spec.kubernetesVersion ?? existing?.kubernetesVersion ?? DEFAULT_VERSION;
    const offered = this.kubernetesVersions();
    if (version !== existing?.kubernetesVersion)
      requireOfferedVersion(offered, version);
    for (const p of spec.agentPoolProfiles ?? [])
      if (
        p.orchestratorVersion &&
        p.orchestratorVersion !==
          existing?.agentPools[p.name]?.orchestratorVersion
      )
        requireOfferedVersion(offered, p.orchestratorVersion);
    // An upgrade a rule makes fail (failUpgrade): the control plane's, or a pool's in the PUT's agentPoolProfiles.
    const upgradeFailure = existing
      ? (version !== existing.currentKubernetesVersion
          ? this.upgradeFailure(existing, version)
          : undefined) ??
        (spec.agentPoolProfiles ?? [])
          .map(p =>
            p.orchestratorVersion &&
            existing.agentPools[p.name] &&
            p.orchestratorVersion !==
              existing.agentPools[p.name].currentOrchestratorVersion
              ? this.upgradeFailure(existing, p.orchestratorVersion, p.name)
              : undefined,
          )
          .find(e => e)
      : undefined;
    const asyncFailure = this.startOperation(path) ?? upgradeFailure;
    const dnsPrefix = spec.dnsPrefix ?? existing?.dnsPrefix ?? name;
    const hash = createHash('sha256')
      .update(key(sub, rg, name))
      .digest('hex')
      .slice(0, 8);
    const region = spec.location.toLowerCase().replace(/\s/g, '');
    const mc: ManagedCluster = existing ?? {
      subscriptionId: sub,
      resourceGroup: group.name,
      name,
      location: spec.location,
      dnsPrefix,
      kubernetesVersion: version,
      currentKubernetesVersion: version,
      enableRBAC: spec.enableRBAC ?? true,
      disableLocalAccounts: spec.disableLocalAccounts ?? false,
      aadProfile: spec.aadProfile,
      networkProfile: {
        networkPlugin: 'azure',
        serviceCidr: '10.0.0.0/16',
        dnsServiceIP: '10.0.0.10',
        ...spec.networkProfile,
      },
      identity: spec.identity ?? { type: 'SystemAssigned' },
      tags: { ...(spec.tags ?? {}) },
      fqdn: `${dnsPrefix}-${hash}.hcp.${region}.azmk8s.io`,
      azurePortalFQDN: `${dnsPrefix}-${hash}.portal.hcp.${region}.azmk8s.io`,
      nodeResourceGroup:
        spec.nodeResourceGroup ?? `MC_${group.name}_${name}_${region}`,
      resourceUID: randomUUID(),
      provisioningState: 'Creating',
      powerState: { code: 'Running' },
      agentPools: {},
      ...(spec.extra ? { extra: structuredClone(spec.extra) } : {}),
    };
    if (existing) {
      Object.assign(mc, {
        kubernetesVersion: version,
        disableLocalAccounts:
          spec.disableLocalAccounts ?? mc.disableLocalAccounts,
        aadProfile: spec.aadProfile ?? mc.aadProfile,
        // Replaced, as every PUT does (module header).
        tags: { ...(spec.tags ?? {}) },
        provisioningState: 'Updating' as const,
        extra: spec.extra ? structuredClone(spec.extra) : undefined,
      });
    }
    // Pools in the PUT are created or updated with it; pools absent from it are left alone (as AKS does for updates).
    for (const p of spec.agentPoolProfiles ?? [])
      this.applyPool(mc, p.name, p, version);
    this.clusters.set(key(sub, rg, name), mc);
    this.counters[existing ? 'updated' : 'created'].managedClusters++;
    this.later(() => {
      if (mc.provisioningState === 'Deleting') return;
      if (asyncFailure) {
        mc.provisioningState = 'Failed';
        this.operationErrors.set(path.toLowerCase(), asyncFailure);
        // The pools the PUT changed fail with it (AKS leaves "the cluster/node pool in Failed state"), their running
        // version kept (docs/azure-facts.md#aks-upgrade-failed).
        for (const p of Object.values(mc.agentPools))
          if (
            p.provisioningState === 'Creating' ||
            p.provisioningState === 'Updating'
          )
            p.provisioningState = 'Failed';
        return;
      }
      mc.provisioningState = 'Succeeded';
      mc.currentKubernetesVersion = mc.kubernetesVersion;
      for (const p of Object.values(mc.agentPools)) this.settlePool(p, mc);
    });
    this.emit('change');
    return { created: !existing, cluster: mc };
  }

  deleteManagedCluster(sub: string, rg: string, name: string): boolean {
    this.requireResourceGroup(sub, rg);
    this.consumeFailure(
      `/subscriptions/${sub}/resourceGroups/${rg}/providers/Microsoft.ContainerService/managedClusters/${name}`,
    );
    const mc = this.clusters.get(key(sub, rg, name));
    if (!mc) return false;
    if (mc.provisioningState !== 'Deleting') {
      mc.provisioningState = 'Deleting';
      this.later(() => this.removeCluster(mc));
      this.emit('change');
    }
    return true;
  }

  private removeCluster(mc: ManagedCluster): void {
    if (
      !this.clusters.delete(key(mc.subscriptionId, mc.resourceGroup, mc.name))
    )
      return;
    // Each pool goes with its cluster and is counted once: a pool whose own delete is still running finds itself
    // gone when its timer fires and does not count again.
    for (const name of Object.keys(mc.agentPools)) {
      delete mc.agentPools[name];
      this.counters.deleted.agentPools++;
    }
    this.counters.deleted.managedClusters++;
  }

  // ---- agent pools (LROs, docs/azure-facts.md#arm-agent-pools) ----

  /** AKS's 400 for autoscaling without bounds (the agent pool's enableAutoScaling needs minCount and maxCount). */
  private static validatePool(name: string, spec: AgentPoolSpec): void {
    if (
      spec.enableAutoScaling &&
      (spec.minCount === undefined || spec.maxCount === undefined)
    ) {
      throw new AzureError(
        400,
        'InvalidParameter',
        `Agent pool '${name}': minCount and maxCount must be set when enableAutoScaling is true.`,
      );
    }
    if (spec.enableAutoScaling && spec.minCount! > spec.maxCount!) {
      throw new AzureError(
        400,
        'InvalidParameter',
        `Agent pool '${name}': minCount ${spec.minCount} is greater than maxCount ${spec.maxCount}.`,
      );
    }
  }

  /** Applies a pool PUT by the rules of the module header: replaced, kept when omitted, or AKS's default on create. */
  private applyPool(
    mc: ManagedCluster,
    name: string,
    spec: AgentPoolSpec,
    clusterVersion: string,
  ): AgentPool {
    const existing = mc.agentPools[name];
    const version =
      spec.orchestratorVersion ??
      existing?.orchestratorVersion ??
      clusterVersion;
    const osType = spec.osType ?? existing?.osType ?? 'Linux';
    const autoscaling = spec.enableAutoScaling ?? false;
    const pool: AgentPool = {
      name,
      count: spec.count ?? existing?.count ?? 1,
      vmSize: spec.vmSize ?? existing?.vmSize ?? 'Standard_D2s_v3',
      mode: spec.mode ?? existing?.mode ?? 'User',
      osType,
      osSKU:
        spec.osSKU ??
        existing?.osSKU ??
        (osType === 'Windows' ? 'Windows2022' : 'Ubuntu'),
      type: 'VirtualMachineScaleSets',
      orchestratorVersion: version,
      currentOrchestratorVersion:
        existing?.currentOrchestratorVersion ?? version,
      enableAutoScaling: autoscaling,
      ...(autoscaling
        ? { minCount: spec.minCount, maxCount: spec.maxCount }
        : {}),
      availabilityZones: [
        ...(spec.availabilityZones ?? existing?.availabilityZones ?? []),
      ],
      maxPods:
        spec.maxPods ??
        existing?.maxPods ??
        (mc.networkProfile.networkPlugin === 'kubenet' ? 110 : 30),
      osDiskSizeGB: spec.osDiskSizeGB || existing?.osDiskSizeGB || 128,
      nodeLabels: { ...(spec.nodeLabels ?? {}) },
      nodeTaints: [...(spec.nodeTaints ?? [])],
      tags: { ...(spec.tags ?? {}) },
      provisioningState: existing ? 'Updating' : 'Creating',
      powerState: { code: 'Running' },
      nodeImageVersion: 'AKSUbuntu-2204gen2containerd-202611.01.0',
      instanceIds: [...(existing?.instanceIds ?? [])],
      nextInstanceId: existing?.nextInstanceId ?? 0,
      ...(spec.extra ? { extra: structuredClone(spec.extra) } : {}),
    };
    if (
      pool.enableAutoScaling &&
      pool.minCount !== undefined &&
      pool.count < pool.minCount
    )
      pool.count = pool.minCount;
    if (
      pool.enableAutoScaling &&
      pool.maxCount !== undefined &&
      pool.count > pool.maxCount
    )
      pool.count = pool.maxCount;
    AzureWorld.scaleInstances(pool);
    mc.agentPools[name] = pool;
    this.counters[existing ? 'updated' : 'created'].agentPools++;
    return pool;
  }

  /**
   * Brings the pool's VMSS instance ids to its count: new ids on scale-out, the highest removed first on scale-in
   * (the VMSS default scale-in policy; AKS's scale-down of a non-autoscaled pool). The ids change with the PUT, as the
   * Nodes of the simulated world have always done; AKS adds the VMs during the operation.
   */
  private static scaleInstances(p: AgentPool): void {
    p.instanceIds = [...p.instanceIds].sort((a, b) => a - b);
    p.nextInstanceId = Math.max(
      p.nextInstanceId,
      ...p.instanceIds.map(i => i + 1),
    );
    if (p.instanceIds.length > p.count) p.instanceIds.length = p.count;
    while (p.instanceIds.length < p.count)
      p.instanceIds.push(p.nextInstanceId++);
  }

  /**
   * The instance ids of a pool's VMSS that have VMs now: none for a cluster or pool that is deleting (AKS drains and
   * deletes the VMSS first) or stopped (its VMs are deallocated). The workload Node sync makes one Node per id, the
   * ARM `virtualMachines` list answers one VM per id (src/workload/sync.ts, src/arm/compute.ts).
   */
  runningInstances(mc: ManagedCluster, pool: AgentPool): number[] {
    if (
      mc.provisioningState === 'Deleting' ||
      mc.powerState.code !== 'Running' ||
      pool.provisioningState === 'Deleting' ||
      pool.powerState.code !== 'Running'
    )
      return [];
    return [...pool.instanceIds];
  }

  /** Managed clusters whose node resource group is `rg` (case-insensitive), in any resource group of `sub`. */
  clustersWithNodeResourceGroup(sub: string, rg: string): ManagedCluster[] {
    return this.listManagedClusters(sub).filter(
      c => c.nodeResourceGroup.toLowerCase() === rg.toLowerCase(),
    );
  }

  private settlePool(p: AgentPool, _mc: ManagedCluster): void {
    if (p.provisioningState === 'Deleting') return;
    p.provisioningState = 'Succeeded';
    p.currentOrchestratorVersion = p.orchestratorVersion;
  }

  getAgentPool(
    sub: string,
    rg: string,
    cluster: string,
    name: string,
  ): AgentPool | undefined {
    return this.getManagedCluster(sub, rg, cluster)?.agentPools[name];
  }

  listAgentPools(sub: string, rg: string, cluster: string): AgentPool[] {
    return Object.values(
      this.requireManagedCluster(sub, rg, cluster).agentPools,
    );
  }

  putAgentPool(
    sub: string,
    rg: string,
    cluster: string,
    name: string,
    spec: AgentPoolSpec,
  ): { created: boolean; pool: AgentPool } {
    const mc = this.requireManagedCluster(sub, rg, cluster);
    const path = `/subscriptions/${sub}/resourceGroups/${rg}/providers/Microsoft.ContainerService/managedClusters/${cluster}/agentPools/${name}`;
    this.consumeFailure(path);
    if (AzureWorld.busy(mc.provisioningState)) {
      throw new AzureError(
        409,
        'OperationNotAllowed',
        `Operation is not allowed because there's an in progress ${mc.provisioningState.toLowerCase()} operation on managed cluster '${cluster}'.`,
      );
    }
    const existing = mc.agentPools[name];
    if (existing && AzureWorld.busy(existing.provisioningState)) {
      throw new AzureError(
        409,
        'OperationNotAllowed',
        `Operation is not allowed: agent pool '${name}' is ${existing.provisioningState.toLowerCase()}.`,
      );
    }
    AzureWorld.validatePool(name, spec);
    if (
      spec.orchestratorVersion &&
      spec.orchestratorVersion !== existing?.orchestratorVersion
    )
      requireOfferedVersion(
        this.kubernetesVersions(),
        spec.orchestratorVersion,
      );
    const asyncFailure =
      this.startOperation(path) ??
      (existing &&
      spec.orchestratorVersion &&
      spec.orchestratorVersion !== existing.currentOrchestratorVersion
        ? this.upgradeFailure(mc, spec.orchestratorVersion, name)
        : undefined);
    const pool = this.applyPool(mc, name, spec, mc.kubernetesVersion);
    this.later(() => {
      if (asyncFailure && pool.provisioningState !== 'Deleting') {
        pool.provisioningState = 'Failed';
        this.operationErrors.set(path.toLowerCase(), asyncFailure);
        return;
      }
      this.settlePool(pool, mc);
    });
    this.emit('change');
    return { created: !existing, pool };
  }

  deleteAgentPool(
    sub: string,
    rg: string,
    cluster: string,
    name: string,
  ): boolean {
    const mc = this.requireManagedCluster(sub, rg, cluster);
    this.consumeFailure(
      `/subscriptions/${sub}/resourceGroups/${rg}/providers/Microsoft.ContainerService/managedClusters/${cluster}/agentPools/${name}`,
    );
    const pool = mc.agentPools[name];
    if (!pool) return false;
    if (
      pool.mode === 'System' &&
      !Object.values(mc.agentPools).some(p => p !== pool && p.mode === 'System')
    ) {
      throw new AzureError(
        400,
        'OperationNotAllowed',
        `Cannot delete the last system agent pool '${name}' of managed cluster '${cluster}'.`,
      );
    }
    if (pool.provisioningState !== 'Deleting') {
      pool.provisioningState = 'Deleting';
      this.later(() => {
        if (mc.agentPools[name] === pool) {
          delete mc.agentPools[name];
          this.counters.deleted.agentPools++;
        }
      });
      this.emit('change');
    }
    return true;
  }

  // ---- virtual networks and subnets (synchronous here; ARM answers them as LROs that end in seconds) ----

  getVirtualNetwork(
    sub: string,
    rg: string,
    name: string,
  ): VirtualNetwork | undefined {
    this.requireSubscription(sub);
    return this.vnets.get(key(sub, rg, name));
  }

  requireVirtualNetwork(sub: string, rg: string, name: string): VirtualNetwork {
    this.requireResourceGroup(sub, rg);
    const vn = this.getVirtualNetwork(sub, rg, name);
    if (!vn) throw notFound('Microsoft.Network/virtualNetworks', name, rg);
    return vn;
  }

  listVirtualNetworks(sub: string, rg: string): VirtualNetwork[] {
    this.requireSubscription(sub);
    return [...this.vnets.values()].filter(
      v =>
        v.subscriptionId.toLowerCase() === sub.toLowerCase() &&
        v.resourceGroup.toLowerCase() === rg.toLowerCase(),
    );
  }

  /**
   * A VNet PUT replaces the network's properties; its subnets are kept when the PUT has no `subnets` (ARM would
   * delete subnets a PUT omits: ASO's VirtualNetwork keeps them by reading them first, ASO v2.18.0
   * `v2/api/network/customizations/virtual_network_extensions.go`; nothing here needs that difference).
   */
  putVirtualNetwork(
    sub: string,
    rg: string,
    name: string,
    spec: {
      location: string;
      tags?: Record<string, string>;
      properties: Record<string, unknown>;
    },
  ): { created: boolean; vnet: VirtualNetwork } {
    const group = this.requireResourceGroup(sub, rg);
    this.consumeFailure(
      `/subscriptions/${sub}/resourceGroups/${rg}/providers/Microsoft.Network/virtualNetworks/${name}`,
    );
    const existing = this.vnets.get(key(sub, rg, name));
    const { subnets, ...properties } = spec.properties;
    const vnet: VirtualNetwork = {
      subscriptionId: sub,
      resourceGroup: group.name,
      name: existing?.name ?? name,
      location: spec.location,
      tags: { ...(spec.tags ?? {}) },
      properties: structuredClone(properties),
      subnets: existing?.subnets ?? {},
    };
    for (const sn of Array.isArray(subnets) ? subnets : []) {
      const s = sn as { name?: string; properties?: Record<string, unknown> };
      if (s.name)
        vnet.subnets[s.name] = {
          name: s.name,
          properties: structuredClone(s.properties ?? {}),
        };
    }
    this.vnets.set(key(sub, rg, name), vnet);
    this.networkCounters[existing ? 'updated' : 'created'].virtualNetworks++;
    this.emit('change');
    return { created: !existing, vnet };
  }

  deleteVirtualNetwork(sub: string, rg: string, name: string): boolean {
    this.requireResourceGroup(sub, rg);
    const vn = this.vnets.get(key(sub, rg, name));
    if (!vn) return false;
    this.removeVirtualNetwork(vn);
    this.emit('change');
    return true;
  }

  private removeVirtualNetwork(vn: VirtualNetwork): void {
    if (!this.vnets.delete(key(vn.subscriptionId, vn.resourceGroup, vn.name)))
      return;
    this.networkCounters.deleted.subnets += Object.keys(vn.subnets).length;
    this.networkCounters.deleted.virtualNetworks++;
  }

  putSubnet(
    sub: string,
    rg: string,
    vnet: string,
    name: string,
    properties: Record<string, unknown>,
  ): {
    created: boolean;
    subnet: { name: string; properties: Record<string, unknown> };
  } {
    const vn = this.requireVirtualNetwork(sub, rg, vnet);
    const existingName = Object.keys(vn.subnets).find(
      n => n.toLowerCase() === name.toLowerCase(),
    );
    const subnet = {
      name: existingName ?? name,
      properties: structuredClone(properties),
    };
    vn.subnets[subnet.name] = subnet;
    this.networkCounters[existingName ? 'updated' : 'created'].subnets++;
    this.emit('change');
    return { created: !existingName, subnet };
  }

  deleteSubnet(sub: string, rg: string, vnet: string, name: string): boolean {
    const vn = this.requireVirtualNetwork(sub, rg, vnet);
    const existingName = Object.keys(vn.subnets).find(
      n => n.toLowerCase() === name.toLowerCase(),
    );
    if (!existingName) return false;
    delete vn.subnets[existingName];
    this.networkCounters.deleted.subnets++;
    this.emit('change');
    return true;
  }

  /**
   * listClusterAdminCredential / listClusterUserCredential (docs/azure-facts.md#arm-managed-clusters): a kubeconfig for
   * the cluster. Admin credentials are refused when local accounts are disabled, with AKS's message.
   */
  listClusterCredentials(
    sub: string,
    rg: string,
    name: string,
    which: 'admin' | 'user',
  ): string {
    const mc = this.requireManagedCluster(sub, rg, name);
    if (which === 'admin' && mc.disableLocalAccounts) {
      throw new AzureError(
        400,
        'BadRequest',
        'Getting static credential is not allowed because this cluster is set to disable local accounts.',
      );
    }
    const user =
      which === 'admin'
        ? `clusterAdmin_${rg}_${name}`
        : `clusterUser_${rg}_${name}`;
    const real = this.kubeconfigFor?.(mc);
    if (real) {
      const b64 = (v: string) => Buffer.from(v).toString('base64');
      const entra = which === 'user' && mc.aadProfile?.managed;
      return [
        'apiVersion: v1',
        'kind: Config',
        'clusters:',
        `- name: ${name}`,
        '  cluster:',
        `    server: ${real.server}`,
        `    certificate-authority-data: ${b64(real.caPem)}`,
        'contexts:',
        `- name: ${name}`,
        '  context:',
        `    cluster: ${name}`,
        `    user: ${user}`,
        `current-context: ${name}`,
        'users:',
        `- name: ${user}`,
        '  user:',
        ...(entra
          ? [
              '    exec:',
              '      apiVersion: client.authentication.k8s.io/v1beta1',
              '      command: kubelogin',
              '      args: [get-token, --login, devicecode, --server-id, 6dae42f8-4368-4678-94ff-3960e28e3630]',
            ]
          : [
              ...(real.clientCertificatePem
                ? [
                    `    client-certificate-data: ${b64(
                      real.clientCertificatePem,
                    )}`,
                  ]
                : []),
              ...(real.clientKeyPem
                ? [`    client-key-data: ${b64(real.clientKeyPem)}`]
                : []),
              ...(real.token ? [`    token: ${real.token}`] : []),
            ]),
        '',
      ].join('\n');
    }
    const auth = mc.aadProfile?.managed
      ? [
          '    exec:',
          '      apiVersion: client.authentication.k8s.io/v1beta1',
          '      command: kubelogin',
          '      args: [get-token, --login, devicecode, --server-id, 6dae42f8-4368-4678-94ff-3960e28e3630]',
        ]
      : [`    token: simulated-${which}-token`];
    return [
      'apiVersion: v1',
      'kind: Config',
      `clusters: [{name: ${name}, cluster: {server: 'https://${mc.fqdn}:443'}}]`,
      `contexts: [{name: ${name}, context: {cluster: ${name}, user: ${user}}}]`,
      `current-context: ${name}`,
      'users:',
      `- name: ${user}`,
      '  user:',
      ...auth,
      '',
    ].join('\n');
  }

  /** Resolves once every cluster and pool has finished its create operation (each change is announced). */
  settled(): Promise<void> {
    const done = () =>
      [...this.clusters.values()].every(
        c =>
          c.provisioningState === 'Succeeded' &&
          Object.values(c.agentPools).every(
            p => p.provisioningState === 'Succeeded',
          ),
      );
    return new Promise(resolve => {
      if (done()) return resolve();
      const onChange = () => {
        if (!done()) return;
        this.off('change', onChange);
        resolve();
      };
      this.on('change', onChange);
    });
  }

  snapshot(): AzureSnapshot {
    return structuredClone({
      subscriptions: [...this.subscriptions],
      resourceGroups: [...this.groups.values()],
      managedClusters: [...this.clusters.values()],
      virtualNetworks: [...this.vnets.values()],
      counters: this.counters,
    });
  }

  /** Restores a snapshot; operations that were in flight complete at once (Succeeded, or gone when deleting). */
  static restore(s: AzureSnapshot, opts: AzureWorldOptions = {}): AzureWorld {
    const w = new AzureWorld({ ...opts, subscriptions: s.subscriptions });
    for (const g of s.resourceGroups)
      w.groups.set(key(g.subscriptionId, g.name), { ...g, tags: g.tags ?? {} });
    for (const c of s.managedClusters) {
      if (c.provisioningState === 'Deleting') continue;
      if (AzureWorld.busy(c.provisioningState))
        c.provisioningState = 'Succeeded';
      c.tags ??= {};
      for (const [n, p] of Object.entries(c.agentPools)) {
        if (p.provisioningState === 'Deleting') delete c.agentPools[n];
        else if (AzureWorld.busy(p.provisioningState))
          p.provisioningState = 'Succeeded';
        // A state file written before the model carried these fields gets AKS's defaults.
        p.osSKU ??= p.osType === 'Windows' ? 'Windows2022' : 'Ubuntu';
        p.availabilityZones ??= [];
        p.maxPods ??= c.networkProfile?.networkPlugin === 'kubenet' ? 110 : 30;
        p.osDiskSizeGB ??= 128;
        p.nodeLabels ??= {};
        p.nodeTaints ??= [];
        p.tags ??= {};
        p.instanceIds ??= [];
        p.nextInstanceId ??= 0;
        AzureWorld.scaleInstances(p);
      }
      w.clusters.set(key(c.subscriptionId, c.resourceGroup, c.name), c);
    }
    for (const v of s.virtualNetworks ?? [])
      w.vnets.set(key(v.subscriptionId, v.resourceGroup, v.name), v);
    w.counters = s.counters;
    return w;
  }
}

/** A resource group and the AKS cluster(s) in it, as {@link azureResourceState} returns them. */
export interface AzureResourceState {
  resourceGroup?: Omit<ResourceGroup, 'provisioningState'>;
  managedClusters: Array<
    Omit<ManagedCluster, 'provisioningState' | 'agentPools'> & {
      agentPools: Record<string, Omit<AgentPool, 'provisioningState'>>;
    }
  >;
}

/**
 * The full state of a resource group and its AKS clusters (or the one named) in a snapshot such as the persisted
 * `.local/capz-sim/<cluster>/azure.json`, every field included (tags, pool labels, taints, OS, zones, autoscaling,
 * resourceUID, ...) except the provisioning states, which only say an operation is in flight. Keys are sorted, so two
 * states taken before and after a job can be compared with `deepStrictEqual` or diffed as JSON: an empty diff means
 * the job's PUTs changed nothing in Azure (a re-created resource would show as a new `resourceUID`).
 */
export function azureResourceState(
  s: Pick<AzureSnapshot, 'resourceGroups' | 'managedClusters'>,
  q: { subscriptionId?: string; resourceGroup: string; name?: string },
): AzureResourceState {
  const eq = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();
  const inSub = (sub: string) => !q.subscriptionId || eq(sub, q.subscriptionId);
  const sorted = <T>(v: T): T => {
    if (Array.isArray(v)) return v.map(sorted) as T;
    if (v && typeof v === 'object') {
      return Object.fromEntries(
        Object.entries(v)
          .filter(([, x]) => x !== undefined)
          .sort(([a], [b]) => a.localeCompare(b))
          .map(([k, x]) => [k, sorted(x)]),
      ) as T;
    }
    return v;
  };
  const rg = s.resourceGroups.find(
    g => inSub(g.subscriptionId) && eq(g.name, q.resourceGroup),
  );
  const clusters = s.managedClusters
    .filter(
      c =>
        inSub(c.subscriptionId) &&
        eq(c.resourceGroup, q.resourceGroup) &&
        (!q.name || eq(c.name, q.name)),
    )
    .sort((a, b) => a.name.localeCompare(b.name))
    .map(({ provisioningState: _s, agentPools, ...c }) => ({
      ...c,
      agentPools: Object.fromEntries(
        Object.entries(agentPools).map(
          ([n, { provisioningState: _p, ...p }]) => [n, p],
        ),
      ),
    }));
  const { provisioningState: _g, ...group } = rg ?? ({} as ResourceGroup);
  return sorted({
    ...(rg ? { resourceGroup: group } : {}),
    managedClusters: clusters,
  });
}
