import { expect, test } from '@playwright/test';
import { saveScreenshot, signInAsGuest, expectAxeClean } from './helpers';
import { kube } from './kube';

const MP = '/apis/cluster.x-k8s.io/v1beta2/namespaces/team-search/machinepools';

test('clusters page → failing cluster → why → timeline → live update without reload', async ({
  page,
}) => {
  await signInAsGuest(page);
  await page.goto('/capz');

  // Filter to the failing cluster.
  const clusters = page.getByRole('region', { name: 'Clusters' });
  await expect(
    clusters.getByRole('row', { name: /search-prod/ }),
  ).toBeVisible();
  await page.getByRole('searchbox', { name: 'Search' }).fill('search-prod');
  await expect(page.getByText(/^1 of \d+ clusters$/)).toBeVisible();
  await saveScreenshot(page, 'clusters-page-filtered');
  await expectAxeClean(page, [
    '[aria-label="Health at a glance"]',
    '[aria-label="Clusters"]',
  ]);

  // Open it: the failing ManagedCluster, its reason, and the hint, selected already.
  await clusters.getByRole('link', { name: 'search-prod' }).click();
  await expect(page).toHaveURL(
    /\/capz\/clusters\/[^/]+\/team-search\/search-prod$/,
  );
  const tree = page.getByRole('treegrid', {
    name: 'Resources of cluster search-prod',
  });
  const mc = tree.getByRole('row', {
    name: /^ManagedCluster search-prod, \w+, ReconciliationBlocked/,
  });
  await expect(mc).toBeVisible();
  await expect(mc).toHaveAttribute('aria-selected', 'true');
  await expect(
    page
      .getByRole('region', { name: 'Details of ManagedCluster search-prod' })
      .getByText(/Azure is busy with another operation/),
  ).toBeVisible();
  await saveScreenshot(page, 'cluster-page');
  await expectAxeClean(page, [
    '[aria-label="Resources of cluster search-prod"]',
    '[aria-label="Details of ManagedCluster search-prod"]',
  ]);

  // The cluster timeline shows the transition to ReconciliationBlocked.
  await page
    .getByRole('tablist', { name: 'Cluster views' })
    .getByRole('tab', { name: 'Timeline' })
    .click();
  const timeline = page.getByRole('group', { name: 'Condition timeline' });
  await expect(
    timeline.getByRole('listbox', {
      name: /^ManagedCluster search-prod · Ready: .*ReconciliationBlocked/,
    }),
  ).toBeVisible();
  await expect(
    page
      .getByRole('region', { name: 'Transitions' })
      .getByRole('row', {
        name: /ManagedCluster search-prod.*ReconciliationBlocked/,
      })
      .first(),
  ).toBeVisible();
  await saveScreenshot(page, 'cluster-timeline');
  await expectAxeClean(page, ['[aria-label="Condition timeline"]']);

  // A change on the management cluster reaches the page without reload: on a healthy cluster (search-prod's pools
  // cannot scale while its ManagedCluster is blocked), reached by in-app navigation, a pool is scaled and the
  // simulator carries it out; the page follows through the pushed signal.
  await page.evaluate(() => ((window as any).__capzNoReload = true));
  await page
    .getByRole('list', { name: 'Breadcrumbs' })
    .getByRole('link', { name: 'AKS clusters' })
    .click();
  await page.getByRole('searchbox', { name: 'Search' }).fill('payments-dev');
  await clusters.getByRole('link', { name: 'payments-dev' }).click();
  await expect(page).toHaveURL(
    /\/capz\/clusters\/[^/]+\/team-payments\/payments-dev$/,
  );
  await expect(page.getByText(/pools ready, 1 node\b/)).toBeVisible();
  const pool = `${MP}/payments-dev-system`.replace(
    'team-search',
    'team-payments',
  );
  await kube('PATCH', pool, { spec: { replicas: 2 } });
  try {
    await expect(page.getByText(/pools ready, 2 nodes/)).toBeVisible({
      timeout: 30_000,
    });
    expect(await page.evaluate(() => (window as any).__capzNoReload)).toBe(
      true,
    );
    await saveScreenshot(page, 'cluster-page-live');
  } finally {
    await kube('PATCH', pool, { spec: { replicas: 1 } });
  }
});
