import { useApi, useRouteRef } from '@backstage/frontend-plugin-api';
import { Flex, Link, Skeleton, Text } from '@backstage/ui';
import { useCallback, useState } from 'react';
import useAsyncRetry from 'react-use/esm/useAsyncRetry';
import { capzApiRef } from '../../api/CapzApi';
import { clusterRouteRef, jobRouteRef } from '../../routes';
import { ErrorAlert } from '../shared/errors';
import { SimpleTable, TEXT_CELL, TIME_CELL } from '../shared/SimpleTable';
import { absoluteTime, relativeTime } from '../shared/time';
import { isActive, JOB_TYPE_LABEL, JobStateLabel } from './jobLabels';
import { useJobSignal } from './useJobSignal';

const CELL = { padding: '6px 12px 6px 0', verticalAlign: 'top' } as const;

/**
 * Every adoption, migration and apiVersion-upgrade job across the management clusters, newest first: the active
 * ones first, each linked to its page and to the cluster it works on. Re-read when a job changes state.
 */
export function JobsPage() {
  const api = useApi(capzApiRef);
  const jobLink = useRouteRef(jobRouteRef);
  const clusterLink = useRouteRef(clusterRouteRef);
  const [refreshKey, setRefreshKey] = useState(0);
  const jobs = useAsyncRetry(() => api.listJobs(), [api, refreshKey]);
  const refresh = useCallback(() => setRefreshKey(k => k + 1), []);
  const states = new Map(jobs.value?.items.map(j => [j.id, j.state]));
  useJobSignal(refresh, s => states.get(s.jobId) !== s.state);

  const items = jobs.value?.items ?? [];
  // Active first (what needs attention), each group newest first as the API answers.
  const sorted = [
    ...items.filter(j => isActive(j.state)),
    ...items.filter(j => !isActive(j.state)),
  ];
  return (
    <Flex direction="column" gap="3" p="4">
      <Text as="h2" variant="title-small">
        Jobs
      </Text>
      {jobs.error && (
        <ErrorAlert title="Could not load the jobs" error={jobs.error} />
      )}
      {!jobs.value && !jobs.error && <Skeleton width="100%" height={120} />}
      {jobs.value && !items.length && (
        <Text as="p" variant="body-small">
          No job has run yet. Adopt an existing AKS cluster, or migrate a
          cluster from its cluster page.
        </Text>
      )}
      {items.length > 0 && (
        <SimpleTable
          label="Jobs"
          columns={['Job', 'Cluster', 'State', 'Started', 'Ended', 'By']}
        >
          {sorted.map(j => {
            const t = j.target;
            return (
              <tr key={j.id}>
                <td style={CELL}>
                  {jobLink ? (
                    <Link href={jobLink({ id: j.id })}>
                      {JOB_TYPE_LABEL[j.type]}
                    </Link>
                  ) : (
                    JOB_TYPE_LABEL[j.type]
                  )}
                </td>
                <td style={{ ...CELL, ...TEXT_CELL }}>
                  {clusterLink ? (
                    <Link href={clusterLink({ ...t })}>{t.name}</Link>
                  ) : (
                    t.name
                  )}
                  <Text as="div" variant="body-small" color="secondary">
                    {`${t.managementCluster}/${t.namespace}`}
                  </Text>
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
                <td style={{ ...CELL, ...TEXT_CELL }}>{j.createdBy}</td>
              </tr>
            );
          })}
        </SimpleTable>
      )}
    </Flex>
  );
}
