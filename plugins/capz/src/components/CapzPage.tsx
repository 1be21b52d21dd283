import { Route, Routes } from 'react-router-dom';
import { ClusterPage } from './ClusterPage';
import { ClustersPage } from './ClustersPage';
import { JobPage } from './JobPage';
import { AdoptWizard, MigrateWizard, UpgradeWizard } from './Wizard';

/** Everything under /capz: the clusters list, each cluster's page, the job wizards and job pages (routes.ts). */
export function CapzPage() {
  return (
    <Routes>
      <Route path="/" element={<ClustersPage />} />
      <Route
        path="/clusters/:managementCluster/:namespace/:name"
        element={<ClusterPage />}
      />
      <Route path="/adopt" element={<AdoptWizard />} />
      <Route
        path="/clusters/:managementCluster/:namespace/:name/migrate"
        element={<MigrateWizard />}
      />
      <Route
        path="/clusters/:managementCluster/:namespace/:name/upgrade"
        element={<UpgradeWizard />}
      />
      <Route path="/jobs/:id" element={<JobPage />} />
    </Routes>
  );
}
