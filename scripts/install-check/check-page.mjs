#!/usr/bin/env node
/**
 * The installed app in Chromium (Debian's, through playwright-core, as e2e/ does): signs in as the guest, opens the
 * AKS clusters page and checks that it lists the clusters the user may read and none other.
 * Usage: check-page.mjs <base url> <screenshot file> --expect a,b --absent c,d
 */
import { mkdtempSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

const require = createRequire(
  join(process.env.CAPZ_ROOT ?? process.cwd(), 'package.json'),
);
const { chromium } = require('playwright-core');

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: {
    expect: { type: 'string', default: '' },
    absent: { type: 'string', default: '' },
  },
});
const [baseUrl, screenshot] = positionals;
const expected = values.expect.split(',').filter(Boolean);
const absent = values.absent.split(',').filter(Boolean);

const context = await chromium.launchPersistentContext(
  mkdtempSync(join(tmpdir(), 'install-check-chromium-')),
  {
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  },
);
const page = context.pages()[0] ?? (await context.newPage());
try {
  await page.goto(`${baseUrl}/capz`);
  // The template's sign-in page offers the guest provider.
  const enter = page.getByRole('button', { name: 'Enter' });
  await enter.waitFor({ timeout: 60_000 });
  await enter.click();
  await page
    .getByRole('link', { name: 'AKS clusters' })
    .first()
    .waitFor({ timeout: 60_000 });
  await page.goto(`${baseUrl}/capz`);
  await page
    .getByRole('heading', { level: 1, name: 'AKS clusters' })
    .waitFor({ timeout: 60_000 });
  for (const name of expected) {
    await page
      .getByText(name, { exact: true })
      .first()
      .waitFor({ timeout: 90_000 });
    console.error(`check-page: ${name} listed`);
  }
  for (const name of absent) {
    const n = await page.getByText(name, { exact: true }).count();
    if (n > 0)
      throw new Error(
        `${name} is listed, but the permission policy should hide it`,
      );
    console.error(
      `check-page: ${name} not listed (hidden by the permission policy)`,
    );
  }
  await page.screenshot({ path: screenshot, fullPage: true });
} catch (e) {
  await page.screenshot({ path: screenshot, fullPage: true }).catch(() => {});
  console.error(`check-page: ${e.message}\n(screenshot: ${screenshot})`);
  process.exitCode = 1;
} finally {
  await context.close();
}
