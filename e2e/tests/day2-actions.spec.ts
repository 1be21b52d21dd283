import AxeBuilder from '@axe-core/playwright';
import { expect, Locator, Page, test } from '@playwright/test';
import { openClusterPage, saveScreenshot, signInAsGuest } from './helpers';
import { kube } from './kube';

const POOL =
  '/apis/cluster.x-k8s.io/v1beta2/namespaces/team-payments/machinepools/payments-prod-system';

test('scale a pool from the cluster page: preview 3 → 5, confirm, the nodes follow live', async ({
  page,
}) => {
  await signInAsGuest(page);
  await page.goto('/capz?q=payments-prod');
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

  // Every text the progress shows from the confirm on, in the dialog and on the page after it closes: "(done)" may
  // only ever be said of the new count (the old state read before the write is not done).
  await recordProgressTexts(page);
  await dialog.getByRole('button', { name: 'Confirm' }).click();
  await expect(
    dialog.getByText('Applied: the controllers are working on it'),
  ).toBeVisible();
  try {
    expect((await kube('GET', POOL)).spec.replicas).toBe(5);
    await expect(
      dialog.getByRole('region', { name: 'Progress' }),
    ).toContainText('pool system:');
    // Closed right away: the page keeps following the action. The simulator carries it out; the page's pushed
    // updates move the progress until the pool is done.
    await dialog.getByRole('button', { name: 'Done' }).click();
    await expect(dialog).toBeHidden();
    const followed = page.getByRole('region', {
      name: 'Last action: Scale pool system to 5',
    });
    await expect(followed).toContainText(
      'pool system: 5 of 5 nodes ready (done)',
      { timeout: 60_000 },
    );
    await expect(followed).toContainText('Scale pool system to 5: done');
    const said = await progressTexts(page);
    expect(said.length).toBeGreaterThan(0);
    const doneTooEarly = said.filter(
      t =>
        /\(done\)/.test(t) &&
        !/pool system: 5 of 5 nodes ready \(done\)/.test(t),
    );
    expect(doneTooEarly).toEqual([]);
    const onPage = await new AxeBuilder({ page })
      .include('[aria-label="Last action: Scale pool system to 5"]')
      .analyze();
    expect(onPage.violations.map(v => `${v.id}: ${v.help}`)).toEqual([]);
    await saveScreenshot(page, 'day2-scale-done');
    await followed.getByRole('button', { name: 'Dismiss' }).click();
    await expect(followed).toBeHidden();
  } finally {
    await kube('PATCH', POOL, { spec: { replicas: 3 } });
  }
});

test('two tabs: a confirm after the other tab scaled the pool is refused (409), nothing is written, Preview again shows the new plan', async ({
  browser,
}) => {
  const tab = async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await signInAsGuest(page);
    await page.goto('/capz?q=payments-prod');
    await page
      .getByRole('region', { name: 'Clusters' })
      .getByRole('link', { name: 'payments-prod' })
      .click();
    await expect(page.getByRole('treegrid')).toBeVisible();
    await page.getByRole('button', { name: 'Cluster actions' }).click();
    await page.getByRole('menuitem', { name: 'Scale pool' }).click();
    const dialog = page.getByRole('dialog', { name: 'Scale a node pool' });
    await dialog.getByRole('button', { name: /Node pool/ }).click();
    await page.getByRole('option', { name: /^system/ }).click();
    return { context, page, dialog };
  };
  const scaleTo = async (dialog: Locator, n: string, before: number) => {
    await dialog.getByRole('textbox', { name: /Nodes/ }).fill(n);
    await dialog.getByRole('button', { name: /^Preview( again)?$/ }).click();
    await expect(
      dialog.getByRole('list', {
        name: 'Fields of Update MachinePool team-payments/payments-prod-system',
      }),
    ).toContainText(`spec.replicas: ${before} → ${n}`);
  };
  const a = await tab();
  const b = await tab();
  try {
    // Tab A previews 3 → 4; tab B then scales the same pool to 2.
    await scaleTo(a.dialog, '4', 3);
    await scaleTo(b.dialog, '2', 3);
    await b.dialog.getByRole('button', { name: 'Confirm' }).click();
    await expect(
      b.dialog.getByText(
        /^(Applied: the controllers are working on it|Done: .*)$/,
      ),
    ).toBeVisible();
    expect((await kube('GET', POOL)).spec.replicas).toBe(2);

    // Tab A's Confirm: refused, in words; the pool keeps tab B's count.
    await a.dialog.getByRole('button', { name: 'Confirm' }).click();
    await expect(
      a.dialog.getByText(
        'Nothing was applied: the cluster changed since the preview',
      ),
    ).toBeVisible();
    await expect(a.dialog).toContainText(
      /The cluster changed since the preview \(pool system: 3 → 2 replicas[;)].*nothing was written\. Preview again\./,
    );
    expect((await kube('GET', POOL)).spec.replicas).toBe(2);
    await expect(
      a.dialog.getByRole('button', { name: 'Confirm' }),
    ).toBeHidden();
    // Preview again: the plan as it is now.
    await a.dialog.getByRole('button', { name: 'Preview again' }).click();
    await expect(
      a.dialog.getByRole('list', {
        name: 'Fields of Update MachinePool team-payments/payments-prod-system',
      }),
    ).toContainText('spec.replicas: 2 → 4');
    await saveScreenshot(a.page, 'day2-stale-confirm');
  } finally {
    await a.context.close();
    await b.context.close();
    await kube('PATCH', POOL, { spec: { replicas: 3 } });
  }
});

const DEV_CLUSTER =
  '/apis/cluster.x-k8s.io/v1beta2/namespaces/team-payments/clusters/payments-dev';

test('pause shows a banner on the page until resume; connect gives commands, never a credential', async ({
  page,
}) => {
  await signInAsGuest(page);
  await page.goto('/capz?q=payments-dev');
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
    // Applied, and soon observed: the header turns into Done.
    await expect(
      dialog.getByText(
        /^(Applied: the controllers are working on it|Done: .*)$/,
      ),
    ).toBeVisible();
    return dialog;
  };
  try {
    const pause = await run('Pause', 'Pause reconciliation');
    await expect(pause.getByRole('region', { name: 'Progress' })).toContainText(
      'reconciliation paused (done)',
    );
    await expect(pause.getByText('Done: Pause reconciliation')).toBeVisible();
    expect((await kube('GET', DEV_CLUSTER)).spec.paused).toBe(true);
    await pause.getByRole('button', { name: 'Done' }).click();
    // The page shows it prominently, live, without a reload.
    await expect(banner).toBeVisible();
    await saveScreenshot(page, 'day2-paused');

    const resume = await run('Resume', 'Resume reconciliation');
    await expect(
      resume.getByRole('region', { name: 'Progress' }),
    ).toContainText('reconciliation resumed, the cluster is healthy (done)', {
      timeout: 60_000,
    });
    await expect(resume.getByText('Done: Resume reconciliation')).toBeVisible();
    await resume.getByRole('button', { name: 'Done' }).click();
    await expect(banner).toHaveCount(0);
  } finally {
    await kube('PATCH', DEV_CLUSTER, { spec: { paused: false } });
  }

  await page.getByRole('button', { name: 'Cluster actions' }).click();
  await page.getByRole('menuitem', { name: 'Connect' }).click();
  const connect = page.getByRole('dialog', { name: 'Connect with kubectl' });
  const commands = connect.getByLabel('Commands', { exact: true });
  await expect(commands).toContainText('az aks get-credentials');
  await expect(commands).toContainText(
    'clusterctl get kubeconfig payments-dev --namespace team-payments',
  );
  await expect(connect).not.toContainText(/BEGIN CERTIFICATE|token:/);
  // payments-dev has no Entra ID: AKS's kubeconfig for it is a local account's secret, which the backend does not
  // hand out. The button says so before anything is asked, and never speaks of a preview.
  const download = connect.getByRole('button', { name: 'Download kubeconfig' });
  await expect(download).toBeDisabled();
  const reason = connect.getByLabel('Why there is no kubeconfig to download');
  await expect(reason).toContainText('does not use Entra ID');
  await expect(connect).not.toContainText(/preview|Nothing was written/i);
});

/** Opens payments-prod's page and returns a helper that opens an action's dialog by its menu item and title. */
async function paymentsProd(page: Page) {
  await signInAsGuest(page);
  return openClusterPage(page, 'team-payments', 'payments-prod');
}

async function previewAndConfirm(dialog: Locator, confirm = 'Confirm') {
  await dialog.getByRole('button', { name: 'Preview' }).click();
  await expect(dialog.getByRole('button', { name: confirm })).toBeVisible();
}

/** The switch's indicator takes the pointer: click its label, only when it must change. */
async function setAutoscaler(dialog: Locator, on: boolean) {
  const toggle = dialog.getByRole('switch');
  if ((await toggle.isChecked()) !== on)
    await dialog
      .getByText("AKS's cluster autoscaler sets the node count")
      .click();
  await expect(toggle).toBeChecked({ checked: on });
}

test('autoscaling on for a pool, then off: AKS then owns the count', async ({
  page,
}) => {
  // Two actions, each carried out by the simulated controllers.
  test.setTimeout(180_000);
  const open = await paymentsProd(page);
  const on = await open('Autoscaling', 'Autoscaling of a node pool');
  await on.getByRole('button', { name: /Node pool/ }).click();
  await page.getByRole('option', { name: /^api/ }).click();
  await setAutoscaler(on, true);
  await on.getByRole('textbox', { name: 'Minimum nodes' }).fill('2');
  await on.getByRole('textbox', { name: 'Maximum nodes' }).fill('6');
  await previewAndConfirm(on);
  await expect(on.getByText(/enableAutoScaling: .* → true/)).toBeVisible();
  await on.getByRole('button', { name: 'Confirm' }).click();
  await expect(on.getByRole('region', { name: 'Progress' })).toContainText(
    'pool api: autoscaling 2 to 6 nodes (done)',
    { timeout: 60_000 },
  );
  await expect(
    on.getByText('Done: Autoscaling of pool api on (2-6)'),
  ).toBeVisible();
  await on.getByRole('button', { name: 'Done' }).click();

  const off = await open('Autoscaling', 'Autoscaling of a node pool');
  await off.getByRole('button', { name: /Node pool/ }).click();
  await page.getByRole('option', { name: /^api/ }).click();
  await setAutoscaler(off, false);
  await previewAndConfirm(off);
  await off.getByRole('button', { name: 'Confirm' }).click();
  await expect(
    off.getByText('Applied: the controllers are working on it'),
  ).toBeVisible();
});

const TEAM = '/namespaces/team-payments';
const EXTRA = [
  `/apis/cluster.x-k8s.io/v1beta2${TEAM}/machinepools/payments-prod-extra`,
  `/apis/infrastructure.cluster.x-k8s.io/v1beta1${TEAM}/azureasomanagedmachinepools/payments-prod-extra`,
];

test('add a node pool: preview creates its objects, the pool comes up live', async ({
  page,
}) => {
  test.setTimeout(180_000);
  const open = await paymentsProd(page);
  const add = await open('Add node pool', 'Add a node pool');
  await add.getByRole('textbox', { name: 'Pool name' }).fill('extra');
  await previewAndConfirm(add);
  await expect(
    add.getByText('Create MachinePool team-payments/payments-prod-extra'),
  ).toBeVisible();
  await add.getByRole('button', { name: 'Confirm' }).click();
  try {
    await expect(add.getByRole('region', { name: 'Progress' })).toContainText(
      'pool extra: 1 of 1 node ready (done)',
      { timeout: 60_000 },
    );
  } finally {
    // Removing a pool through the menu is day2-lifecycle.spec.ts's (on platform-staging): here, delete its objects.
    for (const path of EXTRA) await kube('DELETE', path).catch(() => undefined);
  }
});

test("delete shows what Azure deletes and keeps before anything, and waits for the cluster's name", async ({
  page,
}) => {
  await signInAsGuest(page);
  await page.goto('/capz?q=payments-dev');
  await page
    .getByRole('region', { name: 'Clusters' })
    .getByRole('link', { name: 'payments-dev' })
    .click();
  await expect(page.getByRole('treegrid')).toBeVisible();
  await page.getByRole('button', { name: 'Cluster actions' }).click();
  await page.getByRole('menuitem', { name: 'Delete cluster' }).click();
  const dialog = page.getByRole('dialog', {
    name: 'Delete cluster payments-dev',
  });
  // ASO deletes the AKS cluster it manages (reconcile policy manage).
  await expect(
    dialog.getByRole('list', { name: 'Deleted in Azure' }),
  ).toContainText('Microsoft.ContainerService/managedClusters');
  await expect(dialog.getByText('Kept in Azure')).toBeVisible();
  const button = dialog.getByRole('button', { name: 'Delete the cluster' });
  await expect(button).toBeDisabled();
  await dialog
    .getByRole('textbox', { name: 'Type payments-dev to confirm' })
    .fill('payments-de');
  await expect(button).toBeDisabled();
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  // Nothing was deleted.
  expect(
    (await kube('GET', DEV_CLUSTER)).metadata.deletionTimestamp,
  ).toBeUndefined();
});

/** Starts recording every distinct text of the day-2 progress (the dialog's Progress region, the page's Last action). */
async function recordProgressTexts(page: Page) {
  await page.evaluate(() => {
    const seen: string[] = [];
    (window as any).__capzProgressTexts = seen;
    const read = () => {
      document
        .querySelectorAll(
          '[aria-label="Progress"], [aria-label^="Last action"]',
        )
        .forEach(el => {
          const text = el.textContent ?? '';
          if (text && seen[seen.length - 1] !== text) seen.push(text);
        });
    };
    new MutationObserver(read).observe(document.body, {
      subtree: true,
      childList: true,
      characterData: true,
    });
  });
}

async function progressTexts(page: Page): Promise<string[]> {
  return page.evaluate(() => (window as any).__capzProgressTexts ?? []);
}
