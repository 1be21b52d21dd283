import { Skeleton, Text } from '@backstage/ui';
import type { ClusterPlace } from '@capz-backstage/plugin-capz-common';
import { JobsTable, useJobList } from '../JobPage/JobsTable';
import { ErrorAlert } from '../shared/errors';

/**
 * Every job that worked on this cluster, newest first: the adoption that made it, its migrations and apiVersion
 * upgrades, each linked to its page.
 */
export function ClusterJobs({ cluster }: { cluster: ClusterPlace }) {
  const jobs = useJobList(cluster);
  if (jobs.error)
    return <ErrorAlert title="Could not load the jobs" error={jobs.error} />;
  if (!jobs.value)
    return (
      <div role="status" aria-label="Loading the jobs">
        <Skeleton width="100%" height={80} />
      </div>
    );
  if (!jobs.value.items.length)
    return (
      <Text as="p" variant="body-small">
        No adoption, migration or apiVersion upgrade job has worked on this
        cluster.
      </Text>
    );
  return <JobsTable label="Jobs of this cluster" jobs={jobs.value.items} />;
}
