import { useApi, useRouteRef } from '@backstage/frontend-plugin-api';
import { ResponseError } from '@backstage/errors';
import {
  Alert,
  Button,
  Flex,
  Link,
  Skeleton,
  Switch,
  Tab,
  TabList,
  TabPanel,
  Tabs,
  Text,
} from '@backstage/ui';
import {
  ReactNode,
  useCallback,
  useEffect,
  useMemo,
  useRef,
  useState,
} from 'react';
import {
  describePools,
  type ClusterPlace,
  type ClusterSummary,
  type TreeNode,
} from '@capz-backstage/plugin-capz-common';
import useAsyncRetry from 'react-use/esm/useAsyncRetry';
import { capzApiRef } from '../../api/CapzApi';
import { clusterRouteRef, rootRouteRef } from '../../routes';
import { API_LABEL } from '../ClustersPage/columns';
import { FollowedActionPanel, PausedBanner } from '../ClusterActions';
import { ErrorAlert } from '../shared/errors';
import { LiveStatus } from '../shared/LiveStatus';
import { ManagedFromAlert } from '../shared/managedFrom';
import {
  managementClusterLabel,
  ManagementClusterUnreachableAlert,
  useManagementClusterState,
} from '../shared/managementClusterState';
import { HealthLabel } from '../shared/health';
import { useLiveRefresh } from '../shared/useLiveRefresh';
import { TimelinePanel } from '../Timeline/TimelinePanel';
import { NodeDetails } from './NodeDetails';
import { AppliedFrom } from './AppliedFrom';
import { LifecycleNotes } from './LifecycleNotes';
import { ClusterJobs } from './ClusterJobs';
import { NodePools } from './NodePools';
import { ResourceTree } from './ResourceTree';
import {
  ancestorsOf,
  decidingNode,
  indexTree,
  initiallyExpanded,
} from './treeModel';

/**
 * One cluster: summary, resource tree with node details, and condition timeline. Used by the cluster page and, for
 * catalog entities that name a cluster, by the entity tab (`linkToPage` adds a link to the full page there).
 */
export function ClusterView({
  cluster,
  linkToPage,
  actions,
}: {
  cluster: ClusterPlace;
  linkToPage?: boolean;
  /**
   * Extra buttons next to the summary, e.g. the job wizards and the day-2 action menu (they depend on the cluster).
   * `pausedUntil` names the management cluster that does not answer, if any: the tree is as last seen.
   */
  actions?: (
    summary: ClusterSummary,
    tree: TreeNode,
    pausedUntil?: string,
  ) => ReactNode;
}) {
  const api = useApi(capzApiRef);
  const pageLink = useRouteRef(clusterRouteRef);
  const root = useRouteRef(rootRouteRef);
  const [grouped, setGrouped] = useState(true);
  const [refreshKey, setRefreshKey] = useState(0);
  const [tab, setTab] = useState<string>('resources');
  const [selected, setSelected] = useState<string | undefined>();
  const [expanded, setExpanded] = useState<Set<string> | undefined>();

  const { value, loading, error, retry } = useAsyncRetry(
    () => api.getClusterTree(cluster, { group: grouped ? 3 : 0 }),
    [
      api,
      cluster.managementCluster,
      cluster.namespace,
      cluster.name,
      grouped,
      refreshKey,
    ],
  );
  const refresh = useCallback(() => setRefreshKey(k => k + 1), []);
  // The cluster this view has shown: a 404 after that means it was deleted while the page was open (a live update
  // or a refresh), not an address that never named a cluster.
  const key = `${cluster.managementCluster}/${cluster.namespace}/${cluster.name}`;
  const shown = useRef<string>();
  if (value) shown.current = key;
  const uid = value?.summary.uid;
  const { live } = useLiveRefresh(
    refresh,
    // The backend names this cluster, or says a management cluster's connection changed: no watch event arrives
    // while its API server is away, so that is the only word of an outage.
    s => (!!uid && s.clusterUids.includes(uid)) || !!s.managementClusters,
  );
  const mc = useManagementClusterState(cluster.managementCluster, refreshKey);
  const unreachable =
    mc.value?.status.state === 'unreachable' ? mc.value : undefined;
  const unreachableAlert = unreachable && (
    <ManagementClusterUnreachableAlert mc={unreachable} />
  );
  const { retry: retryMc } = mc;
  const refreshAll = useCallback(() => {
    retry();
    retryMc();
  }, [retry, retryMc]);

  const index = useMemo(
    () => (value ? indexTree(value.tree) : undefined),
    [value],
  );
  const deciding = useMemo(
    () => (value ? decidingNode(value.tree) : undefined),
    [value],
  );

  // First load: expand everything. The selection is derived in render below, so the first paint already shows the
  // answer to "why" (an effect setting it painted the root first, then switched).
  useEffect(() => {
    if (!value) return;
    setExpanded(prev => prev ?? initiallyExpanded(value.tree));
  }, [value]);

  const select = useCallback(
    (id: string) => {
      if (!index) return;
      setSelected(id);
      setExpanded(
        prev => new Set([...(prev ?? []), ...ancestorsOf(index, id)]),
      );
      setTab('resources');
    },
    [index],
  );

  if (
    error &&
    shown.current === key &&
    error instanceof ResponseError &&
    error.statusCode === 404
  ) {
    return (
      <Alert
        status="info"
        icon
        title={`Cluster ${cluster.namespace}/${cluster.name} was deleted`}
        description={
          <Flex direction="column" gap="1">
            <Text variant="body-small">
              {`It is no longer in management cluster ${cluster.managementCluster}.`}
            </Text>
            {root && <Link href={root()}>Back to the clusters list</Link>}
          </Flex>
        }
      />
    );
  }
  if (error) {
    return (
      <Flex direction="column" gap="4">
        {unreachableAlert}
        <ErrorAlert
          title={`Could not load cluster ${cluster.namespace}/${cluster.name}`}
          error={error}
        />
      </Flex>
    );
  }
  if (!value) {
    return (
      <div role="status" aria-label="Loading the cluster">
        <Skeleton width="100%" height={200} />
      </div>
    );
  }

  const { summary, tree } = value;
  // The user's selection while it is in the tree; otherwise (first load, or it vanished) the answer to "why".
  const node = (selected && index?.get(selected)?.node) || deciding || tree;
  const fullPage = linkToPage ? pageLink?.({ ...cluster }) : undefined;

  return (
    <Flex direction="column" gap="4">
      {unreachableAlert}
      <ManagedFromAlert clusters={[summary]} />
      <PausedBanner tree={tree} />
      <FollowedActionPanel
        cluster={cluster}
        tree={tree}
        pausedUntil={
          unreachable ? managementClusterLabel(unreachable) : undefined
        }
      />
      <LifecycleNotes summary={summary} />
      <Flex
        justify="between"
        align="start"
        style={{ flexWrap: 'wrap' }}
        gap="3"
      >
        <Flex direction="column" gap="1">
          <Text as="h2" variant="title-medium">
            {summary.name}
          </Text>
          <Text variant="body-small" color="secondary">
            {`${summary.namespace} · ${summary.managementCluster} · ${
              API_LABEL[summary.api] ?? summary.api
            }` +
              `${
                summary.kubernetesVersion
                  ? ` · ${summary.kubernetesVersion}`
                  : ''
              }` +
              `${summary.location ? ` · ${summary.location}` : ''}` +
              `${
                summary.pools
                  ? ` · ${describePools(summary.pools)}, ${
                      summary.pools.replicas
                    } ${summary.pools.replicas === 1 ? 'node' : 'nodes'}`
                  : ''
              }`}
          </Text>
          <Flex gap="2" align="center">
            <HealthLabel health={summary.health} />
            {summary.reason && (
              <Text variant="body-small">{summary.reason}</Text>
            )}
          </Flex>
          <AppliedFrom summary={summary} />
        </Flex>
        <Flex gap="2" align="center">
          {actions?.(
            summary,
            tree,
            unreachable ? managementClusterLabel(unreachable) : undefined,
          )}
          {deciding && (
            <Button
              variant="primary"
              size="small"
              onPress={() => select(deciding.id)}
            >
              Why is it not ready?
            </Button>
          )}
          {fullPage && <Link href={fullPage}>Open the cluster page</Link>}
          <LiveStatus
            live={live}
            loading={loading}
            onRefresh={refreshAll}
            what="cluster"
          />
        </Flex>
      </Flex>

      <Tabs selectedKey={tab} onSelectionChange={k => setTab(String(k))}>
        <TabList aria-label="Cluster views">
          <Tab id="resources">Resources</Tab>
          <Tab id="pools">Node pools</Tab>
          <Tab id="timeline">Timeline</Tab>
          <Tab id="jobs">Jobs</Tab>
        </TabList>
        <TabPanel id="resources">
          <Flex direction="column" gap="2" pt="3">
            <Switch
              label="Group similar objects"
              isSelected={grouped}
              onChange={setGrouped}
            />
            <div
              style={{
                display: 'grid',
                gridTemplateColumns: 'minmax(0, 3fr) minmax(0, 2fr)',
                gap: 24,
                alignItems: 'start',
              }}
            >
              <ResourceTree
                tree={tree}
                label={`Resources of cluster ${summary.name}`}
                selected={node.id}
                onSelect={select}
                expanded={expanded ?? initiallyExpanded(tree)}
                onExpandedChange={setExpanded}
              />
              <NodeDetails
                cluster={cluster}
                node={node}
                refreshKey={refreshKey}
                onSelect={select}
              />
            </div>
          </Flex>
        </TabPanel>
        <TabPanel id="pools">
          <div style={{ paddingTop: 12 }}>
            <NodePools
              cluster={cluster}
              tree={tree}
              controlPlaneVersion={summary.kubernetesVersion}
            />
          </div>
        </TabPanel>
        <TabPanel id="timeline">
          <div style={{ paddingTop: 12 }}>
            <TimelinePanel cluster={cluster} refreshKey={refreshKey} />
          </div>
        </TabPanel>
        <TabPanel id="jobs">
          <div style={{ paddingTop: 12 }}>
            <ClusterJobs cluster={cluster} />
          </div>
        </TabPanel>
      </Tabs>
    </Flex>
  );
}
