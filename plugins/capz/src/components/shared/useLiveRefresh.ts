import {
  CAPZ_SIGNAL_CHANNEL,
  CapzChangeSignal,
} from '@capz-backstage/plugin-capz-common';
import { useSignal } from '@backstage/plugin-signals-react';
import { useEffect, useRef } from 'react';

/**
 * Calls `refresh` when the backend announces a change on the capz signals channel that `matches` says concerns
 * what the page shows. A burst of matching messages within `debounceMs` causes one refresh. Without the signals
 * API (the signals plugin not installed) nothing happens: the page has fetched once and stays as it is; it never
 * polls.
 */
export function useLiveRefresh(
  refresh: () => void,
  matches: (signal: CapzChangeSignal) => boolean,
  debounceMs = 300,
): { live: boolean } {
  // CapzChangeSignal is plain JSON; the index signature only satisfies useSignal's JsonObject bound.
  const { lastSignal, isSignalsAvailable } = useSignal<
    CapzChangeSignal & { [k: string]: any }
  >(CAPZ_SIGNAL_CHANNEL);
  const refreshRef = useRef(refresh);
  refreshRef.current = refresh;
  const matchesRef = useRef(matches);
  matchesRef.current = matches;
  const timer = useRef<ReturnType<typeof setTimeout>>();

  useEffect(() => {
    if (!lastSignal || !matchesRef.current(lastSignal)) return;
    clearTimeout(timer.current);
    timer.current = setTimeout(() => {
      timer.current = undefined;
      refreshRef.current();
    }, debounceMs);
  }, [lastSignal, debounceMs]);

  useEffect(() => () => clearTimeout(timer.current), []);

  return { live: isSignalsAvailable };
}
