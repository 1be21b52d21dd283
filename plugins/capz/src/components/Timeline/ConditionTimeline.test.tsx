import {
  act,
  fireEvent,
  render,
  screen,
  waitFor,
  within,
} from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useState } from 'react';
import { http, HttpResponse } from 'msw';
import { BASE, event, transition } from '../../__testUtils__/fixtures';
import { renderCapz, setupCapzServer } from '../../__testUtils__/harness';
import {
  ConditionTimeline,
  statusColor,
  statusTextColor,
} from './ConditionTimeline';
import { TimelinePanel } from './TimelinePanel';
import { buildTimeline } from './timelineModel';

const server = setupCapzServer();
const FROM = Date.parse('2026-11-21T08:00:00Z');
const TO = Date.parse('2026-11-21T12:00:00Z');
const TRANSITIONS = [
  transition({
    transitionTime: '2026-11-21T09:00:00Z',
    status: 'True',
    reason: 'Succeeded',
  }),
  transition({
    transitionTime: '2026-11-21T10:00:00Z',
    status: 'False',
    reason: 'ReconciliationBlocked',
    severity: 'Warning',
    message: 'busy updating',
  }),
  transition({
    objectUid: 'uid-rg',
    kind: 'ResourceGroup',
    name: 'rg',
    transitionTime: '2026-11-21T09:30:00Z',
  }),
];
const model = () =>
  buildTimeline(
    TRANSITIONS,
    [event({ lastTimestamp: '2026-11-21T10:00:05Z', reason: 'Blocked' })],
    FROM,
    TO,
  );

describe('ConditionTimeline', () => {
  it('names each lane with its object, condition and latest status', () => {
    render(<ConditionTimeline model={model()} label="Condition timeline" />);
    const timeline = screen.getByRole('group', { name: 'Condition timeline' });
    expect(
      within(timeline).getByRole('listbox', {
        name: 'ManagedCluster search-prod · Ready: 2 transitions, last False (ReconciliationBlocked)',
      }),
    ).toBeInTheDocument();
    expect(
      within(timeline).getByRole('listbox', {
        name: 'ManagedCluster search-prod · Events: 1 events',
      }),
    ).toBeInTheDocument();
    expect(
      within(timeline).getByRole('listbox', {
        name: 'ResourceGroup rg · Ready: 1 transitions, last True (Succeeded)',
      }),
    ).toBeInTheDocument();
  });

  it('steps through transitions and lanes with the keyboard and announces each', async () => {
    render(<ConditionTimeline model={model()} label="Condition timeline" />);
    await userEvent.tab();
    const ready = screen.getByRole('listbox', {
      name: /ManagedCluster search-prod · Ready/,
    });
    expect(ready).toHaveFocus();
    await userEvent.keyboard('{End}');
    expect(screen.getByRole('tooltip')).toHaveTextContent(
      /Ready False, reason ReconciliationBlocked, severity Warning.*busy updating/,
    );
    await userEvent.keyboard('{ArrowLeft}');
    expect(screen.getByRole('tooltip')).toHaveTextContent(
      /Ready True, reason Succeeded/,
    );
    expect(
      within(ready).getByRole('option', { selected: true }),
    ).toHaveAccessibleName(/Ready True, reason Succeeded/);
    expect(ready.getAttribute('aria-activedescendant')).toBe(
      within(ready).getByRole('option', { selected: true }).id,
    );
    await userEvent.keyboard('{ArrowDown}');
    const events = screen.getByRole('listbox', { name: /Events/ });
    expect(events).toHaveFocus();
    expect(screen.getByRole('tooltip')).toHaveTextContent(
      /Warning event Blocked on ManagedCluster search-prod/,
    );
    await userEvent.keyboard('{Escape}');
    expect(screen.queryByRole('tooltip')).not.toBeInTheDocument();
    // Only one lane is a tab stop.
    expect(
      screen
        .getAllByRole('listbox')
        .filter(g => g.getAttribute('tabindex') === '0'),
    ).toHaveLength(1);
  });

  it('shows the transition under the pointer', () => {
    render(<ConditionTimeline model={model()} label="Condition timeline" />);
    const ready = screen.getByRole('listbox', {
      name: /ManagedCluster search-prod · Ready/,
    });
    jest.spyOn(ready, 'getBoundingClientRect').mockReturnValue({
      left: 0,
      width: 400,
      top: 0,
      height: 18,
      right: 400,
      bottom: 18,
      x: 0,
      y: 0,
      toJSON: () => ({}),
    });
    // 11:00 is 3/4 of the way from 08:00 to 12:00.
    fireEvent.pointerMove(ready, { clientX: 300 });
    expect(screen.getByRole('tooltip')).toHaveTextContent(
      /Ready False, reason ReconciliationBlocked/,
    );
    fireEvent.pointerMove(ready, { clientX: 10 });
    expect(screen.queryByRole('tooltip')).not.toBeInTheDocument();
    fireEvent.pointerMove(ready, { clientX: 120 });
    expect(screen.getByRole('tooltip')).toHaveTextContent(/Ready True/);
    fireEvent.pointerLeave(ready);
    expect(screen.queryByRole('tooltip')).not.toBeInTheDocument();
  });
});

describe('ConditionTimeline as a first-time user meets it', () => {
  const GREEN = 'var(--bui-fg-positive, #2e7d32)';
  const RED = 'var(--bui-fg-negative, #c62828)';

  it("colours CAPI's negative conditions green when False, by severity when True", () => {
    const m = buildTimeline(
      [
        transition({
          conditionType: 'ScalingUp',
          status: 'False',
          reason: 'NotScalingUp',
          transitionTime: '2026-11-21T09:00:00Z',
        }),
        transition({
          conditionType: 'Deleting',
          status: 'False',
          reason: 'NotDeleting',
          transitionTime: '2026-11-21T09:00:00Z',
        }),
        transition({
          conditionType: 'Deleting',
          status: 'True',
          reason: 'Deleting',
          transitionTime: '2026-11-21T11:00:00Z',
        }),
      ],
      [],
      FROM,
      TO,
    );
    render(<ConditionTimeline model={m} label="Condition timeline" />);
    const fill = (lane: RegExp, option: RegExp) =>
      within(screen.getByRole('listbox', { name: lane }))
        .getByRole('option', { name: option })
        .getAttribute('fill');
    expect(fill(/ScalingUp/, /ScalingUp False/)).toBe(GREEN);
    expect(fill(/Deleting/, /Deleting False/)).toBe(GREEN);
    expect(fill(/Deleting/, /Deleting True/)).toBe(RED);
  });

  it('draws a two-second dip at least a few pixels wide on the last hour', () => {
    const from = Date.parse('2026-11-21T11:00:00Z');
    const m = buildTimeline(
      [
        transition({ transitionTime: '2026-11-21T11:00:00Z' }),
        transition({ transitionTime: '2026-11-21T11:30:00Z', status: 'False' }),
        transition({ transitionTime: '2026-11-21T11:30:02Z' }),
      ],
      [],
      from,
      TO,
    );
    const { container } = render(
      <ConditionTimeline model={m} label="Condition timeline" />,
    );
    // The track is assumed 600 px wide (1000 viewBox units) until measured: 3 px are 5 units.
    const widened = container.querySelector('rect[data-widened]');
    expect(widened).not.toBeNull();
    expect(Number(widened!.getAttribute('width'))).toBeGreaterThanOrEqual(5);
    expect(widened!.getAttribute('fill')).toBe(RED);
  });

  it("ends a deleted object's lane when it went and says so", async () => {
    const m = buildTimeline(
      [
        transition({
          objectUid: 'uid-pool',
          kind: 'ManagedClustersAgentPool',
          name: 'platform-staging-pool0',
          transitionTime: '2026-11-21T09:00:00Z',
        }),
      ],
      [],
      FROM,
      TO,
      {
        deletions: [
          {
            objectUid: 'uid-pool',
            kind: 'ManagedClustersAgentPool',
            name: 'platform-staging-pool0',
            deletedAt: '2026-11-21T10:00:00Z',
          },
        ],
      },
    );
    const { container } = render(
      <ConditionTimeline model={m} label="Condition timeline" />,
    );
    const lane = screen.getByRole('listbox', {
      name: /ManagedClustersAgentPool platform-staging-pool0 · Ready: 1 transitions, last True \(Succeeded\), deleted/,
    });
    const [option] = within(lane).getAllByRole('option');
    expect(option).toHaveAccessibleName(/to .*, when it was deleted/);
    // Half of the 08:00-12:00 range, not up to now.
    expect(Number(option.getAttribute('width'))).toBeCloseTo(250);
    expect(container.querySelector('rect[data-deleted]')).not.toBeNull();
  });

  it('shows long labels whole, and only as many axis labels as fit a narrow panel', () => {
    const observed: Array<() => void> = [];
    const original = globalThis.ResizeObserver;
    globalThis.ResizeObserver = class {
      constructor(private readonly cb: ResizeObserverCallback) {}
      observe() {
        observed.push(() =>
          this.cb(
            [{ contentRect: { width: 200 } } as ResizeObserverEntry],
            this as unknown as ResizeObserver,
          ),
        );
      }
      unobserve() {}
      disconnect() {}
    } as unknown as typeof ResizeObserver;
    try {
      const m = buildTimeline(
        [
          transition({
            kind: 'ManagedClustersAgentPool',
            name: 'platform-staging-pool0',
            transitionTime: '2026-11-21T11:10:00Z',
          }),
        ],
        [],
        Date.parse('2026-11-21T11:00:00Z'),
        TO,
      );
      render(<ConditionTimeline model={m} label="Condition timeline" />);
      act(() => observed.forEach(f => f()));
      const label = screen.getByText(
        'ManagedClustersAgentPool platform-staging-pool0 · Ready',
      );
      expect(label).not.toHaveStyle({ textOverflow: 'ellipsis' });
      expect(label).not.toHaveStyle({ whiteSpace: 'nowrap' });
      const ticks = screen.getByTestId('timeline-axis').children;
      // 200 px hold four 48 px labels: not the seven of a wide page.
      expect(ticks.length).toBeGreaterThan(0);
      expect(ticks.length).toBeLessThanOrEqual(4);
    } finally {
      globalThis.ResizeObserver = original;
    }
  });
});

describe('TimelinePanel', () => {
  const cluster = {
    managementCluster: 'local',
    namespace: 'team-search',
    name: 'search-prod',
  };
  const NOW = Date.parse('2026-11-21T12:00:00Z');

  function serve(body: object = {}) {
    const queries: URLSearchParams[] = [];
    server.use(
      http.get(
        `${BASE}/clusters/local/team-search/search-prod/timeline`,
        ({ request }) => {
          const q = new URL(request.url).searchParams;
          queries.push(q);
          return HttpResponse.json({
            from: q.get('from'),
            to: q.get('to'),
            initial: [],
            transitions: TRANSITIONS,
            deletions: [],
            events: [],
            truncated: false,
            ...body,
          });
        },
      ),
    );
    return queries;
  }

  it('asks for the picked range, moves earlier and back to now', async () => {
    const queries = serve();
    renderCapz(<TimelinePanel cluster={cluster} now={() => NOW} />);
    await screen.findByRole('group', { name: 'Condition timeline' });
    expect(queries[0].get('to')).toBe('2026-11-21T12:00:00.000Z');
    expect(queries[0].get('from')).toBe('2026-11-21T06:00:00.000Z');
    await userEvent.click(screen.getByRole('button', { name: 'Earlier' }));
    await waitFor(() => expect(queries).toHaveLength(2));
    expect(queries[1].get('to')).toBe('2026-11-21T06:00:00.000Z');
    await userEvent.click(screen.getByRole('button', { name: 'Back to now' }));
    await waitFor(() => expect(queries).toHaveLength(3));
    expect(queries[2].get('to')).toBe('2026-11-21T12:00:00.000Z');
  });

  it('picks another range', async () => {
    const queries = serve();
    renderCapz(<TimelinePanel cluster={cluster} now={() => NOW} />);
    await screen.findByRole('group', { name: 'Condition timeline' });
    await userEvent.click(screen.getByRole('button', { name: /Time range/ }));
    await userEvent.click(
      await screen.findByRole('option', { name: 'Last 7 days' }),
    );
    await waitFor(() => expect(queries).toHaveLength(2));
    expect(queries[1].get('from')).toBe('2026-11-14T12:00:00.000Z');
  });

  it('extends live: a new refreshKey while following now fetches again', async () => {
    const queries = serve();
    let now = NOW;
    function Live() {
      const [key, setKey] = useState(0);
      return (
        <>
          <button onClick={() => setKey(k => k + 1)}>change arrives</button>
          <TimelinePanel cluster={cluster} refreshKey={key} now={() => now} />
        </>
      );
    }
    renderCapz(<Live />);
    await screen.findByRole('group', { name: 'Condition timeline' });
    now = NOW + 60_000;
    await userEvent.click(
      screen.getByRole('button', { name: 'change arrives' }),
    );
    await waitFor(() => expect(queries).toHaveLength(2));
    expect(queries[1].get('to')).toBe('2026-11-21T12:01:00.000Z');
  });

  it('says when the backend cut the history short', async () => {
    serve({ truncated: true });
    renderCapz(<TimelinePanel cluster={cluster} now={() => NOW} />);
    expect(await screen.findByText('Not everything fits')).toBeInTheDocument();
  });

  it('draws the state held across the last hour when nothing changed in it, and colours the table by polarity', async () => {
    serve({
      transitions: [
        transition({
          conditionType: 'ScalingDown',
          status: 'False',
          reason: 'NotScalingDown',
          transitionTime: '2026-11-21T11:30:00Z',
        }),
      ],
      initial: [
        transition({
          transitionTime: '2026-11-21T06:00:00Z',
          status: 'False',
          reason: 'Failed',
          severity: 'Error',
        }),
      ],
    });
    renderCapz(
      <TimelinePanel cluster={cluster} now={() => NOW} initialRange="1h" />,
    );
    const ready = await screen.findByRole('listbox', {
      name: /ManagedCluster search-prod · Ready: 1 transitions, last False \(Failed\)/,
    });
    expect(within(ready).getByRole('option')).toHaveAccessibleName(
      /Ready False, reason Failed, severity Error, from .* to /,
    );
    expect(
      screen.queryByText(/No condition changed and no Event was recorded/),
    ).not.toBeInTheDocument();
    const table = screen.getByRole('region', { name: 'Transitions' });
    expect(within(table).getByText('False')).toHaveStyle({
      color: 'var(--bui-fg-success-on-bg, #116932)',
    });
  });

  it('explains an empty range', async () => {
    serve({ transitions: [] });
    renderCapz(<TimelinePanel cluster={cluster} now={() => NOW} />);
    expect(
      await screen.findByText(/No condition changed and no Event was recorded/),
    ).toBeInTheDocument();
  });

  it('shows a bad request clearly', async () => {
    server.use(
      http.get(`${BASE}/clusters/local/team-search/search-prod/timeline`, () =>
        HttpResponse.json(
          {
            error: { name: 'InputError', message: 'from is after to' },
            response: { statusCode: 400 },
          },
          { status: 400 },
        ),
      ),
    );
    renderCapz(<TimelinePanel cluster={cluster} now={() => NOW} />);
    expect(
      await screen.findByText('Could not load the timeline'),
    ).toBeInTheDocument();
    expect(screen.getByText(/From is after to/)).toBeInTheDocument();
  });
});

describe('status colours', () => {
  it('gives text the foregrounds that keep 4.5:1 on the page, and the marks their own', () => {
    const [good, warning] = [TRANSITIONS[0], TRANSITIONS[1]];
    expect(statusTextColor(good)).toMatch(/^var\(--bui-fg-success-on-bg/);
    expect(statusTextColor(warning)).toMatch(/^var\(--bui-fg-warning-on-bg/);
    expect(statusTextColor({ ...warning, severity: undefined } as any)).toMatch(
      /^var\(--bui-fg-danger-on-bg/,
    );
    // The marks keep the brighter colours (shapes need 3:1, not text's 4.5:1).
    expect(statusColor(good)).toMatch(/^var\(--bui-fg-positive/);
  });
});
