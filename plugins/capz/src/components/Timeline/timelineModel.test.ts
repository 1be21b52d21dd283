import { event, transition } from '../../__testUtils__/fixtures';
import { buildTimeline, segmentAt } from './timelineModel';

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
