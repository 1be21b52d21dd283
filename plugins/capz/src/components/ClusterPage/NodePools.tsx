import { Skeleton, Text } from '@backstage/ui';
import {
  sameKubernetesVersion,
  treePools,
  type ClusterPlace,
  type TreeNode,
  type TreePool,
} from '@capz-backstage/plugin-capz-common';
import { useUngroupedTree } from '../ClusterActions/useUngroupedTree';
import { ErrorAlert } from '../shared/errors';
import { HealthLabel } from '../shared/health';
import { SimpleTable, TEXT_CELL } from '../shared/SimpleTable';

const CELL = { padding: '6px 12px 6px 0', verticalAlign: 'top' } as const;

const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`;

/** "3 of 4 ready": what CAPI counts from the workload cluster's Nodes. */
function nodesText(p: TreePool): string {
  if (p.replicas === undefined) return '—';
  return `${p.readyReplicas ?? 0} of ${plural(p.replicas, 'node')} ready`;
}

/** Who sets the count: AKS's autoscaler (with its bounds), another owner named by CAPI's annotation, or CAPI. */
function scalingText(p: TreePool): string {
  if (p.autoscalerEnabled)
    return `autoscaled by AKS, ${p.minCount ?? '?'}–${p.maxCount ?? '?'}`;
  if (p.replicasManagedBy) return `count set by ${p.replicasManagedBy}`;
  return 'fixed count';
}

const v = (x: string) => (x.startsWith('v') ? x : `v${x}`);

/** The version asked for, what AKS runs when it differs, and whether the pool is behind the control plane. */
function VersionCell({
  pool,
  controlPlane,
}: {
  pool: TreePool;
  controlPlane?: string;
}) {
  const asked = pool.version;
  const running = pool.currentVersion;
  const moving = asked && running && !sameKubernetesVersion(asked, running);
  const shown = asked ?? running;
  const behind =
    controlPlane &&
    shown &&
    !sameKubernetesVersion(running ?? asked, controlPlane);
  return (
    <>
      <span>{shown ? v(shown) : '—'}</span>
      {moving && (
        <Text as="div" variant="body-small" color="secondary">
          {`AKS runs ${v(running!)}`}
        </Text>
      )}
      {behind && (
        <Text as="div" variant="body-small" color="secondary">
          {`behind the control plane (${v(controlPlane!)})`}
        </Text>
      )}
    </>
  );
}

/**
 * The cluster's node pools as AKS and CAPI see them: mode, OS, VM size, nodes, who sets the count, version and
 * health. Read from the ungrouped tree (the page's tree may merge pools into a group), served from the backend's watch
 * cache, again on each live update (`tree` changes identity then).
 */
export function NodePools({
  cluster,
  tree,
  controlPlaneVersion,
}: {
  cluster: ClusterPlace;
  /** The page's tree: used as is when ungrouped, else the trigger to read the ungrouped one. */
  tree: TreeNode;
  controlPlaneVersion?: string;
}) {
  const ungrouped = !hasGroups(tree);
  const fetched = useUngroupedTree(cluster, !ungrouped, tree);
  const full = ungrouped ? tree : fetched.value;
  if (!ungrouped && fetched.error)
    return (
      <ErrorAlert
        title={`Could not load the node pools of ${cluster.name}`}
        error={fetched.error}
      />
    );
  if (!full)
    return (
      <div role="status" aria-label="Loading the node pools">
        <Skeleton width="100%" height={120} />
      </div>
    );
  const pools = treePools(full);
  if (!pools.length)
    return <Text>{`Cluster ${cluster.name} has no node pools.`}</Text>;
  return (
    <SimpleTable
      label={`Node pools of cluster ${cluster.name}`}
      columns={[
        'Pool',
        'Mode',
        'OS',
        'VM size',
        'Nodes',
        'Scaling',
        'Version',
        'Health',
      ]}
    >
      {pools.map(p => (
        <tr key={p.machinePool}>
          <th scope="row" style={{ ...CELL, textAlign: 'left' }}>
            {p.name}
            {p.machinePool !== p.name && (
              <Text as="div" variant="body-small" color="secondary">
                {`MachinePool ${p.machinePool}`}
              </Text>
            )}
          </th>
          <td style={CELL}>{p.mode ?? '—'}</td>
          <td style={CELL}>
            {p.osType ?? '—'}
            {p.osSku && (
              <Text as="div" variant="body-small" color="secondary">
                {p.osSku}
              </Text>
            )}
          </td>
          <td style={{ ...CELL, ...TEXT_CELL }}>{p.vmSize ?? '—'}</td>
          <td style={CELL}>{nodesText(p)}</td>
          <td style={CELL}>{scalingText(p)}</td>
          <td style={CELL}>
            <VersionCell pool={p} controlPlane={controlPlaneVersion} />
          </td>
          <td style={{ ...CELL, ...TEXT_CELL }}>
            <HealthLabel health={p.health} />
            {p.reason && (
              <Text as="div" variant="body-small" color="secondary">
                {p.reason}
              </Text>
            )}
          </td>
        </tr>
      ))}
    </SimpleTable>
  );
}

function hasGroups(node: TreeNode): boolean {
  return !!node.group || node.children.some(hasGroups);
}
