import AxeBuilder from '@axe-core/playwright';
import { expect, test } from '@playwright/test';
import { saveScreenshot, signInAsGuest } from './helpers';
import { kube } from './kube';

const POOL =
  '/apis/cluster.x-k8s.io/v1beta2/namespaces/team-payments/machinepools/payments-prod-system';

test('scale a pool from the cluster page: preview 3 → 5, confirm, the nodes follow live', async ({
  page,
}) => {
  await signInAsGuest(page);
  await page.goto('/capz');
  await page
    .getByRole('region', { name: 'Clusters' })
    .getByRole('link', { name: 'payments-prod' })
    .click();
  await expect(page).toHaveURL(
    /\/capz\/clusters\/[^/]+\/team-payments\/payments-prod$/,
  );
  await expect(page.getByRole('treegrid')).toBeVisible();

  await page.getByRole('button', { name: 'Cluster actions' }).click();
  await page.getByRole('menuitem', { name: 'Scale pool' }).click();
  const dialog = page.getByRole('dialog', { name: 'Scale a node pool' });
  await dialog.getByRole('button', { name: /Node pool/ }).click();
  await page.getByRole('option', { name: /^system/ }).click();
  const nodes = dialog.getByRole('textbox', { name: /Nodes/ });
  await expect(nodes).toHaveValue('3');
  await nodes.fill('5');
  await dialog.getByRole('button', { name: 'Preview' }).click();
  await expect(
    dialog.getByRole('list', {
      name: 'Fields of Update MachinePool team-payments/payments-prod-system',
    }),
  ).toContainText('spec.replicas: 3 → 5');
  // The preview wrote nothing (dryRun=All).
  expect((await kube('GET', POOL)).spec.replicas).toBe(3);
  const { violations } = await new AxeBuilder({ page })
    .include('[role="dialog"]')
    .analyze();
  expect(violations.map(v => `${v.id}: ${v.help}`)).toEqual([]);

  await dialog.getByRole('button', { name: 'Confirm' }).click();
  await expect(
    dialog.getByText('Applied: the controllers are working on it'),
  ).toBeVisible();
  try {
    expect((await kube('GET', POOL)).spec.replicas).toBe(5);
    // The simulator carries it out; the page's pushed updates move the progress until the pool is done.
    await expect(
      dialog.getByRole('region', { name: 'Progress' }),
    ).toContainText('pool system: 5 of 5 nodes ready (done)', {
      timeout: 60_000,
    });
    await saveScreenshot(page, 'day2-scale-done');
  } finally {
    await kube('PATCH', POOL, { spec: { replicas: 3 } });
  }
});
