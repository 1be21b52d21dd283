import { Page, expect } from '@playwright/test';
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
