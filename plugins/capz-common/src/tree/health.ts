/**
 * Health of one object, per family (docs/capz-aso-facts.md#aso-managed-status, docs/capz-aso-facts.md#legacy-api,
 * docs/capz-aso-facts.md#cluster-available, docs/architecture.md#health-model; docs/capz-aso-facts.md#aso-conditions).
 * Every function takes plain JSON and never throws.
 */
import { kinds } from '../kinds';
import { PAUSED_ANNOTATION } from '../vocabulary';
import {
  ann,
  arr,
  at,
  bool,
  conditionsOf,
  findCondition,
  groupOf,
  isDeleting,
  isObj,
  kindOf,
  nameOf,
  num,
  obj,
  str,
  timeOf,
  versionOf,
} from './read';
import type {
  ConditionView,
  Health,
  HealthOptions,
  HealthResult,
  NodeRef,
  ObservedObject,
} from './types';

/** From good to bad; {@link worse} and the rollup use this order. @public */
export const HEALTH_ORDER: readonly Health[] = [
  'healthy',
  'paused',
  'progressing',
  'deleting',
  'unknown',
  'degraded',
  'failed',
];

/** Compares two health values: negative when `a` is better than `b`, 0 when equal, positive when worse. @public */
export function compareHealth(a: Health, b: Health): number {
  return HEALTH_ORDER.indexOf(a) - HEALTH_ORDER.indexOf(b);
}

/** The worse of two health values (order: {@link HEALTH_ORDER}). @public */
export function worse(a: Health, b: Health): Health {
  return compareHealth(a, b) >= 0 ? a : b;
}

/** The ASO kinds the backend watches, by kind, with their API group (the tree resolves only these). @public */
export const WATCHED_ASO_KINDS: Readonly<Record<string, string>> = {
  ResourceGroup: kinds.ResourceGroup.group,
  // In the legacy control plane's service order (CAPZ v1.26.0 controllers/azuremanagedcontrolplane_reconciler.go
  // lines 59-62: groups, virtualnetworks, subnets, managedclusters), which the tree lists them in.
  VirtualNetwork: kinds.VirtualNetwork.group,
  VirtualNetworksSubnet: kinds.VirtualNetworksSubnet.group,
  ManagedCluster: kinds.ManagedCluster.group,
  ManagedClustersAgentPool: kinds.ManagedClustersAgentPool.group,
};

/** The API group of a watched ASO kind, or undefined (own properties only: kinds come from untrusted JSON). @public */
export function watchedAsoGroup(kind: string): string | undefined {
  return Object.prototype.hasOwnProperty.call(WATCHED_ASO_KINDS, kind)
    ? WATCHED_ASO_KINDS[kind]
    : undefined;
}

/** Reasons that mean "working on it", whatever their severity says. */
const PROGRESSING_REASONS = new Set([
  'Reconciling',
  'ReconciliationPostponed',
  'Deleting',
]);
/** MachinePool/Cluster phases during which "not available" is expected. */
const PROVISIONING_PHASES = new Set([
  'Pending',
  'Provisioning',
  'Provisioned',
  'ScalingUp',
  'ScalingDown',
  'Scaling',
]);

const DEFAULT_GRACE_SECONDS = 300;

const describe = (o: ObservedObject) => `${kindOf(o) || 'Object'} ${nameOf(o)}`;

/** A reference to an object, as tree nodes identify it. @public */
export function refOf(o: ObservedObject): NodeRef {
  const ns = o.metadata?.namespace ?? '';
  return {
    id: o.metadata?.uid ?? `obj:${kindOf(o)}:${ns}/${nameOf(o)}`,
    kind: kindOf(o),
    name: nameOf(o),
  };
}

function compact(r: HealthResult): HealthResult {
  const out: HealthResult = { health: r.health };
  if (r.reason) out.reason = r.reason;
  if (r.message) out.message = r.message;
  if (r.severity) out.severity = r.severity;
  if (r.since) out.since = r.since;
  if (r.source) out.source = r.source;
  return out;
}

function fromCondition(
  health: Health,
  c: ConditionView,
  extra: Partial<HealthResult> = {},
): HealthResult {
  return compact({
    health,
    reason: c.reason,
    message: c.message,
    severity: c.severity,
    since: c.lastTransitionTime,
    ...extra,
  });
}

/**
 * An object with no status (or no Ready condition) at all: `progressing` while it is younger than the grace period
 * (its controller simply has not reached it yet), `unknown` after that (is the controller running?).
 */
function notObserved(
  o: ObservedObject,
  opts: HealthOptions,
  what: string,
): HealthResult {
  const created = timeOf(o.metadata?.creationTimestamp);
  const now = timeOf(opts.now) ?? Date.now();
  const grace = (opts.newObjectGraceSeconds ?? DEFAULT_GRACE_SECONDS) * 1000;
  if (created !== undefined && now - created < grace) {
    return compact({
      health: 'progressing',
      reason: 'NotReconciledYet',
      message: `${describe(o)} has no ${what} yet`,
      since: o.metadata?.creationTimestamp,
    });
  }
  return compact({
    health: 'unknown',
    reason: 'NotReconciled',
    message: `${describe(o)} has no ${what}: is its controller running?`,
  });
}

/**
 * When the verdicts over these objects can next change with time alone (the one time-dependent rule: a new object
 * without status turns from `progressing` to `unknown` once its grace period is over), as milliseconds since the
 * epoch; undefined when never. A tree or summary built from them can be reused until then, or until they change.
 * @public
 */
export function verdictsChangeAt(
  objects: Iterable<ObservedObject>,
  opts: HealthOptions = {},
): number | undefined {
  const now = timeOf(opts.now) ?? Date.now();
  const grace = (opts.newObjectGraceSeconds ?? DEFAULT_GRACE_SECONDS) * 1000;
  let next: number | undefined;
  for (const o of objects) {
    const created = timeOf(o.metadata?.creationTimestamp);
    if (created === undefined || now - created >= grace) continue;
    const ends = created + grace;
    if (next === undefined || ends < next) next = ends;
  }
  return next;
}

function deleting(
  o: ObservedObject,
  c: ConditionView | undefined,
  paused: boolean,
): HealthResult {
  // A deletion that is stuck explains itself through its Ready condition (e.g. ASO cannot reach Azure).
  const stuck =
    c &&
    c.status !== 'True' &&
    (c.severity === 'Warning' || c.severity === 'Error') &&
    c.reason !== 'Deleting';
  if (stuck) {
    return fromCondition('deleting', c, {
      since: o.metadata?.deletionTimestamp,
    });
  }
  return compact({
    health: 'deleting',
    reason: 'Deleting',
    message: paused
      ? `${describe(
          o,
        )} is being deleted, but reconciliation is paused: deletion waits`
      : undefined,
    since: o.metadata?.deletionTimestamp,
  });
}

function pausedResult(message: string, c?: ConditionView): HealthResult {
  return compact({
    health: 'paused',
    reason: 'Paused',
    message,
    since: c?.lastTransitionTime,
  });
}

/**
 * Health of a condition that is not True, by ASO's severity meaning (docs/capz-aso-facts.md#aso-conditions): Error is
 * terminal (`failed`); `Reconciling`, `ReconciliationPostponed`, `Deleting` or severity Info are in progress;
 * `WaitingForOwner` is in progress while the owner exists (the owner carries the real cause), `degraded` when it does
 * not; other Warnings are `degraded`. Without a severity: Unknown is `progressing`, False is `degraded`.
 */
function notTrue(c: ConditionView, ownerFound?: boolean): Health {
  if (c.severity === 'Error') return 'failed';
  if (c.reason === 'WaitingForOwner')
    return ownerFound === false ? 'degraded' : 'progressing';
  if (c.severity === 'Info' || (c.reason && PROGRESSING_REASONS.has(c.reason)))
    return 'progressing';
  if (c.severity === 'Warning') return 'degraded';
  return c.status === 'Unknown' ? 'progressing' : 'degraded';
}

/** Extra context for {@link asoObjectHealth}. @public */
export interface AsoHealthContext extends HealthOptions {
  /** Whether the object's `spec.owner` exists (ResourceGroup for a ManagedCluster, ManagedCluster for a pool). */
  ownerFound?: boolean;
}

/**
 * Health of an ASO object (ResourceGroup, ManagedCluster, ManagedClustersAgentPool) from its
 * `status.conditions[type=Ready]` (docs/capz-aso-facts.md#aso-conditions; the ready test is CAPZ's `readyStatus`,
 * docs/capz-aso-facts.md#aso-managed-status):
 * - deleting (`metadata.deletionTimestamp`) → `deleting`, with the Ready reason when the deletion is stuck;
 * - Ready True and `observedGeneration >= metadata.generation` → `healthy`; True for an older generation →
 *   `progressing` (`GenerationNotObserved`);
 * - not True: see the severity rules above; an Error for an older generation is `progressing`, since ASO retries
 *   a terminal error once the spec changes;
 * - no Ready condition → `progressing` (`NotReconciledYet`) while the object is new, `unknown` (`NotReconciled`)
 *   after the grace period.
 * @public
 */
export function asoObjectHealth(
  o: ObservedObject,
  ctx: AsoHealthContext = {},
): HealthResult {
  const ready = findCondition(o, 'Ready');
  if (isDeleting(o)) return deleting(o, ready, false);
  if (!ready) return notObserved(o, ctx, 'Ready condition');
  const generation = o.metadata?.generation;
  const stale =
    generation !== undefined && (ready.observedGeneration ?? 0) < generation;
  if (ready.status === 'True') {
    if (stale) {
      return compact({
        health: 'progressing',
        reason: 'GenerationNotObserved',
        message: `ASO has not processed generation ${generation} yet (Ready is for generation ${
          ready.observedGeneration ?? 'none'
        })`,
      });
    }
    return fromCondition('healthy', ready);
  }
  const health = notTrue(ready, ctx.ownerFound);
  if (health === 'failed' && stale) {
    return compact({
      health: 'progressing',
      reason: 'GenerationNotObserved',
      message: `ASO has not processed generation ${generation} yet; generation ${
        ready.observedGeneration ?? 'none'
      } failed with ${ready.reason ?? 'an error'}${
        ready.message ? `: ${ready.message}` : ''
      }`,
      severity: 'Info',
    });
  }
  return fromCondition(health, ready);
}

/** Whether an ASO object's `spec.owner` exists among `objects`; undefined when it has no owner by name. @public */
export function asoOwnerFound(
  o: ObservedObject,
  objects: readonly ObservedObject[],
): boolean | undefined {
  const ownerName = str(at(o.spec, 'owner', 'name'));
  const ownerKinds = new Map([
    ['ManagedCluster', 'ResourceGroup'],
    ['ManagedClustersAgentPool', 'ManagedCluster'],
    // ASO v2.18.0 api/network/v1api20201101 virtual_network_types_gen.go line 293, virtual_networks_subnet_types_gen.go
    // line 286: a VirtualNetwork is owned by a ResourceGroup, a subnet by its VirtualNetwork.
    ['VirtualNetwork', 'ResourceGroup'],
    ['VirtualNetworksSubnet', 'VirtualNetwork'],
  ]);
  const ownerKind = ownerKinds.get(kindOf(o));
  if (!ownerName || !ownerKind) return undefined;
  const ns = o.metadata?.namespace;
  return objects.some(
    x =>
      kindOf(x) === ownerKind &&
      nameOf(x) === ownerName &&
      (!ns || !x.metadata?.namespace || x.metadata.namespace === ns),
  );
}

/** One entry of an AzureASOManaged* object's `spec.resources` / `status.resources`. @public */
export interface ResourceRef {
  group: string;
  version?: string;
  kind: string;
  name: string;
}

/** A referenced ASO object with what the referencing object reports about it. @public */
export interface ResolvedResource {
  ref: ResourceRef;
  /** The live object, when found among the given objects. */
  object?: ObservedObject;
  /** `status.resources[].ready` of the referencing object, when it lists this resource. */
  readyInStatus?: boolean;
  /** Whether the backend watches this kind ({@link WATCHED_ASO_KINDS}); if not, "not found" means "not looked at". */
  watched: boolean;
}

/**
 * The ASO objects an AzureASOManaged* object embeds: `spec.resources[]` and `status.resources[]` merged by group,
 * kind and name (versions are ignored, as CAPZ does), each resolved among `objects` in the same namespace.
 * @public
 */
export function resolveResources(
  owner: ObservedObject,
  objects: readonly ObservedObject[],
): ResolvedResource[] {
  const byKey = new Map<string, ResolvedResource>();
  const key = (r: ResourceRef) => `${r.group}/${r.kind}/${r.name}`;
  for (const item of arr(owner.spec?.resources)) {
    const kind = str(at(item, 'kind'));
    const name = str(at(item, 'metadata', 'name'));
    if (!kind || !name) continue;
    const apiVersion = str(at(item, 'apiVersion'));
    const ref: ResourceRef = {
      group: groupOf(apiVersion),
      version: apiVersion ? versionOf(apiVersion) : undefined,
      kind,
      name,
    };
    if (!byKey.has(key(ref)))
      byKey.set(key(ref), {
        ref,
        watched: watchedAsoGroup(kind) === ref.group,
      });
  }
  for (const item of arr(owner.status?.resources)) {
    const r = obj(at(item, 'resource'));
    const kind = str(r?.kind);
    const name = str(r?.name);
    if (!kind || !name) continue;
    const ref: ResourceRef = {
      group: str(r?.group) ?? '',
      version: str(r?.version),
      kind,
      name,
    };
    const existing = byKey.get(key(ref));
    const ready = bool(at(item, 'ready'));
    if (existing) existing.readyInStatus = ready;
    else
      byKey.set(key(ref), {
        ref,
        readyInStatus: ready,
        watched: watchedAsoGroup(kind) === ref.group,
      });
  }
  const ns = owner.metadata?.namespace;
  for (const r of byKey.values()) {
    r.object = objects.find(
      o =>
        kindOf(o) === r.ref.kind &&
        nameOf(o) === r.ref.name &&
        (!o.apiVersion || groupOf(o.apiVersion) === r.ref.group) &&
        (!ns || !o.metadata?.namespace || o.metadata.namespace === ns),
    );
  }
  return [...byKey.values()];
}

/** Health of a referenced resource: the live object's, or `unknown` when it is missing or not watched. @public */
export function resolvedResourceHealth(
  r: ResolvedResource,
  objects: readonly ObservedObject[],
  opts: HealthOptions = {},
): HealthResult {
  if (r.object)
    return asoObjectHealth(r.object, {
      ...opts,
      ownerFound: asoOwnerFound(r.object, objects),
    });
  if (!r.watched) {
    // Not watched: all we know is what CAPZ reports in status.resources.
    return r.readyInStatus
      ? { health: 'healthy' }
      : compact({
          health: 'unknown',
          reason: 'NotWatched',
          message: `${r.ref.kind} ${r.ref.name} (${
            r.ref.group
          }) is not watched; CAPZ reports it ${
            r.readyInStatus === false ? 'not ready' : 'without status'
          }`,
        });
  }
  return {
    health: 'unknown',
    reason: 'NotFound',
    message: `${r.ref.kind} ${r.ref.name} was not found`,
  };
}

/** Extra context for the CAPZ and MachinePool health functions. @public */
export interface CapzHealthContext extends HealthOptions {
  /** Whether the owning CAPI Cluster is paused (`spec.paused`). */
  clusterPaused?: boolean;
}

function isPausedObject(
  o: ObservedObject,
  ctx: CapzHealthContext,
): string | undefined {
  if (ctx.clusterPaused)
    return 'The Cluster is paused: CAPZ has set its ASO objects to reconcile-policy skip';
  if (ann(o, PAUSED_ANNOTATION) !== undefined)
    return `${describe(o)} has the ${PAUSED_ANNOTATION} annotation`;
  return undefined;
}

/**
 * Health of an AzureASOManagedCluster, AzureASOManagedControlPlane or AzureASOManagedMachinePool. These have no
 * conditions (docs/capz-aso-facts.md#aso-managed-status): health comes from `status.ready` (and `initialized` for the
 * control plane) and `status.resources[]`, and the *why* from the embedded ASO objects' Ready conditions.
 * - deleting → `deleting`; `cluster.x-k8s.io/paused` or a paused Cluster → `paused`;
 * - any embedded ASO object not healthy → the worst one decides (reason, message, severity, since; `source` names
 *   it), even when `status.ready` is still true (CAPZ may not have caught up);
 * - otherwise ready (and initialized) → `healthy`; not ready → `progressing` (`NotReady`/`NotInitialized`), CAPZ
 *   is finishing its own part (endpoint, kubeconfig, node lookup);
 * - no status at all → `progressing`/`unknown` as for a new object.
 * `objects` are the candidates for the embedded objects (typically every watched object of the namespace).
 * @public
 */
export function asoManagedHealth(
  o: ObservedObject,
  objects: readonly ObservedObject[],
  ctx: CapzHealthContext = {},
): HealthResult {
  if (isDeleting(o))
    return deleting(
      o,
      undefined,
      !!ctx.clusterPaused || ann(o, PAUSED_ANNOTATION) !== undefined,
    );
  const paused = isPausedObject(o, ctx);
  if (paused) return pausedResult(paused);

  const resources = resolveResources(o, objects);
  let decided: { r: ResolvedResource; h: HealthResult } | undefined;
  for (const r of resources) {
    const h = resolvedResourceHealth(r, objects, ctx);
    if (
      h.health !== 'healthy' &&
      (!decided || compareHealth(h.health, decided.h.health) > 0)
    )
      decided = { r, h };
  }
  if (decided) {
    const source: NodeRef = decided.r.object
      ? refOf(decided.r.object)
      : {
          id: `missing:${refOf(o).id}:${decided.r.ref.kind}:${
            decided.r.ref.name
          }`,
          kind: decided.r.ref.kind,
          name: decided.r.ref.name,
        };
    return compact({ ...decided.h, source });
  }
  const status = o.status;
  if (!status || !Object.keys(status).length)
    return notObserved(o, ctx, 'status');
  const ready = status.ready === true;
  const isControlPlane = kindOf(o) === 'AzureASOManagedControlPlane';
  if (ready && isControlPlane && status.initialized === false) {
    return {
      health: 'progressing',
      reason: 'NotInitialized',
      message: `${describe(o)} is ready but not initialized`,
    };
  }
  if (ready) {
    // Healthy since the last embedded object became ready, the best estimate there is.
    const since = resources
      .map(r =>
        r.object
          ? findCondition(r.object, 'Ready')?.lastTransitionTime
          : undefined,
      )
      .filter((t): t is string => !!t)
      .sort()
      .pop();
    return compact({ health: 'healthy', since });
  }
  const waitingFor: Record<string, string> = {
    AzureASOManagedCluster:
      'its Azure resources are ready; waiting for the control plane endpoint',
    AzureASOManagedControlPlane:
      'its ManagedCluster is ready; CAPZ is writing the endpoint and kubeconfig',
    AzureASOManagedMachinePool:
      'its agent pool is ready; CAPZ is matching the pool to its Nodes',
  };
  return {
    health: 'progressing',
    reason: 'NotReady',
    message: `${describe(o)} is not ready yet: ${
      waitingFor[kindOf(o)] ?? 'waiting for CAPZ'
    }`,
  };
}

/**
 * Health of a legacy AzureManagedCluster, AzureManagedControlPlane or AzureManagedMachinePool: v1beta1-style
 * `status.conditions[type=Ready]` with severity (docs/capz-aso-facts.md#legacy-api), plus `status.ready`:
 * - deleting, paused as for the ASO-managed kinds;
 * - `status.errorReason`/`errorMessage` (terminal, AzureManagedMachinePool) → `failed`;
 * - Ready True → `healthy` (`progressing` `NotReady` while `status.ready` is still false);
 * - Ready not True → by severity, as for ASO conditions (the legacy controllers copy the ASO reason);
 * - no Ready condition (AzureManagedCluster has none) → `status.ready`; no status → as for a new object.
 * @public
 */
export function legacyManagedHealth(
  o: ObservedObject,
  ctx: CapzHealthContext = {},
): HealthResult {
  const ready = findCondition(o, 'Ready');
  if (isDeleting(o))
    return deleting(
      o,
      ready,
      !!ctx.clusterPaused || ann(o, PAUSED_ANNOTATION) !== undefined,
    );
  const paused = isPausedObject(o, ctx);
  if (paused) return pausedResult(paused);
  const errorReason =
    str(o.status?.errorReason) ?? str(o.status?.failureReason);
  if (errorReason) {
    return compact({
      health: 'failed',
      reason: errorReason,
      message: str(o.status?.errorMessage) ?? str(o.status?.failureMessage),
      severity: 'Error',
    });
  }
  if (ready) {
    if (ready.status === 'True') {
      if (o.status?.ready === false) {
        return {
          health: 'progressing',
          reason: 'NotReady',
          message: `${describe(o)} reports Ready but status.ready is false`,
        };
      }
      return fromCondition('healthy', ready);
    }
    return fromCondition(notTrue(ready), ready);
  }
  const status = o.status;
  if (!status || !Object.keys(status).length)
    return notObserved(o, ctx, 'status');
  if (status.ready === true) return { health: 'healthy' };
  return {
    health: 'progressing',
    reason: 'NotReady',
    message: `${describe(o)} is not ready yet`,
  };
}

/** Whether a CAPI Cluster is paused: `spec.paused`, the pause annotation, or its Paused condition. @public */
export function isClusterPaused(cluster: ObservedObject | undefined): boolean {
  if (!cluster) return false;
  return (
    cluster.spec?.paused === true ||
    ann(cluster, PAUSED_ANNOTATION) !== undefined ||
    findCondition(cluster, 'Paused')?.status === 'True'
  );
}

function staleGeneration(
  o: ObservedObject,
  c?: ConditionView,
): number | undefined {
  const generation = o.metadata?.generation;
  if (generation === undefined) return undefined;
  const observed = c?.observedGeneration ?? num(o.status?.observedGeneration);
  return observed !== undefined && observed < generation
    ? generation
    : undefined;
}

/**
 * Health of a CAPI Cluster from its own conditions only (docs/capz-aso-facts.md#cluster-available): v1beta2 `Available`
 * on top.
 * - deleting → `deleting`; `spec.paused`, the pause annotation or Paused=True → `paused`;
 * - Available True → `healthy` (`progressing` while its observedGeneration is behind `metadata.generation`);
 * - Available not True → `progressing` while `status.phase` is Pending/Provisioning, `degraded` otherwise;
 * - no Available: a v1beta1-style Ready condition by severity, else `status.phase`.
 * It ignores MachinePools, as CAPI's Available does: {@link buildClusterTree}'s rollup closes that gap.
 * @public
 */
export function clusterHealth(
  cluster: ObservedObject,
  opts: HealthOptions = {},
): HealthResult {
  const paused = isClusterPaused(cluster);
  if (isDeleting(cluster)) return deleting(cluster, undefined, paused);
  if (paused) {
    const c = findCondition(cluster, 'Paused');
    return pausedResult(
      `Cluster ${nameOf(cluster)} is paused: CAPI and CAPZ do not reconcile it`,
      c?.status === 'True' ? c : undefined,
    );
  }
  const phase = str(cluster.status?.phase);
  const available = findCondition(cluster, 'Available');
  if (available) {
    if (available.status === 'True') {
      const gen = staleGeneration(cluster, available);
      if (gen !== undefined) {
        return {
          health: 'progressing',
          reason: 'GenerationNotObserved',
          message: `CAPI has not processed generation ${gen} of Cluster ${nameOf(
            cluster,
          )} yet`,
        };
      }
      return fromCondition('healthy', available);
    }
    return fromCondition(
      phase === 'Pending' || phase === 'Provisioning'
        ? 'progressing'
        : 'degraded',
      available,
    );
  }
  const ready = findCondition(cluster, 'Ready');
  if (ready)
    return fromCondition(
      ready.status === 'True' ? 'healthy' : notTrue(ready),
      ready,
    );
  if (phase === 'Provisioned')
    return { health: 'healthy', reason: 'Provisioned' };
  if (phase === 'Pending' || phase === 'Provisioning')
    return { health: 'progressing', reason: phase };
  if (phase === 'Failed')
    return {
      health: 'failed',
      reason: 'Failed',
      message: str(cluster.status?.failureMessage),
    };
  return notObserved(cluster, opts, 'status');
}

/**
 * Health of a CAPI MachinePool: `Available` (and `InfrastructureReady`) conditions, `status.phase`, and
 * `status.readyReplicas` against `spec.replicas`.
 * - deleting, paused (paused Cluster, the pause annotation or Paused=True) as usual; phase Failed → `failed`;
 * - `status.observedGeneration` behind `metadata.generation` → `progressing`;
 * - Available True → `healthy`; not True → `progressing` while the phase is Pending/Provisioning/Provisioned/
 *   Scaling*, `degraded` otherwise (e.g. Running but short of replicas);
 * - no Available: InfrastructureReady False as above; else replicas: ready ≥ desired → `healthy`, fewer →
 *   `progressing` (`WaitingForReplicas`); no status → as for a new object.
 * @public
 */
export function machinePoolHealth(
  mp: ObservedObject,
  ctx: CapzHealthContext = {},
): HealthResult {
  const pausedCond = findCondition(mp, 'Paused');
  const paused =
    ctx.clusterPaused ||
    ann(mp, PAUSED_ANNOTATION) !== undefined ||
    pausedCond?.status === 'True';
  if (isDeleting(mp)) return deleting(mp, undefined, !!paused);
  if (paused) {
    return pausedResult(
      ctx.clusterPaused ? 'The Cluster is paused' : `${describe(mp)} is paused`,
      pausedCond?.status === 'True' ? pausedCond : undefined,
    );
  }
  const phase = str(mp.status?.phase);
  if (phase === 'Failed') {
    return compact({
      health: 'failed',
      reason:
        str(mp.status?.failureReason) ??
        str(at(mp.status, 'deprecated', 'v1beta1', 'failureReason')) ??
        'Failed',
      message:
        str(mp.status?.failureMessage) ??
        str(at(mp.status, 'deprecated', 'v1beta1', 'failureMessage')),
      severity: 'Error',
    });
  }
  const gen = staleGeneration(mp);
  if (gen !== undefined) {
    return {
      health: 'progressing',
      reason: 'GenerationNotObserved',
      message: `CAPI has not processed generation ${gen} of MachinePool ${nameOf(
        mp,
      )} yet`,
    };
  }
  const expectedNotAvailable =
    phase !== undefined && PROVISIONING_PHASES.has(phase);
  const available = findCondition(mp, 'Available');
  if (available) {
    if (available.status === 'True') return fromCondition('healthy', available);
    return fromCondition(
      expectedNotAvailable ? 'progressing' : 'degraded',
      available,
    );
  }
  const infra = findCondition(mp, 'InfrastructureReady');
  if (infra && infra.status !== 'True')
    return fromCondition(
      expectedNotAvailable ? 'progressing' : 'degraded',
      infra,
    );
  const desired = num(mp.spec?.replicas);
  const readyReplicas = num(mp.status?.readyReplicas);
  if (readyReplicas !== undefined) {
    if (desired === undefined || readyReplicas >= desired)
      return { health: 'healthy' };
    return {
      health: 'progressing',
      reason: 'WaitingForReplicas',
      message: `${readyReplicas} of ${desired} replicas are ready`,
    };
  }
  return notObserved(mp, ctx, 'status');
}

/** The families {@link objectHealth} dispatches on. @public */
export type ObjectFamily =
  | 'cluster'
  | 'machinePool'
  | 'asoManaged'
  | 'legacyManaged'
  | 'aso'
  | 'other';

/** Which health family an object belongs to, by kind. @public */
export function familyOf(o: ObservedObject): ObjectFamily {
  const kind = kindOf(o);
  if (kind === 'Cluster') return 'cluster';
  if (kind === 'MachinePool') return 'machinePool';
  if (kind.startsWith('AzureASOManaged')) return 'asoManaged';
  if (kind.startsWith('AzureManaged')) return 'legacyManaged';
  if (watchedAsoGroup(kind) !== undefined) return 'aso';
  return 'other';
}

/**
 * Health of any watched object, by family. `objects` resolves the embedded ASO objects of AzureASOManaged* kinds
 * and ASO owners; unknown kinds with a Ready condition are read like ASO objects.
 * @public
 */
export function objectHealth(
  o: ObservedObject,
  objects: readonly ObservedObject[] = [],
  ctx: CapzHealthContext = {},
): HealthResult {
  switch (familyOf(o)) {
    case 'cluster':
      return clusterHealth(o, ctx);
    case 'machinePool':
      return machinePoolHealth(o, ctx);
    case 'asoManaged':
      return asoManagedHealth(o, objects, ctx);
    case 'legacyManaged':
      return legacyManagedHealth(o, ctx);
    case 'aso':
      return asoObjectHealth(o, {
        ...ctx,
        ownerFound: asoOwnerFound(o, objects),
      });
    default:
      return conditionsOf(o).length || isDeleting(o) || isObj(o.status)
        ? asoObjectHealth(o, ctx)
        : notObserved(o, ctx, 'status');
  }
}
