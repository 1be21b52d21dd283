/*
 * Preloaded (`--require`) into the CAPZ backend by `CAPZ_BENCH_TRACE_GC=<ms> yarn bench`: every garbage collection
 * that took <ms> or longer (default 10), one line on stderr (the backend's log) with its wall-clock time, so the quiet
 * window's slow views can be set beside them. Node refuses V8's `--trace-gc` in NODE_OPTIONS ("--trace-gc is not
 * allowed in NODE_OPTIONS"), and that flag prints every scavenge without a wall clock; perf_hooks' `gc` entries
 * (https://nodejs.org/api/perf_hooks.html#garbage-collection-gc-details) give the kind and duration.
 * `CAPZ_BENCH_TRACE_GC_NVP=1` also turns on V8's `--trace-gc-nvp` at run time (`v8.setFlagsFromString`, which
 * NODE_OPTIONS' list does not limit): one line per collection on stdout with its pause split into phases (mark,
 * evacuate, sweep, weak processing, ...), to tell what a long major pause was made of. Its times count from the
 * isolate's start; the `[gc]` line of the same pause has the wall clock.
 */
const {
  constants,
  performance,
  PerformanceObserver,
} = require('node:perf_hooks');

const minMs = Number(process.env.CAPZ_BENCH_TRACE_GC) || 10;
if (process.env.CAPZ_BENCH_TRACE_GC_NVP === '1')
  require('node:v8').setFlagsFromString('--trace-gc-nvp');
const KINDS = {
  [constants.NODE_PERFORMANCE_GC_MAJOR]: 'major',
  [constants.NODE_PERFORMANCE_GC_MINOR]: 'minor',
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental',
  [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weak callbacks',
};
new PerformanceObserver(list => {
  for (const e of list.getEntries()) {
    if (e.duration < minMs) continue;
    const at = new Date(performance.timeOrigin + e.startTime).toISOString();
    const kind = KINDS[e.detail?.kind] ?? String(e.detail?.kind);
    process.stderr.write(
      `[gc] pid ${process.pid} ${at} ${kind} ${e.duration.toFixed(1)} ms\n`,
    );
  }
}).observe({ entryTypes: ['gc'] });
