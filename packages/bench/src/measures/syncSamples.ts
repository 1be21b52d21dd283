/** The starts of the CAPZ backend before the measured one: samples of its initial sync only. */
import { startCapzBackendAs, stopBackend } from '../backends.ts';
import { ms, sec } from '../format.ts';
import { timeSync } from '../probes.ts';
import { log } from '../util.ts';
import type { MeasureContext } from './context.ts';

/** How many starts of the CAPZ backend the sync goal takes the median of (the last is the one measured on). */
export const SYNC_SAMPLES = 3;

/** Each start spawned, timed to its sync and stopped; their initial syncs in ms. */
export async function extraSyncs({
  info,
  localDir,
  apiServerPid,
}: MeasureContext): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 1; i < SYNC_SAMPLES; i++) {
    const b = await startCapzBackendAs(`sync${i}`, info, localDir);
    try {
      const { up, synced, apiCpuMs } = await timeSync(b, apiServerPid);
      samples.push(synced - up);
      log(
        `sync sample ${i} of ${SYNC_SAMPLES}: ${sec(
          synced - up,
        )} (API server CPU ${ms(apiCpuMs)})`,
      );
    } finally {
      await stopBackend(b);
    }
  }
  return samples;
}
