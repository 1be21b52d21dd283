/** What the planners share: the problems they raise, the writes and changes they describe, how they name a pool. */
import type { KubeObject } from '../../manifests/aksAsoCluster';
import { isObj } from '../../objects/read';
import type { ObservedObject } from '../../objects/types';
import type { FieldChange, ObjectChange } from '../api';
import { findDay2Pool, type Day2Cluster, type Day2Pool } from '../snapshot';
import type { Day2Problem, Day2Target, Day2Write } from './types';

export const input = (rule: string, message: string): Day2Problem => ({
  rule,
  kind: 'input',
  message,
});
export const conflict = (rule: string, message: string): Day2Problem => ({
  rule,
  kind: 'conflict',
  message,
});

export const target = (o: ObservedObject, namespace: string): Day2Target => ({
  apiVersion: o.apiVersion ?? '',
  kind: o.kind ?? '',
  namespace: o.metadata?.namespace ?? namespace,
  name: o.metadata?.name ?? '',
});

/** A server-side apply of some fields of an existing object, at the API version it was read. */
export function applyTo(
  o: ObservedObject,
  namespace: string,
  spec: Record<string, unknown>,
): Day2Write {
  const t = target(o, namespace);
  return {
    type: 'apply',
    create: false,
    object: {
      apiVersion: t.apiVersion,
      kind: t.kind,
      metadata: {
        name: t.name,
        namespace: t.namespace,
        ...(o.metadata?.resourceVersion
          ? { resourceVersion: o.metadata.resourceVersion }
          : {}),
      } as KubeObject['metadata'],
      spec,
    },
  };
}

export const change = (
  o: ObservedObject,
  namespace: string,
  operation: ObjectChange['operation'],
  fields: FieldChange[],
): ObjectChange => {
  const t = target(o, namespace);
  return { ...t, operation, fields };
};

export const field = (
  path: string,
  before: unknown,
  after: unknown,
): FieldChange => ({
  path,
  ...(before === undefined ? {} : { before }),
  ...(after === undefined ? {} : { after }),
});

export const poolLabel = (p: Day2Pool) => `pool "${p.name}"`;
export const mpName = (c: Day2Cluster, p: Day2Pool) =>
  `MachinePool ${c.namespace}/${p.machinePool.metadata?.name}`;

/** The one-line fix for a value pinned in an embedded ASO object's spec (CAPZ sets it and refuses another). */
export const removePinFix = (
  o: ObservedObject,
  namespace: string,
  index: number,
  key: string,
) =>
  `kubectl -n ${namespace} patch ${o.kind?.toLowerCase()} ${
    o.metadata?.name
  } --type json -p '[{"op":"remove","path":"/spec/resources/${index}/spec/${key}"}]'`;

export function poolOrProblem(
  c: Day2Cluster,
  name: string,
): Day2Pool | Day2Problem {
  const pool = findDay2Pool(c, name);
  if (!pool)
    return input(
      'pool-exists',
      `cluster ${c.name} has no pool "${name}"; its pools are ${
        c.pools.map(p => p.name).join(', ') || 'none'
      }`,
    );
  if (pool.deleting)
    return conflict('pool-deleting', `${poolLabel(pool)} is being deleted`);
  return pool;
}

export const isProblem = (x: unknown): x is Day2Problem =>
  isObj(x) && typeof x.rule === 'string' && typeof x.message === 'string';

export const pausedWarning = (c: Day2Cluster) =>
  c.paused
    ? [
        `Cluster ${c.name} is paused: the change is written, but CAPZ and ASO act on it (and Azure changes) only once it is resumed.`,
      ]
    : [];
