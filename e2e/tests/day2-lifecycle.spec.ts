/**
 * Day-2 actions that change a cluster for good, each on a demo cluster no other test uses (capz-sim scenario `day2`,
 * namespace team-platform): upgrade platform-staging (v1.32.6; the simulated region offers 1.33) control plane then
 * one pool, remove its `jobs` pool, delete platform-sandbox (its resource group was made outside CAPZ and is on
 * reconcile-policy skip). Every step goes from the menu through the preview and the confirm to the result on the page.
 * Like wizards.spec.ts, these tests change the seeded world for good (a version, a pool, a cluster): they run once per
 * simulator, as scripts/test.sh starts one per run. Each test uses its own cluster or pool, so any order works.
 */
import { expect, Page, test } from '@playwright/test';
import { armGet } from './arm';
import {
  chooseInDialog,
  expectAxeClean,
  openClusterPage,
  saveScreenshot,
  signInAsGuest,
} from './helpers';
import { kube } from './kube';

const NS = 'team-platform';

/** Opens a cluster's page from the clusters list; returns a helper that opens an action's dialog from the menu. */
async function openCluster(page: Page, name: string) {
  await signInAsGuest(page);
  return openClusterPage(page, NS, name);
}

/** The line under the cluster's name: namespace · management cluster · API · version · location · pools. */
const facts = (page: Page) => page.getByText(new RegExp(`^${NS} · `));

test('upgrade the control plane to a version AKS offers, then one pool: the versions move live on the page', async ({
  page,
}) => {
  // Two upgrades, each carried out by the simulated AKS.
  test.setTimeout(240_000);
  const open = await openCluster(page, 'platform-staging');
  await expect(facts(page)).toContainText('v1.32.6');

  const cp = await open('Upgrade Kubernetes', 'Upgrade Kubernetes');
  await expect(
    cp.getByRole('radio', { name: 'The control plane (first)' }),
  ).toBeChecked();
  // Only what the region offers next: 1.33's patches, not the preview 1.34 (a skipped minor anyway).
  await cp.getByRole('button', { name: /Control plane version/ }).click();
  await expect(page.getByRole('option')).toHaveText(['v1.33.2', 'v1.33.1']);
  await page.getByRole('option', { name: 'v1.33.2' }).click();
  await cp.getByRole('button', { name: 'Preview' }).click();
  await expect(
    cp.getByRole('list', {
      name: `Fields of Update AzureASOManagedControlPlane ${NS}/platform-staging`,
    }),
  ).toContainText('spec.version: v1.32.6 → v1.33.2');
  await expectAxeClean(page);
  await cp.getByRole('button', { name: 'Confirm' }).click();
  await expect(cp.getByRole('region', { name: 'Progress' })).toContainText(
    'control plane: v1.33.2 (done)',
    { timeout: 90_000 },
  );
  await cp.getByRole('button', { name: 'Done' }).click();
  // The page follows without a reload.
  await expect(facts(page)).toContainText('v1.33.2');

  const pool = await open('Upgrade Kubernetes', 'Upgrade Kubernetes');
  // Pools behind the control plane: the dialog offers them, at the control plane's version only.
  await expect(
    pool.getByRole('radio', { name: /Node pools, to the control plane's/ }),
  ).toBeChecked();
  await chooseInDialog(page, pool, /Node pools to upgrade/, /^web \(/);
  await pool.getByRole('button', { name: 'Preview' }).click();
  await expect(
    pool.getByRole('list', {
      name: `Fields of Update MachinePool ${NS}/platform-staging-web`,
    }),
  ).toContainText('spec.template.spec.version: v1.32.6 → v1.33.2');
  await expectAxeClean(page);
  await pool.getByRole('button', { name: 'Confirm' }).click();
  await expect(pool.getByRole('region', { name: 'Progress' })).toContainText(
    /pool web: v?1\.33\.2 \(done\)/,
    { timeout: 90_000 },
  );
  await saveScreenshot(page, 'day2-upgrade-pool-done');
  // Only that pool moved: the others stay behind until someone upgrades them.
  const version = async (mp: string) =>
    (
      await kube(
        'GET',
        `/apis/cluster.x-k8s.io/v1beta2/namespaces/${NS}/machinepools/${mp}`,
      )
    ).spec.template.spec.version;
  expect(await version('platform-staging-web')).toBe('v1.33.2');
  expect(await version('platform-staging-system')).toBe('v1.32.6');
});

test('remove a node pool: the preview names the Azure agent pool that goes, then it is gone live', async ({
  page,
}) => {
  test.setTimeout(180_000);
  const open = await openCluster(page, 'platform-staging');
  await expect(facts(page)).toContainText('3/3 pools ready');

  const remove = await open('Remove node pool', 'Remove a node pool');
  await chooseInDialog(page, remove, /Node pool/, /^jobs/);
  await remove.getByRole('button', { name: 'Preview' }).click();
  await expect(
    remove.getByText(
      'Azure: agent pool jobs of AKS cluster platform-staging is deleted with its nodes',
      { exact: false },
    ),
  ).toBeVisible();
  await expect(
    remove.getByRole('list', { name: 'Changes to write' }),
  ).toContainText(`Delete MachinePool ${NS}/platform-staging-jobs`);
  await expectAxeClean(page);
  await remove.getByRole('button', { name: 'Remove the pool' }).click();
  await expect(remove.getByRole('region', { name: 'Progress' })).toContainText(
    'pool jobs: removed (done)',
    { timeout: 90_000 },
  );
  await remove.getByRole('button', { name: 'Done' }).click();
  await expect(facts(page)).toContainText('2/2 pools ready', {
    timeout: 60_000,
  });
  // What the preview said: Azure's agent pool is gone too.
  await expect
    .poll(
      async () =>
        (
          await armGet(
            '/resourceGroups/platform-staging/providers/Microsoft.ContainerService/managedClusters/platform-staging/agentPools/jobs',
            '2025-08-01',
          )
        ).status,
      { timeout: 60_000 },
    )
    .toBe(404);
});

test('delete a cluster whose resource group is on skip: the preview keeps the group, and Azure still has it', async ({
  page,
}) => {
  test.setTimeout(180_000);
  const open = await openCluster(page, 'platform-sandbox');
  const del = await open('Delete cluster', 'Delete cluster platform-sandbox');
  await expect(del.getByRole('list', { name: 'Kept in Azure' })).toContainText(
    'rg-platform-sandbox (Microsoft.Resources/resourceGroups',
  );
  await expect(
    del.getByRole('list', { name: 'Deleted in Azure' }),
  ).toContainText(
    'platform-sandbox (Microsoft.ContainerService/managedClusters',
  );
  await expect(
    del.getByRole('list', { name: 'Deleted in Azure' }),
  ).not.toContainText('Microsoft.Resources/resourceGroups');
  await expectAxeClean(page);
  const button = del.getByRole('button', { name: 'Delete the cluster' });
  await expect(button).toBeDisabled();
  await del
    .getByRole('textbox', { name: 'Type platform-sandbox to confirm' })
    .fill('platform-sandbox');
  await button.click();
  await expect(del.getByText('Deletion started')).toBeVisible();

  // To the list without a reload: the cluster leaves it once CAPI has deleted it. The page's breadcrumb, not the
  // dialog's link: a quick deletion (the simulator's 100 ms operations) can take the page, dialog included, first.
  await page
    .getByRole('navigation', { name: 'Breadcrumb' })
    .getByRole('link', { name: 'All clusters' })
    .click();
  // Both searched for (the table shows one page of 50: rows beyond it are not rendered, and a missing row proves nothing).
  await page.getByRole('searchbox', { name: 'Search' }).fill('platform-');
  const clusters = page.getByRole('region', { name: 'Clusters' });
  await expect(
    clusters.getByRole('link', { name: 'platform-staging', exact: true }),
  ).toBeVisible();
  await expect(
    clusters.getByRole('link', { name: 'platform-sandbox', exact: true }),
  ).toHaveCount(0, { timeout: 90_000 });
  await expect(
    kube(
      'GET',
      `/apis/cluster.x-k8s.io/v1beta2/namespaces/${NS}/clusters/platform-sandbox`,
    ),
  ).rejects.toThrow(/404/);

  // What the preview said happened in Azure: the AKS cluster is gone, the group made outside CAPZ is still there.
  expect(
    (
      await armGet(
        '/resourceGroups/rg-platform-sandbox/providers/Microsoft.ContainerService/managedClusters/platform-sandbox',
        '2025-08-01',
      )
    ).status,
  ).toBe(404);
  const group = await armGet(
    '/resourceGroups/rg-platform-sandbox',
    '2021-04-01',
  );
  expect(group.status).toBe(200);
  expect(group.body.tags).toEqual({ 'cost-center': 'platform' });
});
