import { Flex, Link } from '@backstage/ui';
import { useRouteRef } from '@backstage/frontend-plugin-api';
import { useParams } from 'react-router-dom';
import { rootRouteRef } from '../../routes';
import { ClusterView } from './ClusterView';

/** The page of one cluster, /capz/clusters/:managementCluster/:namespace/:name. */
export function ClusterPage() {
  const { managementCluster = '', namespace = '', name = '' } = useParams();
  const root = useRouteRef(rootRouteRef);
  return (
    <Flex direction="column" gap="3" p="4">
      {root && (
        <nav aria-label="Breadcrumb">
          <Link href={root()}>All clusters</Link>
        </nav>
      )}
      <ClusterView cluster={{ managementCluster, namespace, name }} />
    </Flex>
  );
}
