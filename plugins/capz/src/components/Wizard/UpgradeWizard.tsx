import type { JobRequest } from '@capz-backstage/plugin-capz-common';
import { useMemo } from 'react';
import { useParams } from 'react-router-dom';
import { JobReview } from './JobReview';
import { WizardPage } from './WizardPage';

/**
 * /capz/clusters/:mc/:ns/:name/upgrade: rewrite an AzureASOManagedControlPlane cluster's objects from
 * infrastructure.cluster.x-k8s.io/v1alpha1 to v1beta1. No inputs: the preview runs on arrival.
 */
export function UpgradeWizard() {
  const { managementCluster = '', namespace = '', name = '' } = useParams();
  const request = useMemo<JobRequest>(
    () => ({
      type: 'upgrade-api-version',
      params: { managementCluster, namespace, name },
    }),
    [managementCluster, namespace, name],
  );
  return (
    <WizardPage
      title={`Upgrade ${name} to the v1beta1 API`}
      cluster={{ managementCluster, namespace, name }}
      intro={`Moves ${namespace}/${name}'s AzureASOManaged* objects from the deprecated v1alpha1 API version to v1beta1. The AKS cluster is not touched. Manifests you keep elsewhere (Git, GitOps) that still say v1alpha1 are listed when the job is done: change them, or they will write v1alpha1 again.`}
    >
      <JobReview request={request} firstStep={1} auto />
    </WizardPage>
  );
}
