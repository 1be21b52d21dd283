/**
 * The pages as a first-time user meets them, at 1280×800 and 1920×1080: the clusters list, a degraded cluster and its
 * timeline, and every day-2 dialog up to its preview (nothing confirmed). Each is axe-clean and saved under
 * e2e/artifacts/tour-<width>-*.png for people to look at; nothing the previews show is written.
 */
import { expect, Locator, Page, test } from '@playwright/test';
import {
  chooseInDialog,
  expectAxeClean,
  openClusterPage,
  saveScreenshot,
  signInAsGuest,
} from './helpers';
import { kube } from './kube';

const NS = 'team-payments';
const SIZES = [
  { width: 1280, height: 800 },
  { width: 1920, height: 1080 },
];

/** Previews, waits for the plan (its Confirm, or the words that nothing changes), saves, checks axe, cancels. */
async function preview(
  page: Page,
  dialog: Locator,
  shot: string,
  confirm = 'Confirm',
) {
  await dialog.getByRole('button', { name: 'Preview' }).click();
  await expect(
    dialog
      .getByRole('button', { name: confirm })
      .or(dialog.getByText(/^Nothing to change/)),
  ).toBeVisible();
  await saveScreenshot(page, shot);
  await expectAxeClean(page, '[role="dialog"]');
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await expect(dialog).toBeHidden();
}

/**
 * The resource tree's names that show fewer than 12 of their characters (or all of a shorter name): a pool name cut
 * to "s…" at 1280 px was the complaint. Each name is a span whose title is its whole text.
 */
async function cutNames(page: Page): Promise<string[]> {
  return page
    .getByRole('treegrid')
    .locator('span[title]')
    .evaluateAll(spans =>
      spans
        .filter(s => s.textContent && s.textContent === s.getAttribute('title'))
        .filter(s => {
          const text = s.textContent!;
          if (s.scrollWidth <= s.clientWidth) return false;
          const visible = s.clientWidth / (s.scrollWidth / text.length);
          return visible < Math.min(text.length, 12) - 0.5;
        })
        .map(s => s.textContent!),
    );
}

/** What a preview must never change: the generation of the cluster's CAPI objects (their spec). */
async function generations(cluster: string, ns = NS) {
  const capi = `/apis/cluster.x-k8s.io/v1beta2/namespaces/${ns}`;
  const pools = await kube(
    'GET',
    `${capi}/machinepools?labelSelector=cluster.x-k8s.io/cluster-name=${cluster}`,
  );
  const c = await kube('GET', `${capi}/clusters/${cluster}`);
  return Object.fromEntries([
    [`Cluster/${cluster}`, c.metadata.generation],
    ...pools.items.map((p: any) => [
      `MachinePool/${p.metadata.name}`,
      p.metadata.generation,
    ]),
  ]);
}

for (const size of SIZES) {
  test.describe(`at ${size.width}×${size.height}`, () => {
    test.use({ viewport: size });
    const at = (name: string) => `tour-${size.width}-${name}`;

    test('the clusters list, a degraded cluster and its timeline', async ({
      page,
    }) => {
      await signInAsGuest(page);
      await page.goto('/capz');
      const list = page.getByRole('region', { name: 'Clusters' });
      await expect(
        list.getByRole('link', { name: 'search-prod' }),
      ).toBeVisible();
      await saveScreenshot(page, at('clusters-list'));
      await expectAxeClean(page, '[aria-label="Clusters"]');

      await openClusterPage(page, 'team-search', 'search-prod');
      await saveScreenshot(page, at('degraded-cluster'));
      await expectAxeClean(page, '[role="tabpanel"]');

      await page
        .getByRole('tablist', { name: 'Cluster views' })
        .getByRole('tab', { name: 'Timeline' })
        .click();
      await expect(page.getByRole('tabpanel')).toBeVisible();
      await saveScreenshot(page, at('timeline'));
      await expectAxeClean(page, '[role="tabpanel"]');
    });

    test('every day-2 dialog up to its preview, nothing written', async ({
      page,
    }) => {
      test.setTimeout(180_000);
      const before = await generations('payments-prod');
      await signInAsGuest(page);
      const openAction = await openClusterPage(page, NS, 'payments-prod');
      expect(await cutNames(page)).toEqual([]);

      const scale = await openAction('Scale pool', 'Scale a node pool');
      await chooseInDialog(page, scale, /Node pool/, /^system/);
      await scale.getByRole('textbox', { name: /Nodes/ }).fill('4');
      await preview(page, scale, at('preview-scale'));

      const auto = await openAction(
        'Autoscaling',
        'Autoscaling of a node pool',
      );
      await chooseInDialog(page, auto, /Node pool/, /^batch/);
      const toggle = auto.getByRole('switch');
      if (!(await toggle.isChecked()))
        await auto
          .getByText("AKS's cluster autoscaler sets the node count")
          .click();
      await expect(toggle).toBeChecked();
      await auto.getByRole('textbox', { name: 'Minimum nodes' }).fill('1');
      await auto.getByRole('textbox', { name: 'Maximum nodes' }).fill('5');
      await preview(page, auto, at('preview-autoscale'));

      const add = await openAction('Add node pool', 'Add a node pool');
      const poolName = add.getByRole('textbox', { name: 'Pool name' });
      // A name field wide enough to read a name in (it was ~90 px).
      expect((await poolName.boundingBox())!.width).toBeGreaterThanOrEqual(200);
      await poolName.fill('tour');
      await preview(page, add, at('preview-add-pool'));

      const remove = await openAction('Remove node pool', 'Remove a node pool');
      await chooseInDialog(page, remove, /Node pool/, /^batch/);
      await preview(page, remove, at('preview-remove-pool'), 'Remove the pool');

      const pause = await openAction('Pause', 'Pause reconciliation');
      await preview(page, pause, at('preview-pause'));

      // payments-prod runs the newest version the region offers: the dialog says so (no preview to make).
      const upgrade = await openAction(
        'Upgrade Kubernetes',
        'Upgrade Kubernetes',
      );
      await saveScreenshot(page, at('upgrade'));
      await expectAxeClean(page, '[role="dialog"]');
      await upgrade.getByRole('button', { name: 'Cancel' }).click();

      const del = await openAction(
        'Delete cluster',
        'Delete cluster payments-prod',
      );
      await expect(
        del.getByRole('list', { name: 'Deleted in Azure' }),
      ).toBeVisible();
      await saveScreenshot(page, at('preview-delete'));
      await expectAxeClean(page, '[role="dialog"]');
      await del.getByRole('button', { name: 'Cancel' }).click();
      await expect(del).toBeHidden();

      expect(await generations('payments-prod')).toEqual(before);
    });

    test('an upgrade up to its preview, nothing written', async ({ page }) => {
      // platform-staging (team-platform) has something to upgrade: its control plane (v1.32.6 as seeded), or, once
      // day2-lifecycle.spec.ts has upgraded that, the pools left behind it.
      const ns = 'team-platform';
      const before = await generations('platform-staging', ns);
      await signInAsGuest(page);
      const openAction = await openClusterPage(page, ns, 'platform-staging');
      const upgrade = await openAction(
        'Upgrade Kubernetes',
        'Upgrade Kubernetes',
      );
      const controlPlane = upgrade.getByRole('radio', {
        name: 'The control plane (first)',
      });
      await expect(controlPlane).toBeVisible();
      if ((await controlPlane.isEnabled()) && (await controlPlane.isChecked()))
        await chooseInDialog(page, upgrade, /Control plane version/, /^v1\.33/);
      await preview(page, upgrade, at('preview-upgrade'));
      expect(await generations('platform-staging', ns)).toEqual(before);
    });
  });
}
