import { Route, Routes } from 'react-router-dom';
import { ClusterPage } from './ClusterPage';
import { ClustersPage } from './ClustersPage';

/** Everything under /capz: the clusters list and each cluster's page (see routes.ts for the paths). */
export function CapzPage() {
  return (
    <Routes>
      <Route path="/" element={<ClustersPage />} />
      <Route path="/clusters/:managementCluster/:namespace/:name" element={<ClusterPage />} />
    </Routes>
  );
}
