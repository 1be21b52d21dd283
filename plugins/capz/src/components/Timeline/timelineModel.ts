import {
  ConditionTransition,
  TimelineEvent,
} from '@capz-backstage/plugin-capz-common';

/** One stretch of time in which a condition kept one status. */
export interface Segment {
  start: number;
  /** Exclusive; the next transition or the end of the range. */
  end: number;
  transition: ConditionTransition;
}

/** One row of the state timeline: one condition type of one object. */
export interface Lane {
  key: string;
  objectUid: string;
  kind: string;
  name: string;
  conditionType: string;
  segments: Segment[];
}

/** The Events of one object, drawn as marks under its lanes. */
export interface EventLane {
  key: string;
  objectUid: string;
  kind: string;
  name: string;
  events: TimelineEvent[];
}

export interface TimelineModel {
  from: number;
  to: number;
  lanes: Lane[];
  eventLanes: EventLane[];
}

const ms = (iso: string) => Date.parse(iso);

/**
 * Turns the transitions (oldest first) into lanes of segments between `from` and `to`. Time before an object's
 * first transition in the range is left empty: the history does not say what the status was then. Lanes are ordered
 * by object (in the order the objects first appear), then Ready first, then by condition type.
 */
export function buildTimeline(
  transitions: ConditionTransition[],
  events: TimelineEvent[],
  from: number,
  to: number,
): TimelineModel {
  const lanes = new Map<string, Lane>();
  const objectOrder = new Map<string, number>();
  for (const t of transitions) {
    if (!objectOrder.has(t.objectUid))
      objectOrder.set(t.objectUid, objectOrder.size);
    const key = `${t.objectUid}/${t.conditionType}`;
    let lane = lanes.get(key);
    if (!lane) {
      lane = {
        key,
        objectUid: t.objectUid,
        kind: t.kind,
        name: t.name,
        conditionType: t.conditionType,
        segments: [],
      };
      lanes.set(key, lane);
    }
    const start = Math.max(from, ms(t.transitionTime));
    const prev = lane.segments[lane.segments.length - 1];
    if (prev) prev.end = Math.max(prev.start, Math.min(start, to));
    lane.segments.push({ start: Math.min(start, to), end: to, transition: t });
  }
  const eventLanes = new Map<string, EventLane>();
  for (const e of events) {
    if (!objectOrder.has(e.objectUid))
      objectOrder.set(e.objectUid, objectOrder.size);
    const key = `${e.objectUid}/events`;
    let lane = eventLanes.get(key);
    if (!lane) {
      lane = {
        key,
        objectUid: e.objectUid,
        kind: e.kind,
        name: e.name,
        events: [],
      };
      eventLanes.set(key, lane);
    }
    lane.events.push(e);
  }
  const order = (l: { objectUid: string }) => objectOrder.get(l.objectUid) ?? 0;
  const sorted = [...lanes.values()].sort(
    (a, b) =>
      order(a) - order(b) ||
      Number(b.conditionType === 'Ready') -
        Number(a.conditionType === 'Ready') ||
      a.conditionType.localeCompare(b.conditionType),
  );
  return {
    from,
    to,
    lanes: sorted,
    eventLanes: [...eventLanes.values()].sort((a, b) => order(a) - order(b)),
  };
}

/** The index of the segment of a lane at a time, or -1; binary search, as hovering a long lane calls it often. */
export function segmentAt(lane: Lane, time: number): number {
  const s = lane.segments;
  let lo = 0;
  let hi = s.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (s[mid].start <= time) {
      found = mid;
      lo = mid + 1;
    } else {
      hi = mid - 1;
    }
  }
  return found >= 0 && time <= s[found].end ? found : -1;
}
