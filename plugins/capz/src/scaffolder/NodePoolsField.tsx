import type { FieldExtensionComponentProps } from '@backstage/plugin-scaffolder-react';
import { Button, Checkbox, Flex, Select, Text, TextField } from '@backstage/ui';
import {
  MAX_POOL_NAME,
  type AksAsoPoolParams,
} from '@capz-backstage/plugin-capz-common';
import useAsync from 'react-use/esm/useAsync';
import { FieldGroup } from './FieldFrame';
import { usePickerApi } from './pickerApi';

type Props = FieldExtensionComponentProps<AksAsoPoolParams[]>;

/** The pools a new form starts with: a Linux System pool of two nodes. */
export const DEFAULT_POOLS: AksAsoPoolParams[] = [
  { name: 'system', mode: 'System', vmSize: 'Standard_D2s_v3', replicas: 2 },
];

const toInt = (v: string) => (/^\d+$/.test(v.trim()) ? Number(v) : NaN);

/**
 * CapzNodePoolsField: the cluster's agent pools (name, mode, OS, VM size, node count, autoscaling with min and
 * max). The rules are capz-common's (checked by the field's validation before Review, and again by the backend).
 */
export function NodePoolsField(props: Props) {
  const api = usePickerApi();
  const sizes = useAsync(() => api.vmSizes(), []);
  const pools = props.formData?.length ? props.formData : DEFAULT_POOLS;
  const set = (next: AksAsoPoolParams[]) => props.onChange(next);
  const update = (i: number, patch: Partial<AksAsoPoolParams>) =>
    set(pools.map((p, j) => (j === i ? { ...p, ...patch } : p)));
  const disabled = props.disabled || props.readonly;
  const sizeOptions = (current: string) => {
    const items = (sizes.value?.items ?? []).map(s => ({
      id: s.name,
      label: `${s.name} (${s.vCPUs} vCPU, ${s.memoryGiB} GiB)`,
    }));
    return current && !items.some(s => s.id === current)
      ? [...items, { id: current, label: current }]
      : items;
  };
  return (
    <FieldGroup field={props} testId="capz-node-pools-field">
      <Flex direction="column" gap="4">
        {pools.map((pool, i) => {
          const os = pool.osType ?? 'Linux';
          const n = i + 1;
          return (
            <div
              key={i}
              data-testid={`capz-node-pool-${i}`}
              role="group"
              aria-label={`Node pool ${n}`}
            >
              <Flex direction="column" gap="2">
                <Text variant="body-medium" weight="bold">
                  Node pool {n}
                </Text>
                <Flex gap="3" align="end" style={{ flexWrap: 'wrap' }}>
                  <TextField
                    label={`Pool ${n} name`}
                    description={`Lowercase letters and digits, at most ${MAX_POOL_NAME[os]}`}
                    isDisabled={disabled}
                    value={pool.name}
                    onChange={v => update(i, { name: v.trim() })}
                  />
                  <Select
                    label={`Pool ${n} mode`}
                    isDisabled={disabled}
                    value={pool.mode}
                    onChange={k =>
                      update(i, {
                        mode: String(k) as AksAsoPoolParams['mode'],
                        ...(String(k) === 'System'
                          ? { osType: 'Linux' as const }
                          : {}),
                      })
                    }
                    options={[
                      { id: 'System', label: 'System' },
                      { id: 'User', label: 'User' },
                    ]}
                  />
                  <Select
                    label={`Pool ${n} OS`}
                    isDisabled={disabled || pool.mode === 'System'}
                    value={os}
                    onChange={k =>
                      update(i, {
                        osType: String(k) as 'Linux' | 'Windows',
                      })
                    }
                    options={[
                      { id: 'Linux', label: 'Linux' },
                      { id: 'Windows', label: 'Windows' },
                    ]}
                  />
                  <Select
                    label={`Pool ${n} VM size`}
                    isDisabled={disabled}
                    value={pool.vmSize || null}
                    onChange={k =>
                      update(i, { vmSize: k === null ? '' : String(k) })
                    }
                    options={sizeOptions(pool.vmSize)}
                  />
                  <TextField
                    label={
                      pool.autoscaling
                        ? `Pool ${n} initial nodes`
                        : `Pool ${n} nodes`
                    }
                    isDisabled={disabled}
                    value={
                      Number.isNaN(pool.replicas) ? '' : String(pool.replicas)
                    }
                    onChange={v => update(i, { replicas: toInt(v) })}
                  />
                </Flex>
                <Flex gap="3" align="end" style={{ flexWrap: 'wrap' }}>
                  <Checkbox
                    isDisabled={disabled}
                    isSelected={!!pool.autoscaling}
                    onChange={on =>
                      update(i, {
                        autoscaling: on
                          ? {
                              minCount: pool.mode === 'System' ? 1 : 0,
                              maxCount: Math.max(3, pool.replicas || 0),
                            }
                          : undefined,
                      })
                    }
                  >
                    {`Pool ${n} autoscaling`}
                  </Checkbox>
                  {pool.autoscaling && (
                    <>
                      <TextField
                        label={`Pool ${n} minimum nodes`}
                        isDisabled={disabled}
                        value={String(pool.autoscaling.minCount)}
                        onChange={v =>
                          update(i, {
                            autoscaling: {
                              ...pool.autoscaling!,
                              minCount: toInt(v),
                            },
                          })
                        }
                      />
                      <TextField
                        label={`Pool ${n} maximum nodes`}
                        isDisabled={disabled}
                        value={String(pool.autoscaling.maxCount)}
                        onChange={v =>
                          update(i, {
                            autoscaling: {
                              ...pool.autoscaling!,
                              maxCount: toInt(v),
                            },
                          })
                        }
                      />
                    </>
                  )}
                  {pools.length > 1 && (
                    <Button
                      variant="secondary"
                      isDisabled={disabled}
                      onPress={() => set(pools.filter((_, j) => j !== i))}
                    >
                      {`Remove pool ${n}`}
                    </Button>
                  )}
                </Flex>
              </Flex>
            </div>
          );
        })}
        <div>
          <Button
            variant="secondary"
            isDisabled={disabled}
            onPress={() =>
              set([
                ...pools,
                {
                  name: `pool${pools.length}`,
                  mode: 'User',
                  vmSize: 'Standard_D4s_v3',
                  replicas: 1,
                },
              ])
            }
          >
            Add node pool
          </Button>
        </div>
      </Flex>
    </FieldGroup>
  );
}
