/**
 * What the condition history records of one object change: pure functions, no I/O (docs/architecture.md#flow-history).
 */
import {
  ConditionTransition,
  ConditionView,
  conditionsOf,
  familyOf,
  ObservedObject,
  TimelineEvent,
} from '@capz-backstage/plugin-capz-common';

/**
 * One transition as extracted from an object: {@link ConditionTransition} plus what the store needs to decide
 * whether a re-observed state is new.
 */
export interface ObservedTransition extends ConditionTransition {
  /**
   * When the change happened, for ordering: the observation time for a change seen live (exact to the
   * millisecond, and in the order the backend saw it), the condition's own time for states found on first sight
   * (the initial list).
   */
  occurredAt: string;
  /** True when `transitionTime` comes from the condition itself, so a changed time means a new episode. */
  exactTime: boolean;
}

/** An Event about one object, as the history keeps it. */
export interface ObservedEvent extends TimelineEvent {
  eventUid: string;
  namespace: string;
}

type State = Pick<ConditionView, 'status' | 'reason' | 'severity' | 'message'>;

const sameState = (a: State, b: State) =>
  a.status === b.status &&
  a.reason === b.reason &&
  a.severity === b.severity &&
  a.message === b.message;

/** ISO time of a string or a Date (client-node's typed lists deserialise times to Dates); undefined when unset. */
const iso = (
  t: string | number | Date | null | undefined,
): string | undefined => {
  if (t === undefined || t === null || t === '') return undefined;
  const d = new Date(t);
  return Number.isFinite(d.getTime()) ? d.toISOString() : undefined;
};

/** The time of the last status write recorded in managedFields (the watch cache keeps manager, subresource, time). */
function lastStatusWrite(o: ObservedObject): string | undefined {
  const times = (o.metadata?.managedFields ?? [])
    .filter(f => (f as { subresource?: string }).subresource === 'status')
    .map(f => iso((f as { time?: string }).time))
    .filter((t): t is string => !!t)
    .sort();
  return times.pop();
}

/**
 * The AzureASOManaged* kinds have no `status.conditions` (docs/capz-aso-facts.md#aso-managed-status): their only health
 * signal is `status.ready` (with `status.resources[]`). So that their history is not empty, it is recorded as a
 * synthetic `Ready` condition: status True/False, reason `Ready`/`NotReady`, a message naming the embedded resources
 * that are not ready yet, no severity. Its time is the last status write seen in managedFields, which is the same for
 * every backend replica observing the same object version. Nothing is recorded before CAPZ first writes a status.
 */
export function syntheticReady(
  o: ObservedObject,
): (ConditionView & { lastTransitionTime?: string }) | undefined {
  const status = o.status;
  if (!status || typeof status.ready !== 'boolean') return undefined;
  const time = lastStatusWrite(o);
  if (status.ready)
    return {
      type: 'Ready',
      status: 'True',
      reason: 'Ready',
      ...(time ? { lastTransitionTime: time } : {}),
    };
  const waiting = (Array.isArray(status.resources) ? status.resources : [])
    .filter((r: any) => r && r.ready !== true && r.resource?.kind)
    .map((r: any) => `${r.resource.kind}/${r.resource.name ?? ''}`);
  return {
    type: 'Ready',
    status: 'False',
    reason: 'NotReady',
    ...(waiting.length
      ? { message: `Waiting for ${waiting.join(', ')} to be ready` }
      : {}),
    ...(time ? { lastTransitionTime: time } : {}),
  };
}

/** The conditions the history tracks for an object: its own (normalised by capz-common), or the synthetic Ready. */
export function trackedConditions(
  o: ObservedObject,
): Array<ConditionView & { synthetic?: boolean }> {
  if (familyOf(o) === 'asoManaged') {
    const ready = syntheticReady(o);
    return ready ? [{ ...ready, synthetic: true }] : [];
  }
  return conditionsOf(o);
}

/**
 * The condition transitions between two observations of one object. With no `previous` (first sight, e.g. the
 * initial list), every current condition is returned and the store drops the states it already holds. A condition
 * counts as changed when its status, reason, severity or message differs, or its lastTransitionTime moved (it
 * flipped and came back between two observations). Conditions that disappear are not recorded.
 *
 * `transitionTime` is the condition's lastTransitionTime (kept by Kubernetes across reason-only changes; the
 * synthetic Ready's status write time; the observation time when there is none). `occurredAt` orders the timeline.
 */
export function conditionTransitions(
  previous: ObservedObject | undefined,
  next: ObservedObject,
  observedAt: Date,
): ObservedTransition[] {
  const seen = iso(observedAt)!;
  const before = new Map(
    (previous ? trackedConditions(previous) : []).map(c => [c.type, c]),
  );
  const out: ObservedTransition[] = [];
  for (const c of trackedConditions(next)) {
    const ltt = iso(c.lastTransitionTime);
    const exactTime = !!ltt && !c.synthetic;
    const prev = before.get(c.type);
    if (
      prev &&
      sameState(prev, c) &&
      (!exactTime || iso(prev.lastTransitionTime) === ltt)
    )
      continue;
    const t: ObservedTransition = {
      objectUid: next.metadata?.uid ?? '',
      kind: next.kind ?? '',
      name: next.metadata?.name ?? '',
      conditionType: c.type,
      status: c.status,
      transitionTime: ltt ?? seen,
      firstSeen: seen,
      occurredAt: previous ? seen : ltt ?? seen,
      exactTime,
    };
    if (c.reason) t.reason = c.reason;
    if (c.severity) t.severity = c.severity;
    if (c.message) t.message = c.message;
    out.push(t);
  }
  return out;
}

/**
 * A core/v1 Event as the history keeps it, or undefined when it names no involved object uid. Times fall back from
 * the legacy fields to the events.k8s.io ones (`eventTime`, `series`), as `kubectl get events` does.
 */
export function eventOf(
  e: Record<string, any>,
  observedAt: Date,
): ObservedEvent | undefined {
  const involved = e.involvedObject ?? e.regarding;
  const uid = e.metadata?.uid;
  if (!uid || !involved?.uid) return undefined;
  const first =
    iso(e.firstTimestamp) ??
    iso(e.eventTime) ??
    iso(e.metadata?.creationTimestamp) ??
    iso(observedAt)!;
  const last =
    iso(e.lastTimestamp) ??
    iso(e.series?.lastObservedTime) ??
    iso(e.eventTime) ??
    first;
  const out: ObservedEvent = {
    eventUid: uid,
    namespace: e.metadata?.namespace ?? involved.namespace ?? '',
    objectUid: involved.uid,
    kind: involved.kind ?? '',
    name: involved.name ?? '',
    type: e.type ?? 'Normal',
    count: Number(e.count ?? e.series?.count ?? 1) || 1,
    firstTimestamp: first,
    lastTimestamp: last < first ? first : last,
  };
  if (e.reason) out.reason = e.reason;
  if (e.message) out.message = e.message;
  const source = e.reportingController || e.source?.component;
  if (source) out.source = source;
  return out;
}
