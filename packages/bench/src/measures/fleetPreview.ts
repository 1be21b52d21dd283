/**
 * A fleet run's preview (`POST /api/capz/fleet-runs/preview`) over the seeded clusters (at most 1,000, the goal's size,
 * spread over every namespace), in three stages by namespace:
 * each cluster's part planned from the watch cache (its Day2Cluster, its health and version conflicts, then capz-common's
 * `planFleetCluster`), as a person's preview of a fleet upgrade does before anything starts.
 *
 * The bench's backend cannot learn the versions AKS offers: it asks, reading each namespace's ASO credential Secret from
 * the API server for each preview (its memo lasts one preview), but the seeded Secrets name workload identity without
 * AZURE_TENANT_ID or AZURE_CLIENT_ID, which the backend cannot use, and there is no ARM to ask. A `next-minor` target
 * then refuses each cluster at its first question (which minor is offered?), before any planning: it would measure
 * nothing. The target is therefore a `version`, the newest seeded one (v1.34.1): the clusters already on it go through
 * the whole plan (control plane, then its pools, each compared with the target: `current`); those a minor behind are
 * planned through `planDay2Action`'s control plane upgrade, which refuses it only at its check that AKS offers the
 * version in the region (unknown here); those two minors behind are refused by the same planner's one-minor-at-a-time
 * rule; an unhealthy one for its health. The counts and the refusals' reasons are printed beside the figure, so a
 * preview that planned nothing would show.
 */
import { fetchJson, type RunningBackend } from '../backends.ts';
import { median, ms, sec } from '../format.ts';
import type { Figures } from '../goals.ts';
import { auditCount } from '../probes.ts';
import type { SeededCluster } from '../seed.ts';
import { auditSize, log } from '../util.ts';
import type { MeasureContext } from './context.ts';

/** The most clusters one previewed run names: the goal (goals.ts) is a preview over 1,000 clusters. */
export const PREVIEW_CLUSTERS = 1000;
/** How many previews are timed, one after another. */
export const PREVIEW_RUNS = 5;
/** The newest version the seed gives a cluster (seed.ts VERSIONS). */
export const PREVIEW_TARGET = { kind: 'version', version: 'v1.34.1' } as const;

interface Plan {
  outcome: 'upgrade' | 'current' | 'refused';
  problems: string[];
}

interface Preview {
  stages: Array<{ name: string; clusters: Plan[] }>;
  counts: { upgrade: number; current: number; refused: number };
}

/** Three stages by namespace: the first namespace, then half of the others, then the rest (empty ones left out). */
export function stagesByNamespace(clusters: SeededCluster[]) {
  const namespaces = [...new Set(clusters.map(c => c.namespace))].sort();
  const half = 1 + Math.ceil((namespaces.length - 1) / 2);
  const groups = [
    { name: 'canary', namespaces: namespaces.slice(0, 1) },
    { name: 'wave-1', namespaces: namespaces.slice(1, half) },
    { name: 'wave-2', namespaces: namespaces.slice(half) },
  ];
  return groups
    .map(g => ({
      name: g.name,
      clusters: clusters
        .filter(c => g.namespaces.includes(c.namespace))
        .map(c => ({
          managementCluster: 'bench',
          namespace: c.namespace,
          name: c.name,
        })),
    }))
    .filter(s => s.clusters.length);
}

/** A refusal's reason without its cluster, versions and region: what the refused clusters have in common. */
const reasonOf = (problem: string) =>
  problem
    .replace(/\bv?\d+\.\d+(\.\d+)?\b/g, '<v>')
    .replace(/\baks-\d+\b/g, '<cluster>')
    .replace(/ in [a-z]+\d*\b/, ' in <region>')
    .split(/[:(]/)[0]
    .trim();

export async function fleetPreview(
  { info, record }: MeasureContext,
  b: RunningBackend,
  all: SeededCluster[],
): Promise<
  Pick<
    Figures,
    'fleetPreviewP50Ms' | 'fleetPreviewMaxMs' | 'fleetPreviewClusters'
  >
> {
  // At most PREVIEW_CLUSTERS, spread evenly over the seeded order (so over every namespace).
  const step = Math.ceil(all.length / PREVIEW_CLUSTERS);
  const clusters = all.filter((_, i) => i % step === 0);
  const stages = stagesByNamespace(clusters);
  const body = JSON.stringify({ target: PREVIEW_TARGET, stages });
  const times: number[] = [];
  let last: Preview | undefined;
  let bytes = 0;
  const auditStart = auditSize(info.auditLog);
  for (let i = 0; i < PREVIEW_RUNS; i++) {
    const started = performance.now();
    const res = await fetchJson(b, '/api/capz/fleet-runs/preview', {
      method: 'POST',
      body,
    });
    times.push(performance.now() - started);
    if (res.status !== 200)
      throw new Error(
        `POST /fleet-runs/preview: HTTP ${res.status} ${JSON.stringify(
          res.body,
        ).slice(0, 300)}`,
      );
    const preview = res.body as Preview;
    const { upgrade, current, refused } = preview.counts;
    if (upgrade + current + refused !== clusters.length)
      throw new Error(
        `POST /fleet-runs/preview planned ${
          upgrade + current + refused
        } clusters of ${clusters.length}`,
      );
    last = preview;
    bytes = JSON.stringify(res.body).length;
  }
  await new Promise(r => setTimeout(r, 500)); // let the audit backend flush
  const audited = auditCount(
    info,
    auditStart,
    e => e.user?.username === 'capz-backend',
  );
  const p50 = median(times);
  const max = Math.max(...times);
  const counts = last!.counts;
  const reasons = new Map<string, number>();
  for (const plan of last!.stages.flatMap(s => s.clusters))
    if (plan.outcome === 'refused') {
      const problem = plan.problems[0] ?? 'no reason given';
      const r = reasonOf(problem);
      if (!reasons.has(r)) log(`fleet preview refusal, e.g.: ${problem}`);
      reasons.set(r, (reasons.get(r) ?? 0) + 1);
    }
  const why = [...reasons]
    .sort((a, c) => c[1] - a[1])
    .map(([r, n]) => `${n} "${r}"`)
    .join(', ');
  record(
    `POST /api/capz/fleet-runs/preview over ${clusters.length} clusters, median / max`,
    `${sec(p50)} / ${sec(max)}`,
    `${PREVIEW_RUNS} sequential previews (${times
      .map(ms)
      .join(', ')}), target version ${PREVIEW_TARGET.version}, ${
      stages.length
    } stages by namespace (${stages
      .map(s => `${s.name} ${s.clusters.length}`)
      .join(
        ', ',
      )}), the bench's static service token (a service principal: the route grants it capz.cluster.upgrade on every cluster without the policy); ${(
      bytes / 1024
    ).toFixed(0)} KiB JSON. Planned: ${counts.upgrade} upgrade, ${
      counts.current
    } current, ${counts.refused} refused${
      why ? ` (${why})` : ''
    } (the seeded credential Secrets give the backend no ARM credential: no cluster can be checked against the versions AKS offers, so none is \`upgrade\`). API requests by the backend meanwhile: ${
      audited.count
    } (${
      audited.detail
    }: the namespaces' credential Secrets, read for each preview)`,
  );
  return {
    fleetPreviewP50Ms: p50,
    fleetPreviewMaxMs: max,
    fleetPreviewClusters: clusters.length,
  };
}
