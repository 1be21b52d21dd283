import { expect, test, type Page } from '@playwright/test';
import { signInAsGuest, signInAsTeamMember } from './helpers';
import { lift, refuse, type Refusal } from './admission';

/**
 * Two people of the demo organisation (catalog/org.yaml) under the app's permission policy
 * (packages/backend/src/permissionPolicy.ts): Pat, a developer of the payments team, which owns team-payments'
 * clusters (capz.io/owner), and the guest, a member of the platform group, which owns the rest and may do everything.
 * Each signs in on the sign-in page in a browser of their own.
 */

/**
 * The clusters the clusters page lists, by name, for a search when given: the table shows one page of 50 (rows further
 * down a long list are not rendered), so a user who sees many clusters is asked with a search that keeps the few it checks.
 */
async function listed(page: Page, search?: string): Promise<string[]> {
  await page.goto(search ? `/capz?q=${search}` : '/capz');
  const region = page.getByRole('region', { name: 'Clusters' });
  await expect(
    region.getByRole('link', { name: 'payments-prod', exact: true }),
  ).toBeVisible();
  // Each row links its cluster's page by the cluster's name.
  return (await region.getByRole('link').allInnerTexts()).map(t => t.trim());
}

/**
 * Opens the clusters page and waits for the policy's answers on the jobs (adopt, migrate): the page shows the jobs'
 * links only once allowed, and none while it asks, so a link missing before the answers would prove nothing.
 */
async function clustersPageAnswered(page: Page): Promise<void> {
  const answered = (permission: string) =>
    page.waitForResponse(
      r =>
        new URL(r.url()).pathname === '/api/permission/authorize' &&
        r.ok() &&
        (r.request().postData() ?? '').includes(`"${permission}"`),
    );
  const answers = Promise.all([
    answered('capz.cluster.adopt'),
    answered('capz.cluster.migrate'),
  ]);
  await page.goto('/capz');
  await answers;
  await expect(page.getByRole('region', { name: 'Clusters' })).toBeVisible();
}

/** A link of the page by its whole name. */
const link = (page: Page, name: string) =>
  page.getByRole('link', { name, exact: true });

/** The items of payments-prod's "Cluster actions" menu. */
async function menuOfPaymentsProd(page: Page): Promise<string[]> {
  await page.goto('/capz?q=payments-prod');
  await page
    .getByRole('region', { name: 'Clusters' })
    .getByRole('link', { name: 'payments-prod', exact: true })
    .click();
  await expect(page.getByRole('treegrid')).toBeVisible();
  await page.getByRole('button', { name: 'Cluster actions' }).click();
  const menu = page.getByRole('menu');
  await expect(
    menu.getByRole('menuitem', { name: 'Scale pool' }),
  ).toBeVisible();
  const items = await menu.getByRole('menuitem').allInnerTexts();
  await page.keyboard.press('Escape');
  return items.map(i => i.trim());
}

/**
 * The titles of the user's unread notifications as the notifications page (the bell's) loads them: its own request's
 * answer, awaited, so that an empty list is the user's and not a page still loading. All of them: the page asks for 5
 * at a time (@backstage/plugin-notifications' NotificationsPage), and the other specs tell this user more than that.
 */
async function notificationTitles(page: Page): Promise<string[]> {
  // From a blank page: no request of the previous page can be taken for this one's.
  await page.goto('about:blank');
  await page.route(/\/api\/notifications\/notifications\?/, route => {
    const url = new URL(route.request().url());
    if (url.searchParams.has('limit')) url.searchParams.set('limit', '1000');
    return route.continue({ url: url.toString() });
  });
  let titles: string[] | undefined;
  await Promise.all([
    page.waitForResponse(async r => {
      if (
        !/\/api\/notifications\/notifications(\?|$)/.test(r.url()) ||
        r.request().method() !== 'GET' ||
        r.status() !== 200
      )
        return false;
      // Read here: the page may replace the request before the test reads its answer.
      const body = (await r.json()) as {
        notifications: { payload: { title: string } }[];
      };
      titles = body.notifications.map(n => n.payload.title);
      return true;
    }),
    page.goto('/notifications'),
  ]);
  await page.unrouteAll({ behavior: 'ignoreErrors' });
  return titles!;
}

test("a team member sees and acts on their team's clusters only; the platform sees every cluster and may delete", async ({
  browser,
}) => {
  // A hang detector: each step below waits for the page, at most the config's 20 s.
  test.setTimeout(180_000);
  const pat = await (await browser.newContext()).newPage();
  await signInAsTeamMember(pat);
  const patSees = await listed(pat);
  expect(patSees).toContain('payments-prod');
  // Owned by the platform (the default owner): neither listed nor readable for Pat.
  expect(patSees).not.toContain('search-prod');
  expect(patSees).not.toContain('platform-staging');
  // The jobs (adopt, migrate) are the platform's: no link to them. A team may still ask for a cluster it will own.
  await clustersPageAnswered(pat);
  await expect(link(pat, 'New AKS cluster')).toBeVisible();
  await expect(link(pat, 'Adopt AKS cluster')).toHaveCount(0);
  await expect(link(pat, 'Jobs')).toHaveCount(0);
  const patMenu = await menuOfPaymentsProd(pat);
  expect(patMenu).toEqual(expect.arrayContaining(['Scale pool', 'Connect']));
  // Deletes are the platform's.
  expect(patMenu).not.toContain('Delete cluster');
  // A platform cluster's page by its address: refused, in words.
  const managementCluster = /\/capz\/clusters\/([^/]+)\//.exec(pat.url())![1];
  await pat.goto(`/capz/clusters/${managementCluster}/team-search/search-prod`);
  await expect(
    pat.getByText(/Not allowed to read clusters in [^ ]+\/team-search/),
  ).toBeVisible();

  const guest = await (await browser.newContext()).newPage();
  await signInAsGuest(guest);
  const guestSees = await listed(guest, 'prod');
  expect(guestSees).toEqual(
    expect.arrayContaining(['payments-prod', 'search-prod']),
  );
  expect(await menuOfPaymentsProd(guest)).toContain('Delete cluster');
  await clustersPageAnswered(guest);
  for (const name of ['Jobs', 'New AKS cluster', 'Adopt AKS cluster'])
    await expect(link(guest, name)).toBeVisible();
});

test("a cluster degraded past capz.notifications.unhealthyAfter is in its owners' notifications once, and not in another team's", async ({
  browser,
}) => {
  // team-search/search-prod is degraded from the start (capz-sim's failing-aso scenario) and owned by the platform;
  // e2e/app-config.e2e.yaml sets unhealthyAfter to 10 s; the check waits for the catalog to hold the cluster's entity
  // (up to ~2.5 min after a fresh backend's start when this file runs alone). Hang detectors: the poll, then the test.
  test.setTimeout(360_000);
  const t0 = Date.now();
  const guest = await (await browser.newContext()).newPage();
  await signInAsGuest(guest);
  const told = /^team-search\/search-prod has been degraded for \d+ minutes?$/;
  await expect
    .poll(() => notificationTitles(guest), {
      timeout: 300_000,
      intervals: [2_000],
    })
    .toContainEqual(expect.stringMatching(told));
  console.log(
    `the guest's notifications held search-prod's after ${Math.round(
      (Date.now() - t0) / 1000,
    )} s of this test`,
  );
  const guestTitles = await notificationTitles(guest);
  console.log(`the guest has ${guestTitles.length} unread notifications`);
  expect(guestTitles.filter(t => told.test(t))).toHaveLength(1);
  // On the page too, once: found with the page's own filter (its search, sent to the backend), since the page shows
  // 5 at a time, newest first, and the other specs tell the guest more, and later, than this degraded-from-the-start
  // cluster's notice.
  await guest.getByPlaceholder('Filter').fill('search-prod');
  await expect(guest.getByText(told)).toHaveCount(1);

  const pat = await (await browser.newContext()).newPage();
  await signInAsTeamMember(pat);
  expect(
    (await notificationTitles(pat)).filter(t => /search-prod/.test(t)),
  ).toEqual([]);
});

/** A legacy cluster of the platform (capz-sim's legacy-to-migrate; the default owner) that no other spec migrates. */
const LEGACY = { namespace: 'team-data', name: 'data-secure' };
/** Its catalog entity, through which the notifications backend finds its owners (clusterEntityName). */
const LEGACY_ENTITY = `local-${LEGACY.namespace}-${LEGACY.name}`;
/**
 * An admission policy on the management cluster that refuses to pause data-secure's Cluster: the migration's first
 * write, so the job fails at its first step, right after a preflight that passed, and changes nothing (the preflight
 * reads; it cannot see a policy). Nothing in the simulated world fails a job on its own that fast.
 */
const REFUSAL: Refusal = {
  name: 'e2e-owners-data-secure-stays-unpaused',
  namespace: LEGACY.namespace,
  apiGroup: 'cluster.x-k8s.io',
  resource: 'clusters',
  resourceName: LEGACY.name,
  expression:
    '!(has(object.spec.paused) && object.spec.paused) || (has(oldObject.spec.paused) && oldObject.spec.paused)',
  message: 'data-secure stays unpaused (e2e owners.spec)',
  probe: {
    path: `/apis/cluster.x-k8s.io/v1beta2/namespaces/${LEGACY.namespace}/clusters/${LEGACY.name}`,
    patch: { spec: { paused: true } },
  },
};
const REFUSED = REFUSAL.message;

/** The user's backend token, as the app sends it with its own requests. */
async function tokenOf(page: Page): Promise<string> {
  const request = page.waitForRequest(
    r => r.url().includes('/api/capz/') && !!r.headers().authorization,
  );
  await page.goto('/capz');
  return (await request).headers().authorization;
}

test("a job's failure is in its cluster owners' notifications once, and not in another team's", async ({
  browser,
}) => {
  // Hang detectors: the catalog's first read of the clusters (up to ~2.5 min after a fresh backend's start when this
  // test runs alone), the preflight's wait for a healthy cluster, then the test.
  test.setTimeout(360_000);
  const t0 = Date.now();
  const since = (t: number) => `${Math.round((Date.now() - t) / 1000)} s`;
  const guest = await (await browser.newContext()).newPage();
  await signInAsGuest(guest);
  // A notification addressed to an entity the catalog does not hold reaches nobody: first the catalog holds it.
  const authorization = await tokenOf(guest);
  await expect
    .poll(
      async () =>
        (
          await guest.request.get(
            `/api/catalog/entities/by-name/resource/default/${LEGACY_ENTITY}`,
            { headers: { authorization } },
          )
        ).status(),
      { timeout: 240_000, intervals: [2_000] },
    )
    .toBe(200);
  const held = since(t0);

  await refuse(REFUSAL);
  try {
    // The guest (the platform) starts the migration from the clusters page, as in wizards.spec.
    await guest.goto('/capz');
    await guest.getByRole('searchbox', { name: 'Search' }).fill(LEGACY.name);
    await guest
      .getByRole('region', { name: 'Clusters' })
      .getByRole('link', {
        name: `Migration candidate: migrate ${LEGACY.name} to the ASO API`,
      })
      .click();
    await guest
      .getByRole('textbox', { name: 'Target namespace' })
      .fill(`${LEGACY.namespace}-${LEGACY.name}-aso`);
    // The preflight passes (it requires the cluster healthy: the simulator's first minute may not have made it so).
    await expect(async () => {
      await guest.getByRole('button', { name: 'Check and preview' }).click();
      await expect(guest.getByTestId('start-job')).toBeEnabled({
        timeout: 10_000,
      });
    }).toPass({ timeout: 120_000 });
    const previewed = since(t0);
    await guest.getByTestId('start-job').click();
    const started = Date.now();
    await expect(guest).toHaveURL(/\/capz\/jobs\/[0-9a-f-]{36}$/);
    const jobPath = new URL(guest.url()).pathname;

    // The job's page: failed at its first step, with the API server's refusal.
    await expect(guest.getByTestId('job-state')).toHaveText('Failed', {
      timeout: 60_000,
    });
    await expect(
      guest.locator('[data-testid="job-step"][data-state="failed"]'),
    ).toHaveText([/Pause the old cluster/]);
    await expect(guest.getByText(REFUSED).first()).toBeVisible();
    const failed = since(started);

    // The owners (the platform: the guest) are told, once, with a link to the job.
    const told = `Migration of ${LEGACY.namespace}/${LEGACY.name} failed`;
    await expect
      .poll(() => notificationTitles(guest), {
        timeout: 60_000,
        intervals: [1_000],
      })
      .toContain(told);
    console.log(
      `the catalog held ${LEGACY_ENTITY} after ${held} of this test, the preflight passed after ${previewed}; the job failed ${failed} after Start, and the guest's notifications held it ${since(
        started,
      )} after Start`,
    );
    expect(
      (await notificationTitles(guest)).filter(t => t === told),
    ).toHaveLength(1);
    const notification = guest.getByRole('link', { name: told });
    await expect(notification).toHaveCount(1);
    await expect(notification).toHaveAttribute('href', jobPath);

    // Pat (payments) does not own data-secure: nothing about it.
    const pat = await (await browser.newContext()).newPage();
    await signInAsTeamMember(pat);
    expect(
      (await notificationTitles(pat)).filter(t => t.includes(LEGACY.name)),
    ).toEqual([]);
  } finally {
    await lift(REFUSAL);
  }
});
