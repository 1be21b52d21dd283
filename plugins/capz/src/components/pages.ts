/**
 * The lazily loaded pages below /capz (the clusters page loads none of them). The plugin's page loader
 * starts the one the address asks for beside its own chunk, so a deep link or an in-app navigation to a cluster
 * does not wait for one chunk before asking for the next.
 */
export const loadClusterPage = () => import('./ClusterPage/ClusterPage');
export const loadJobPage = () => import('./JobPage/JobPage');
export const loadJobsPage = () => import('./JobPage/JobsPage');
export const loadFleetRunPage = () => import('./FleetRunPage/FleetRunPage');
export const loadFleetRunsPage = () => import('./FleetRunPage/FleetRunsPage');
export const loadAdoptWizard = () => import('./Wizard/AdoptWizard');
export const loadMigrateWizard = () => import('./Wizard/MigrateWizard');
export const loadUpgradeWizard = () => import('./Wizard/UpgradeWizard');

/** Starts loading the page of `pathname` (an address below /capz, matched by its end as routes.ts shapes it). */
export function preloadPage(pathname: string): void {
  const p = pathname.replace(/\/+$/, '');
  const load = [
    [/\/clusters\/[^/]+\/[^/]+\/[^/]+\/migrate$/, loadMigrateWizard],
    [/\/clusters\/[^/]+\/[^/]+\/[^/]+\/upgrade$/, loadUpgradeWizard],
    [/\/clusters\/[^/]+\/[^/]+\/[^/]+$/, loadClusterPage],
    [/\/jobs\/[^/]+$/, loadJobPage],
    [/\/jobs$/, loadJobsPage],
    [/\/fleet-runs\/[^/]+$/, loadFleetRunPage],
    [/\/fleet-runs$/, loadFleetRunsPage],
    [/\/adopt$/, loadAdoptWizard],
  ] as const;
  // A failed preload is reported by the page's own lazy import when it renders.
  load
    .find(([re]) => re.test(p))?.[1]()
    .catch(() => {});
}
