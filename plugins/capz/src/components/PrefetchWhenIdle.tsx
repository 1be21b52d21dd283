import { useEffect } from 'react';

/**
 * Loads a page's code once the app has loaded and the browser is idle: the first visit of the page then neither
 * fetches its chunks nor waits for them to run (on this machine kind ~100-150 ms of the clusters page's code phase,
 * README "In the browser"). Renders nothing. A failed load is left to the page's own load, which tries again.
 */
export function PrefetchWhenIdle({ load }: { load: () => Promise<unknown> }) {
  useEffect(() => {
    let cancelled = false;
    let idle: number | undefined;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const run = () => {
      if (!cancelled) load().catch(() => {});
    };
    // After the app's own chunks (the load event), when nothing else waits for the main thread.
    const start = () => {
      if (cancelled) return;
      if (typeof window.requestIdleCallback === 'function')
        idle = window.requestIdleCallback(run, { timeout: 10_000 });
      else timer = setTimeout(run, 1000);
    };
    if (document.readyState === 'complete') start();
    else window.addEventListener('load', start, { once: true });
    return () => {
      cancelled = true;
      window.removeEventListener('load', start);
      if (idle !== undefined) window.cancelIdleCallback(idle);
      clearTimeout(timer);
    };
  }, [load]);
  return null;
}
