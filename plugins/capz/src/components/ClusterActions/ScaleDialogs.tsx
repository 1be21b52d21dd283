import { Alert, Button, Flex, Select, Switch, TextField } from '@backstage/ui';
import type {
  ClusterPlace,
  Day2Action,
  Day2Cluster,
  TreePool,
} from '@capz-backstage/plugin-capz-common';
import { useState } from 'react';
import { ActionDialog } from './ActionDialog';
import type { ProgressOf } from './ActionProgress';
import { actionProblems } from './rules';

/** A whole number typed into a field, NaN otherwise. */
export const toInt = (v: string) => (/^\d+$/.test(v.trim()) ? Number(v) : NaN);

const poolLabel = (p: TreePool) =>
  `${p.name}${p.mode ? ` (${p.mode})` : ''}${
    p.autoscaling ? ', autoscaled' : ''
  }`;

function PoolSelect({
  pools,
  value,
  onChange,
}: {
  pools: TreePool[];
  value?: string;
  onChange: (pool: string) => void;
}) {
  return (
    <Select
      label="Node pool"
      value={value ?? null}
      onChange={k => k !== null && onChange(String(k))}
      options={pools.map(p => ({ id: p.name, label: poolLabel(p) }))}
    />
  );
}

interface Props {
  cluster: ClusterPlace;
  pools: TreePool[];
  /** The cluster as capz-common's rules read it. */
  day2: Day2Cluster;
  initialPool?: string;
  onClose: () => void;
  progress: ProgressOf;
}

/** Scale a pool: its node count. An autoscaled pool's count belongs to AKS's autoscaler: min/max are offered. */
export function ScaleDialog(
  props: Props & { onAutoscale: (pool: string) => void },
) {
  const { pools } = props;
  const [pool, setPool] = useState(props.initialPool ?? pools[0]?.name);
  const p = pools.find(x => x.name === pool);
  const [replicas, setReplicas] = useState(
    p?.replicas === undefined ? '' : String(p.replicas),
  );
  const n = toInt(replicas);
  const action: Day2Action | undefined =
    p && !p.autoscaling && replicas.trim() !== ''
      ? { action: 'scale', pool: p.name, replicas: n }
      : undefined;
  const problems = actionProblems(props.day2, action);
  return (
    <ActionDialog
      cluster={props.cluster}
      title="Scale a node pool"
      permission="capz.cluster.scale"
      action={action}
      problems={problems}
      onClose={props.onClose}
      progress={props.progress}
    >
      <PoolSelect
        pools={pools}
        value={pool}
        onChange={name => {
          setPool(name);
          const next = pools.find(x => x.name === name);
          setReplicas(
            next?.replicas === undefined ? '' : String(next.replicas),
          );
        }}
      />
      {p?.autoscaling ? (
        <Alert
          status="info"
          icon
          title="AKS's autoscaler owns the count"
          description={`Pool ${p.name} is autoscaled${
            p.minCount !== undefined && p.maxCount !== undefined
              ? ` between ${p.minCount} and ${p.maxCount} nodes`
              : ''
          }${
            p.replicas !== undefined ? ` and has ${p.replicas} now` : ''
          }: a node count set here would be overwritten by AKS. Change its minimum and maximum instead.`}
          customActions={
            <Button
              size="small"
              variant="secondary"
              onPress={() => props.onAutoscale(p.name)}
            >
              Change min/max
            </Button>
          }
        />
      ) : (
        <TextField
          label="Nodes"
          description={
            p?.replicas !== undefined ? `Now ${p.replicas}` : undefined
          }
          value={replicas}
          onChange={setReplicas}
        />
      )}
    </ActionDialog>
  );
}

/** Turn AKS's autoscaler on (with min and max) or off for a pool. */
export function AutoscaleDialog(props: Props) {
  const { pools } = props;
  const [pool, setPool] = useState(props.initialPool ?? pools[0]?.name);
  const p = pools.find(x => x.name === pool);
  const defaults = (x?: TreePool) => ({
    enabled: !!x?.autoscalerEnabled,
    min: String(x?.minCount ?? (x?.mode === 'System' ? 1 : 0)),
    max: String(x?.maxCount ?? Math.max(3, x?.replicas ?? 0)),
  });
  const [form, setForm] = useState(defaults(p));
  const min = toInt(form.min);
  const max = toInt(form.max);
  let action: Day2Action | undefined;
  if (p && form.enabled)
    action = {
      action: 'autoscale',
      pool: p.name,
      enabled: true,
      minCount: min,
      maxCount: max,
    };
  else if (p) action = { action: 'autoscale', pool: p.name, enabled: false };
  const problems = actionProblems(props.day2, action);
  return (
    <ActionDialog
      cluster={props.cluster}
      title="Autoscaling of a node pool"
      permission="capz.cluster.scale"
      action={action}
      problems={problems}
      onClose={props.onClose}
      progress={props.progress}
    >
      <PoolSelect
        pools={pools}
        value={pool}
        onChange={name => {
          setPool(name);
          setForm(defaults(pools.find(x => x.name === name)));
        }}
      />
      <Switch
        label="AKS's cluster autoscaler sets the node count"
        isSelected={form.enabled}
        onChange={enabled => setForm(f => ({ ...f, enabled }))}
      />
      {form.enabled && (
        <Flex gap="3">
          <TextField
            label="Minimum nodes"
            value={form.min}
            onChange={v => setForm(f => ({ ...f, min: v }))}
          />
          <TextField
            label="Maximum nodes"
            value={form.max}
            onChange={v => setForm(f => ({ ...f, max: v }))}
          />
        </Flex>
      )}
    </ActionDialog>
  );
}
