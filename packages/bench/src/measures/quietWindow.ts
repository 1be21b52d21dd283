/**
 * A replica left alone at fleet size: nothing is asked of it but a page view every 500 ms. What it does meanwhile is
 * its background work (at 10,000 clusters: the catalog reprocessing every entity every 100-150 s, the catalog module's
 * full refresh every `refreshSeconds`, the history's writes), and what the page views meet then is what a user meets
 * on a settled replica. Printed, not judged: the goals' page figures are measured right after the sync.
 */
import { resolvePid, type RunningBackend } from '../backends.ts';
import { median, ms, percentile } from '../format.ts';
import { timeRequests } from '../probes.ts';
import { cpuMs, log } from '../util.ts';
import type { MeasureContext } from './context.ts';

const VIEW = '/api/capz/clusters?sort=name&limit=50';

export async function quietWindow(
  { record }: MeasureContext,
  b: RunningBackend,
  seconds: number,
): Promise<void> {
  const pid = resolvePid(b);
  log(`quiet window: ${seconds} s, one page view every 500 ms`);
  const cpuAtStart = pid ? cpuMs(pid) : NaN;
  const started = performance.now();
  const times: number[] = [];
  const slow: number[] = [];
  while (performance.now() - started < seconds * 1000) {
    const next = performance.now() + 500;
    const [t] = (await timeRequests(b, [VIEW])).times;
    times.push(t);
    if (t > 100) slow.push(Math.round((performance.now() - started) / 1000));
    const wait = next - performance.now();
    if (wait > 0) await new Promise(r => setTimeout(r, wait));
  }
  const elapsed = (performance.now() - started) / 1000;
  const cpu = pid ? (cpuMs(pid) - cpuAtStart) / 1000 : NaN;
  record(
    'Quiet window: backend CPU; page views p50 / p99 / max',
    `${cpu.toFixed(1)} s of CPU in ${elapsed.toFixed(0)} s (${(
      (100 * cpu) /
      elapsed
    ).toFixed(0)}% of a core); ${ms(median(times))} / ${ms(
      percentile(times, 99),
    )} / ${ms(Math.max(...times))}, ${slow.length} of ${
      times.length
    } over 100 ms${
      slow.length ? ` (at ${[...new Set(slow)].slice(0, 12).join(', ')} s)` : ''
    }`,
    `after the pushes, nothing asked of the backend but \`${VIEW.replace(
      '/api/capz',
      '',
    )}\` every 500 ms for ${seconds} s; CPU: utime+stime of the serving process, whatever it did meanwhile (the catalog's periodic processing, the catalog module's full refresh, the history)`,
  );
}
