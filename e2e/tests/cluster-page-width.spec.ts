import { expect, test } from '@playwright/test';
import { saveScreenshot, signInAsGuest } from './helpers';

/**
 * The cluster page fits the window from 1280 px up (issue 23: at 1440 px the details panel's conditions table pushed
 * payments-prod's page 70 px wider than the window and wrapped "4 minutes ago" over three lines).
 */
for (const width of [1280, 1440]) {
  test(`the cluster page fits a ${width} px window; condition times stay on one line`, async ({
    page,
  }) => {
    await page.setViewportSize({ width, height: 900 });
    await signInAsGuest(page);
    await page.goto('/capz');
    await page
      .getByRole('region', { name: 'Clusters' })
      .getByRole('link', { name: 'payments-prod' })
      .click();
    await expect(page.getByRole('treegrid')).toBeVisible();
    const conditions = page.getByRole('table', {
      name: 'Conditions of Cluster payments-prod',
    });
    await expect(conditions).toBeVisible();
    await expect(conditions.getByRole('row')).not.toHaveCount(1);

    const overflow = await page.evaluate(
      () => document.documentElement.scrollWidth - window.innerWidth,
    );
    // The line count of each condition's time ("4 minutes ago"): the distinct tops of its text's line boxes.
    const lines = await conditions.evaluate(table =>
      [...table.querySelectorAll('time')].map(time => {
        const range = document.createRange();
        range.selectNodeContents(time);
        const tops = new Set(
          [...range.getClientRects()].map(r => Math.round(r.top)),
        );
        return `${time.textContent}: ${tops.size}`;
      }),
    );
    await saveScreenshot(page, `cluster-page-${width}`);
    expect(overflow).toBeLessThanOrEqual(0);
    expect(lines).not.toEqual([]);
    expect(lines.filter(l => !l.endsWith(': 1'))).toEqual([]);
  });
}
