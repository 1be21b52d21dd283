import { useApi, useRouteRef } from '@backstage/frontend-plugin-api';
import { Alert, Link } from '@backstage/ui';
import { useCallback, useState } from 'react';
import useAsyncRetry from 'react-use/esm/useAsyncRetry';
import type { ClusterPlace } from '@capz-backstage/plugin-capz-common';
import { capzApiRef } from '../../api/CapzApi';
import { jobRouteRef } from '../../routes';
import { isActive, JOB_STATE, JOB_TYPE_LABEL } from './jobLabels';
import { useJobSignal } from './useJobSignal';

/** On a cluster's page: the job working on it, if any (one active job per cluster), with a link to its page. */
export function ActiveJobBanner({ cluster }: { cluster: ClusterPlace }) {
  const api = useApi(capzApiRef);
  const jobLink = useRouteRef(jobRouteRef);
  // A new key on every signal, not retry(): retry() is a no-op while a read is in flight, which would drop the
  // signal of a job that just ended and leave the banner up (see JobPage).
  const [refreshKey, setRefreshKey] = useState(0);
  const jobs = useAsyncRetry(
    () => api.listJobs({ ...cluster, active: true }),
    [
      api,
      cluster.managementCluster,
      cluster.namespace,
      cluster.name,
      refreshKey,
    ],
  );
  const shown = jobs.value?.items[0];
  const refresh = useCallback(() => setRefreshKey(k => k + 1), []);
  // A new job on this cluster has an id we do not know yet: any job signal re-asks (one small request).
  useJobSignal(refresh, s => !shown || s.jobId === shown.id);

  // A listing error only hides the banner: the cluster page itself must still work.
  if (!shown || !isActive(shown.state) || !jobLink) return null;
  return (
    <Alert
      status="info"
      icon
      data-testid="active-job-banner"
      title={`${JOB_TYPE_LABEL[shown.type]} in progress (${JOB_STATE[
        shown.state
      ].label.toLowerCase()})`}
      description={
        <>
          {`A job is working on this cluster${
            shown.currentStep
              ? `, at step “${
                  shown.steps.find(s => s.id === shown.currentStep)?.title ??
                  shown.currentStep
                }”`
              : ''
          }. Another job cannot start until it ends. `}
          <Link href={jobLink({ id: shown.id })}>Open the job</Link>
        </>
      }
    />
  );
}
