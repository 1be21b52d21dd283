import {
  conditionOutcome,
  ConditionOutcome,
  ConditionTransition,
  ObjectDeletion,
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
  /** When the object was seen deleted, within the range: the lane ends there. */
  deletedAt?: number;
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

/** Whether a transition's status is its condition's good one, by the condition's polarity (capz-common). */
export const outcomeOf = (t: ConditionTransition): ConditionOutcome =>
  conditionOutcome(t.conditionType, t.status);

/**
 * Turns the transitions (oldest first) into lanes of segments between `from` and `to`. `initial` holds each
 * condition's last transition before `from`: its state is drawn from `from` on. Without one, time before a
 * condition's first transition is left empty: the history does not say what the status was then. A lane of an object
 * in `deletions` ends when it was deleted. Lanes are ordered by object (in the order the objects first appear), then
 * Ready first, then by condition type.
 */
export function buildTimeline(
  transitions: ConditionTransition[],
  events: TimelineEvent[],
  from: number,
  to: number,
  held: { initial?: ConditionTransition[]; deletions?: ObjectDeletion[] } = {},
): TimelineModel {
  const lanes = new Map<string, Lane>();
  const objectOrder = new Map<string, number>();
  for (const t of [...(held.initial ?? []), ...transitions]) {
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
  const deletedAt = new Map(
    (held.deletions ?? []).map(d => [d.objectUid, ms(d.deletedAt)]),
  );
  for (const lane of lanes.values()) {
    const gone = deletedAt.get(lane.objectUid);
    if (gone === undefined) continue;
    lane.deletedAt = Math.min(Math.max(gone, from), to);
    lane.segments = lane.segments.filter(s => s.start <= lane.deletedAt!);
    const last = lane.segments[lane.segments.length - 1];
    if (last) last.end = Math.min(last.end, lane.deletedAt);
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

/** Where a segment is drawn, as fractions of the track's width. */
export interface DrawnSegment {
  index: number;
  x: number;
  width: number;
  /** True when the segment is shorter than the minimum width and was drawn wider (over its neighbours). */
  widened: boolean;
}

/**
 * The segments of a lane as drawn: each at its time, and at least `minWidth` (a fraction of the track) wide, so that
 * a dip of a second or two stays visible on an hour or more. A widened segment is centred on its own time and
 * kept inside the track; it is drawn over its neighbours.
 */
export function drawnSegments(
  lane: Lane,
  from: number,
  to: number,
  minWidth: number,
): DrawnSegment[] {
  const span = Math.max(1, to - from);
  const frac = (t: number) => (Math.min(Math.max(t, from), to) - from) / span;
  return lane.segments.map((s, index) => {
    const x = frac(s.start);
    const width = frac(s.end) - x;
    if (width >= minWidth) return { index, x, width, widened: false };
    const centre = x + width / 2;
    return {
      index,
      x: Math.min(
        Math.max(centre - minWidth / 2, 0),
        Math.max(0, 1 - minWidth),
      ),
      width: Math.min(minWidth, 1),
      widened: true,
    };
  });
}

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
/** Tick steps an axis picks from: round minutes, hours and days. */
const STEPS = [1, 2, 5, 10, 15, 30, 60, 120, 180, 360, 720, 1440, 2880]
  .map(m => m * MINUTE)
  .concat([7 * DAY]);

const timeOfDay = new Intl.DateTimeFormat('en', {
  hour: '2-digit',
  minute: '2-digit',
  hour12: false,
});
const dayAndTime = new Intl.DateTimeFormat('en', {
  month: 'short',
  day: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  hour12: false,
});

/** The room one tick label takes, in pixels, for an axis of this span (a date is added beyond a day). */
export function tickLabelWidth(from: number, to: number): number {
  return to - from > DAY ? 96 : 48;
}

/**
 * The ticks of a time axis `widthPx` wide: round times (every so many minutes, hours or days), as many as fit
 * without their labels touching. Labels are the time of day, with the date when the axis spans more than a day.
 */
export function axisTicks(
  from: number,
  to: number,
  widthPx: number,
): Array<{ time: number; label: string }> {
  const span = Math.max(1, to - from);
  const room = tickLabelWidth(from, to);
  const fit = Math.max(1, Math.floor(widthPx / room));
  const step =
    STEPS.find(st => Math.floor(span / st) + 1 <= fit) ?? Math.ceil(span / fit);
  const fmt = span > DAY ? dayAndTime : timeOfDay;
  // Round to the step in local time (an hour step starts on the hour).
  const offset = new Date(from).getTimezoneOffset() * MINUTE;
  const first = Math.ceil((from - offset) / step) * step + offset;
  const out: Array<{ time: number; label: string }> = [];
  for (let t = first; t <= to && out.length < fit; t += step)
    out.push({ time: t, label: fmt.format(t) });
  return out;
}
