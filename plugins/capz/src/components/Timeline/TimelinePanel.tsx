import { useApi } from '@backstage/frontend-plugin-api';
import { Alert, Button, Flex, Select, Skeleton, Text } from '@backstage/ui';
import { useMemo, useState } from 'react';
import useAsync from 'react-use/esm/useAsync';
import type { ClusterPlace } from '@capz-backstage/plugin-capz-common';
import { capzApiRef } from '../../api/CapzApi';
import { ErrorAlert } from '../shared/errors';
import { SimpleTable } from '../shared/SimpleTable';
import { absoluteTime } from '../shared/time';
import { ConditionTimeline, statusTextColor } from './ConditionTimeline';
import { buildTimeline } from './timelineModel';

const HOUR = 3_600_000;
export const RANGES: Array<{ id: string; label: string; ms: number }> = [
  { id: '1h', label: 'Last hour', ms: HOUR },
  { id: '6h', label: 'Last 6 hours', ms: 6 * HOUR },
  { id: '24h', label: 'Last 24 hours', ms: 24 * HOUR },
  { id: '3d', label: 'Last 3 days', ms: 72 * HOUR },
  { id: '7d', label: 'Last 7 days', ms: 168 * HOUR },
];

const MAX_LIST = 200;

/**
 * The condition timeline of a cluster (or of one object with `objectUid`): a time-range picker, the lanes, and the
 * transitions as a list. While the range ends "now", every `refreshKey` change (a live update for this cluster)
 * fetches it again up to the new now, so the lanes grow as transitions arrive.
 */
export function TimelinePanel(props: {
  cluster: ClusterPlace;
  objectUid?: string;
  objectLabel?: string;
  refreshKey?: number;
  initialRange?: string;
  /** For tests and measurements: a fixed "now". */
  now?: () => number;
}) {
  const api = useApi(capzApiRef);
  const [rangeId, setRangeId] = useState(props.initialRange ?? '6h');
  // undefined = the range ends now and follows live updates; otherwise a fixed end in the past.
  const [endAt, setEndAt] = useState<number | undefined>();
  const range = RANGES.find(r => r.id === rangeId) ?? RANGES[1];
  const nowFn = props.now ?? Date.now;

  const { value, loading, error } = useAsync(async () => {
    const to = endAt ?? nowFn();
    const from = to - range.ms;
    const res = await api.getTimeline(props.cluster, {
      from: new Date(from),
      to: new Date(to),
      uid: props.objectUid,
    });
    return { res, from, to };
    // refreshKey only matters while following now.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [
    api,
    props.cluster.managementCluster,
    props.cluster.namespace,
    props.cluster.name,
    props.objectUid,
    range.ms,
    endAt,
    endAt === undefined ? props.refreshKey : 0,
  ]);

  const model = useMemo(
    () =>
      value
        ? buildTimeline(
            value.res.transitions,
            value.res.events,
            value.from,
            value.to,
            { initial: value.res.initial, deletions: value.res.deletions },
          )
        : undefined,
    [value],
  );
  const recent = useMemo(
    () =>
      value ? [...value.res.transitions].reverse().slice(0, MAX_LIST) : [],
    [value],
  );

  const shift = (dir: -1 | 1) => {
    const end = (endAt ?? nowFn()) + dir * range.ms;
    setEndAt(end >= nowFn() ? undefined : end);
  };

  return (
    <Flex direction="column" gap="3">
      <Flex gap="2" align="end" style={{ flexWrap: 'wrap' }}>
        <Select
          label="Time range"
          size="small"
          style={{ minWidth: 180 }}
          value={rangeId}
          onChange={k => k && setRangeId(String(k))}
          options={RANGES.map(r => ({ id: r.id, label: r.label }))}
        />
        <Button size="small" variant="secondary" onPress={() => shift(-1)}>
          Earlier
        </Button>
        <Button
          size="small"
          variant="secondary"
          onPress={() => shift(1)}
          isDisabled={endAt === undefined}
        >
          Later
        </Button>
        {endAt !== undefined && (
          <Button
            size="small"
            variant="tertiary"
            onPress={() => setEndAt(undefined)}
          >
            Back to now
          </Button>
        )}
        {value && (
          <Text variant="body-small" color="secondary">
            {absoluteTime(value.from)} –{' '}
            {endAt === undefined ? 'now' : absoluteTime(value.to)}
            {endAt === undefined ? ' · updates live' : ''}
          </Text>
        )}
      </Flex>

      {error && (
        <ErrorAlert title="Could not load the timeline" error={error} />
      )}
      {loading && !value && (
        <div role="status" aria-label="Loading the timeline">
          <Skeleton width="100%" height={80} />
        </div>
      )}
      {value?.res.truncated && (
        <Alert
          status="warning"
          icon
          title="Not everything fits"
          description="More transitions happened in this range than the backend returns at once. Pick a shorter range to see them all."
        />
      )}
      {model && model.lanes.length === 0 && model.eventLanes.length === 0 && (
        <Text as="p" color="secondary">
          No condition changed and no Event was recorded{' '}
          {props.objectLabel ? `for ${props.objectLabel} ` : ''}in this range.
          The history starts when the Backstage backend first watched the
          cluster; pick a longer range to look further back.
        </Text>
      )}
      {model && model.lanes.length > 0 && recent.length === 0 && (
        <Text as="p" variant="body-small" color="secondary">
          No condition changed in this range: the lanes show the state each
          condition was already in when it started.
        </Text>
      )}
      {model && (model.lanes.length > 0 || model.eventLanes.length > 0) && (
        <ConditionTimeline
          model={model}
          label={`Condition timeline${
            props.objectLabel ? ` of ${props.objectLabel}` : ''
          }`}
        />
      )}
      {recent.length > 0 && (
        <section aria-label="Transitions">
          <Text as="h3" variant="title-x-small">
            Transitions, newest first
          </Text>
          <SimpleTable
            label="Condition transitions"
            style={{ fontSize: 'var(--bui-font-size-2, 12px)' }}
            columns={[
              'Time',
              'Object',
              'Condition',
              'Status',
              'Reason',
              'Message',
            ]}
          >
            {recent.map(t => (
              <tr
                key={`${t.objectUid}/${t.conditionType}/${t.transitionTime}/${t.firstSeen}`}
                style={{ borderTop: '1px solid var(--bui-border-1, #ddd)' }}
              >
                <td style={{ whiteSpace: 'nowrap', paddingRight: 8 }}>
                  {absoluteTime(t.transitionTime)}
                </td>
                <td
                  style={{ whiteSpace: 'nowrap', paddingRight: 8 }}
                >{`${t.kind} ${t.name}`}</td>
                <td style={{ paddingRight: 8 }}>{t.conditionType}</td>
                <td
                  style={{
                    paddingRight: 8,
                    color: statusTextColor(t),
                    fontWeight: 600,
                  }}
                >
                  {t.status}
                </td>
                <td style={{ paddingRight: 8 }}>{t.reason ?? ''}</td>
                <td>{t.message ?? ''}</td>
              </tr>
            ))}
          </SimpleTable>
          {value && value.res.transitions.length > MAX_LIST && (
            <Text variant="body-small" color="secondary">
              {value.res.transitions.length - MAX_LIST} older transitions are in
              the lanes above only.
            </Text>
          )}
        </section>
      )}
    </Flex>
  );
}
