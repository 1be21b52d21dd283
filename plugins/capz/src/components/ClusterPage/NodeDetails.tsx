import { useApi } from '@backstage/frontend-plugin-api';
import {
  Alert,
  Button,
  Flex,
  Skeleton,
  Tab,
  TabList,
  TabPanel,
  Tabs,
  Text,
} from '@backstage/ui';
import {
  type ClusterPlace,
  hintFor,
  TreeNode,
} from '@capz-backstage/plugin-capz-common';
import { Fragment, useMemo } from 'react';
import useAsync from 'react-use/esm/useAsync';
import { capzApiRef } from '../../api/CapzApi';
import { CopyButton } from '../shared/CopyButton';
import { ErrorAlert } from '../shared/errors';
import {
  CamelCase,
  SimpleTable,
  TEXT_CELL,
  TIME_CELL,
} from '../shared/SimpleTable';
import { HEALTH_LABEL, HealthLabel } from '../shared/health';
import { absoluteTime, relativeTime } from '../shared/time';
import { TimelinePanel } from '../Timeline/TimelinePanel';

const DAY = 86_400_000;

const cellStyle = {
  padding: '4px 8px 4px 0',
  verticalAlign: 'top' as const,
  borderTop: '1px solid var(--bui-border-1, #ddd)',
};
const timeCell = { ...cellStyle, ...TIME_CELL };
/** A condition's or an Event's message, under its row: no rule between them. */
const messageCell = {
  ...TEXT_CELL,
  padding: '0 8px 4px 0',
  color: 'var(--bui-fg-secondary)',
};

/**
 * "Degraded: ManagedCluster x: ReconciliationBlocked — AKS is busy", each part only when it says something new: a paused
 * object's label, reason and hint are all "Paused", which read "Paused: Paused — Paused".
 */
export function whyTitle(label: string, reason?: string, hint?: string) {
  const said = new Set([label.toLowerCase()]);
  const fresh = (p?: string) => {
    if (!p || said.has(p.toLowerCase())) return false;
    said.add(p.toLowerCase());
    return true;
  };
  return `${label}${fresh(reason) ? `: ${reason}` : ''}${
    fresh(hint) ? ` — ${hint}` : ''
  }`;
}

/** The answer to "why is this not ready": reason, message and, for reasons people meet often, what it means. */
export function WhyNotReady({
  node,
  onSelect,
}: {
  node: TreeNode;
  onSelect?: (id: string) => void;
}) {
  if (node.health === 'healthy') return null;
  const hint = hintFor(node.reason, node.message);
  const STATUS = { failed: 'danger', degraded: 'warning' } as const;
  const status = STATUS[node.health as keyof typeof STATUS] ?? 'info';
  return (
    <Alert
      status={status}
      icon
      title={whyTitle(HEALTH_LABEL[node.health], node.reason, hint?.title)}
      description={
        <Flex direction="column" gap="1">
          {node.message && <Text as="p">{node.message}</Text>}
          {hint && <Text as="p">{hint.explanation}</Text>}
          {hint && (
            <Text as="p">
              <strong>What to do:</strong> {hint.action}
            </Text>
          )}
          {node.source && node.source.id !== node.id && onSelect && (
            <span>
              <Button
                size="small"
                variant="secondary"
                onPress={() => onSelect(node.source!.id)}
              >
                {`Go to ${node.source.kind} ${node.source.name}`}
              </Button>
            </span>
          )}
        </Flex>
      }
    />
  );
}

function Conditions({ node }: { node: TreeNode }) {
  if (node.conditions.length === 0) {
    return (
      <Text as="p" color="secondary">
        This object has no conditions
        {node.group
          ? ' (a group: select a member after turning grouping off)'
          : ''}
        .
      </Text>
    );
  }
  // Four narrow columns and the message on a line of its own under its condition: the panel is a third of the page,
  // and a message column squeezed beside the others wrapped "4 minutes ago" over three lines.
  return (
    <SimpleTable
      label={`Conditions of ${node.kind} ${node.name}`}
      columns={['Type', 'Status', 'Reason', 'Since']}
    >
      {node.conditions.map(c => (
        <Fragment key={c.type}>
          <tr>
            <td style={cellStyle}>
              <CamelCase text={c.type} />
            </td>
            <td style={cellStyle}>
              {c.status}
              {c.severity ? ` (${c.severity})` : ''}
            </td>
            <td style={cellStyle}>
              <CamelCase text={c.reason ?? ''} />
            </td>
            <td style={timeCell}>
              {c.lastTransitionTime && (
                <time
                  dateTime={c.lastTransitionTime}
                  title={absoluteTime(c.lastTransitionTime)}
                >
                  {relativeTime(c.lastTransitionTime)}
                </time>
              )}
            </td>
          </tr>
          {c.message && (
            <tr>
              <td colSpan={4} style={messageCell}>
                {c.message}
              </td>
            </tr>
          )}
        </Fragment>
      ))}
    </SimpleTable>
  );
}

function Events({
  cluster,
  uid,
  refreshKey,
}: {
  cluster: ClusterPlace;
  uid: string;
  refreshKey?: number;
}) {
  const api = useApi(capzApiRef);
  const { value, loading, error } = useAsync(async () => {
    const to = Date.now();
    return api.getTimeline(cluster, {
      from: new Date(to - DAY),
      to: new Date(to),
      uid,
    });
  }, [
    api,
    cluster.managementCluster,
    cluster.namespace,
    cluster.name,
    uid,
    refreshKey,
  ]);
  const events = useMemo(() => [...(value?.events ?? [])].reverse(), [value]);
  if (error)
    return <ErrorAlert title="Could not load the Events" error={error} />;
  if (loading && !value) return <Skeleton width="100%" height={48} />;
  if (events.length === 0)
    return (
      <Text as="p" color="secondary">
        No Events about this object in the last 24 hours.
      </Text>
    );
  // As the conditions: four narrow columns, the message and its source on a line of their own (six columns in a
  // third of the page scrolled sideways).
  return (
    <SimpleTable
      label="Recent Events"
      columns={['Last seen', 'Type', 'Reason', 'Count']}
    >
      {events.map(e => (
        <Fragment
          key={`${e.reason}/${e.firstTimestamp}/${e.lastTimestamp}/${e.message}`}
        >
          <tr>
            <td style={timeCell}>
              {e.lastTimestamp && (
                <time
                  dateTime={e.lastTimestamp}
                  title={absoluteTime(e.lastTimestamp)}
                >
                  {relativeTime(e.lastTimestamp)}
                </time>
              )}
            </td>
            <td
              style={{
                ...cellStyle,
                color:
                  e.type === 'Warning' ? 'var(--bui-fg-warning)' : undefined,
              }}
            >
              {e.type}
            </td>
            <td style={cellStyle}>
              <CamelCase text={e.reason ?? ''} />
            </td>
            <td style={cellStyle}>{e.count}</td>
          </tr>
          {(e.message || e.source) && (
            <tr>
              <td colSpan={4} style={messageCell}>
                {e.message ?? ''}
                {e.source && (
                  <Text as="span" variant="body-small" color="secondary">
                    {`${e.message ? ' · ' : ''}from ${e.source}`}
                  </Text>
                )}
              </td>
            </tr>
          )}
        </Fragment>
      ))}
    </SimpleTable>
  );
}

function Yaml({
  cluster,
  uid,
  refreshKey,
}: {
  cluster: ClusterPlace;
  uid: string;
  refreshKey?: number;
}) {
  const api = useApi(capzApiRef);
  const { value, loading, error } = useAsync(
    () => api.getObjectYaml(cluster, uid),
    [
      api,
      cluster.managementCluster,
      cluster.namespace,
      cluster.name,
      uid,
      refreshKey,
    ],
  );
  if (error)
    return <ErrorAlert title="Could not load the YAML" error={error} />;
  if (loading && !value) return <Skeleton width="100%" height={120} />;
  if (!value) return null;
  return (
    <>
      <Flex justify="between" align="center" gap="2">
        <Text as="p" variant="body-small" color="secondary">
          managedFields are left out and secret values are redacted by the
          backend.
        </Text>
        <CopyButton
          text={value.yaml}
          label={`Copy the YAML of ${value.kind} ${value.name}`}
        />
      </Flex>
      <pre
        aria-label={`YAML of ${value.kind} ${value.name}`}
        style={{
          margin: 0,
          padding: 12,
          // YAML as written: a long value scrolls, never wraps in the middle of a token.
          whiteSpace: 'pre',
          overflowX: 'auto',
          fontSize: 12,
          background: 'var(--bui-bg-neutral-1, #f5f5f5)',
          borderRadius: 4,
        }}
      >
        {value.yaml}
      </pre>
    </>
  );
}

/** The details of the selected tree node: why, facts, conditions, recent Events, its own timeline and its YAML. */
export function NodeDetails(props: {
  cluster: ClusterPlace;
  node: TreeNode;
  refreshKey?: number;
  onSelect?: (id: string) => void;
}) {
  const { node, cluster } = props;
  const facts = Object.entries(node.facts);
  const since = relativeTime(node.since);
  return (
    <section
      aria-label={`Details of ${node.kind} ${node.name}`}
      style={{ minWidth: 0 }}
    >
      <Flex direction="column" gap="3">
        <Flex direction="column" gap="1">
          <Text as="h3" variant="title-small">
            {node.group
              ? `${node.group.count} ${node.group.kind}s`
              : `${node.kind} ${node.name}`}
          </Text>
          <Flex gap="2" align="center" style={{ flexWrap: 'wrap' }}>
            <HealthLabel health={node.health} />
            {since && (
              <Text
                variant="body-small"
                color="secondary"
                style={{ whiteSpace: 'nowrap' }}
              >
                since{' '}
                <time dateTime={node.since} title={absoluteTime(node.since)}>
                  {since}
                </time>
              </Text>
            )}
            {node.apiVersion && (
              <Text
                variant="body-small"
                color="secondary"
                style={{ ...TEXT_CELL, minWidth: 0 }}
              >
                {node.apiVersion}
              </Text>
            )}
          </Flex>
        </Flex>
        <WhyNotReady node={node} onSelect={props.onSelect} />
        {node.group && (
          <Text as="p">
            {`Grouped because they are alike (${
              node.group.kind
            }, ${HEALTH_LABEL[node.health].toLowerCase()}): `}
            {node.group.names.join(', ')}. Turn off “Group similar objects” to
            see each one.
          </Text>
        )}
        <Tabs>
          <TabList aria-label="Object details">
            <Tab id="overview">Overview</Tab>
            <Tab id="events" isDisabled={!node.uid}>
              Events
            </Tab>
            <Tab id="timeline" isDisabled={!node.uid}>
              Timeline
            </Tab>
            <Tab id="yaml" isDisabled={!node.uid}>
              YAML
            </Tab>
          </TabList>
          <TabPanel id="overview">
            <Flex direction="column" gap="3">
              {facts.length > 0 && (
                <dl
                  style={{
                    display: 'grid',
                    gridTemplateColumns: 'max-content 1fr',
                    columnGap: 16,
                    rowGap: 4,
                    margin: 0,
                  }}
                >
                  {facts.map(([k, v]) => (
                    <div key={k} style={{ display: 'contents' }}>
                      <dt style={{ color: 'var(--bui-fg-secondary)' }}>{k}</dt>
                      <dd style={{ margin: 0, ...TEXT_CELL }}>{String(v)}</dd>
                    </div>
                  ))}
                </dl>
              )}
              <Conditions node={node} />
              {!node.uid && (
                <Text as="p" color="secondary">
                  {node.reason === 'NotFound'
                    ? 'This object does not exist in the management cluster, so it has no Events or YAML.'
                    : 'Not a single object, so it has no Events or YAML.'}
                </Text>
              )}
            </Flex>
          </TabPanel>
          <TabPanel id="events">
            {node.uid && (
              <Events
                cluster={cluster}
                uid={node.uid}
                refreshKey={props.refreshKey}
              />
            )}
          </TabPanel>
          <TabPanel id="timeline">
            {node.uid && (
              <TimelinePanel
                cluster={cluster}
                objectUid={node.uid}
                objectLabel={`${node.kind} ${node.name}`}
                refreshKey={props.refreshKey}
              />
            )}
          </TabPanel>
          <TabPanel id="yaml">
            {node.uid && (
              <Yaml
                cluster={cluster}
                uid={node.uid}
                refreshKey={props.refreshKey}
              />
            )}
          </TabPanel>
        </Tabs>
      </Flex>
    </section>
  );
}
