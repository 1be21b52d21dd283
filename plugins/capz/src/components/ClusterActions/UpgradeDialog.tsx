import { useApi } from '@backstage/frontend-plugin-api';
import {
  Alert,
  Flex,
  Radio,
  RadioGroup,
  Select,
  Skeleton,
  Text,
} from '@backstage/ui';
import {
  type ClusterPlace,
  compareKubernetesVersions,
  type Day2Action,
  type Day2Cluster,
  displayKubernetesVersion as shown,
} from '@capz-backstage/plugin-capz-common';
import { useState } from 'react';
import useAsync from 'react-use/esm/useAsync';
import { capzApiRef } from '../../api/CapzApi';
import { ActionDialog } from './ActionDialog';
import type { ProgressOf } from './ActionProgress';
import { ActionError } from './errors';
import { actionProblems } from './rules';

const ALL = '__all__';

/**
 * Kubernetes upgrade: the control plane to a version AKS offers next in the region (`GET .../upgrades`, a select:
 * never free text), then the pools to the control plane's version, one by one or all at once.
 */
export function UpgradeDialog(props: {
  cluster: ClusterPlace;
  /** The cluster as capz-common's rules read it, once loaded. */
  day2?: Day2Cluster;
  onClose: () => void;
  progress: ProgressOf;
}) {
  const api = useApi(capzApiRef);
  const options = useAsync(() => api.getUpgradeOptions(props.cluster), [api]);
  const o = options.value;
  const behind = (o?.pools ?? []).filter(
    p => compareKubernetesVersions(p.version, o!.controlPlane) < 0,
  );
  const [target, setTarget] = useState<'controlPlane' | 'pools'>();
  const [version, setVersion] = useState<string>();
  const [pool, setPool] = useState<string>(ALL);
  const chosen = target ?? (behind.length ? 'pools' : 'controlPlane');

  let action: Day2Action | undefined;
  if (o && chosen === 'controlPlane' && version)
    action = { action: 'upgrade', version, target: 'controlPlane' };
  if (o && chosen === 'pools' && behind.length)
    action = {
      action: 'upgrade',
      version: o.controlPlane,
      target: {
        pools: pool === ALL ? behind.map(p => p.name) : [pool],
      },
    };

  return (
    <ActionDialog
      cluster={props.cluster}
      title="Upgrade Kubernetes"
      permission="capz.cluster.upgrade"
      action={action}
      problems={[
        ...(o?.problems ?? []),
        ...actionProblems(props.day2, action, {
          offeredVersions: o?.available,
        }),
      ]}
      onClose={props.onClose}
      progress={props.progress}
    >
      {options.error && (
        <ActionError
          title="Could not load the versions AKS offers"
          error={options.error}
          permission="capz.cluster.upgrade"
        />
      )}
      {options.loading && (
        <div role="status" aria-label="Loading the versions">
          <Skeleton width="100%" height={80} />
        </div>
      )}
      {o && (
        <Flex direction="column" gap="3">
          <Text variant="body-small">
            {`Control plane ${shown(o.controlPlane)}; ${o.pools
              .map(p => `pool ${p.name} ${shown(p.version)}`)
              .join(', ')}`}
          </Text>
          <RadioGroup
            label="What to upgrade"
            value={chosen}
            onChange={v => setTarget(v as 'controlPlane' | 'pools')}
          >
            <Radio value="controlPlane" isDisabled={!o.available.length}>
              The control plane (first)
            </Radio>
            <Radio value="pools" isDisabled={!behind.length}>
              {`Node pools, to the control plane's ${shown(o.controlPlane)}`}
            </Radio>
          </RadioGroup>
          {chosen === 'controlPlane' &&
            (o.available.length ? (
              <Select
                label="Control plane version"
                description="The versions AKS offers next in the cluster's region"
                value={version ?? null}
                onChange={k => setVersion(k === null ? undefined : String(k))}
                options={o.available.map(v => ({ id: v, label: shown(v) }))}
              />
            ) : (
              <Alert
                status="info"
                icon
                title="AKS offers no newer version for this cluster's region"
              />
            ))}
          {chosen === 'pools' &&
            (behind.length ? (
              <Select
                label="Node pools to upgrade"
                value={pool}
                onChange={k => k !== null && setPool(String(k))}
                options={[
                  {
                    id: ALL,
                    label: `All pools behind the control plane (${behind
                      .map(p => p.name)
                      .join(', ')})`,
                  },
                  ...behind.map(p => ({
                    id: p.name,
                    label: `${p.name} (${shown(p.version)})`,
                  })),
                ]}
              />
            ) : (
              <Text variant="body-small">
                Every pool runs the control plane's version.
              </Text>
            ))}
        </Flex>
      )}
    </ActionDialog>
  );
}
