import { Skeleton } from '@backstage/ui';
import { lazy, ReactNode, Suspense } from 'react';
import { Route, Routes } from 'react-router-dom';
import { ClustersPage } from './ClustersPage/ClustersPage';
import {
  loadAdoptWizard,
  loadClusterPage,
  loadFleetRunPage,
  loadFleetRunsPage,
  loadJobPage,
  loadJobsPage,
  loadMigrateWizard,
  loadUpgradeWizard,
} from './pages';

// Every page below the clusters page is its own chunk: the clusters page loads neither the cluster page
// (tree, timeline) nor the wizards and the job page, and a cluster page does not load the wizards. The clusters page
// itself comes with this chunk: a lazy one would add a second round trip after the plugin's.
const ClusterPage = lazy(() =>
  loadClusterPage().then(m => ({ default: m.ClusterPage })),
);
const JobPage = lazy(() => loadJobPage().then(m => ({ default: m.JobPage })));
const FleetRunPage = lazy(() =>
  loadFleetRunPage().then(m => ({ default: m.FleetRunPage })),
);
const FleetRunsPage = lazy(() =>
  loadFleetRunsPage().then(m => ({ default: m.FleetRunsPage })),
);
const JobsPage = lazy(() =>
  loadJobsPage().then(m => ({ default: m.JobsPage })),
);
const AdoptWizard = lazy(() =>
  loadAdoptWizard().then(m => ({ default: m.AdoptWizard })),
);
const MigrateWizard = lazy(() =>
  loadMigrateWizard().then(m => ({ default: m.MigrateWizard })),
);
const UpgradeWizard = lazy(() =>
  loadUpgradeWizard().then(m => ({ default: m.UpgradeWizard })),
);

function Page({ children }: { children: ReactNode }) {
  return (
    <Suspense
      fallback={
        <div role="status" aria-label="Loading the page">
          <Skeleton width="100%" height={32} />
        </div>
      }
    >
      {children}
    </Suspense>
  );
}

/** Everything under /capz: the clusters list, each cluster's page, the job wizards and job pages (routes.ts). */
export function CapzPage() {
  return (
    <Routes>
      <Route path="/" element={<ClustersPage />} />
      <Route
        path="/clusters/:managementCluster/:namespace/:name"
        element={
          <Page>
            <ClusterPage />
          </Page>
        }
      />
      <Route
        path="/adopt"
        element={
          <Page>
            <AdoptWizard />
          </Page>
        }
      />
      <Route
        path="/clusters/:managementCluster/:namespace/:name/migrate"
        element={
          <Page>
            <MigrateWizard />
          </Page>
        }
      />
      <Route
        path="/clusters/:managementCluster/:namespace/:name/upgrade"
        element={
          <Page>
            <UpgradeWizard />
          </Page>
        }
      />
      <Route
        path="/jobs"
        element={
          <Page>
            <JobsPage />
          </Page>
        }
      />
      <Route
        path="/jobs/:id"
        element={
          <Page>
            <JobPage />
          </Page>
        }
      />
      <Route
        path="/fleet-runs"
        element={
          <Page>
            <FleetRunsPage />
          </Page>
        }
      />
      <Route
        path="/fleet-runs/:id"
        element={
          <Page>
            <FleetRunPage />
          </Page>
        }
      />
    </Routes>
  );
}
