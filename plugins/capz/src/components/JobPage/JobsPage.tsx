import { Flex, Skeleton, Text } from '@backstage/ui';
import { ErrorAlert } from '../shared/errors';
import { isActive } from './jobLabels';
import { JobsTable, useJobList } from './JobsTable';

/**
 * Every adoption, migration and apiVersion-upgrade job across the management clusters, newest first: the active
 * ones first, each linked to its page and to the cluster it works on. Re-read when a job changes state.
 */
export function JobsPage() {
  const jobs = useJobList();

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
      {!jobs.value && !jobs.error && (
        <div role="status" aria-label="Loading the jobs">
          <Skeleton width="100%" height={120} />
        </div>
      )}
      {jobs.value && !items.length && (
        <Text as="p" variant="body-small">
          No job has run yet. Adopt an existing AKS cluster, or migrate a
          cluster from its cluster page.
        </Text>
      )}
      {items.length > 0 && <JobsTable label="Jobs" jobs={sorted} showCluster />}
    </Flex>
  );
}
