import { expect, test } from '@playwright/test';
import { expectAxeClean, saveScreenshot, signInAsGuest } from './helpers';

/**
 * "Plan an upgrade of these" on the clusters page, against the running backend: the shown clusters (the page's
 * filters) previewed as a fleet upgrade, one stage per namespace, each cluster's plan or why it is left out. A preview:
 * the other specs change these clusters, so the outcomes are checked for what they must say, not for given versions.
 */
test('plan an upgrade of the shown clusters: every cluster planned or left out with why, nothing changed', async ({
  page,
}) => {
  // A hang detector above the waits below.
  test.setTimeout(120_000);
  await signInAsGuest(page);
  await page.goto('/capz?q=platform');
  const region = page.getByRole('region', { name: 'Clusters' });
  // The list, filtered ("n of m clusters"), with the demo's staging cluster in it.
  await expect(
    region.getByRole('link', { name: 'platform-staging', exact: true }),
  ).toBeVisible();
  await expect(page.getByText(/^\d+ of \d+ clusters$/)).toBeVisible();
  const shown = (await region.getByRole('link').allInnerTexts()).map(t =>
    t.trim(),
  );
  expect(shown.length).toBeGreaterThan(0);
  await page.getByRole('button', { name: 'Plan an upgrade of these' }).click();
  const dialog = page.getByRole('dialog', {
    name: `Plan an upgrade of ${shown.length} cluster${
      shown.length === 1 ? '' : 's'
    }`,
  });
  await expect(dialog).toBeVisible();
  // A react-aria radio: its label is what a person clicks (the input itself is visually hidden).
  await dialog.getByText('One per namespace', { exact: true }).click();
  await expect(
    dialog.getByRole('radio', { name: 'One per namespace' }),
  ).toBeChecked();
  await dialog.getByRole('button', { name: 'Preview' }).click();
  const counts = dialog.getByRole('status');
  await expect(counts).toHaveText(
    /^\d+ would upgrade, \d+ already there, \d+ left out$/,
  );
  const [upgrade, current, refused] = (await counts.innerText())
    .match(/\d+/g)!
    .map(Number);
  expect(upgrade + current + refused).toBe(shown.length);
  // Every shown cluster, once, with what it would do or why not.
  const items = (await dialog.getByRole('listitem').allInnerTexts()).map(t =>
    t.trim(),
  );
  expect(items.map(t => t.split(' ')[0].split('/')[1]).sort()).toEqual(
    [...shown].sort(),
  );
  // A step Flux applies goes through a pull request, which its words say.
  for (const item of items)
    expect(item).toMatch(
      /^[a-z0-9-]+\/[a-z0-9-]+ \((upgrades\): (control plane v\S+ → v\S+|pools .+ → v\S+)( through a pull request \(.+?\))?(, then pools .+ → v\S+( through a pull request \(.+\))?)?|already there\): runs v\S+ already, pools included|left out\): .+)$/,
    );
  await expectAxeClean(page);
  await saveScreenshot(page, 'fleet-plan');
});
