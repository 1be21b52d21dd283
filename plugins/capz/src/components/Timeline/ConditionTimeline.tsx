import {
  ConditionTransition,
  TimelineEvent,
} from '@capz-backstage/plugin-capz-common';
import {
  KeyboardEvent,
  memo,
  PointerEvent,
  useCallback,
  useId,
  useLayoutEffect,
  useMemo,
  useRef,
  useState,
} from 'react';
import { absoluteTime } from '../shared/time';
import {
  axisTicks,
  drawnSegments,
  EventLane,
  Lane,
  outcomeOf,
  segmentAt,
  TimelineModel,
} from './timelineModel';

const LANE_HEIGHT = 18;
const LABEL_WIDTH = 280;
/** The narrowest a segment is drawn, in pixels: a dip of a second stays visible on an hour or more. */
const MIN_SEGMENT_PX = 3;
/** The track width assumed until it is measured (and where layout is not measured, as in tests). */
const DEFAULT_TRACK_PX = 600;

/**
 * Colour of a status by what it means for its object (the condition's polarity: False of `Deleting` or `ScalingUp` is
 * their normal state): good green; bad by severity (Error or none red, Warning amber, Info blue); Unknown grey.
 */
export function statusColor(t: ConditionTransition): string {
  const outcome = outcomeOf(t);
  if (outcome === 'good') return 'var(--bui-fg-positive, #2e7d32)';
  if (outcome === 'unknown') return 'var(--bui-fg-secondary, #757575)';
  if (t.severity === 'Info') return 'var(--bui-fg-announcement, #1565c0)';
  if (t.severity === 'Warning') return 'var(--bui-fg-warning, #ed6c02)';
  return 'var(--bui-fg-negative, #c62828)';
}

/**
 * The same meaning as {@link statusColor}, for text: BUI's `-on-bg` foregrounds, which keep WCAG's 4.5:1 on the page's
 * background, where the marks' colours (a green of about 2.4:1) are only meant for shapes.
 */
export function statusTextColor(t: ConditionTransition): string {
  const outcome = outcomeOf(t);
  if (outcome === 'good') return 'var(--bui-fg-success-on-bg, #116932)';
  if (outcome === 'unknown') return 'var(--bui-fg-secondary, #696969)';
  if (t.severity === 'Info') return 'var(--bui-fg-info-on-bg, #173da6)';
  if (t.severity === 'Warning') return 'var(--bui-fg-warning-on-bg, #92310a)';
  return 'var(--bui-fg-danger-on-bg, #991919)';
}

export function describeTransition(
  t: ConditionTransition,
  end?: number,
  deletedAt?: number,
): string {
  const parts = [`${t.kind} ${t.name} ${t.conditionType} ${t.status}`];
  if (t.reason) parts.push(`reason ${t.reason}`);
  if (t.severity) parts.push(`severity ${t.severity}`);
  const deleted = deletedAt !== undefined && end === deletedAt;
  parts.push(
    `from ${absoluteTime(t.transitionTime)}${
      end !== undefined
        ? ` to ${absoluteTime(end)}${deleted ? ', when it was deleted' : ''}`
        : ''
    }`,
  );
  if (t.message) parts.push(t.message);
  return parts.join(', ');
}

export function describeEvent(e: TimelineEvent): string {
  return `${e.type} event ${e.reason ?? ''} on ${e.kind} ${
    e.name
  } at ${absoluteTime(e.lastTimestamp)}${
    e.count > 1 ? ` (${e.count} times)` : ''
  }${e.message ? `: ${e.message}` : ''}`;
}

type Active =
  | { lane: string; kind: 'segment'; index: number; x: number }
  | { lane: string; kind: 'event'; index: number; x: number };

/** The marks of one lane; each is an ARIA option of the lane's listbox, named by what it shows. */
const LaneTrack = memo(function LaneTrackMarks(props: {
  lane: Lane | EventLane;
  idPrefix: string;
  from: number;
  to: number;
  activeIndex: number;
  trackPx: number;
}) {
  const { lane, from, to, activeIndex, idPrefix, trackPx } = props;
  const span = Math.max(1, to - from);
  const x = (t: number) =>
    ((Math.min(Math.max(t, from), to) - from) / span) * 1000;
  const drawn =
    'segments' in lane
      ? drawnSegments(lane, from, to, MIN_SEGMENT_PX / Math.max(1, trackPx))
      : [];
  return (
    <svg
      viewBox={`0 0 1000 ${LANE_HEIGHT}`}
      preserveAspectRatio="none"
      width="100%"
      height={LANE_HEIGHT}
      style={{
        display: 'block',
        background: 'var(--bui-bg-neutral-1, #f5f5f5)',
        borderRadius: 2,
      }}
    >
      {'segments' in lane
        ? [
            ...lane.segments.map((s, i) => (
              <rect
                key={i}
                id={`${idPrefix}-${i}`}
                role="option"
                aria-selected={i === activeIndex}
                aria-label={describeTransition(
                  s.transition,
                  s.end,
                  lane.deletedAt,
                )}
                data-outcome={outcomeOf(s.transition)}
                x={drawn[i].x * 1000}
                width={drawn[i].width * 1000}
                y={i === activeIndex ? 0 : 2}
                height={i === activeIndex ? LANE_HEIGHT : LANE_HEIGHT - 4}
                fill={statusColor(s.transition)}
                opacity={i === activeIndex ? 1 : 0.8}
              />
            )),
            // Short segments again, on top of the neighbours they were widened over (the options above keep the
            // lane's order for screen readers).
            ...drawn
              .filter(d => d.widened)
              .map(d => (
                <rect
                  key={`widened-${d.index}`}
                  aria-hidden
                  data-widened
                  x={d.x * 1000}
                  width={d.width * 1000}
                  y={0}
                  height={LANE_HEIGHT}
                  fill={statusColor(lane.segments[d.index].transition)}
                />
              )),
            ...(lane.deletedAt !== undefined
              ? [
                  <rect
                    key="deleted"
                    aria-hidden
                    data-deleted
                    x={Math.min(x(lane.deletedAt), 998)}
                    width={2}
                    y={0}
                    height={LANE_HEIGHT}
                    fill="var(--bui-fg-primary, #222)"
                  />,
                ]
              : []),
          ]
        : lane.events.map((e, i) => (
            <rect
              key={i}
              id={`${idPrefix}-${i}`}
              role="option"
              aria-selected={i === activeIndex}
              aria-label={describeEvent(e)}
              x={x(Date.parse(e.lastTimestamp)) - 1}
              width={i === activeIndex ? 4 : 2}
              y={0}
              height={LANE_HEIGHT}
              fill={
                e.type === 'Warning'
                  ? 'var(--bui-fg-warning, #ed6c02)'
                  : 'var(--bui-fg-announcement, #1565c0)'
              }
            />
          ))}
    </svg>
  );
});

/** A tick label centred on its time, except near the track's ends, where it is aligned inside the track. */
function tickShift(fraction: number, trackPx: number, room: number): string {
  const px = fraction * trackPx;
  if (px < room / 2) return `translateX(-${px}px)`;
  if (trackPx - px < room / 2)
    return `translateX(calc(-100% + ${trackPx - px}px))`;
  return 'translateX(-50%)';
}

interface LaneHandlers {
  onPointerMove: (i: number, e: PointerEvent<HTMLDivElement>) => void;
  onPointerLeave: () => void;
  onKeyDown: (i: number, e: KeyboardEvent<HTMLDivElement>) => void;
  onFocus: (i: number) => void;
}

/** A lane's label and track; memoised, its props are primitives, the lane and stable handlers. */
const LaneRow = memo(function LaneRowView(props: {
  index: number;
  lane: Lane | EventLane;
  label: string;
  summary: string;
  tabbable: boolean;
  idPrefix: string;
  from: number;
  to: number;
  activeIndex: number;
  trackPx: number;
  trackRef: (key: string, el: HTMLDivElement | null) => void;
  handlers: LaneHandlers;
}) {
  const { index, lane, handlers, activeIndex, idPrefix } = props;
  return (
    <>
      <div
        style={{
          // Wrapped, not cut: kinds and names are long (ManagedClustersAgentPool platform-staging-…).
          overflowWrap: 'anywhere',
          lineHeight: `${LANE_HEIGHT - 2}px`,
          minHeight: LANE_HEIGHT,
        }}
        title={props.label}
        aria-hidden
      >
        {props.label}
      </div>
      <div
        ref={el => props.trackRef(lane.key, el)}
        role="listbox"
        aria-orientation="horizontal"
        aria-roledescription="timeline lane"
        aria-label={props.summary}
        aria-activedescendant={
          activeIndex >= 0 ? `${idPrefix}-${activeIndex}` : undefined
        }
        tabIndex={props.tabbable ? 0 : -1}
        onPointerMove={e => handlers.onPointerMove(index, e)}
        onPointerLeave={handlers.onPointerLeave}
        onKeyDown={e => handlers.onKeyDown(index, e)}
        onFocus={() => handlers.onFocus(index)}
        data-lane={lane.key}
        style={{ outlineOffset: 1 }}
      >
        <LaneTrack
          lane={lane}
          idPrefix={idPrefix}
          from={props.from}
          to={props.to}
          activeIndex={activeIndex}
          trackPx={props.trackPx}
        />
      </div>
    </>
  );
});

/**
 * A state timeline: one lane per object and condition type, coloured by status over time, with the objects'
 * Events as marks. Hover shows the transition or Event under the pointer. Keyboard: Tab reaches the lanes (one tab
 * stop), Up/Down move between lanes, Left/Right (Home/End) step through a lane's transitions or Events. Each lane
 * is a horizontal ARIA listbox whose options are its transitions (or Events), named in full, with the active one as
 * aria-activedescendant: screen readers announce it, and it is shown as on hover.
 */
export function ConditionTimeline(props: {
  model: TimelineModel;
  label: string;
}) {
  const { model } = props;
  const rows = useMemo(() => {
    // Each object's condition lanes, then its Events lane.
    const out: Array<Lane | EventLane> = [];
    const eventsBy = new Map(model.eventLanes.map(l => [l.objectUid, l]));
    const seen = new Set<string>();
    model.lanes.forEach((l, i) => {
      out.push(l);
      const next = model.lanes[i + 1];
      if (!next || next.objectUid !== l.objectUid) {
        const ev = eventsBy.get(l.objectUid);
        if (ev) out.push(ev);
        seen.add(l.objectUid);
      }
    });
    for (const ev of model.eventLanes)
      if (!seen.has(ev.objectUid)) out.push(ev);
    return out;
  }, [model]);

  const [active, setActive] = useState<Active | undefined>();
  const [focusLane, setFocusLane] = useState(0);
  const trackRefs = useRef(new Map<string, HTMLDivElement>());
  const idBase = useId().replace(/:/g, '');
  const span = Math.max(1, model.to - model.from);
  // The tracks' width in pixels, for the minimum segment width and the number of axis labels that fit.
  const axisRef = useRef<HTMLDivElement>(null);
  const [trackPx, setTrackPx] = useState(DEFAULT_TRACK_PX);
  useLayoutEffect(() => {
    const el = axisRef.current;
    if (!el) return undefined;
    const measure = (w: number) => {
      if (w > 0) setTrackPx(w);
    };
    measure(el.getBoundingClientRect().width);
    if (typeof ResizeObserver === 'undefined') return undefined;
    const observer = new ResizeObserver(entries =>
      measure(entries[0]?.contentRect.width ?? 0),
    );
    observer.observe(el);
    return () => observer.disconnect();
  }, []);
  const ticks = axisTicks(model.from, model.to, trackPx);
  const tickRoom = trackPx / Math.max(1, ticks.length);

  const itemCount = (l: Lane | EventLane) =>
    'segments' in l ? l.segments.length : l.events.length;
  const xOf = (l: Lane | EventLane, i: number) =>
    'segments' in l
      ? (Math.max(l.segments[i].start, model.from) - model.from) / span
      : (Date.parse(l.events[i].lastTimestamp) - model.from) / span;

  const onPointerMove = (
    l: Lane | EventLane,
    e: PointerEvent<HTMLDivElement>,
  ) => {
    const rect = e.currentTarget.getBoundingClientRect();
    const frac = rect.width > 0 ? (e.clientX - rect.left) / rect.width : 0;
    const time = model.from + frac * span;
    if ('segments' in l) {
      const i = segmentAt(l, time);
      setActive(
        i >= 0
          ? { lane: l.key, kind: 'segment', index: i, x: frac }
          : undefined,
      );
    } else {
      // The nearest Event within 1% of the width.
      let best = -1;
      let dist = 0.01 * span;
      l.events.forEach((ev, i) => {
        const d = Math.abs(Date.parse(ev.lastTimestamp) - time);
        if (d <= dist) {
          dist = d;
          best = i;
        }
      });
      setActive(
        best >= 0
          ? { lane: l.key, kind: 'event', index: best, x: frac }
          : undefined,
      );
    }
  };

  const focusRow = (i: number) => {
    const l = rows[i];
    if (!l) return;
    setFocusLane(i);
    trackRefs.current.get(l.key)?.focus();
    const n = itemCount(l);
    if (n)
      setActive({
        lane: l.key,
        kind: 'segments' in l ? 'segment' : 'event',
        index: n - 1,
        x: xOf(l, n - 1),
      });
  };

  const onKeyDown = (i: number, e: KeyboardEvent<HTMLDivElement>) => {
    const l = rows[i];
    const n = itemCount(l);
    const cur = active && active.lane === l.key ? active.index : n - 1;
    const select = (j: number) => {
      const k = Math.max(0, Math.min(n - 1, j));
      if (n)
        setActive({
          lane: l.key,
          kind: 'segments' in l ? 'segment' : 'event',
          index: k,
          x: xOf(l, k),
        });
    };
    switch (e.key) {
      case 'ArrowUp':
        focusRow(Math.max(0, i - 1));
        break;
      case 'ArrowDown':
        focusRow(Math.min(rows.length - 1, i + 1));
        break;
      case 'ArrowLeft':
        select(cur - 1);
        break;
      case 'ArrowRight':
        select(cur + 1);
        break;
      case 'Home':
        select(0);
        break;
      case 'End':
        select(n - 1);
        break;
      case 'Escape':
        setActive(undefined);
        break;
      default:
        return;
    }
    e.preventDefault();
  };

  // Stable handlers for the memoised lanes (hovering one lane re-renders that lane and the tooltip only); they call
  // the latest closures above.
  const rowsRef = useRef(rows);
  rowsRef.current = rows;
  const handlers = useRef({ onPointerMove, onKeyDown, setFocusLane });
  handlers.current = { onPointerMove, onKeyDown, setFocusLane };
  const laneHandlers = useMemo(
    () => ({
      onPointerMove: (i: number, e: PointerEvent<HTMLDivElement>) =>
        handlers.current.onPointerMove(rowsRef.current[i], e),
      onPointerLeave: () => setActive(undefined),
      onKeyDown: (i: number, e: KeyboardEvent<HTMLDivElement>) =>
        handlers.current.onKeyDown(i, e),
      onFocus: (i: number) => handlers.current.setFocusLane(i),
    }),
    [],
  );
  const trackRef = useCallback((key: string, el: HTMLDivElement | null) => {
    if (el) trackRefs.current.set(key, el);
    else trackRefs.current.delete(key);
  }, []);

  const activeLane = active ? rows.find(r => r.key === active.lane) : undefined;
  const activeTrack = activeLane
    ? trackRefs.current.get(activeLane.key)
    : undefined;
  let activeText: string | undefined;
  if (active && activeLane) {
    if ('segments' in activeLane) {
      const s = activeLane.segments[active.index];
      if (s)
        activeText = describeTransition(
          s.transition,
          s.end,
          activeLane.deletedAt,
        );
    } else {
      const ev = activeLane.events[active.index];
      if (ev) activeText = describeEvent(ev);
    }
  }

  const laneLabel = (l: Lane | EventLane) =>
    'segments' in l
      ? `${l.kind} ${l.name} · ${l.conditionType}`
      : `${l.kind} ${l.name} · Events`;
  const laneSummary = (l: Lane | EventLane) => {
    if ('segments' in l) {
      const last = l.segments[l.segments.length - 1]?.transition;
      return `${laneLabel(l)}: ${l.segments.length} transitions${
        last
          ? `, last ${last.status}${last.reason ? ` (${last.reason})` : ''}`
          : ''
      }${
        l.deletedAt !== undefined
          ? `, deleted ${absoluteTime(l.deletedAt)}`
          : ''
      }`;
    }
    return `${laneLabel(l)}: ${l.events.length} events`;
  };

  return (
    <div
      role="group"
      aria-label={props.label}
      style={{ position: 'relative', fontSize: 'var(--bui-font-size-2, 12px)' }}
    >
      <div
        style={{
          display: 'grid',
          // The labels take at most a third of a narrow panel; the tracks the rest.
          gridTemplateColumns: `minmax(0, min(${LABEL_WIDTH}px, 35%)) minmax(0, 1fr)`,
          columnGap: 8,
          rowGap: 3,
          alignItems: 'start',
        }}
      >
        <div />
        <div
          ref={axisRef}
          data-testid="timeline-axis"
          style={{
            position: 'relative',
            height: 16,
            color: 'var(--bui-fg-secondary)',
          }}
          aria-hidden
        >
          {ticks.map(({ time, label }) => {
            const fraction = (time - model.from) / span;
            return (
              <span
                key={time}
                style={{
                  position: 'absolute',
                  left: `${fraction * 100}%`,
                  transform: tickShift(fraction, trackPx, tickRoom),
                  whiteSpace: 'nowrap',
                }}
              >
                {label}
              </span>
            );
          })}
        </div>
        {rows.map((l, i) => (
          <LaneRow
            key={l.key}
            index={i}
            lane={l}
            label={laneLabel(l)}
            summary={laneSummary(l)}
            tabbable={i === focusLane}
            idPrefix={`${idBase}-${i}`}
            from={model.from}
            to={model.to}
            activeIndex={active?.lane === l.key ? active.index : -1}
            trackPx={trackPx}
            trackRef={trackRef}
            handlers={laneHandlers}
          />
        ))}
      </div>
      {activeText && activeLane && (
        <div
          role="tooltip"
          style={{
            position: 'absolute',
            zIndex: 10,
            // Under the active lane (labels may wrap, so rows differ in height), at the pointer's place.
            left:
              (activeTrack?.offsetLeft ?? 0) +
              (activeTrack?.offsetWidth ?? trackPx) * Math.min(0.7, active!.x),
            top: (activeTrack?.offsetTop ?? 0) + LANE_HEIGHT + 4,
            maxWidth: 420,
            padding: '6px 8px',
            borderRadius: 4,
            background: 'var(--bui-bg-neutral-4, #333)',
            color: 'var(--bui-fg-primary, #fff)',
            boxShadow: '0 2px 8px rgba(0,0,0,0.25)',
            pointerEvents: 'none',
            whiteSpace: 'pre-wrap',
          }}
        >
          {activeText}
        </div>
      )}
    </div>
  );
}
