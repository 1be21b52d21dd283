/**
 * Change-to-push latency: a PATCH of a seeded object until the backend's `capz:changes` signal naming its Cluster
 * reaches a WebSocket subscriber. The changed clusters are all in the biggest seeded namespace: a change recomputes its
 * namespace's trees, so the namespace's size is what a push's cost grows with (500 clusters at 10,000 over 20).
 */
import { K } from '@internal/capz-sim';
import type { RunningBackend } from '../backends.ts';
import { median, ms, percentile } from '../format.ts';
import type { Figures } from '../goals.ts';
import { biggestNamespace, rng, Seeder, type SeededCluster } from '../seed.ts';
import { SignalListener } from '../signals.ts';
import type { MeasureContext } from './context.ts';

export async function changeToPush(
  { info, record }: MeasureContext,
  b: RunningBackend,
  all: SeededCluster[],
  changes: number,
): Promise<Pick<Figures, 'pushP95' | 'pushNamespaceClusters'>> {
  const ns = biggestNamespace(all);
  const clusters = all.filter(c => c.namespace === ns.namespace);
  const pushNamespaceClusters = ns.clusters;
  const how = `${changes} changes, one at a time, alternating an annotation on a random CAPI Cluster and the Ready condition of a random ManagedCluster (status subresource), all in namespace ${ns.namespace} (${ns.clusters} of the ${all.length} clusters); PATCH sent → first capz:changes signal naming that Cluster's uid, on /api/signals (WebSocket, guest)`;
  let listener: SignalListener;
  try {
    listener = await SignalListener.connect(b.baseUrl);
  } catch (e) {
    record('Change-to-push latency p95', `n/a (${(e as Error).message})`, how);
    return { pushP95: NaN, pushNamespaceClusters };
  }
  const seeder = new Seeder(info);
  const random = rng(11);
  const healthy = clusters.filter(c => !c.failing);
  const latencies: number[] = [];
  const byKind: Record<'Cluster' | 'ManagedCluster', number[]> = {
    Cluster: [],
    ManagedCluster: [],
  };
  let missed = 0;
  try {
    await new Promise(r => setTimeout(r, 300)); // the subscription reaches the server
    for (let i = 0; i < changes; i++) {
      const c = (i % 2 === 0 ? clusters : healthy)[
        Math.floor(random() * (i % 2 === 0 ? clusters : healthy).length)
      ];
      const arrived = listener.waitFor(c.uid, 5_000);
      const sent = performance.now();
      if (i % 2 === 0) {
        await seeder.patch(K.Cluster, c.namespace, c.name, {
          metadata: { annotations: { 'bench.capz.io/change': String(i) } },
        });
      } else {
        await seeder.patch(
          K.ManagedCluster,
          c.namespace,
          c.name,
          {
            status: {
              conditions: [
                {
                  type: 'Ready',
                  status: 'True',
                  severity: '',
                  reason: 'Succeeded',
                  message: `bench change ${i}`,
                  observedGeneration: 1,
                  lastTransitionTime: new Date()
                    .toISOString()
                    .replace(/\.\d+Z$/, 'Z'),
                },
              ],
            },
          },
          'status',
        );
      }
      const at = await arrived;
      if (at === undefined) {
        missed++;
        if (!latencies.length && missed >= 3) break; // the push is not there (yet): don't wait 5 s a hundred times
      } else {
        latencies.push(at - sent);
        byKind[i % 2 === 0 ? 'Cluster' : 'ManagedCluster'].push(at - sent);
      }
      await new Promise(r => setTimeout(r, 150)); // past the backend's coalescing window, so changes stay separate
    }
  } finally {
    listener.close();
  }
  if (!latencies.length) {
    record(
      'Change-to-push latency p95',
      'n/a (no push received within 5 s)',
      `${how}; ${listener.messages} capz:changes messages seen`,
    );
    return { pushP95: NaN, pushNamespaceClusters };
  }
  const pushP95 = percentile(latencies, 95);
  record(
    'Change-to-push latency p50 / p95 / max',
    `${ms(median(latencies))} / ${ms(pushP95)} / ${ms(Math.max(...latencies))}`,
    `${how}; ${
      latencies.length
    } received, ${missed} not within 5 s; p50 Cluster ${ms(
      median(byKind.Cluster),
    )}, ManagedCluster ${ms(median(byKind.ManagedCluster))}`,
  );
  return { pushP95, pushNamespaceClusters };
}
