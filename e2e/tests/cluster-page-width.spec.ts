import { expect, Page, test } from '@playwright/test';
import { saveScreenshot, signInAsGuest } from './helpers';
import { kube } from './kube';

/**
 * The cluster page fits the window from 1280 px up (at 1440 px the details panel's conditions table pushed
 * payments-prod's page 70 px wider than the window and wrapped "4 minutes ago" over three lines). A healthy cluster,
 * and a degraded one whose tree rows carry reasons and messages (search-prod).
 */
const CLUSTERS = [
  {
    name: 'payments-prod',
    selected: 'Cluster payments-prod',
    object: {
      apiVersion: 'cluster.x-k8s.io/v1beta2',
      kind: 'Cluster',
      namespace: 'team-payments',
      name: 'payments-prod',
      path: '/apis/cluster.x-k8s.io/v1beta2/namespaces/team-payments/clusters/payments-prod',
    },
  },
  // Its page opens on the answer to "why is it not ready": the ManagedCluster.
  {
    name: 'search-prod',
    selected: 'ManagedCluster search-prod',
    object: {
      apiVersion: 'containerservice.azure.com/v1api20240901',
      kind: 'ManagedCluster',
      namespace: 'team-search',
      name: 'search-prod',
      path: '/apis/containerservice.azure.com/v1api20240901/namespaces/team-search/managedclusters/search-prod',
    },
  },
];

/**
 * A Warning Event about the object, as a controller writes one (the demo's simulator writes none): a long message
 * without spaces to break at (an ARM id) and a source, the two free-text fields of the Events tab.
 */
async function eventAbout(
  o: (typeof CLUSTERS)[number]['object'],
  width: number,
) {
  const { metadata } = await kube('GET', o.path);
  const now = new Date().toISOString();
  await kube('POST', `/api/v1/namespaces/${o.namespace}/events`, {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: {
      namespace: o.namespace,
      name: `${o.name}.width-${width}-${Date.now()}`,
    },
    involvedObject: {
      apiVersion: o.apiVersion,
      kind: o.kind,
      namespace: o.namespace,
      name: o.name,
      uid: metadata.uid,
    },
    type: 'Warning',
    reason: 'ReconcileErrorWhileCheckingWidth',
    message: `Reconcile of /subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/${o.name}/providers/Microsoft.ContainerService/managedClusters/${o.name} failed: the check's long message`,
    source: { component: 'e2e-width-check' },
    count: 3,
    firstTimestamp: now,
    lastTimestamp: now,
  });
}

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
      await eventAbout(cluster.object, width);
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
