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
  useMemo,
  useRef,
  useState,
} from 'react';
import { absoluteTime } from '../shared/time';
import { EventLane, Lane, segmentAt, TimelineModel } from './timelineModel';

const LANE_HEIGHT = 18;
const LABEL_WIDTH = 280;

/** Colour of a segment: True green; False by severity (Error red, Warning amber, Info blue); Unknown grey. */
export function statusColor(t: ConditionTransition): string {
  if (t.status === 'True') return 'var(--bui-fg-positive, #2e7d32)';
  if (t.status === 'Unknown') return 'var(--bui-fg-secondary, #757575)';
  if (t.severity === 'Info') return 'var(--bui-fg-announcement, #1565c0)';
  if (t.severity === 'Warning') return 'var(--bui-fg-warning, #ed6c02)';
  return 'var(--bui-fg-negative, #c62828)';
}

export function describeTransition(
  t: ConditionTransition,
  end?: number,
): string {
  const parts = [`${t.kind} ${t.name} ${t.conditionType} ${t.status}`];
  if (t.reason) parts.push(`reason ${t.reason}`);
  if (t.severity) parts.push(`severity ${t.severity}`);
  parts.push(
    `from ${absoluteTime(t.transitionTime)}${
      end !== undefined ? ` to ${absoluteTime(end)}` : ''
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
}) {
  const { lane, from, to, activeIndex, idPrefix } = props;
  const span = Math.max(1, to - from);
  const x = (t: number) =>
    ((Math.min(Math.max(t, from), to) - from) / span) * 1000;
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
        ? lane.segments.map((s, i) => (
            <rect
              key={i}
              id={`${idPrefix}-${i}`}
              role="option"
              aria-selected={i === activeIndex}
              aria-label={describeTransition(s.transition, s.end)}
              x={x(s.start)}
              width={Math.max(0.5, x(s.end) - x(s.start))}
              y={i === activeIndex ? 0 : 2}
              height={i === activeIndex ? LANE_HEIGHT : LANE_HEIGHT - 4}
              fill={statusColor(s.transition)}
              opacity={i === activeIndex ? 1 : 0.8}
            />
          ))
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

function tickShift(i: number, n: number): string | undefined {
  if (i === 0) return undefined;
  return i === n - 1 ? 'translateX(-100%)' : 'translateX(-50%)';
}

function ticks(from: number, to: number, count = 6): number[] {
  const step = (to - from) / count;
  return Array.from({ length: count + 1 }, (_, i) => from + i * step);
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
  trackRef: (key: string, el: HTMLDivElement | null) => void;
  handlers: LaneHandlers;
}) {
  const { index, lane, handlers, activeIndex, idPrefix } = props;
  return (
    <>
      <div
        style={{
          overflow: 'hidden',
          textOverflow: 'ellipsis',
          whiteSpace: 'nowrap',
          lineHeight: `${LANE_HEIGHT}px`,
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
  let activeText: string | undefined;
  if (active && activeLane) {
    if ('segments' in activeLane) {
      const s = activeLane.segments[active.index];
      if (s) activeText = describeTransition(s.transition, s.end);
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
          gridTemplateColumns: `${LABEL_WIDTH}px 1fr`,
          columnGap: 8,
          rowGap: 3,
        }}
      >
        <div />
        <div
          style={{
            position: 'relative',
            height: 16,
            color: 'var(--bui-fg-secondary)',
          }}
          aria-hidden
        >
          {ticks(model.from, model.to).map((t, i, all) => (
            <span
              key={t}
              style={{
                position: 'absolute',
                left: `${(i / (all.length - 1)) * 100}%`,
                transform: tickShift(i, all.length),
                whiteSpace: 'nowrap',
              }}
            >
              {absoluteTime(t).replace(/^\w+ \d+, \d+, /, '')}
            </span>
          ))}
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
            left: `calc(${LABEL_WIDTH + 8}px + (100% - ${
              LABEL_WIDTH + 8
            }px) * ${Math.min(0.7, active!.x)})`,
            top: 16 + (rows.indexOf(activeLane) + 1) * (LANE_HEIGHT + 3) + 4,
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
