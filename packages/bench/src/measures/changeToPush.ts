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
import { ApiWatch } from '../apiWatch.ts';
import { listPath } from '../watched.ts';
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
  // The API server's part of each push: when a watch like the backend's got the change.
  const watches = {
    Cluster: await ApiWatch.open(info, listPath(K.Cluster)),
    ManagedCluster: await ApiWatch.open(info, listPath(K.ManagedCluster)),
  };
  const delivery: Record<'Cluster' | 'ManagedCluster', number[]> = {
    Cluster: [],
    ManagedCluster: [],
  };
  const backendPart: number[] = [];
  try {
    await new Promise(r => setTimeout(r, 300)); // the subscription reaches the server
    for (let i = 0; i < changes; i++) {
      const c = (i % 2 === 0 ? clusters : healthy)[
        Math.floor(random() * (i % 2 === 0 ? clusters : healthy).length)
      ];
      const arrived = listener.waitFor(c.uid, 5_000);
      const sent = performance.now();
      const kind = i % 2 === 0 ? 'Cluster' : 'ManagedCluster';
      let patched;
      if (i % 2 === 0) {
        patched = await seeder.patch(K.Cluster, c.namespace, c.name, {
          metadata: { annotations: { 'bench.capz.io/change': String(i) } },
        });
      } else {
        patched = await seeder.patch(
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
      const delivered = await watches[kind].arrival(
        c.name,
        String(patched.metadata?.resourceVersion),
        5_000,
      );
      if (delivered !== undefined) {
        delivery[kind].push(delivered - sent);
        if (at !== undefined) backendPart.push(at - delivered);
      }
      if (at === undefined) {
        missed++;
        if (!latencies.length && missed >= 3) break; // the push is not there (yet): don't wait 5 s a hundred times
      } else {
        latencies.push(at - sent);
        byKind[kind].push(at - sent);
      }
      await new Promise(r => setTimeout(r, 150)); // past the backend's coalescing window, so changes stay separate
    }
  } finally {
    listener.close();
    watches.Cluster.close();
    watches.ManagedCluster.close();
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
  if (backendPart.length)
    record(
      'Change-to-push: the API server’s part, then the backend’s',
      `API server p50 / p95 Cluster ${ms(median(delivery.Cluster))} / ${ms(
        percentile(delivery.Cluster, 95),
      )}, ManagedCluster ${ms(median(delivery.ManagedCluster))} / ${ms(
        percentile(delivery.ManagedCluster, 95),
      )}; backend p50 / p95 ${ms(median(backendPart))} / ${ms(
        percentile(backendPart, 95),
      )}`,
      'PATCH sent → the event on a watch of the kind like the backend’s (every namespace, opened by the bench), then that event → the push; the two parts of each push above',
    );
  return { pushP95, pushNamespaceClusters };
}
