import { event, transition } from '../../__testUtils__/fixtures';
import {
  axisTicks,
  buildTimeline,
  drawnSegments,
  outcomeOf,
  segmentAt,
  tickLabelWidth,
} from './timelineModel';

const at = (iso: string) => Date.parse(iso);
const FROM = at('2026-11-21T08:00:00Z');
const TO = at('2026-11-21T12:00:00Z');

describe('buildTimeline', () => {
  it('makes one lane per object and condition, each segment lasting until the next transition', () => {
    const m = buildTimeline(
      [
        transition({ transitionTime: '2026-11-21T07:00:00Z', status: 'True' }),
        transition({
          objectUid: 'uid-rg',
          kind: 'ResourceGroup',
          transitionTime: '2026-11-21T08:30:00Z',
        }),
        transition({
          transitionTime: '2026-11-21T09:00:00Z',
          conditionType: 'Available',
          status: 'False',
        }),
        transition({
          transitionTime: '2026-11-21T10:00:00Z',
          status: 'False',
          reason: 'ReconciliationBlocked',
        }),
      ],
      [event({ lastTimestamp: '2026-11-21T10:00:01Z' })],
      FROM,
      TO,
    );
    expect(m.lanes.map(l => l.key)).toEqual([
      'uid-mc/Ready',
      'uid-mc/Available',
      'uid-rg/Ready',
    ]);
    const ready = m.lanes[0];
    // A transition before the range starts at the range's start.
    expect(
      ready.segments.map(s => [s.start, s.end, s.transition.status]),
    ).toEqual([
      [FROM, at('2026-11-21T10:00:00Z'), 'True'],
      [at('2026-11-21T10:00:00Z'), TO, 'False'],
    ]);
    expect(m.eventLanes).toHaveLength(1);
    expect(m.eventLanes[0].events).toHaveLength(1);
  });

  it('finds the segment at a time', () => {
    const m = buildTimeline(
      [
        transition({ transitionTime: '2026-11-21T09:00:00Z' }),
        transition({ transitionTime: '2026-11-21T10:00:00Z', status: 'False' }),
        transition({ transitionTime: '2026-11-21T11:00:00Z' }),
      ],
      [],
      FROM,
      TO,
    );
    const lane = m.lanes[0];
    expect(segmentAt(lane, at('2026-11-21T08:30:00Z'))).toBe(-1);
    expect(segmentAt(lane, at('2026-11-21T09:00:00Z'))).toBe(0);
    expect(segmentAt(lane, at('2026-11-21T10:30:00Z'))).toBe(1);
    expect(segmentAt(lane, at('2026-11-21T11:59:00Z'))).toBe(2);
  });
});

describe('what the lanes show', () => {
  it("colours by the condition's polarity: False of CAPI's negative conditions is their good state", () => {
    const of = (conditionType: string, status: 'True' | 'False' | 'Unknown') =>
      outcomeOf(
        transition({
          conditionType,
          status,
          transitionTime: '2026-11-21T09:00:00Z',
        }),
      );
    expect(of('Deleting', 'False')).toBe('good');
    expect(of('ScalingUp', 'False')).toBe('good');
    expect(of('Paused', 'False')).toBe('good');
    expect(of('RollingOut', 'True')).toBe('bad');
    expect(of('Ready', 'True')).toBe('good');
    expect(of('Available', 'False')).toBe('bad');
    expect(of('Deleting', 'Unknown')).toBe('unknown');
  });

  it('draws the state held since before the range across it, from the last transition before it', () => {
    // Degraded since 07:00, nothing changed inside 08:00-12:00.
    const m = buildTimeline([], [], FROM, TO, {
      initial: [
        transition({
          transitionTime: '2026-11-21T07:00:00Z',
          status: 'False',
          reason: 'Failed',
        }),
      ],
    });
    expect(m.lanes.map(l => l.key)).toEqual(['uid-mc/Ready']);
    expect(
      m.lanes[0].segments.map(s => [s.start, s.end, s.transition.reason]),
    ).toEqual([[FROM, TO, 'Failed']]);
    // A change inside the range follows the held state.
    const changed = buildTimeline(
      [transition({ transitionTime: '2026-11-21T09:00:00Z', status: 'True' })],
      [],
      FROM,
      TO,
      {
        initial: [
          transition({
            transitionTime: '2026-11-21T07:00:00Z',
            status: 'False',
          }),
        ],
      },
    );
    expect(
      changed.lanes[0].segments.map(s => [s.start, s.end, s.transition.status]),
    ).toEqual([
      [FROM, at('2026-11-21T09:00:00Z'), 'False'],
      [at('2026-11-21T09:00:00Z'), TO, 'True'],
    ]);
  });

  it('ends the lanes of an object when it was deleted', () => {
    const m = buildTimeline(
      [
        transition({
          objectUid: 'uid-pool',
          conditionType: 'Ready',
          status: 'True',
          transitionTime: '2026-11-21T09:00:00Z',
        }),
        transition({ transitionTime: '2026-11-21T09:00:00Z' }),
      ],
      [],
      FROM,
      TO,
      {
        deletions: [
          {
            objectUid: 'uid-pool',
            kind: 'ManagedClustersAgentPool',
            name: 'pool',
            deletedAt: '2026-11-21T10:30:00Z',
          },
        ],
      },
    );
    const pool = m.lanes.find(l => l.objectUid === 'uid-pool')!;
    expect(pool.deletedAt).toBe(at('2026-11-21T10:30:00Z'));
    expect(pool.segments.map(s => [s.start, s.end])).toEqual([
      [at('2026-11-21T09:00:00Z'), at('2026-11-21T10:30:00Z')],
    ]);
    expect(segmentAt(pool, at('2026-11-21T11:00:00Z'))).toBe(-1);
    // Another object's lanes run on.
    const mc = m.lanes.find(l => l.objectUid === 'uid-mc')!;
    expect(mc.deletedAt).toBeUndefined();
    expect(mc.segments[0].end).toBe(TO);
  });

  it('draws a dip of two seconds at least the minimum width on an hour, over its neighbours', () => {
    const from = at('2026-11-21T11:00:00Z');
    const m = buildTimeline(
      [
        transition({ transitionTime: '2026-11-21T11:00:00Z', status: 'True' }),
        transition({ transitionTime: '2026-11-21T11:30:00Z', status: 'False' }),
        transition({ transitionTime: '2026-11-21T11:30:02Z', status: 'True' }),
      ],
      [],
      from,
      TO,
    );
    const min = 3 / 600;
    const drawn = drawnSegments(m.lanes[0], from, TO, min);
    expect(drawn.map(d => d.widened)).toEqual([false, true, false]);
    expect(drawn[1].width).toBeCloseTo(min);
    // Centred on the dip's own time (half-way through the hour).
    expect(drawn[1].x + drawn[1].width / 2).toBeCloseTo(0.5, 3);
    expect(drawn[0].width).toBeCloseTo(0.5);
    // A short segment at an end stays inside the track.
    const edge = buildTimeline(
      [transition({ transitionTime: '2026-11-21T11:59:59Z' })],
      [],
      from,
      TO,
    );
    const [last] = drawnSegments(edge.lanes[0], from, TO, min);
    expect(last.x + last.width).toBeLessThanOrEqual(1);
    expect(last.width).toBeCloseTo(min);
  });

  it('puts only as many axis labels as fit, on round times', () => {
    for (const [span, width] of [
      [3_600_000, 240],
      [3_600_000, 900],
      [6 * 3_600_000, 300],
      [7 * 24 * 3_600_000, 400],
    ]) {
      const ticks = axisTicks(TO - span, TO, width);
      const room = tickLabelWidth(TO - span, TO);
      expect(ticks.length).toBeGreaterThan(0);
      expect(ticks.length * room).toBeLessThanOrEqual(width);
      // Neighbours are at least one label's room apart.
      for (let i = 1; i < ticks.length; i++)
        expect(
          ((ticks[i].time - ticks[i - 1].time) / span) * width,
        ).toBeGreaterThanOrEqual(room);
      for (const t of ticks) {
        expect(t.time).toBeGreaterThanOrEqual(TO - span);
        expect(t.time).toBeLessThanOrEqual(TO);
        expect(t.time % 60_000).toBe(0);
      }
    }
    expect(axisTicks(TO - 3_600_000, TO, 240).length).toBeLessThanOrEqual(5);
  });
});
