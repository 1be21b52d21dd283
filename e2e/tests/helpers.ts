import AxeBuilder from '@axe-core/playwright';
import { Locator, Page, expect } from '@playwright/test';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';

/** Signs in with the guest provider, as a person does on the sign-in page. */
export async function signInAsGuest(page: Page): Promise<void> {
  await page.goto('/');
  const enter = page.getByRole('button', { name: 'Enter' });
  await expect(enter).toBeVisible();
  await enter.click();
  // Signed in once the app shell is there; navigating before that would land on the sign-in page again.
  await expect(
    page
      .getByTestId('sidebar-root')
      .getByRole('link', { name: 'AKS clusters' }),
  ).toBeVisible();
}

/**
 * Signs in as the demo's team member (the backend's demo-team-member provider: catalog/org.yaml's pat, a developer of
 * the payments team), as a person does with the sign-in page's "Team member" card.
 */
export async function signInAsTeamMember(page: Page): Promise<void> {
  await page.goto('/');
  const card = page
    .getByText('Team member', { exact: true })
    .locator('xpath=ancestor::*[.//button][1]');
  await card.getByRole('button', { name: 'Sign In' }).click();
  await expect(
    page
      .getByTestId('sidebar-root')
      .getByRole('link', { name: 'AKS clusters' }),
  ).toBeVisible();
}

/**
 * Opens a cluster's page from the clusters list (signed in already) and returns a function that opens one of its
 * actions' dialogs by its menu item and title.
 */
export async function openClusterPage(
  page: Page,
  namespace: string,
  name: string,
): Promise<(item: string, title: string) => Promise<Locator>> {
  // Searched for: the clusters table shows one page of 50, so a cluster further down the unfiltered list may not be.
  await page.goto(`/capz?q=${encodeURIComponent(name)}`);
  await page
    .getByRole('region', { name: 'Clusters' })
    .getByRole('link', { name, exact: true })
    .click();
  await expect(page).toHaveURL(
    new RegExp(`/capz/clusters/[^/]+/${namespace}/${name}$`),
  );
  await expect(page.getByRole('treegrid')).toBeVisible();
  return async (item: string, title: string) => {
    await page.getByRole('button', { name: 'Cluster actions' }).click();
    await page.getByRole('menuitem', { name: item }).click();
    return page.getByRole('dialog', { name: title });
  };
}

/** Saves a full-page screenshot under e2e/artifacts (ignored by git) for people to look at. */
export async function saveScreenshot(
  page: Page,
  name: string,
): Promise<string> {
  const dir = join(__dirname, '..', 'artifacts');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  return file;
}

/** No axe violation inside the selected elements (a dialog by default). */
export async function expectAxeClean(
  page: Page,
  selectors: string | string[] = '[role="dialog"]',
): Promise<void> {
  let builder = new AxeBuilder({ page });
  for (const selector of ([] as string[]).concat(selectors))
    builder = builder.include(selector);
  const { violations } = await builder.analyze();
  expect(
    violations.map(
      v =>
        `${v.id}: ${v.help} (${v.nodes
          .map(n => n.target.join(' '))
          .join(', ')})`,
    ),
  ).toEqual([]);
}

/** Chooses an option of a select in a dialog (a BUI select: a button named by its label, then a listbox). */
export async function chooseInDialog(
  page: Page,
  dialog: Locator,
  select: RegExp,
  option: RegExp,
): Promise<void> {
  await dialog.getByRole('button', { name: select }).click();
  await page.getByRole('option', { name: option }).click();
}
