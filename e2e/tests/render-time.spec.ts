import { expect, test } from '@playwright/test';
import { signInAsGuest } from './helpers';

/**
 * Render time in Chromium of a 50-pool tree (ungrouped: Cluster, Workers and 3 rows per pool = 152 rows) and a 1,000-transition timeline. The HTTP API is
 * answered by the test (page.route) so the numbers are the page's own. Prints the numbers; asserts only that
 * everything rendered.
 */
const T0 = Date.parse('2026-11-21T00:00:00Z');
const node = (o: any) => ({
  health: 'healthy',
  conditions: [],
  facts: {},
  children: [],
  ...o,
});

function tree() {
  const workers = node({ id: 'workers', kind: 'Workers', name: 'Workers' });
  for (let i = 0; i < 50; i++) {
    const ap = node({
      id: `ap${i}`,
      uid: `ap${i}`,
      kind: 'ManagedClustersAgentPool',
      name: `pool${i}`,
    });
    const am = node({
      id: `am${i}`,
      uid: `am${i}`,
      kind: 'AzureASOManagedMachinePool',
      name: `pool${i}`,
      children: [ap],
    });
    workers.children.push(
      node({
        id: `mp${i}`,
        uid: `mp${i}`,
        kind: 'MachinePool',
        name: `pool${i}`,
        children: [am],
      }),
    );
  }
  return node({
    id: 'c',
    uid: 'c',
    kind: 'Cluster',
    name: 'big',
    children: [workers],
  });
}

function timeline(from: number, to: number) {
  const types = ['Ready', 'Available', 'Paused'];
  const transitions = Array.from({ length: 1000 }, (_, i) => ({
    objectUid: `o${i % 20}`,
    kind: 'MachinePool',
    name: `pool${i % 20}`,
    conditionType: types[Math.floor(i / 20) % 3],
    status: i % 3 ? 'True' : 'False',
    reason: i % 3 ? 'Succeeded' : 'ReconciliationBlocked',
    transitionTime: new Date(
      from + ((i + 1) / 1001) * (to - from),
    ).toISOString(),
    firstSeen: new Date(from + ((i + 1) / 1001) * (to - from)).toISOString(),
  }));
  return {
    from: new Date(from).toISOString(),
    to: new Date(to).toISOString(),
    transitions,
    events: [],
    truncated: false,
  };
}

test('render time of a 50-pool tree and a 1,000-transition timeline', async ({
  page,
}) => {
  const summary = {
    managementCluster: 'perf',
    namespace: 'team-perf',
    name: 'big',
    uid: 'c',
    api: 'aso-v1beta1',
    health: 'healthy',
  };
  await page.route('**/api/capz/clusters/perf/team-perf/big/tree*', r =>
    r.fulfill({ json: { summary, tree: tree() } }),
  );
  await page.route('**/api/capz/clusters/perf/team-perf/big/timeline*', r => {
    const u = new URL(r.request().url());
    const to = Date.parse(u.searchParams.get('to') ?? '') || T0;
    return r.fulfill({
      json: timeline(
        Date.parse(u.searchParams.get('from') ?? '') || to - 6 * 3600_000,
        to,
      ),
    });
  });
  await signInAsGuest(page);

  await page.goto('/capz');
  // The app is signed in and routed first: a navigation pushed before that is undone by the sign-in's own one.
  await expect(page.getByRole('region', { name: 'Clusters' })).toBeVisible();
  await page.evaluate(() => {
    (window as any).__t0 = performance.now();
    window.history.pushState({}, '', '/capz/clusters/perf/team-perf/big');
    window.dispatchEvent(new PopStateEvent('popstate'));
  });
  const rows = page.getByRole('treegrid').getByRole('row');
  await expect(rows).toHaveCount(152);
  const treeMs = await page.evaluate(
    () => performance.now() - (window as any).__t0,
  );

  await page.evaluate(() => ((window as any).__t1 = performance.now()));
  await page
    .getByRole('tablist', { name: 'Cluster views' })
    .getByRole('tab', { name: 'Timeline' })
    .click();
  await expect(
    page
      .getByRole('group', { name: 'Condition timeline' })
      .getByRole('listbox'),
  ).toHaveCount(60);
  const timelineMs = await page.evaluate(
    () => performance.now() - (window as any).__t1,
  );

  // Hovering a lane of the big timeline: time to show the tooltip.
  const lane = page.getByRole('listbox').first();
  await page.evaluate(() => ((window as any).__t2 = performance.now()));
  await lane.hover();
  await expect(page.getByRole('tooltip')).toBeVisible();
  const hoverMs = await page.evaluate(
    () => performance.now() - (window as any).__t2,
  );

  console.log(
    `[render-time chromium] tree 50 pools (152 rows), navigation to rendered: ${treeMs.toFixed(
      0,
    )} ms; ` +
      `timeline 1,000 transitions (60 lanes), tab click to rendered: ${timelineMs.toFixed(
        0,
      )} ms; hover to tooltip: ${hoverMs.toFixed(0)} ms`,
  );
});
