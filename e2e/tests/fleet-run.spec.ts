import { expect, test, type Locator, type Page } from '@playwright/test';
import { expectAxeClean, saveScreenshot, signInAsGuest } from './helpers';
import { lift, refuse, type Refusal } from './admission';
import { kube } from './kube';

/**
 * A fleet run against the running backend, on the six clusters of the capz-sim scenario `fleet` that no other test
 * uses (team-fleet-dev/fleet-dev{,-2,-3} and team-fleet-prod/fleet-prod{,-2,-3}, v1.32.6; the simulated region offers
 * 1.33): planned from the clusters page, one stage per namespace, three clusters at a time, fail-fast, a soak of a
 * minute and an approval after each stage. An admission policy on the management cluster refuses one cluster of the first stage its new
 * version (as a team's Kyverno or Gatekeeper rule would): that cluster fails with the API server's words and stops the
 * run once the two beside it have finished their part; skipped, the run goes on, waits for the approval, and the
 * second stage upgrades. Followed live on the run's page (the backend's scheduled task advances it; the page hears its
 * signals). Like day2-lifecycle.spec.ts, it changes the seeded world for good: once per simulator.
 */

const REFUSED = 'this cluster keeps its version (e2e fleet-run.spec)';
const INFRA = '/apis/infrastructure.cluster.x-k8s.io/v1beta1';

const cpVersion = async (namespace: string, name: string) =>
  (
    await kube(
      'GET',
      `${INFRA}/namespaces/${namespace}/azureasomanagedcontrolplanes/${name}`,
    )
  ).spec.version as string;

/** Refuses any new `spec.version` of one control plane. */
const holdVersion = (namespace: string, name: string): Refusal => ({
  name: 'e2e-fleet-run-version-held',
  namespace,
  apiGroup: 'infrastructure.cluster.x-k8s.io',
  resource: 'azureasomanagedcontrolplanes',
  resourceName: name,
  expression: 'object.spec.version == oldObject.spec.version',
  message: REFUSED,
  probe: {
    path: `${INFRA}/namespaces/${namespace}/azureasomanagedcontrolplanes/${name}`,
    patch: { spec: { version: 'v1.33.0' } },
  },
});

/** A cluster's row on the run page, by its whole name. */
const row = (page: Page, stage: Locator, namespace: string, name: string) =>
  stage.getByTestId('fleet-cluster').filter({
    has: page.getByRole('link', { name: `${namespace}/${name}`, exact: true }),
  });

test.afterAll(() => lift({ name: 'e2e-fleet-run-version-held' }));

test('a fleet upgrade of six clusters in two stages: a refused cluster stops the run, skipped it goes on, the approval, the second stage', async ({
  page,
}) => {
  // Six clusters, three at a time, each its control plane then its pools through the simulated AKS, ticks of ten
  // seconds between, a soak of a minute; a hang detector.
  test.setTimeout(480_000);
  await signInAsGuest(page);
  await page.goto('/capz?q=fleet-');
  const region = page.getByRole('region', { name: 'Clusters' });
  for (const name of [
    'fleet-dev',
    'fleet-dev-2',
    'fleet-dev-3',
    'fleet-prod',
    'fleet-prod-2',
    'fleet-prod-3',
  ])
    await expect(region.getByRole('link', { name, exact: true })).toBeVisible();
  await expect(page.getByText(/^6 of \d+ clusters$/)).toBeVisible();
  await page.getByRole('button', { name: 'Plan an upgrade of these' }).click();
  const dialog = page.getByRole('dialog', {
    name: 'Plan an upgrade of 6 clusters',
  });
  await dialog.getByText('One per namespace', { exact: true }).click();
  await dialog.getByRole('button', { name: 'Preview' }).click();
  await expect(dialog.getByRole('status')).toHaveText(
    '6 would upgrade, 0 already there, 0 left out',
  );
  // The stages in the page's order: the first is the one the policy holds a cluster of.
  const planned = dialog.getByRole('region', { name: /^Stage \d: / });
  await expect(planned).toHaveCount(2);
  const [firstNs, secondNs] = (
    await Promise.all(
      [1, 2].map(i =>
        dialog
          .getByRole('region', { name: new RegExp(`^Stage ${i}: `) })
          .getAttribute('aria-label'),
      ),
    )
  ).map(label => label!.replace(/^Stage \d: /, ''));
  expect([firstNs, secondNs].sort()).toEqual([
    'team-fleet-dev',
    'team-fleet-prod',
  ]);
  const firstNames = ['', '-2', '-3'].map(
    s => `${firstNs.replace(/^team-/, '')}${s}`,
  );
  const secondNames = ['', '-2', '-3'].map(
    s => `${secondNs.replace(/^team-/, '')}${s}`,
  );
  const held = firstNames[1];
  await refuse(holdVersion(firstNs, held));

  const runIt = dialog.getByRole('region', { name: 'Run it' });
  await runIt
    .getByRole('textbox', { name: 'Soak after each stage (minutes)' })
    .fill('1');
  await runIt
    .getByRole('textbox', { name: 'Clusters of a stage at a time' })
    .fill('3');
  await expect(
    runIt.getByRole('textbox', {
      name: 'Failures allowed before the run stops',
    }),
  ).toHaveValue('0');
  await expect(
    runIt.getByRole('checkbox', {
      name: 'Wait for an approval before each next stage',
    }),
  ).toBeChecked();
  await expectAxeClean(page);
  await dialog
    .getByRole('button', { name: 'Start the run (6 clusters)' })
    .click();

  await expect(
    page.getByRole('heading', {
      name: 'Fleet upgrade to the next minor: 6 clusters in 2 stages',
    }),
  ).toBeVisible();
  const first = page.getByRole('region', { name: /^Stage 1: / });
  const second = page.getByRole('region', { name: /^Stage 2: / });
  const state = page.getByTestId('fleet-run-state');

  // The refused cluster fails with the API server's words; the two started beside it finish their part; the run stops.
  await expect(state).toHaveText('Failed', { timeout: 150_000 });
  const heldRow = row(page, first, firstNs, held);
  await expect(heldRow).toHaveAttribute('data-state', 'failed');
  await expect(heldRow).toContainText(REFUSED);
  for (const name of [firstNames[0], firstNames[2]])
    await expect(row(page, first, firstNs, name)).toHaveAttribute(
      'data-state',
      'succeeded',
    );
  for (const name of secondNames)
    await expect(row(page, second, secondNs, name)).toHaveAttribute(
      'data-state',
      'cancelled',
    );
  expect(await cpVersion(firstNs, held)).toBe('v1.32.6');
  for (const name of secondNames)
    expect(await cpVersion(secondNs, name)).toBe('v1.32.6');
  await expectAxeClean(page, '[data-testid="fleet-run-page"]');
  await saveScreenshot(page, 'fleet-run-failed');

  // Skipped, the run goes on from what it had not started: the first stage's clusters are done, so it soaks (a
  // minute of both upgraded clusters healthy), then waits for its approval.
  await heldRow
    .getByRole('button', { name: `Skip ${firstNs}/${held}` })
    .click();
  await expect(heldRow).toHaveAttribute('data-state', 'skipped');
  await expect(heldRow).toContainText(
    /skipped by user:default\/[a-z-]+ after it failed: /,
  );
  await expect(first).toHaveAttribute('data-state', 'soaking', {
    timeout: 60_000,
  });
  await expect(first).toContainText('Every cluster stays healthy until');
  await expect(first).toContainText('Waiting for approval', {
    timeout: 150_000,
  });
  await expect(state).toHaveText('Running');
  for (const name of secondNames)
    await expect(row(page, second, secondNs, name)).toHaveAttribute(
      'data-state',
      'waiting',
    );
  // Nothing of the second stage was written while the first waits for its approval.
  for (const name of secondNames)
    expect(await cpVersion(secondNs, name)).toBe('v1.32.6');
  await saveScreenshot(page, 'fleet-run-approval');
  // The user who started the run is told in the bell that a stage waits for approval (the newest notice).
  const bell = await page.context().newPage();
  await bell.goto('/notifications');
  await expect(
    bell.getByText(
      new RegExp(
        `^Fleet run [0-9a-f]{8}: stage ${firstNs} waits for approval$`,
      ),
    ),
  ).toBeVisible();
  await bell.close();

  await first.getByRole('button', { name: /^Approve / }).click();
  // The second stage, then its soak.
  await expect(state).toHaveText('Succeeded', { timeout: 240_000 });
  for (const name of secondNames)
    await expect(row(page, second, secondNs, name)).toHaveAttribute(
      'data-state',
      'succeeded',
    );
  await expect(first).toContainText(/Approved by user:default\/[a-z-]+\./);
  for (const name of [firstNames[0], firstNames[2], ...secondNames])
    expect(
      await cpVersion(firstNames.includes(name) ? firstNs : secondNs, name),
    ).toMatch(/^v1\.33\.\d+$/);
  // The skipped cluster was left as it was.
  expect(await cpVersion(firstNs, held)).toBe('v1.32.6');
  await saveScreenshot(page, 'fleet-run-succeeded');

  // The run is in the list of runs the clusters page links, with how far it got.
  const id = /\/capz\/fleet-runs\/([^/?#]+)/.exec(page.url())![1];
  await page.goto('/capz');
  await page.getByRole('link', { name: 'Fleet runs', exact: true }).click();
  const listed = page
    .getByTestId('fleet-run-row')
    .filter({ hasText: `Run ${id.slice(0, 8)}` });
  await expect(listed).toContainText('Succeeded');
  await expect(listed).toContainText(
    '5 of 6 upgraded, 1 skipped or not started',
  );
  await expectAxeClean(page, '[data-testid="fleet-runs-page"]');
});
