/**
 * Render-time measurement (prints numbers, asserts only that everything rendered): the resource tree of a cluster
 * with 50 MachinePools, ungrouped (each with its AzureASOManagedMachinePool and agent pool: 153 rows), and a
 * condition timeline of 1,000 transitions. jsdom has no layout or paint, so these are React + DOM costs only; the
 * e2e run measures the same in Chromium with performance marks (e2e/tests/render-time.spec.ts).
 */
import { act, render } from '@testing-library/react';
import { ResourceTree } from '../components/ClusterPage/ResourceTree';
import { initiallyExpanded } from '../components/ClusterPage/treeModel';
import { ConditionTimeline } from '../components/Timeline/ConditionTimeline';
import { buildTimeline } from '../components/Timeline/timelineModel';
import { bigTimeline, bigTree } from '../__testUtils__/fixtures';

function measure(label: string, runs: number, fn: () => void): void {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    fn();
    times.push(performance.now() - t0);
  }
  const sorted = [...times].sort((a, b) => a - b);
  process.stdout.write(
    `[render-time] ${label}: first ${times[0].toFixed(1)} ms, median ${sorted[
      Math.floor(runs / 2)
    ].toFixed(1)} ms over ${runs} runs (jsdom)\n`,
  );
}

// Ten renders of a 153-row tree took 22 s under load (scripts/test-under-load.sh): these two tests get a
// hang detector of their own, 3x past that and more, instead of the repo's 60 s.
const RENDER_TIMEOUT_MS = 180_000;

describe('render time', () => {
  it(
    'renders the tree of a cluster with 50 pools',
    () => {
      const tree = bigTree(50);
      let rows = 0;
      measure('tree, 50 pools, 153 rows', 5, () => {
        const { unmount, container } = render(
          <ResourceTree
            tree={tree}
            label="big"
            onSelect={() => {}}
            expanded={initiallyExpanded(tree)}
            onExpandedChange={() => {}}
          />,
        );
        rows = container.querySelectorAll('[role="row"]').length;
        unmount();
      });
      expect(rows).toBe(1 + 1 + 50 * 3);

      // Selecting a row re-renders the tree.
      const { rerender } = render(
        <ResourceTree
          tree={tree}
          label="big"
          onSelect={() => {}}
          expanded={initiallyExpanded(tree)}
          onExpandedChange={() => {}}
        />,
      );
      measure('tree, 50 pools, change selection', 5, () => {
        act(() =>
          rerender(
            <ResourceTree
              tree={tree}
              label="big"
              selected={`uid-mp-${Math.floor(Math.random() * 50)}`}
              onSelect={() => {}}
              expanded={initiallyExpanded(tree)}
              onExpandedChange={() => {}}
            />,
          ),
        );
      });
    },
    RENDER_TIMEOUT_MS,
  );

  it(
    'renders a timeline of 1,000 transitions',
    () => {
      const to = Date.parse('2026-11-21T12:00:00Z');
      const from = to - 24 * 3_600_000;
      const res = bigTimeline(1000, from, to);
      let lanes = 0;
      measure('timeline, build model of 1,000 transitions', 5, () => {
        buildTimeline(res.transitions, res.events, from, to);
      });
      measure('timeline, 1,000 transitions, 60 lanes', 5, () => {
        const { unmount, container } = render(
          <ConditionTimeline
            model={buildTimeline(res.transitions, res.events, from, to)}
            label="big"
          />,
        );
        lanes = container.querySelectorAll(
          '[aria-roledescription="timeline lane"]',
        ).length;
        // One option per transition (short ones are drawn again, widened, as decoration).
        expect(container.querySelectorAll('rect[role="option"]')).toHaveLength(
          1000,
        );
        unmount();
      });
      expect(lanes).toBe(60);
    },
    RENDER_TIMEOUT_MS,
  );
});
