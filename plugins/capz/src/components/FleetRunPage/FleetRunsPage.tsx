/**
 * /capz/fleet-runs: every fleet run the user may read (each of its clusters), newest first, with its state and how far
 * it got, each linked to its page. Read again on each fleet run signal (capz:fleet-runs), never polled.
 */
import { useApi, useRouteRef } from '@backstage/frontend-plugin-api';
import { Flex, Link, Skeleton, Text } from '@backstage/ui';
import { type FleetRunRecord } from '@capz-backstage/plugin-capz-common';
import { useCallback, useState } from 'react';
import useAsyncRetry from 'react-use/esm/useAsyncRetry';
import { capzApiRef } from '../../api/CapzApi';
import { fleetRunRouteRef, rootRouteRef } from '../../routes';
import { StateIcon } from '../JobPage/jobLabels';
import { ErrorAlert } from '../shared/errors';
import { LiveStatus } from '../shared/LiveStatus';
import { absoluteTime } from '../shared/time';
import { fleetRunTitle, RUN_STATE, fleetRunVerbs } from './fleetRunLabels';
import { useFleetRunSignal } from './useFleetRunSignal';

const cell = {
  textAlign: 'left' as const,
  padding: '4px 8px',
  borderBottom: '1px solid var(--bui-border, #ddd)',
  verticalAlign: 'top' as const,
};

/** How far a run got, in words: "4 of 6 upgraded, 1 failed, 1 skipped". */
export function fleetRunProgress(r: FleetRunRecord): string {
  const all = r.run.stages.flatMap(s => s.clusters);
  const n = (st: string) => all.filter(c => c.state === st).length;
  const verb = fleetRunVerbs(r.run);
  return [
    `${n('succeeded')} of ${all.length} ${verb.done}`,
    n('running') && `${n('running')} ${verb.doing}`,
    n('failed') && `${n('failed')} failed`,
    n('skipped') + n('cancelled') &&
      `${n('skipped') + n('cancelled')} skipped or not started`,
  ]
    .filter(Boolean)
    .join(', ');
}

export function FleetRunsPage() {
  const api = useApi(capzApiRef);
  const root = useRouteRef(rootRouteRef);
  const runLink = useRouteRef(fleetRunRouteRef);
  // A signal always starts a fresh read (useAsyncRetry's retry() is dropped while a read is in flight).
  const [refreshKey, setRefreshKey] = useState(0);
  const { value, error, loading, retry } = useAsyncRetry(
    () => api.listFleetRuns(),
    [api, refreshKey],
  );
  const refresh = useCallback(() => setRefreshKey(k => k + 1), []);
  const { live } = useFleetRunSignal(refresh);
  const items = value?.items ?? [];

  return (
    <Flex direction="column" gap="3" p="4" data-testid="fleet-runs-page">
      <nav aria-label="Breadcrumb">
        {root && <Link href={root()}>All clusters</Link>}
      </nav>
      <Flex justify="between" align="center" gap="3">
        <Text as="h2" variant="title-small">
          Fleet runs
        </Text>
        <LiveStatus
          live={live}
          loading={loading}
          onRefresh={retry}
          what="runs"
        />
      </Flex>
      {error && (
        <ErrorAlert title="Could not load the fleet runs" error={error} />
      )}
      {!value && !error && (
        <div role="status" aria-label="Loading the fleet runs">
          <Skeleton width="100%" height={120} />
        </div>
      )}
      {value && !items.length && (
        <Text as="p" variant="body-small">
          No fleet run yet. On the clusters page, filter the clusters to
          upgrade, then Plan an upgrade of these.
        </Text>
      )}
      {items.length > 0 && (
        <table
          aria-label="Fleet runs"
          style={{ borderCollapse: 'collapse', width: '100%' }}
        >
          <thead>
            <tr>
              <th style={cell}>Run</th>
              <th style={cell}>State</th>
              <th style={cell}>Clusters</th>
              <th style={cell}>Started</th>
            </tr>
          </thead>
          <tbody>
            {items.map(r => (
              <tr key={r.id} data-testid="fleet-run-row">
                <td style={cell}>
                  {runLink ? (
                    <Link href={runLink({ id: r.id })}>
                      {fleetRunTitle(r.run)}
                    </Link>
                  ) : (
                    fleetRunTitle(r.run)
                  )}
                  <Text as="div" variant="body-x-small" color="secondary">
                    {`Run ${r.id.slice(0, 8)}`}
                  </Text>
                </td>
                <td style={cell}>
                  <Flex gap="1" align="center">
                    <StateIcon look={RUN_STATE[r.run.state]} />
                    <Text variant="body-small">
                      {RUN_STATE[r.run.state].label}
                    </Text>
                  </Flex>
                </td>
                <td style={cell}>
                  <Text variant="body-small">{fleetRunProgress(r)}</Text>
                </td>
                <td style={cell}>
                  <Text variant="body-small">
                    {`${absoluteTime(r.createdAt)} by ${r.createdBy}`}
                  </Text>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </Flex>
  );
}
