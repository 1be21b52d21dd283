/** Pausing or resuming a cluster: the CAPI Cluster's spec.paused. */
import type { Day2Cluster } from '../snapshot';
import { applyTo, change, field } from './shared';
import type { Day2PlanResult } from './types';

export function planPause(c: Day2Cluster, paused: boolean): Day2PlanResult {
  if (c.paused === paused)
    return { ok: true, writes: [], changes: [], warnings: [] };
  return {
    ok: true,
    writes: [applyTo(c.cluster, c.namespace, { paused })],
    changes: [
      change(c.cluster, c.namespace, 'update', [
        field('spec.paused', c.cluster.spec?.paused, paused),
      ]),
    ],
    warnings: paused
      ? [
          'CAPI and CAPZ stop reconciling the cluster; CAPZ sets reconcile-policy skip on every ASO object it applies, so Azure is not changed (nor deleted) until it is resumed.',
        ]
      : [
          'CAPZ and ASO reconcile again: any change written while paused now reaches Azure.',
        ],
  };
}
