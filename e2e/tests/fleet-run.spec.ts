import { expect, test } from '@playwright/test';
import { expectAxeClean, saveScreenshot, signInAsGuest } from './helpers';
import { kube } from './kube';

/**
 * A fleet run against the running backend, on the two clusters of the capz-sim scenario `fleet` that no other test
 * uses (team-fleet-dev/fleet-dev and team-fleet-prod/fleet-prod, v1.32.6; the simulated region offers 1.33): planned
 * from the clusters page, one stage per namespace with an approval before the next, started, followed live on the run's
 * page (the backend's scheduled task advances it; the page hears its signals), approved, and finished with both
 * clusters' control planes on 1.33. Like day2-lifecycle.spec.ts, it changes the seeded world for good: once per
 * simulator.
 */
test('a fleet upgrade in two stages: the first upgraded, the approval, the second; live on the run page', async ({
  page,
}) => {
  // Two clusters, each its control plane then its pools through the simulated AKS, ticks of ten seconds between.
  test.setTimeout(300_000);
  await signInAsGuest(page);
  await page.goto('/capz?q=fleet-');
  const region = page.getByRole('region', { name: 'Clusters' });
  await expect(
    region.getByRole('link', { name: 'fleet-dev', exact: true }),
  ).toBeVisible();
  await expect(
    region.getByRole('link', { name: 'fleet-prod', exact: true }),
  ).toBeVisible();
  await expect(page.getByText(/^2 of \d+ clusters$/)).toBeVisible();
  await page.getByRole('button', { name: 'Plan an upgrade of these' }).click();
  const dialog = page.getByRole('dialog', {
    name: 'Plan an upgrade of 2 clusters',
  });
  await dialog.getByText('One per namespace', { exact: true }).click();
  await dialog.getByRole('button', { name: 'Preview' }).click();
  await expect(dialog.getByRole('status')).toHaveText(
    '2 would upgrade, 0 already there, 0 left out',
  );
  const runIt = dialog.getByRole('region', { name: 'Run it' });
  await runIt
    .getByRole('textbox', { name: 'Soak after each stage (minutes)' })
    .fill('0');
  await expect(
    runIt.getByRole('checkbox', {
      name: 'Wait for an approval before each next stage',
    }),
  ).toBeChecked();
  await expectAxeClean(page);
  await dialog
    .getByRole('button', { name: 'Start the run (2 clusters)' })
    .click();

  await expect(
    page.getByRole('heading', {
      name: 'Fleet upgrade to the next minor: 2 clusters in 2 stages',
    }),
  ).toBeVisible();
  const first = page.getByRole('region', { name: /^Stage 1: / });
  const second = page.getByRole('region', { name: /^Stage 2: / });
  // The first stage's cluster upgraded (control plane, then pools), then the gate: the page follows without a reload.
  await expect(first).toContainText('Waiting for approval', {
    timeout: 150_000,
  });
  await expect(first.getByTestId('fleet-cluster')).toHaveAttribute(
    'data-state',
    'succeeded',
  );
  await expect(first.getByTestId('fleet-cluster')).toContainText(
    /upgraded to v1\.33\.\d+/,
  );
  await expect(second.getByTestId('fleet-cluster')).toHaveAttribute(
    'data-state',
    'waiting',
  );
  const [firstName, secondName] = (
    await page.getByRole('region', { name: /^Stage \d: / }).allInnerTexts()
  ).map(t => (t.includes('fleet-dev') ? 'fleet-dev' : 'fleet-prod'));
  expect([firstName, secondName].sort()).toEqual(['fleet-dev', 'fleet-prod']);
  const cpVersion = async (name: string) =>
    (
      await kube(
        'GET',
        `/apis/infrastructure.cluster.x-k8s.io/v1beta1/namespaces/team-${name}/azureasomanagedcontrolplanes/${name}`,
      )
    ).spec.version as string;
  // Nothing of the second stage's cluster was written while the first waits for its approval.
  expect(await cpVersion(secondName)).toBe('v1.32.6');
  await expectAxeClean(page, '[data-testid="fleet-run-page"]');
  await saveScreenshot(page, 'fleet-run-approval');
  // The user who started the run is told in the bell that a stage waits for approval.
  const bell = await page.context().newPage();
  await bell.goto('/notifications');
  await expect(
    bell.getByText(
      new RegExp(
        `^Fleet run [0-9a-f]{8}: stage team-${firstName} waits for approval$`,
      ),
    ),
  ).toBeVisible();
  await bell.close();

  await first.getByRole('button', { name: /^Approve / }).click();
  await expect(page.getByTestId('fleet-run-state')).toHaveText('Succeeded', {
    timeout: 150_000,
  });
  await expect(second.getByTestId('fleet-cluster')).toHaveAttribute(
    'data-state',
    'succeeded',
  );
  await expect(first).toContainText(/Approved by user:default\/[a-z-]+\./);
  expect(await cpVersion(firstName)).toMatch(/^v1\.33\.\d+$/);
  expect(await cpVersion(secondName)).toMatch(/^v1\.33\.\d+$/);
  await saveScreenshot(page, 'fleet-run-succeeded');
});
