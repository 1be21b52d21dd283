import { expect, test, type Page } from '@playwright/test';
import { expectAxeClean, saveScreenshot, signInAsGuest } from './helpers';

/**
 * The clusters page's attention view on the demo (capz-sim scenario `lifecycle`, team-upgrades): lifecycle-auto, whose
 * AKS auto-upgrade channel (stable) fights CAPZ's spec.version, needs attention now; lifecycle-eol on v1.32.6 needs it
 * soon, its AKS community support ending 2026-03-31 (capz-common lifecycle/calendar.ts). The pages judge support for
 * the browser's day, so the browser's clock is fixed at 2026-02-15, 44 days before that end: the test reads the same
 * whatever day it runs. Each reason's fix is on the cluster's page. Nothing is changed.
 */
const TODAY = new Date('2026-02-15T12:00:00Z');

const row = (page: Page, name: string) =>
  page
    .getByRole('region', { name: 'Clusters' })
    .getByRole('row')
    .filter({ has: page.getByRole('link', { name, exact: true }) });

async function openCluster(page: Page, name: string) {
  await page
    .getByRole('region', { name: 'Clusters' })
    .getByRole('link', { name, exact: true })
    .click();
  // Its page, once its resource tree is there.
  await expect(page.getByRole('treegrid')).toBeVisible();
}

test('the attention view: an auto-upgrade channel beside spec.version now, a version leaving support soon, each with its fix', async ({
  page,
}) => {
  // A hang detector above the waits below.
  test.setTimeout(120_000);
  await page.clock.setFixedTime(TODAY);
  await signInAsGuest(page);
  await page.goto('/capz?q=lifecycle-');
  await expect(row(page, 'lifecycle-auto')).toBeVisible();
  await expect(row(page, 'lifecycle-eol')).toBeVisible();
  const attention = page.getByRole('group', { name: 'Attention' });

  // Now: the auto-upgrade channel; the version still supported for 44 days is not among them.
  await attention
    .getByRole('button', { name: /^\d+ needs? attention now$/ })
    .click();
  await expect(row(page, 'lifecycle-auto')).toContainText(
    'AKS auto-upgrade beside spec.version',
  );
  await expect(row(page, 'lifecycle-eol')).toHaveCount(0);
  await expectAxeClean(page, '[aria-label="Clusters"]');
  await saveScreenshot(page, 'attention-now');
  await openCluster(page, 'lifecycle-auto');
  const autoNotes = page.getByRole('list', { name: 'Needs attention' });
  await expect(autoNotes).toContainText(
    'AKS upgrades this cluster on its own (auto-upgrade channel stable) while spec.version is v1.33.2',
  );
  await expect(autoNotes).toContainText(
    'Choose one owner of the version: set the auto-upgrade channel to none (or node-image) and upgrade through spec.version, or leave spec.version empty and let AKS upgrade it.',
  );
  await expectAxeClean(page, '[aria-label="Needs attention"]');

  // Soon: the version whose support ends in 44 days, with when and what to do.
  await page.goto('/capz?q=lifecycle-');
  await attention.getByRole('button', { name: /^\d+ soon$/ }).click();
  await expect(row(page, 'lifecycle-eol')).toContainText(
    'supported, ends in 44 days',
  );
  await expect(row(page, 'lifecycle-auto')).toHaveCount(0);
  await saveScreenshot(page, 'attention-soon');
  await openCluster(page, 'lifecycle-eol');
  const eolNotes = page.getByRole('list', { name: 'Needs attention' });
  await expect(eolNotes).toContainText(
    /Kubernetes 1\.32 is supported until .+ \(in 44 days\)\./,
  );
  await expect(eolNotes).toContainText(
    'Upgrade the control plane to 1.33, then its node pools: AKS moves a supported cluster one minor version at a time.',
  );
  await expectAxeClean(page, '[aria-label="Needs attention"]');
});
