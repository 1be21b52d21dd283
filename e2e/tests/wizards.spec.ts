import { expect, Locator, Page, test } from '@playwright/test';
import { saveScreenshot, signInAsGuest, expectAxeClean } from './helpers';

/**
 * The job wizards driven to success in Chromium, against the backend, the run's management cluster and the background
 * simulator (scripts/test.sh: `capz-sim run --scenarios all --operation-ms 100 --namespace-prefix team-`, so every
 * namespace the jobs create starts with `team-`). These tests change the seeded world (data-lake is migrated,
 * analytics-aks adopted): they run last (files run in name order, one worker) and cannot run twice on one cluster.
 */

/** Migration of a legacy cluster plus adoption: both finish in well under a minute with 100 ms operations. */
const JOB_TIMEOUT = 180_000;

/** Every preflight check shown: none failing, and no warning but the titles in `warnings`. */
async function expectPreflightPassed(page: Page, warnings: string[] = []) {
  const checks = page.getByTestId('preflight-check');
  // The line above the checks (the passed ones are folded, so the first check may be hidden).
  await expect(
    page.getByText(/^(All \d+ checks passed|\d+ of \d+ checks failed)/),
  ).toBeVisible({ timeout: 60_000 });
  const statuses = await checks.evaluateAll(els =>
    els.map(e => `${e.getAttribute('data-status')}: ${e.textContent}`),
  );
  expect(
    statuses.filter(
      s =>
        !s.startsWith('pass:') &&
        !warnings.some(w => s.startsWith(`warn: ${w}`)),
    ),
  ).toEqual([]);
  expect(statuses.filter(s => s.startsWith('warn:'))).toHaveLength(
    warnings.length,
  );
  const summary = `All ${statuses.length} checks passed${
    warnings.length ? `, ${warnings.length} with a warning` : ''
  }.`;
  await expect(page.getByText(summary, { exact: true })).toBeVisible();
}

/** The plan's step ids, in order. */
async function planSteps(page: Page): Promise<string[]> {
  const steps = page.getByTestId('plan-step');
  await expect(steps.first()).toBeVisible();
  return steps.evaluateAll(els =>
    els.map(e => e.getAttribute('data-step') ?? ''),
  );
}

/** Waits on the job page's own state until the job ends; a failed job fails the test with its error and log. */
async function expectJobSucceeded(page: Page, state: Locator) {
  await expect(state).toHaveText(/^(Succeeded|Failed|Cancelled)$/, {
    timeout: JOB_TIMEOUT,
  });
  if ((await state.textContent()) !== 'Succeeded') {
    const error = await page.getByRole('alert').allTextContents();
    throw new Error(
      `The job ended ${await state.textContent()}: ${error.join(
        ' | ',
      )}\n${await page.getByTestId('job-log').textContent()}`,
    );
  }
}

/** Printed (as render-time.spec does) and kept in the JSON report. */
function timing(description: string) {
  test.info().annotations.push({ type: 'timing', description });
  console.log(`[wizards chromium] ${description}`);
}

const stepsIn = (page: Page, state: string) =>
  page.locator(`[data-testid="job-step"][data-state="${state}"]`);

test('migration wizard: candidate badge → preflight → plan → start → live job page (reloaded mid-run) → migrated cluster healthy', async ({
  page,
}) => {
  test.setTimeout(JOB_TIMEOUT + 120_000);
  await signInAsGuest(page);
  await page.goto('/capz');

  // The legacy cluster is a migration candidate, and healthy: the migration's preflight requires it Available.
  await page.getByRole('searchbox', { name: 'Search' }).fill('data-lake');
  const clusters = page.getByRole('region', { name: 'Clusters' });
  const row = clusters.getByRole('row', { name: /data-lake/ });
  await expect(row).toHaveCount(1);
  await expect(row.getByText('Healthy')).toBeVisible({ timeout: 60_000 });
  await row
    .getByRole('link', {
      name: 'Migration candidate: migrate data-lake to the ASO API',
    })
    .click();
  await expect(page).toHaveURL(
    /\/capz\/clusters\/local\/team-data\/data-lake\/migrate$/,
  );
  await expect(
    page.getByRole('heading', {
      level: 2,
      name: 'Migrate data-lake to the ASO API',
    }),
  ).toBeVisible();

  // 1. Target namespace (team-*: the background simulator simulates only those). 2. Preflight. 3. Plan and start.
  const target = page.getByRole('textbox', { name: 'Target namespace' });
  await expect(target).toHaveValue('team-data-aso');
  await target.fill('team-data-lake-aso');
  await expect(page.getByTestId('start-job')).toBeDisabled();
  await page.getByRole('button', { name: 'Check and preview' }).click();
  // The legacy control plane's VNet and subnet are not adopted by the job: the preflight says so and hands over the
  // patch that lists them in the new AzureASOManagedCluster (docs/real-controllers.md#flows).
  await expectPreflightPassed(page, ['Everything is adopted']);
  await expect(
    page
      .getByText(
        /VirtualNetwork data-lake.*VirtualNetworksSubnet data-lake-data-lake/,
      )
      .first(),
  ).toBeVisible();
  const plan = await planSteps(page);
  // The documented procedure (docs/migration-procedure.md): pause and disarm the old objects, adopt in the new
  // namespace, wait for the new Cluster to be Available, then delete the released old objects.
  for (const id of [
    'pause',
    'disarm',
    'create-namespace',
    'copy-credential-secret',
    'adopt-managed-cluster',
    'adopt-agent-pools',
    'wait-available',
    'delete-old',
  ]) {
    expect(plan).toContain(id);
  }
  expect(plan.indexOf('pause')).toBeLessThan(
    plan.indexOf('adopt-managed-cluster'),
  );
  expect(plan.indexOf('wait-available')).toBeLessThan(
    plan.indexOf('delete-old'),
  );
  // The autoscaling pool's plan keeps its autoscaler settings.
  await expect(
    page.getByRole('list', { name: 'Plan', exact: true }),
  ).toContainText('ingest');
  // The plan is summarised first, Start beside it, and each step folded to its title: a plan unfolded ran to some 7,000 px before Start.
  await expect(page.getByTestId('plan-summary')).toContainText(
    `${plan.length} steps`,
  );
  await saveScreenshot(page, 'wizard-migrate-plan');
  await expectAxeClean(page, ['[data-testid="wizard-page"]']);

  const started = Date.now();
  await page.getByTestId('start-job').click();
  await expect(page).toHaveURL(/\/capz\/jobs\/[0-9a-f-]{36}$/);
  const jobUrl = page.url();
  const state = page.getByTestId('job-state');
  await expect(
    page.getByRole('heading', {
      level: 2,
      name: 'Migration to the ASO API: team-data/data-lake',
    }),
  ).toBeVisible();
  await expect(page.getByTestId('job-step')).toHaveCount(plan.length);
  await expect(page.getByTestId('job-step').first()).toHaveText(/Pause/);

  // Live progress: the first step succeeds while the page stays open, then the page is reloaded mid-run and shows
  // the same job where it is (everything on it comes from the backend).
  await expect(stepsIn(page, 'succeeded').first()).toBeVisible({
    timeout: JOB_TIMEOUT,
  });
  await expect(state).toHaveText('Running');
  const doneBeforeReload = await stepsIn(page, 'succeeded').count();
  await page.reload();
  await expect(page).toHaveURL(jobUrl);
  await expect(page.getByTestId('job-step')).toHaveCount(plan.length);
  await expect(state).toHaveText(/^(Running|Succeeded)$/);
  expect(await stepsIn(page, 'succeeded').count()).toBeGreaterThanOrEqual(
    doneBeforeReload,
  );
  await expect(page.getByTestId('job-log')).toContainText('[pause]');
  const afterReload = await state.textContent();
  await saveScreenshot(
    page,
    `wizard-migrate-job-${
      afterReload === 'Running' ? 'running' : 'after-reload'
    }`,
  );
  const reloadNote = `reloaded at ${doneBeforeReload} of ${plan.length} steps done; after the reload: ${afterReload}`;

  // From here on the page must follow the job without another reload.
  await page.evaluate(() => ((window as any).__capzNoReload = true));
  await expectJobSucceeded(page, state);
  timing(
    `migration job: ${((Date.now() - started) / 1000).toFixed(
      1,
    )} s from Start to Succeeded (${reloadNote})`,
  );
  expect(await page.evaluate(() => (window as any).__capzNoReload)).toBe(true);
  await expect(stepsIn(page, 'succeeded')).toHaveCount(plan.length);
  await expect(page.getByTestId('job-log')).toContainText('[delete-old]');
  await saveScreenshot(page, 'wizard-migrate-job-succeeded');
  await expectAxeClean(page, ['[data-testid="job-page"]']);

  // The result: the migrated cluster in the new namespace, on the ASO API, healthy.
  await page
    .getByRole('link', { name: 'Open cluster team-data-lake-aso/data-lake' })
    .click();
  await expect(page).toHaveURL(
    /\/capz\/clusters\/local\/team-data-lake-aso\/data-lake$/,
  );
  await expect(
    page.getByRole('heading', { level: 2, name: 'data-lake' }),
  ).toBeVisible();
  await expect(
    page.getByText(/^team-data-lake-aso · local · ASO/),
  ).toBeVisible();
  await expect(page.getByText(/3\/3 pools ready/)).toBeVisible({
    timeout: 60_000,
  });
  await expect(page.getByText('Healthy', { exact: true }).first()).toBeVisible({
    timeout: 60_000,
  });
  await expect(
    page.getByRole('link', { name: 'Migrate to ASO API' }),
  ).toHaveCount(0);
  await saveScreenshot(page, 'wizard-migrate-result');
});

test('adoption wizard: Adopt AKS cluster → management cluster → namespace → credential → discovered cluster → start → adopted cluster', async ({
  page,
}) => {
  test.setTimeout(JOB_TIMEOUT + 120_000);
  await signInAsGuest(page);
  await page.goto('/capz');
  await page.getByRole('link', { name: 'Adopt AKS cluster' }).click();
  await expect(page).toHaveURL(/\/capz\/adopt$/);
  await expect(
    page.getByRole('heading', { level: 2, name: 'Adopt an AKS cluster' }),
  ).toBeVisible();
  await expect(page.getByTestId('wizard-step')).toHaveCount(6);

  // 1. Management cluster.
  await page.getByRole('button', { name: /Management cluster/ }).click();
  await page.getByRole('option', { name: 'Local management cluster' }).click();
  // 2. Namespace, from the management cluster's live list: team-payments holds the ASO credential Secret.
  await page.getByRole('combobox', { name: 'Namespace' }).click();
  await page.getByRole('option', { name: 'team-payments' }).click();
  // 3. Credential: names only.
  const credentials = page.getByRole('radiogroup', {
    name: 'Credential Secret',
  });
  // react-aria's radio input is visually hidden under its label: people click the label.
  await credentials.getByText(/^aso-credential · subscription /).click();
  await expect(
    credentials.getByRole('radio', { name: /^aso-credential/ }),
  ).toBeChecked();
  // 4. The AKS clusters the credential sees in Azure: analytics-aks can be chosen; ones already managed cannot.
  const aks = page.getByRole('radiogroup', { name: 'AKS cluster to adopt' });
  await expect(aks).toBeVisible({ timeout: 60_000 });
  const analytics = aks.getByRole('radio', { name: /^analytics-aks/ });
  await expect(analytics).toBeEnabled();
  await expect(
    page.getByTestId('aks-cluster').filter({ hasText: 'analytics-aks' }),
  ).toContainText('etl (User');
  const managed = page
    .getByTestId('aks-cluster')
    .filter({ hasText: 'Already managed by ManagedCluster' });
  await expect(managed.first()).toBeVisible();
  await expect(managed.filter({ hasText: 'payments-prod' })).toContainText(
    'Already managed by ManagedCluster team-payments/payments-prod',
  );
  await expect(
    aks.getByRole('radio', { name: /^payments-prod/ }),
  ).toBeDisabled();
  await page
    .getByTestId('aks-cluster')
    .filter({ hasText: 'analytics-aks' })
    .click();
  await expect(analytics).toBeChecked();
  await saveScreenshot(page, 'wizard-adopt-choose');

  // 5. Preflight. 6. Plan. 7. Start.
  await page.getByRole('button', { name: 'Check and preview' }).click();
  // Every check passes: discovery reads the resource group's own location too (AksDiscovery.resourceGroupLocation).
  await expectPreflightPassed(page);
  const plan = await planSteps(page);
  for (const id of [
    'adopt-resource-group',
    'adopt-managed-cluster',
    'adopt-agent-pools',
    'wait-available',
  ])
    expect(plan).toContain(id);
  expect(plan.indexOf('adopt-managed-cluster')).toBeLessThan(
    plan.indexOf('wait-available'),
  );
  await saveScreenshot(page, 'wizard-adopt-plan');
  await expectAxeClean(page, ['[data-testid="wizard-page"]']);

  const started = Date.now();
  await page.getByTestId('start-job').click();
  await expect(page).toHaveURL(/\/capz\/jobs\/[0-9a-f-]{36}$/);
  await expect(
    page.getByRole('heading', {
      level: 2,
      name: 'Adoption: team-payments/analytics-aks',
    }),
  ).toBeVisible();
  const state = page.getByTestId('job-state');
  await expect(page.getByTestId('job-step')).toHaveCount(plan.length);
  await expectJobSucceeded(page, state);
  timing(
    `adoption job: ${((Date.now() - started) / 1000).toFixed(
      1,
    )} s from Start to Succeeded`,
  );
  await expect(stepsIn(page, 'succeeded')).toHaveCount(plan.length);
  await saveScreenshot(page, 'wizard-adopt-job-succeeded');
  await expectAxeClean(page, ['[data-testid="job-page"]']);

  await page
    .getByRole('link', { name: 'Open cluster team-payments/analytics-aks' })
    .click();
  await expect(page).toHaveURL(
    /\/capz\/clusters\/local\/team-payments\/analytics-aks$/,
  );
  await expect(
    page.getByRole('heading', { level: 2, name: 'analytics-aks' }),
  ).toBeVisible();
  await expect(page.getByText(/2\/2 pools ready, 5 nodes/)).toBeVisible({
    timeout: 60_000,
  });
  await expect(page.getByText('Healthy', { exact: true }).first()).toBeVisible({
    timeout: 60_000,
  });
  await saveScreenshot(page, 'wizard-adopt-result');
});
