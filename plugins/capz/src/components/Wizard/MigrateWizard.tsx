import { TextField } from '@backstage/ui';
import type { JobRequest } from '@capz-backstage/plugin-capz-common';
import { useMemo, useState } from 'react';
import { useParams } from 'react-router-dom';
import { JobReview } from './JobReview';
import { dnsLabelError } from './request';
import { WizardPage } from './WizardPage';
import { WizardStep } from './WizardStep';

/**
 * /capz/clusters/:mc/:ns/:name/migrate: move a cluster from AzureManagedControlPlane to AzureASOManagedControlPlane.
 * The procedure (docs/migration-procedure.md) re-creates the CAPI objects in a new namespace that adopt the same AKS
 * cluster, so the target namespace must not exist yet (adoption silently reuses same-named objects).
 */
export function MigrateWizard() {
  const { managementCluster = '', namespace = '', name = '' } = useParams();
  const [target, setTarget] = useState(`${namespace}-aso`);
  const targetError =
    dnsLabelError(target) ??
    (target === namespace
      ? 'Must differ from the current namespace.'
      : undefined);

  const request = useMemo<JobRequest | undefined>(
    () =>
      targetError
        ? undefined
        : {
            type: 'migrate',
            params: {
              managementCluster,
              namespace,
              name,
              targetNamespace: target,
            },
          },
    [managementCluster, namespace, name, target, targetError],
  );

  return (
    <WizardPage
      title={`Migrate ${name} to the ASO API`}
      cluster={{ managementCluster, namespace, name }}
      intro={`Moves ${namespace}/${name} from the deprecated AzureManagedControlPlane API to AzureASOManagedControlPlane without recreating the AKS cluster: the old objects are paused and released, and new ones in the target namespace adopt the same cluster and pools.`}
    >
      <WizardStep n={1} title="Target namespace">
        <TextField
          label="Target namespace"
          description="A namespace that does not exist yet; the migrated cluster lives there."
          style={{ maxWidth: 360 }}
          value={target}
          onChange={setTarget}
          validationBehavior="aria"
          validate={() => targetError ?? null}
        />
      </WizardStep>
      <JobReview request={request} firstStep={2} />
    </WizardPage>
  );
}
