import { useEntity } from '@backstage/plugin-catalog-react';
import { Alert, Box } from '@backstage/ui';
import { CAPZ_CLUSTER_ANNOTATION, clusterRefOf } from './annotation';
import { ClusterActions } from '../ClusterActions';
import { ClusterView } from '../ClusterPage/ClusterView';

/** The cluster tab of a catalog entity that carries the capz.io/cluster annotation. */
export function EntityClusterContent() {
  const { entity } = useEntity();
  const ref = clusterRefOf(entity);
  return (
    <Box p="4">
      {ref ? (
        <ClusterView
          cluster={ref}
          linkToPage
          actions={(_summary, tree, pausedUntil) => (
            <ClusterActions
              cluster={ref}
              tree={tree}
              pausedUntil={pausedUntil}
            />
          )}
        />
      ) : (
        <Alert
          status="warning"
          icon
          title="The cluster annotation is not valid"
          description={`${CAPZ_CLUSTER_ANNOTATION} is "${
            entity.metadata.annotations?.[CAPZ_CLUSTER_ANNOTATION] ?? ''
          }"; it must be <management cluster>/<namespace>/<cluster name>, e.g. local/team-search/search-prod.`}
        />
      )}
    </Box>
  );
}
