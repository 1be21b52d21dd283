import { ButtonLink, Flex, Link } from '@backstage/ui';
import { useRouteRef } from '@backstage/frontend-plugin-api';
import { usePermission } from '@backstage/plugin-permission-react';
import {
  capzClusterMigratePermission,
  type ClusterSummary,
} from '@capz-backstage/plugin-capz-common';
import { useParams } from 'react-router-dom';
import { migrateRouteRef, rootRouteRef, upgradeRouteRef } from '../../routes';
import { ClusterActions } from '../ClusterActions';
import { ActiveJobBanner } from '../JobPage';
import { ClusterView } from './ClusterView';

/**
 * A job wizard's button. Both wizards start a job under capz.cluster.migrate: no button for whom the policy denies it,
 * nor before it answers (asked only where a wizard applies).
 */
function JobButton({ href, children }: { href: string; children: string }) {
  const { allowed } = usePermission({
    permission: capzClusterMigratePermission,
  });
  return allowed ? (
    <ButtonLink size="small" variant="secondary" href={href}>
      {children}
    </ButtonLink>
  ) : null;
}

/** The job wizard a cluster's API calls for: migration off AzureManaged*, or the v1alpha1 -> v1beta1 upgrade. */
function JobActions({ summary }: { summary: ClusterSummary }) {
  const migrate = useRouteRef(migrateRouteRef);
  const upgrade = useRouteRef(upgradeRouteRef);
  const ref = {
    managementCluster: summary.managementCluster,
    namespace: summary.namespace,
    name: summary.name,
  };
  if (summary.api === 'azure-managed' && migrate)
    return <JobButton href={migrate(ref)}>Migrate to ASO API</JobButton>;
  if (summary.api === 'aso-v1alpha1' && upgrade)
    return <JobButton href={upgrade(ref)}>Upgrade to v1beta1</JobButton>;
  return null;
}

/** The page of one cluster, /capz/clusters/:managementCluster/:namespace/:name. */
export function ClusterPage() {
  const { managementCluster = '', namespace = '', name = '' } = useParams();
  const root = useRouteRef(rootRouteRef);
  const cluster = { managementCluster, namespace, name };
  return (
    <Flex direction="column" gap="3" p="4">
      {root && (
        <nav aria-label="Breadcrumb">
          <Link href={root()}>All clusters</Link>
        </nav>
      )}
      <ActiveJobBanner cluster={cluster} />
      <ClusterView
        cluster={cluster}
        actions={(summary, tree, pausedUntil) => (
          <>
            <JobActions summary={summary} />
            <ClusterActions
              cluster={cluster}
              tree={tree}
              pausedUntil={pausedUntil}
            />
          </>
        )}
      />
    </Flex>
  );
}
