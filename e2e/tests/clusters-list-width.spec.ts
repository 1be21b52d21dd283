import { expect, test } from '@playwright/test';
import { saveScreenshot, signInAsGuest } from './helpers';

/**
 * The clusters list shows the why on the row: search-prod's reason in plain words, whole, at 1280 and 1920 px (a 1fr
 * column cut it to "Managed…" at 1280 and "ManagedCluster sear…" at 1920, and its message was only a tooltip), and
 * its message on the line under it.
 */
for (const width of [1280, 1920]) {
  test(`the clusters list at ${width} px: a degraded cluster's reason reads whole, its message on the row`, async ({
    page,
  }) => {
    await page.setViewportSize({ width, height: 900 });
    await signInAsGuest(page);
    await page.goto('/capz');
    const row = page
      .getByRole('region', { name: 'Clusters' })
      .getByRole('row', { name: /search-prod/ });
    const reason = row.getByText('Azure is busy with another operation', {
      exact: true,
    });
    await expect(reason).toBeVisible();
    await expect(row.getByText(/^ManagedCluster search-prod: /)).toBeVisible();
    // Whole: the text needs no more room than its box has (an ellipsis means scrollWidth > clientWidth).
    const cut = await reason.evaluate(el => el.scrollWidth - el.clientWidth);
    const overflow = await page.evaluate(
      () => document.documentElement.scrollWidth - window.innerWidth,
    );
    await saveScreenshot(page, `clusters-list-${width}`);
    expect(cut).toBeLessThanOrEqual(0);
    expect(overflow).toBeLessThanOrEqual(0);
  });
}
