import { useApi, useRouteRef } from '@backstage/frontend-plugin-api';
import { Link, Skeleton, Text } from '@backstage/ui';
import type { ClusterPlace } from '@capz-backstage/plugin-capz-common';
import { useCallback, useState } from 'react';
import useAsyncRetry from 'react-use/esm/useAsyncRetry';
import { capzApiRef } from '../../api/CapzApi';
import { jobRouteRef } from '../../routes';
import { JOB_TYPE_LABEL, JobStateLabel } from '../JobPage/jobLabels';
import { useJobSignal } from '../JobPage/useJobSignal';
import { ErrorAlert } from '../shared/errors';
import { SimpleTable, TIME_CELL } from '../shared/SimpleTable';
import { absoluteTime, relativeTime } from '../shared/time';

const CELL = { padding: '6px 12px 6px 0', verticalAlign: 'top' } as const;

/**
 * Every job that worked on this cluster, newest first: the adoption that made it, its migrations and apiVersion
 * upgrades, each linked to its page. Re-read when a job signal arrives.
 */
export function ClusterJobs({ cluster }: { cluster: ClusterPlace }) {
  const api = useApi(capzApiRef);
  const jobLink = useRouteRef(jobRouteRef);
  const [refreshKey, setRefreshKey] = useState(0);
  const jobs = useAsyncRetry(
    () => api.listJobs({ ...cluster }),
    [
      api,
      cluster.managementCluster,
      cluster.namespace,
      cluster.name,
      refreshKey,
    ],
  );
  const refresh = useCallback(() => setRefreshKey(k => k + 1), []);
  const states = new Map(jobs.value?.items.map(j => [j.id, j.state]));
  // A listed job changed state, or a job not listed yet (it may be a new one on this cluster).
  useJobSignal(refresh, s => states.get(s.jobId) !== s.state);

  if (jobs.error)
    return <ErrorAlert title="Could not load the jobs" error={jobs.error} />;
  if (!jobs.value) return <Skeleton width="100%" height={80} />;
  if (!jobs.value.items.length)
    return (
      <Text as="p" variant="body-small">
        No adoption, migration or apiVersion upgrade job has worked on this
        cluster.
      </Text>
    );
  return (
    <SimpleTable
      label="Jobs of this cluster"
      columns={['Job', 'State', 'Started', 'Ended', 'By']}
    >
      {jobs.value.items.map(j => (
        <tr key={j.id}>
          <td style={CELL}>
            {jobLink ? (
              <Link href={jobLink({ id: j.id })}>{JOB_TYPE_LABEL[j.type]}</Link>
            ) : (
              JOB_TYPE_LABEL[j.type]
            )}
          </td>
          <td style={CELL}>
            <JobStateLabel state={j.state} />
          </td>
          <td
            style={{ ...CELL, ...TIME_CELL }}
            title={absoluteTime(j.createdAt)}
          >
            {relativeTime(j.createdAt)}
          </td>
          <td
            style={{ ...CELL, ...TIME_CELL }}
            title={j.finishedAt ? absoluteTime(j.finishedAt) : undefined}
          >
            {relativeTime(j.finishedAt) ?? '—'}
          </td>
          <td style={CELL}>{j.createdBy}</td>
        </tr>
      ))}
    </SimpleTable>
  );
}
