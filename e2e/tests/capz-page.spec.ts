import { expect, test } from '@playwright/test';
import { saveScreenshot, signInAsGuest } from './helpers';

test('the AKS clusters page is in the nav and shows the management cluster connected', async ({
  page,
}) => {
  await signInAsGuest(page);
  const nav = page.getByRole('navigation', { name: 'sidebar nav' });
  await nav.getByRole('link', { name: 'AKS clusters' }).click();
  await expect(page).toHaveURL(/\/capz$/);
  await expect(
    page.getByRole('heading', { level: 1, name: 'AKS clusters' }),
  ).toBeVisible();

  const clusters = page.getByRole('list', { name: 'Management clusters' });
  await expect(clusters.getByText('Local management cluster')).toBeVisible();
  // The backend probes the real local API server; the version is what the Go build stamped.
  await expect(clusters.getByText(/Connected · v1\.35\.4/)).toBeVisible();
  await saveScreenshot(page, 'clusters-page');
});
