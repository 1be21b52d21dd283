import { useSignal } from '@backstage/plugin-signals-react';
import {
  CAPZ_FLEET_RUNS_SIGNAL_CHANNEL,
  type CapzFleetRunSignal,
} from '@capz-backstage/plugin-capz-common';
import { useEffect, useRef } from 'react';

/**
 * Calls `refresh` on each fleet run signal (capz:fleet-runs), of run `id` only when given; the pages never poll.
 * `live` is false without the signals plugin.
 */
export function useFleetRunSignal(refresh: () => void, id?: string) {
  const { lastSignal, isSignalsAvailable } = useSignal<
    CapzFleetRunSignal & { [k: string]: any }
  >(CAPZ_FLEET_RUNS_SIGNAL_CHANNEL);
  const refreshRef = useRef(refresh);
  refreshRef.current = refresh;
  useEffect(() => {
    if (lastSignal && (id === undefined || lastSignal.runId === id))
      refreshRef.current();
  }, [lastSignal, id]);
  return { live: isSignalsAvailable };
}
