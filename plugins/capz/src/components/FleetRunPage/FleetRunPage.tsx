/**
 * /capz/fleet-runs/:id: a fleet upgrade as it runs, stage by stage, each cluster's state and why, with the commands the
 * run can take now (pause, resume, cancel; approve a stage waiting for it; skip a cluster that has not started; skip or
 * retry one that failed). Everything comes from GET /fleet-runs/:id; the page reads it again on each signal of the run
 * (capz:fleet-runs), never polls.
 */
import { useApi, useRouteRef } from '@backstage/frontend-plugin-api';
import { usePermission } from '@backstage/plugin-permission-react';
import { Button, Flex, Link, Skeleton, Text } from '@backstage/ui';
import {
  capzFleetRunApprovePermission,
  fleetStepWords,
  type FleetClusterState,
  type FleetRunCluster,
  type FleetRunCommand,
  type FleetRunRecord,
  type FleetRunStage,
  type FleetStageState,
} from '@capz-backstage/plugin-capz-common';
import {
  RiCheckboxCircleFill,
  RiCloseCircleFill,
  RiHourglassLine,
  RiLoader4Line,
  RiPauseCircleLine,
  RiSkipForwardLine,
  RiStopCircleLine,
  RiTimeLine,
} from '@remixicon/react';
import { useCallback, useState } from 'react';
import { useParams } from 'react-router-dom';
import useAsyncRetry from 'react-use/esm/useAsyncRetry';
import { capzApiRef } from '../../api/CapzApi';
import { clusterRouteRef, jobRouteRef, rootRouteRef } from '../../routes';
import { ErrorAlert } from '../shared/errors';
import { LiveStatus } from '../shared/LiveStatus';
import { absoluteTime } from '../shared/time';
import {
  INFO,
  MUTED,
  NEGATIVE,
  POSITIVE,
  StateIcon,
  WARNING,
  type Look,
} from '../JobPage/jobLabels';
import { fleetRunTitle, fleetRunVerbs, RUN_STATE } from './fleetRunLabels';
import { useFleetRunSignal } from './useFleetRunSignal';

const STAGE_STATE: Record<FleetStageState, Look> = {
  waiting: { label: 'Waiting', icon: RiTimeLine, color: MUTED },
  running: { label: 'Upgrading', icon: RiLoader4Line, color: INFO },
  soaking: { label: 'Soaking', icon: RiHourglassLine, color: INFO },
  'awaiting-approval': {
    label: 'Waiting for approval',
    icon: RiPauseCircleLine,
    color: WARNING,
  },
  succeeded: { label: 'Passed', icon: RiCheckboxCircleFill, color: POSITIVE },
  cancelled: { label: 'Not run', icon: RiStopCircleLine, color: MUTED },
};

const CLUSTER_STATE: Record<FleetClusterState, Look> = {
  waiting: { label: 'Waiting', icon: RiTimeLine, color: MUTED },
  running: { label: 'Upgrading', icon: RiLoader4Line, color: INFO },
  succeeded: { label: 'Upgraded', icon: RiCheckboxCircleFill, color: POSITIVE },
  failed: { label: 'Failed', icon: RiCloseCircleFill, color: NEGATIVE },
  skipped: { label: 'Skipped', icon: RiSkipForwardLine, color: MUTED },
  cancelled: { label: 'Not started', icon: RiStopCircleLine, color: MUTED },
};

const cell = {
  textAlign: 'left' as const,
  padding: '4px 8px',
  borderBottom: '1px solid var(--bui-border, #ddd)',
  verticalAlign: 'top' as const,
};

function commandWords(c: FleetRunCommand): string {
  if (c.command === 'approve') return `approve stage ${c.stage}`;
  if (c.command === 'skip' || c.command === 'retry')
    return `${c.command} ${c.cluster.namespace}/${c.cluster.name}`;
  return `${c.command} the run`;
}

/** A step in words: "control plane → v1.34.3", "pools system, user → v1.34.3", or its job's title. */
const stepWords = (st: FleetRunCluster['steps'][number]) =>
  fleetStepWords(st, '→');

/** What a stage waits for, in words. */
function stageNote(s: FleetRunStage): string | undefined {
  if (s.state === 'soaking')
    return s.gate
      ? `Health gate: ${s.gate}.`
      : `Every cluster stays healthy until ${absoluteTime(s.soakUntil ?? '')}.`;
  if (s.state === 'awaiting-approval')
    return 'Its clusters are upgraded and healthy: the next stage starts once someone approves.';
  if (s.approvedBy) return `Approved by ${s.approvedBy}.`;
  return undefined;
}

function ClusterRow(props: {
  c: FleetRunCluster;
  runEnded: boolean;
  /** A failed cluster may be skipped or retried: the run was not cancelled and has not succeeded. */
  mayForgive: boolean;
  pending?: string;
  onCommand: (c: FleetRunCommand) => void;
}) {
  const { c } = props;
  const clusterLink = useRouteRef(clusterRouteRef);
  const jobLink = useRouteRef(jobRouteRef);
  const place = {
    managementCluster: c.managementCluster,
    namespace: c.namespace,
    name: c.name,
  };
  // After a migration the cluster lives in its target namespace: link it there.
  const lives = c.movedTo ?? place;
  const step = c.steps[c.step];
  const now = c.state === 'running' && step ? stepWords(step) : undefined;
  return (
    <tr data-testid="fleet-cluster" data-state={c.state}>
      <td style={cell}>
        {clusterLink ? (
          <Link href={clusterLink(lives)}>{`${c.namespace}/${c.name}`}</Link>
        ) : (
          `${c.namespace}/${c.name}`
        )}
        <Text as="div" variant="body-x-small" color="secondary">
          {c.group
            ? `${c.managementCluster}, group ${c.group}`
            : c.managementCluster}
        </Text>
      </td>
      <td style={cell}>
        <Flex gap="1" align="center">
          <StateIcon look={CLUSTER_STATE[c.state]} />
          <Text variant="body-small">{CLUSTER_STATE[c.state].label}</Text>
        </Flex>
      </td>
      <td style={cell}>
        <Text variant="body-small">
          {/* A running cluster's message names its step (and what the step waits for): said once. */}
          {now ? `Now: ${c.message ?? now}` : c.message}
        </Text>
        {now && c.waitingForPersonSince && (
          <Text as="div" variant="body-x-small" color="secondary">
            {`Waiting for a person since ${new Date(
              c.waitingForPersonSince,
            ).toLocaleString()}: this wait does not count against the step's timeout.`}
          </Text>
        )}
        {c.jobId && jobLink && (
          <Text as="div" variant="body-small">
            <Link href={jobLink({ id: c.jobId })}>Open its job</Link>
          </Text>
        )}
      </td>
      <td style={cell}>
        {((c.state === 'waiting' && !props.runEnded) ||
          (c.state === 'failed' && props.mayForgive)) && (
          <Button
            size="small"
            variant="secondary"
            isDisabled={!!props.pending}
            onPress={() => props.onCommand({ command: 'skip', cluster: place })}
            aria-label={`Skip ${c.namespace}/${c.name}`}
          >
            Skip
          </Button>
        )}
        {c.state === 'failed' && props.mayForgive && (
          <Button
            size="small"
            variant="secondary"
            isDisabled={!!props.pending}
            onPress={() =>
              props.onCommand({ command: 'retry', cluster: place })
            }
            aria-label={`Retry ${c.namespace}/${c.name}`}
          >
            Retry
          </Button>
        )}
      </td>
    </tr>
  );
}

function Stage(props: {
  stage: FleetRunStage;
  index: number;
  runEnded: boolean;
  mayForgive: boolean;
  canApprove: boolean;
  pending?: string;
  onCommand: (c: FleetRunCommand) => void;
}) {
  const { stage: s } = props;
  const note = stageNote(s);
  const gates = [
    s.soakSeconds ? `soak ${Math.round(s.soakSeconds / 60)} min` : undefined,
    s.approval ? 'approval' : undefined,
  ].filter(Boolean);
  return (
    <section
      aria-label={`Stage ${props.index + 1}: ${s.name}`}
      data-testid="fleet-stage"
      data-state={s.state}
    >
      <Flex direction="column" gap="2">
        <Flex gap="2" align="center" style={{ flexWrap: 'wrap' }}>
          <StateIcon look={STAGE_STATE[s.state]} />
          <Text as="h3" variant="title-x-small">
            {`Stage ${props.index + 1}: ${s.name}`}
          </Text>
          <Text variant="body-small" color="secondary">
            {`${STAGE_STATE[s.state].label}${
              gates.length && (s.state === 'waiting' || s.state === 'running')
                ? ` · then ${gates.join(' and ')}`
                : ''
            }`}
          </Text>
          {s.state === 'awaiting-approval' && props.canApprove && (
            <Button
              size="small"
              variant="primary"
              isDisabled={!!props.pending}
              isPending={props.pending === `approve stage ${s.name}`}
              onPress={() =>
                props.onCommand({ command: 'approve', stage: s.name })
              }
            >
              {`Approve ${s.name}`}
            </Button>
          )}
        </Flex>
        {note && <Text variant="body-small">{note}</Text>}
        <table
          aria-label={`Clusters of stage ${s.name}`}
          // Fixed columns: every stage's table lines up with the others.
          style={{
            width: '100%',
            borderCollapse: 'collapse',
            tableLayout: 'fixed',
          }}
        >
          <colgroup>
            <col style={{ width: '30%' }} />
            <col style={{ width: '15%' }} />
            <col style={{ width: '43%' }} />
            <col style={{ width: '12%' }} />
          </colgroup>
          <thead>
            <tr>
              <th style={cell}>Cluster</th>
              <th style={cell}>State</th>
              <th style={cell}>Where it is</th>
              <th style={cell}>Actions</th>
            </tr>
          </thead>
          <tbody>
            {s.clusters.map(c => (
              <ClusterRow
                key={`${c.managementCluster}/${c.namespace}/${c.name}`}
                c={c}
                runEnded={props.runEnded}
                mayForgive={props.mayForgive}
                pending={props.pending}
                onCommand={props.onCommand}
              />
            ))}
          </tbody>
        </table>
      </Flex>
    </section>
  );
}

export function FleetRunPage() {
  const { id = '' } = useParams();
  const api = useApi(capzApiRef);
  const root = useRouteRef(rootRouteRef);
  const { allowed: canApprove } = usePermission({
    permission: capzFleetRunApprovePermission,
  });
  // A signal always starts a fresh read (useAsyncRetry's retry() is dropped while a read is in flight).
  const [refreshKey, setRefreshKey] = useState(0);
  const [latest, setLatest] = useState<FleetRunRecord>();
  const {
    value: read,
    error,
    loading,
    retry,
  } = useAsyncRetry(() => api.getFleetRun(id), [api, id, refreshKey]);
  const refresh = useCallback(() => setRefreshKey(k => k + 1), []);
  const { live } = useFleetRunSignal(refresh, id);
  const [pending, setPending] = useState<string>();
  const [commandError, setCommandError] = useState<{
    what: string;
    error: Error;
  }>();

  // The newest of what a read and a command answered.
  const record =
    latest && read && latest.updatedAt > read.updatedAt
      ? latest
      : read ?? latest;

  const command = async (c: FleetRunCommand) => {
    const what = commandWords(c);
    setPending(what);
    setCommandError(undefined);
    try {
      setLatest(await api.commandFleetRun(id, c));
    } catch (e) {
      setCommandError({ what, error: e as Error });
    } finally {
      setPending(undefined);
    }
  };

  if (error && !record)
    return (
      <Flex direction="column" gap="3" p="4">
        <ErrorAlert title={`Could not load fleet run ${id}`} error={error} />
        {root && (
          <Text as="p" variant="body-small">
            <Link href={root()}>Go back to the clusters</Link>.
          </Text>
        )}
      </Flex>
    );
  if (!record)
    return (
      <div role="status" aria-label="Loading the run" style={{ padding: 16 }}>
        <Skeleton width="100%" height={200} />
      </div>
    );

  const { run } = record;
  const ended = ['succeeded', 'failed', 'cancelled'].includes(run.state);
  const all = run.stages.flatMap(s => s.clusters);
  const count = (st: FleetClusterState) =>
    all.filter(c => c.state === st).length;

  return (
    <Flex
      direction="column"
      gap="4"
      p="4"
      style={{ maxWidth: 1100 }}
      data-testid="fleet-run-page"
    >
      <nav aria-label="Breadcrumb">
        {root && <Link href={root()}>All clusters</Link>}
      </nav>
      <Flex
        justify="between"
        align="start"
        gap="3"
        style={{ flexWrap: 'wrap' }}
      >
        <Flex direction="column" gap="1">
          <Text as="h2" variant="title-medium">
            {fleetRunTitle(run)}
          </Text>
          <Text variant="body-small" color="secondary">
            {`Run ${record.id} · started by ${
              record.createdBy
            } on ${absoluteTime(record.createdAt)} · ${
              run.maxFailures
                ? `stops after ${run.maxFailures + 1} failures`
                : 'stops at the first failure'
            } · at most ${run.concurrency} cluster${
              run.concurrency === 1 ? '' : 's'
            } at a time`}
          </Text>
          <Flex gap="2" align="center" aria-live="polite">
            <StateIcon look={RUN_STATE[run.state]} />
            <Text variant="body-medium" data-testid="fleet-run-state">
              {RUN_STATE[run.state].label}
            </Text>
            <Text variant="body-small" color="secondary">
              {`${count('succeeded')} ${fleetRunVerbs(run).done}, ${count(
                'running',
              )} ${fleetRunVerbs(run).doing}, ${count(
                'waiting',
              )} waiting, ${count('failed')} failed, ${
                count('skipped') + count('cancelled')
              } skipped or not started`}
            </Text>
          </Flex>
        </Flex>
        <LiveStatus
          live={live}
          loading={loading}
          onRefresh={retry}
          what="run"
        />
      </Flex>

      {error && <ErrorAlert title="Could not refresh the run" error={error} />}
      {commandError && (
        <ErrorAlert
          title={`Could not ${commandError.what}`}
          error={commandError.error}
        />
      )}
      {!ended && (
        <Flex gap="2" role="group" aria-label="Run controls">
          {run.state === 'running' && (
            <Button
              variant="secondary"
              isDisabled={!!pending}
              isPending={pending === 'pause the run'}
              onPress={() => command({ command: 'pause' })}
            >
              Pause
            </Button>
          )}
          {run.state === 'paused' && (
            <Button
              variant="primary"
              isDisabled={!!pending}
              isPending={pending === 'resume the run'}
              onPress={() => command({ command: 'resume' })}
            >
              Resume
            </Button>
          )}
          {run.state !== 'stopping' && (
            <Button
              variant="secondary"
              isDisabled={!!pending}
              isPending={pending === 'cancel the run'}
              onPress={() => command({ command: 'cancel' })}
            >
              Cancel the run
            </Button>
          )}
          <Text variant="body-small" color="secondary">
            Pause and cancel start no other cluster; a cluster being upgraded
            finishes its part (its pools follow its control plane).
          </Text>
        </Flex>
      )}
      {run.stages.map((s, i) => (
        <Stage
          key={s.name}
          stage={s}
          index={i}
          runEnded={ended}
          mayForgive={
            run.state !== 'cancelled' &&
            run.state !== 'succeeded' &&
            run.stopReason !== 'cancelled'
          }
          canApprove={canApprove}
          pending={pending}
          onCommand={command}
        />
      ))}
    </Flex>
  );
}
