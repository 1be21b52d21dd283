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

const DEV_CLUSTER =
  '/apis/cluster.x-k8s.io/v1beta2/namespaces/team-payments/clusters/payments-dev';

test('pause shows a banner on the page until resume; connect gives commands, never a credential', async ({
  page,
}) => {
  await signInAsGuest(page);
  await page.goto('/capz');
  await page
    .getByRole('region', { name: 'Clusters' })
    .getByRole('link', { name: 'payments-dev' })
    .click();
  await expect(page.getByRole('treegrid')).toBeVisible();
  const banner = page.getByText('Reconciliation is paused', { exact: true });
  await expect(banner).toHaveCount(0);

  const run = async (item: string, title: string) => {
    await page.getByRole('button', { name: 'Cluster actions' }).click();
    await page.getByRole('menuitem', { name: item }).click();
    const dialog = page.getByRole('dialog', { name: title });
    await dialog.getByRole('button', { name: 'Preview' }).click();
    const fields = dialog.getByRole('list', {
      name: 'Fields of Update Cluster team-payments/payments-dev',
    });
    await expect(fields).toContainText('spec.paused');
    await dialog.getByRole('button', { name: 'Confirm' }).click();
    await expect(
      dialog.getByText('Applied: the controllers are working on it'),
    ).toBeVisible();
    return dialog;
  };
  try {
    const pause = await run('Pause', 'Pause reconciliation');
    await expect(pause.getByRole('region', { name: 'Progress' })).toContainText(
      'reconciliation paused (done)',
    );
    expect((await kube('GET', DEV_CLUSTER)).spec.paused).toBe(true);
    await pause.getByRole('button', { name: 'Done' }).click();
    // The page shows it prominently, live, without a reload.
    await expect(banner).toBeVisible();
    await saveScreenshot(page, 'day2-paused');

    const resume = await run('Resume', 'Resume reconciliation');
    await expect(
      resume.getByRole('region', { name: 'Progress' }),
    ).toContainText('reconciliation resumed (done)');
    await resume.getByRole('button', { name: 'Done' }).click();
    await expect(banner).toHaveCount(0);
  } finally {
    await kube('PATCH', DEV_CLUSTER, { spec: { paused: false } });
  }

  await page.getByRole('button', { name: 'Cluster actions' }).click();
  await page.getByRole('menuitem', { name: 'Connect' }).click();
  const connect = page.getByRole('dialog', { name: 'Connect with kubectl' });
  const commands = connect.getByLabel('Commands');
  await expect(commands).toContainText('az aks get-credentials');
  await expect(commands).toContainText(
    'clusterctl get kubeconfig payments-dev --namespace team-payments',
  );
  await expect(connect).not.toContainText(/BEGIN CERTIFICATE|token:/);
});
