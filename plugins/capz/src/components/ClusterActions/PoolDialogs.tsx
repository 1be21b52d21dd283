import { Flex, Select, Text, TextField } from '@backstage/ui';
import {
  type ClusterPlace,
  MAX_POOL_NAME,
  type Day2Action,
  type Day2Cluster,
  type TreePool,
} from '@capz-backstage/plugin-capz-common';
import { useState } from 'react';
import useAsync from 'react-use/esm/useAsync';
import { usePickerApi } from '../../scaffolder/pickerApi';
import { ActionDialog } from './ActionDialog';
import type { ProgressOf } from './ActionProgress';
import { actionProblems } from './rules';
import { toInt } from './ScaleDialogs';

interface Props {
  cluster: ClusterPlace;
  pools: TreePool[];
  /** The cluster as capz-common's rules read it. */
  day2: Day2Cluster;
  onClose: () => void;
  progress: ProgressOf;
}

type NewPool = Extract<Day2Action, { action: 'addPool' }>['pool'];

/** Room for a pool name and its description on one line, still wrapping in a narrow dialog. */
const WIDE = { flex: '1 1 240px', minWidth: 240 };

/** Add a node pool with the template's rules (name, mode, OS, VM size, nodes). */
export function AddPoolDialog(props: Props) {
  const picker = usePickerApi();
  const sizes = useAsync(() => picker.vmSizes(), []);
  const [pool, setPool] = useState<NewPool>({
    name: '',
    mode: 'User',
    osType: 'Linux',
    vmSize: 'Standard_D4s_v3',
    replicas: 1,
  });
  const [replicas, setReplicas] = useState('1');
  const next: NewPool = { ...pool, replicas: toInt(replicas) };
  const action: Day2Action | undefined = pool.name
    ? { action: 'addPool', pool: next }
    : undefined;
  const problems = actionProblems(props.day2, action);
  const sizeOptions = (sizes.value?.items ?? []).map(s => ({
    id: s.name,
    label: `${s.name} (${s.vCPUs} vCPU, ${s.memoryGiB} GiB)`,
  }));
  if (!sizeOptions.some(s => s.id === pool.vmSize))
    sizeOptions.push({ id: pool.vmSize, label: pool.vmSize });
  return (
    <ActionDialog
      cluster={props.cluster}
      title="Add a node pool"
      permission="capz.cluster.nodepool"
      action={action}
      problems={problems}
      onClose={props.onClose}
      progress={props.progress}
    >
      <Flex gap="3" style={{ flexWrap: 'wrap' }}>
        {/* A flex item sizes to its content: without a basis the name field was ~90 px wide. */}
        <TextField
          style={WIDE}
          label="Pool name"
          description={`Lowercase letters and digits, at most ${
            MAX_POOL_NAME[pool.osType]
          }`}
          value={pool.name}
          onChange={v => setPool(p => ({ ...p, name: v.trim() }))}
        />
        <Select
          label="Mode"
          value={pool.mode}
          onChange={k =>
            setPool(p => ({
              ...p,
              mode: String(k) as NewPool['mode'],
              ...(String(k) === 'System' ? { osType: 'Linux' as const } : {}),
            }))
          }
          options={[
            { id: 'System', label: 'System' },
            { id: 'User', label: 'User' },
          ]}
        />
        <Select
          label="OS"
          isDisabled={pool.mode === 'System'}
          value={pool.osType}
          onChange={k =>
            setPool(p => ({ ...p, osType: String(k) as NewPool['osType'] }))
          }
          options={[
            { id: 'Linux', label: 'Linux' },
            { id: 'Windows', label: 'Windows' },
          ]}
        />
        <Select
          label="VM size"
          value={pool.vmSize}
          onChange={k =>
            k !== null && setPool(p => ({ ...p, vmSize: String(k) }))
          }
          options={sizeOptions}
        />
        <TextField label="Nodes" value={replicas} onChange={setReplicas} />
      </Flex>
    </ActionDialog>
  );
}

/** Remove a node pool (never the last System pool); the preview names the Azure agent pool that goes. */
export function RemovePoolDialog(props: Props) {
  const { pools } = props;
  const [name, setName] = useState<string>();
  const p = pools.find(x => x.name === name);
  const action: Day2Action | undefined = p
    ? { action: 'removePool', pool: p.name }
    : undefined;
  return (
    <ActionDialog
      cluster={props.cluster}
      title="Remove a node pool"
      permission="capz.cluster.nodepool"
      action={action}
      problems={actionProblems(props.day2, action)}
      onClose={props.onClose}
      progress={props.progress}
      confirmLabel="Remove the pool"
      destructive
    >
      <Select
        label="Node pool"
        value={name ?? null}
        onChange={k => setName(k === null ? undefined : String(k))}
        options={pools.map(x => ({
          id: x.name,
          label: `${x.name}${x.mode ? ` (${x.mode})` : ''}, ${
            x.replicas ?? '?'
          } ${x.replicas === 1 ? 'node' : 'nodes'}`,
        }))}
      />
    </ActionDialog>
  );
}

/** Pause or resume reconciliation (`Cluster.spec.paused`). */
export function PauseDialog(props: {
  cluster: ClusterPlace;
  resume: boolean;
  onClose: () => void;
  progress: ProgressOf;
}) {
  return (
    <ActionDialog
      cluster={props.cluster}
      title={props.resume ? 'Resume reconciliation' : 'Pause reconciliation'}
      permission="capz.cluster.pause"
      action={{ action: props.resume ? 'resume' : 'pause' }}
      problems={[]}
      onClose={props.onClose}
      progress={props.progress}
    >
      <Text as="p" variant="body-small">
        {props.resume
          ? 'CAPI and CAPZ reconcile the cluster again: changes made to its objects while it was paused reach Azure now.'
          : 'CAPI and CAPZ stop reconciling the cluster and CAPZ sets its ASO objects to reconcile-policy skip: nothing reaches Azure until it is resumed, not even a deletion.'}
      </Text>
    </ActionDialog>
  );
}
