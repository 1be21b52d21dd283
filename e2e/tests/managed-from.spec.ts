import AxeBuilder from '@axe-core/playwright';
import { expect, test } from '@playwright/test';
import { saveScreenshot, signInAsGuest } from './helpers';
import { kube } from './kube';

/**
 * What no job can prevent: a ManagedCluster written by hand for an AKS cluster that a Cluster already
 * manages. The clusters page flags the Cluster as managed from two places. The duplicate is written through the API
 * server as a person with kubectl would, in a namespace of its own without an ASO credential (the simulated ASO, like
 * the real one, then never reaches Azure with it), and removed afterwards.
 */
const NS = 'e2e-duplicate';
const CS = '/apis/containerservice.azure.com/v1api20240901';
const RG = '/apis/resources.azure.com/v1api20200601';

test('a hand-made second ManagedCluster on an AKS cluster is flagged on the clusters page', async ({
  page,
}) => {
  // A hang detector above the waits below (30 s badge, up to 120 s for the delete, 30 s for the flag to go).
  test.setTimeout(240_000);
  // The AKS cluster behind team-payments/payments-prod, as ASO recorded it.
  const original = await kube(
    'GET',
    `${CS}/namespaces/team-payments/managedclusters/payments-prod`,
  );
  const id: string = original.status?.id ?? '';
  const group = id.split('/')[4];
  expect(
    group,
    `ManagedCluster team-payments/payments-prod has status.id ${id}`,
  ).toBeTruthy();
  const azureName: string = original.spec.azureName ?? original.metadata.name;

  await signInAsGuest(page);
  // Searched for: the clusters table shows one page of 50, and rows further down the unfiltered list may not be.
  await page.goto('/capz?q=payments-');
  const row = page
    .getByRole('region', { name: 'Clusters' })
    .getByRole('row', { name: /payments-prod/ });
  await expect(row).toBeVisible();
  await expect(row.getByText(/Managed from/)).toHaveCount(0);
  // From here on the page must follow without a reload (the backend pushes the change of managedFrom).
  await page.evaluate(() => ((window as any).__capzNoReload = true));

  await kube('POST', '/api/v1/namespaces', {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: NS },
  });
  let deleted = false;
  const removeCopy = async () => {
    if (deleted) return;
    deleted = true;
    await kube(
      'DELETE',
      `${CS}/namespaces/${NS}/managedclusters/payments-copy`,
    ).catch(() => undefined);
    await kube('DELETE', `${RG}/namespaces/${NS}/resourcegroups/copy-rg`).catch(
      () => undefined,
    );
  };
  try {
    await kube('POST', `${RG}/namespaces/${NS}/resourcegroups`, {
      apiVersion: 'resources.azure.com/v1api20200601',
      kind: 'ResourceGroup',
      metadata: { name: 'copy-rg', namespace: NS },
      spec: { azureName: group, location: original.spec.location },
    });
    const t0 = Date.now();
    await kube('POST', `${CS}/namespaces/${NS}/managedclusters`, {
      apiVersion: 'containerservice.azure.com/v1api20240901',
      kind: 'ManagedCluster',
      metadata: { name: 'payments-copy', namespace: NS },
      spec: {
        azureName,
        owner: { name: 'copy-rg' },
        location: original.spec.location,
        dnsPrefix: 'payments-copy',
      },
    });

    await expect(row.getByText('Managed from 2 places')).toBeVisible({
      timeout: 30_000,
    });
    console.log(
      `[managed-from] badge shown ${
        Date.now() - t0
      } ms after the duplicate was written, without reload`,
    );
    await expect(
      row.getByText(`Also: local/${NS}/payments-copy`),
    ).toBeVisible();
    await expect(
      page.getByText('1 cluster is managed from more than one place'),
    ).toBeVisible();
    // Only that cluster: payments-dev (another AKS cluster) is not flagged.
    await expect(
      page.getByRole('row', { name: /payments-dev/ }).getByText(/Managed from/),
    ).toHaveCount(0);
    await saveScreenshot(page, 'clusters-page-managed-from');
    const { violations } = await new AxeBuilder({ page })
      .include('[aria-label="Clusters"]')
      .analyze();
    expect(
      violations.map(
        v =>
          `${v.id}: ${v.help} (${v.nodes
            .map(n => `${n.target.join(' ')}: ${n.failureSummary}`)
            .join('; ')})`,
      ),
    ).toEqual([]);

    // Removed, the flag goes too. The API server first: on a busy machine the simulated ASO's finalizer can hold the
    // copy a while, and the page is only asked to follow what the API server holds (the bound only detects a hang).
    await removeCopy();
    await expect
      .poll(
        () =>
          kube(
            'GET',
            `${CS}/namespaces/${NS}/managedclusters/payments-copy`,
          ).then(
            () => 'still there',
            (e: Error) => (/: 404 /.test(e.message) ? 'gone' : e.message),
          ),
        {
          timeout: 120_000,
          message: `ManagedCluster ${NS}/payments-copy deleted`,
        },
      )
      .toBe('gone');
    await expect(row.getByText(/Managed from/)).toHaveCount(0, {
      timeout: 30_000,
    });
    expect(await page.evaluate(() => (window as any).__capzNoReload)).toBe(
      true,
    );
  } finally {
    await removeCopy();
    await kube('DELETE', `/api/v1/namespaces/${NS}`).catch(() => undefined);
  }
});
