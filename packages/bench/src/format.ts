/** The figures' arithmetic and formats: pure, shared by the benchmark, the soak and their reports. */

/** Percentile (nearest rank) of a list of numbers; NaN when empty. */
export function percentile(values: number[], p: number): number {
  if (!values.length) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1];
}

export const median = (values: number[]) => percentile(values, 50);

export const ms = (v: number) =>
  Number.isFinite(v)
    ? `${v < 10 ? v.toFixed(2) : v < 100 ? v.toFixed(1) : v.toFixed(0)} ms`
    : 'n/a';
export const sec = (v: number) =>
  Number.isFinite(v) ? `${(v / 1000).toFixed(2)} s` : 'n/a';
export const mib = (kib: number) =>
  Number.isFinite(kib) ? `${(kib / 1024).toFixed(0)} MiB` : 'n/a';
