/**
 * What every health family builds its verdict from: the compact result, the new-object grace rule, deletion, pause
 * and ASO's severity meaning (docs/capz-aso-facts.md#aso-conditions).
 */
import { PAUSED_ANNOTATION } from '../../vocabulary';
import { ann, isDeleting, kindOf, nameOf, timeOf } from '../../objects/read';
import type { ConditionView, ObservedObject } from '../../objects/types';
import type { Health, HealthOptions, HealthResult, NodeRef } from '../types';

/** Reasons that mean "working on it", whatever their severity says. */
const PROGRESSING_REASONS = new Set([
  'Reconciling',
  'ReconciliationPostponed',
  'Deleting',
]);

const DEFAULT_GRACE_SECONDS = 300;

export const describe = (o: ObservedObject) =>
  `${kindOf(o) || 'Object'} ${nameOf(o)}`;

/** A reference to an object, as tree nodes identify it. @public */
export function refOf(o: ObservedObject): NodeRef {
  const ns = o.metadata?.namespace ?? '';
  return {
    id: o.metadata?.uid ?? `obj:${kindOf(o)}:${ns}/${nameOf(o)}`,
    kind: kindOf(o),
    name: nameOf(o),
  };
}

export function compact(r: HealthResult): HealthResult {
  const out: HealthResult = { health: r.health };
  if (r.reason) out.reason = r.reason;
  if (r.message) out.message = r.message;
  if (r.severity) out.severity = r.severity;
  if (r.since) out.since = r.since;
  if (r.source) out.source = r.source;
  return out;
}

export function fromCondition(
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
export function notObserved(
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

export function deleting(
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

export function pausedResult(message: string, c?: ConditionView): HealthResult {
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
export function notTrue(c: ConditionView, ownerFound?: boolean): Health {
  if (c.severity === 'Error') return 'failed';
  if (c.reason === 'WaitingForOwner')
    return ownerFound === false ? 'degraded' : 'progressing';
  if (c.severity === 'Info' || (c.reason && PROGRESSING_REASONS.has(c.reason)))
    return 'progressing';
  if (c.severity === 'Warning') return 'degraded';
  return c.status === 'Unknown' ? 'progressing' : 'degraded';
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
 * Where every CAPZ object's verdict starts: `deleting` (waiting, while paused; `ready` explains a stuck deletion), or
 * `paused`; undefined when it is neither.
 */
export function deletingOrPaused(
  o: ObservedObject,
  ctx: CapzHealthContext,
  ready?: ConditionView,
): HealthResult | undefined {
  const paused = isPausedObject(o, ctx);
  if (isDeleting(o)) return deleting(o, ready, paused !== undefined);
  return paused ? pausedResult(paused) : undefined;
}
