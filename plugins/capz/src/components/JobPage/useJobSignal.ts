import {
  CAPZ_JOBS_SIGNAL_CHANNEL,
  CapzJobSignal,
} from '@capz-backstage/plugin-capz-common';
import { useSignal } from '@backstage/plugin-signals-react';
import { useEffect, useRef } from 'react';

/**
 * Calls `refresh` for every message on the jobs channel that `matches` accepts. Signals carry only the job id and
 * state; the page re-reads the job over HTTP, so what it shows is always the stored job. Never polls.
 */
export function useJobSignal(
  refresh: () => void,
  matches: (signal: CapzJobSignal) => boolean,
): { live: boolean } {
  const { lastSignal, isSignalsAvailable } = useSignal<
    CapzJobSignal & { [k: string]: any }
  >(CAPZ_JOBS_SIGNAL_CHANNEL);
  const refreshRef = useRef(refresh);
  refreshRef.current = refresh;
  const matchesRef = useRef(matches);
  matchesRef.current = matches;

  useEffect(() => {
    if (lastSignal && matchesRef.current(lastSignal)) refreshRef.current();
  }, [lastSignal]);

  return { live: isSignalsAvailable };
}
