import { useApi, useRouteRef } from '@backstage/frontend-plugin-api';
import { Link, Text } from '@backstage/ui';
import type { ClusterPlace, Job } from '@capz-backstage/plugin-capz-common';
import { useCallback, useState } from 'react';
import useAsyncRetry from 'react-use/esm/useAsyncRetry';
import { capzApiRef } from '../../api/CapzApi';
import { clusterRouteRef, jobRouteRef } from '../../routes';
import { SimpleTable, TEXT_CELL, TIME_CELL } from '../shared/SimpleTable';
import { absoluteTime, relativeTime } from '../shared/time';
import { JOB_TYPE_LABEL, JobStateLabel } from './jobLabels';
import { useJobSignal } from './useJobSignal';

const CELL = { padding: '6px 12px 6px 0', verticalAlign: 'top' } as const;

/**
 * The jobs of one cluster, or of every cluster: re-read when a listed job changes state or a job not listed yet
 * signals (it may be a new one of this list). Never polls.
 */
export function useJobList(cluster?: ClusterPlace) {
  const api = useApi(capzApiRef);
  const [refreshKey, setRefreshKey] = useState(0);
  const jobs = useAsyncRetry(
    () => api.listJobs(cluster ? { ...cluster } : undefined),
    [
      api,
      cluster?.managementCluster,
      cluster?.namespace,
      cluster?.name,
      refreshKey,
    ],
  );
  const refresh = useCallback(() => setRefreshKey(k => k + 1), []);
  const states = new Map(jobs.value?.items.map(j => [j.id, j.state]));
  useJobSignal(refresh, s => states.get(s.jobId) !== s.state);
  return jobs;
}

/** Jobs as a table: each linked to its page, with its state, times and who started it; `showCluster` adds its cluster. */
export function JobsTable(props: {
  label: string;
  jobs: Job[];
  showCluster?: boolean;
}) {
  const jobLink = useRouteRef(jobRouteRef);
  const clusterLink = useRouteRef(clusterRouteRef);
  const { label, jobs, showCluster } = props;
  return (
    <SimpleTable
      label={label}
      columns={[
        'Job',
        ...(showCluster ? ['Cluster'] : []),
        'State',
        'Started',
        'Ended',
        'By',
      ]}
    >
      {jobs.map(j => (
        <tr key={j.id}>
          <td style={CELL}>
            {jobLink ? (
              <Link href={jobLink({ id: j.id })}>{JOB_TYPE_LABEL[j.type]}</Link>
            ) : (
              JOB_TYPE_LABEL[j.type]
            )}
          </td>
          {showCluster && (
            <td style={{ ...CELL, ...TEXT_CELL }}>
              {clusterLink ? (
                <Link href={clusterLink({ ...j.target })}>{j.target.name}</Link>
              ) : (
                j.target.name
              )}
              <Text as="div" variant="body-small" color="secondary">
                {`${j.target.managementCluster}/${j.target.namespace}`}
              </Text>
            </td>
          )}
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
          <td style={{ ...CELL, ...TEXT_CELL }}>{j.createdBy}</td>
        </tr>
      ))}
    </SimpleTable>
  );
}
