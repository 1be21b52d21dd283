import { useApi, useRouteRef } from '@backstage/frontend-plugin-api';
import { Alert, Link, Skeleton, Text } from '@backstage/ui';
import type { JobRequest } from '@capz-backstage/plugin-capz-common';
import { useMemo } from 'react';
import { useParams } from 'react-router-dom';
import useAsync from 'react-use/esm/useAsync';
import { capzApiRef } from '../../api/CapzApi';
import { migrateRouteRef } from '../../routes';
import { JobReview } from './JobReview';
import { WizardPage } from './WizardPage';

/**
 * /capz/clusters/:mc/:ns/:name/upgrade: rewrite an AzureASOManagedControlPlane cluster's objects from
 * infrastructure.cluster.x-k8s.io/v1alpha1 to v1beta1. No inputs: the preview runs on arrival, once the cluster's
 * API is known. A legacy (AzureManagedControlPlane) cluster has nothing to upgrade: the page says so and links to
 * the migration wizard, without preflight or Start (the cluster page never links it here; an old link or a typed URL
 * does).
 */
export function UpgradeWizard() {
  const { managementCluster = '', namespace = '', name = '' } = useParams();
  const api = useApi(capzApiRef);
  const migrate = useRouteRef(migrateRouteRef);
  const request = useMemo<JobRequest>(
    () => ({
      type: 'upgrade-api-version',
      params: { managementCluster, namespace, name },
    }),
    [managementCluster, namespace, name],
  );
  // The backend has no plain GET of a cluster: its tree route carries the summary, with the API it uses.
  const cluster = useAsync(
    () => api.getClusterTree({ managementCluster, namespace, name }),
    [api, managementCluster, namespace, name],
  );
  const legacy = cluster.value?.summary.api === 'azure-managed';
  return (
    <WizardPage
      title={`Upgrade ${name} to the v1beta1 API`}
      cluster={{ managementCluster, namespace, name }}
      intro={`Moves ${namespace}/${name}'s AzureASOManaged* objects from the deprecated v1alpha1 API version to v1beta1. The AKS cluster is not touched. Manifests you keep elsewhere (Git, GitOps) that still say v1alpha1 are listed when the job is done: change them, or they will write v1alpha1 again.`}
    >
      {cluster.loading && (
        <div role="status" aria-label="Reading the cluster">
          <Skeleton width="100%" height={48} />
        </div>
      )}
      {legacy && (
        <Alert
          status="info"
          icon
          data-testid="legacy-cluster"
          title={`${name} is a legacy cluster: there is nothing to upgrade`}
          description={
            <Text as="p" variant="body-medium">
              {`${namespace}/${name} uses the legacy AzureManagedControlPlane API, not AzureASOManagedControlPlane at v1alpha1. The v1alpha1 to v1beta1 upgrade does not apply to it: migrate it to the ASO API instead, which moves it to AzureASOManagedControlPlane without recreating the AKS cluster. `}
              {migrate && (
                <Link href={migrate({ managementCluster, namespace, name })}>
                  {`Migrate ${name} to the ASO API`}
                </Link>
              )}
            </Text>
          }
        />
      )}
      {/* A cluster that could not be read is previewed all the same: the preflight says what is wrong. */}
      {!cluster.loading && !legacy && (
        <JobReview request={request} firstStep={1} auto />
      )}
    </WizardPage>
  );
}
