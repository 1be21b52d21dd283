import { expect, Page, test } from '@playwright/test';
import { saveScreenshot, signInAsGuest } from './helpers';

/**
 * The cluster page fits the window from 1280 px up (issue 23: at 1440 px the details panel's conditions table pushed
 * payments-prod's page 70 px wider than the window and wrapped "4 minutes ago" over three lines). A healthy cluster,
 * and a degraded one whose tree rows carry reasons and messages (search-prod).
 */
const CLUSTERS = [
  { name: 'payments-prod', selected: 'Cluster payments-prod' },
  // Its page opens on the answer to "why is it not ready": the ManagedCluster.
  { name: 'search-prod', selected: 'ManagedCluster search-prod' },
];

/** How many lines each element's text takes: the distinct tops of its line boxes. */
const lineCounts = (page: Page, selector: string) =>
  page.locator(selector).evaluateAll(elements =>
    elements.map(el => {
      const range = document.createRange();
      range.selectNodeContents(el);
      const tops = new Set(
        [...range.getClientRects()].map(r => Math.round(r.top)),
      );
      return `${el.textContent}: ${tops.size}`;
    }),
  );

for (const width of [1280, 1440]) {
  for (const cluster of CLUSTERS) {
    test(`${cluster.name}'s page fits a ${width} px window; times stay on one line`, async ({
      page,
    }) => {
      await page.setViewportSize({ width, height: 900 });
      await signInAsGuest(page);
      await page.goto('/capz');
      await page
        .getByRole('region', { name: 'Clusters' })
        .getByRole('link', { name: cluster.name })
        .click();
      await expect(page.getByRole('treegrid')).toBeVisible();
      const details = page.getByRole('region', {
        name: `Details of ${cluster.selected}`,
      });
      const conditions = details.getByRole('table', {
        name: `Conditions of ${cluster.selected}`,
      });
      await expect(conditions).toBeVisible();
      await expect(conditions.getByRole('row')).not.toHaveCount(1);

      const overflow = await page.evaluate(
        () => document.documentElement.scrollWidth - window.innerWidth,
      );
      // Each condition's time ("4 minutes ago") and the panel's "since …" on one line each.
      const times = await lineCounts(
        page,
        `[aria-label="Details of ${cluster.selected}"] time`,
      );
      // No tree row runs past its column (into the details panel).
      const clipped = await page
        .getByRole('treegrid')
        .evaluate(tree =>
          [...tree.querySelectorAll('[role="row"]')]
            .filter(row => row.scrollWidth > row.clientWidth)
            .map(row => row.getAttribute('aria-label')),
        );
      await saveScreenshot(page, `cluster-page-${cluster.name}-${width}`);
      expect(overflow).toBeLessThanOrEqual(0);
      expect(times.length).toBeGreaterThan(1);
      expect(times.filter(l => !l.endsWith(': 1'))).toEqual([]);
      expect(clipped).toEqual([]);

      // The Events tab fits its panel too: no sideways scroll inside it (six columns did), times on one line.
      await details.getByRole('tab', { name: 'Events' }).click();
      const events = details.getByRole('table', { name: 'Recent Events' });
      await expect(events).toBeVisible();
      const sideways = await events.evaluate(
        t => t.scrollWidth - t.parentElement!.clientWidth,
      );
      const eventTimes = await lineCounts(
        page,
        `[aria-label="Details of ${cluster.selected}"] table[aria-label="Recent Events"] time`,
      );
      await saveScreenshot(
        page,
        `cluster-page-${cluster.name}-${width}-events`,
      );
      expect(sideways).toBeLessThanOrEqual(0);
      expect(eventTimes.filter(l => !l.endsWith(': 1'))).toEqual([]);
    });
  }
}
