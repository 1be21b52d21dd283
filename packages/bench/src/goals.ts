/**
 * The read path's goals as a table: each goal, its threshold, how its figure is shown and judged. Pure: the run's
 * measures fill the figures, report.ts prints the verdicts.
 */
import { mib, ms, sec } from './format.ts';

/** The figures the goals are judged on, in ms or KiB (raw objects in bytes); NaN when not measured. */
export interface Figures {
  /** Plain sequential unpaginated LIST of the watched kinds, median of 3. */
  listSequentialMs: number;
  /** Bytes of that LIST's answers: the raw objects. */
  rawBytes: number;
  /** HTTP up → watch synced, median of the starts. */
  syncMs: number;
  /** The whole list (no view parameters): every cluster's summary in one answer. */
  clustersP50: number;
  clustersP99: number;
  /** Views of it answered on the server, 50 clusters a page: the first page by name, */
  clustersPageP50: number;
  clustersPageP99: number;
  /** a page of the biggest seeded namespace by health, */
  clustersNamespacePageP50: number;
  clustersNamespacePageP99: number;
  /** and the first page of the clusters needing attention now. */
  clustersAttentionPageP50: number;
  clustersAttentionPageP99: number;
  /** How many clusters the biggest seeded namespace has (the namespace page's and the pushes' namespace). */
  namespaceClusters: number;
  /** One tree of the compared cluster (around the stock query, when it ran). */
  treeTargetMs: number;
  describeMs: number;
  stockQueryMs: number;
  pushP95: number;
  /** How many clusters the namespace of the changed clusters has: a push's work is per namespace. */
  pushNamespaceClusters: number;
  rssAfterSyncKib: number;
  stockRssKib: number;
  emptyRssKib: number;
  minimalRssKib: number;
  minimalEmptyRssKib: number;
  /** `POST /fleet-runs/preview` over every seeded cluster: median and max of the timed previews. */
  fleetPreviewP50Ms: number;
  fleetPreviewMaxMs: number;
  /** How many clusters those previews planned. */
  fleetPreviewClusters: number;
}

export const newFigures = (): Figures => ({
  listSequentialMs: NaN,
  rawBytes: NaN,
  syncMs: NaN,
  clustersP50: NaN,
  clustersP99: NaN,
  clustersPageP50: NaN,
  clustersPageP99: NaN,
  clustersNamespacePageP50: NaN,
  clustersNamespacePageP99: NaN,
  clustersAttentionPageP50: NaN,
  clustersAttentionPageP99: NaN,
  namespaceClusters: NaN,
  treeTargetMs: NaN,
  describeMs: NaN,
  stockQueryMs: NaN,
  pushP95: NaN,
  pushNamespaceClusters: NaN,
  rssAfterSyncKib: NaN,
  stockRssKib: NaN,
  emptyRssKib: NaN,
  minimalRssKib: NaN,
  minimalEmptyRssKib: NaN,
  fleetPreviewP50Ms: NaN,
  fleetPreviewMaxMs: NaN,
  fleetPreviewClusters: NaN,
});

/** The thresholds, each where its goal reads it. */
export const THRESHOLDS = {
  /** Initial sync at most this many times a plain sequential LIST of the same kinds. */
  syncOverList: 1.5,
  /** `clusterctl describe` at least this many times one tree. */
  describeOverTree: 50,
  /** The stock custom-resource query at least this many times one tree. */
  stockOverTree: 20,
  clustersP50Ms: 50,
  clustersP99Ms: 100,
  /** A page of a view of the clusters (filtered, sorted and paged on the server) at 10,000 clusters. */
  clustersPageP99Ms: 100,
  pushP95Ms: 150,
  /** A fleet run's preview over 1,000 clusters: the fleet work's goal, judged on the slowest timed one. */
  fleetPreviewMs: 5000,
  /** What the data may add to a backend's RSS, in multiples of the raw objects. */
  rssOverRaw: 2,
} as const;

export interface Goal {
  goal: string;
  target: (f: Figures) => string;
  value: (f: Figures) => string;
  met: (f: Figures) => boolean;
  /** False when a figure it needs was not measured (NaN): the verdict is then "not measured", whatever `met` says. */
  measured: (f: Figures) => boolean;
}

const T = THRESHOLDS;
const rawKib = (f: Figures) => f.rawBytes / 1024;
const syncRatio = (f: Figures) => f.syncMs / f.listSequentialMs;
const describeRatio = (f: Figures) => f.describeMs / f.treeTargetMs;
const stockRatio = (f: Figures) => f.stockQueryMs / f.treeTargetMs;
const rssLimitKib = (f: Figures) => f.stockRssKib + T.rssOverRaw * rawKib(f);
const minimalDataKib = (f: Figures) => f.minimalRssKib - f.minimalEmptyRssKib;
const dataKib = (f: Figures) => f.rssAfterSyncKib - f.emptyRssKib;

/** A page of a server-side view of the clusters: judged on its p99, its p50 shown beside it. */
const pageGoal = (
  goal: string,
  p50: (f: Figures) => number,
  p99: (f: Figures) => number,
  detail: (f: Figures) => string = () => '',
): Goal => ({
  goal,
  target: () => `p99 ≤ ${T.clustersPageP99Ms} ms`,
  value: f => `${ms(p50(f))} / ${ms(p99(f))}${detail(f)}`,
  met: f => p99(f) <= T.clustersPageP99Ms,
  measured: f => Number.isFinite(p99(f)),
});

export const GOALS: readonly Goal[] = [
  {
    goal: 'initial sync (median of 3 starts) ÷ plain sequential LIST of the same kinds',
    target: () => `≤ ${T.syncOverList}×`,
    value: f =>
      `${syncRatio(f).toFixed(2)}× (${sec(f.syncMs)} ÷ ${sec(
        f.listSequentialMs,
      )})`,
    met: f => syncRatio(f) <= T.syncOverList,
    measured: f => Number.isFinite(syncRatio(f)),
  },
  {
    goal: 'one tree vs `clusterctl describe` of the same cluster',
    target: () => `≤ 1/${T.describeOverTree}`,
    value: f =>
      `1/${describeRatio(f).toFixed(0)} (${ms(f.treeTargetMs)} vs ${ms(
        f.describeMs,
      )})`,
    met: f => describeRatio(f) >= T.describeOverTree,
    measured: f => Number.isFinite(describeRatio(f)),
  },
  {
    goal: 'one tree vs the stock custom-resource query',
    target: () => `≤ 1/${T.stockOverTree}`,
    value: f =>
      `1/${stockRatio(f).toFixed(1)} (${ms(f.treeTargetMs)} vs ${ms(
        f.stockQueryMs,
      )})`,
    met: f => stockRatio(f) >= T.stockOverTree,
    measured: f => Number.isFinite(stockRatio(f)),
  },
  {
    goal: '`GET /clusters`, the whole list, p50 / p99',
    target: () => `≤ ${T.clustersP50Ms} / ${T.clustersP99Ms} ms`,
    value: f => `${ms(f.clustersP50)} / ${ms(f.clustersP99)}`,
    met: f =>
      f.clustersP50 <= T.clustersP50Ms && f.clustersP99 <= T.clustersP99Ms,
    measured: f => Number.isFinite(f.clustersP50),
  },
  pageGoal(
    '`GET /clusters?sort=name&limit=50`, the first page, p50 / p99',
    f => f.clustersPageP50,
    f => f.clustersPageP99,
  ),
  pageGoal(
    '`GET /clusters?namespace=<biggest>&sort=health&limit=50` p50 / p99',
    f => f.clustersNamespacePageP50,
    f => f.clustersNamespacePageP99,
    f =>
      Number.isFinite(f.namespaceClusters)
        ? ` (${f.namespaceClusters} clusters in it)`
        : '',
  ),
  pageGoal(
    '`GET /clusters?attention=now&limit=50` p50 / p99',
    f => f.clustersAttentionPageP50,
    f => f.clustersAttentionPageP99,
  ),
  {
    goal: 'change → push p95',
    target: () => `≤ ${T.pushP95Ms} ms`,
    value: f =>
      `${ms(f.pushP95)}${
        Number.isFinite(f.pushP95) && Number.isFinite(f.pushNamespaceClusters)
          ? ` (${f.pushNamespaceClusters} clusters in the namespace)`
          : ''
      }`,
    met: f => f.pushP95 <= T.pushP95Ms,
    measured: f => Number.isFinite(f.pushP95),
  },
  {
    goal: "a fleet run's preview (`POST /fleet-runs/preview`) over every cluster, median / max",
    target: () => `≤ ${T.fleetPreviewMs / 1000} s`,
    value: f =>
      `${sec(f.fleetPreviewP50Ms)} / ${sec(f.fleetPreviewMaxMs)} (${
        f.fleetPreviewClusters
      } clusters)`,
    met: f => f.fleetPreviewMaxMs <= T.fleetPreviewMs,
    measured: f => Number.isFinite(f.fleetPreviewMaxMs),
  },
  // Like for like: the stock reference is a minimal backend (catalog, allow-all permissions, the stock plugin), so the
  // goal is applied to the same minimal backend with our plugin and catalog module in its place.
  {
    goal: 'minimal CAPZ backend RSS after sync vs the stock minimal backend + 2 × the raw objects',
    target: f =>
      `≤ ${mib(rssLimitKib(f))} (${mib(f.stockRssKib)} + ${
        T.rssOverRaw
      } × ${mib(rawKib(f))})`,
    value: f => mib(f.minimalRssKib),
    met: f => f.minimalRssKib <= rssLimitKib(f),
    measured: f =>
      Number.isFinite(rssLimitKib(f)) && Number.isFinite(f.minimalRssKib),
  },
  {
    goal: 'minimal CAPZ backend: what the data adds ≤ 2 × the raw objects',
    target: f => `≤ + ${mib(T.rssOverRaw * rawKib(f))}`,
    value: f =>
      `${mib(f.minimalRssKib)} = ${mib(
        f.minimalEmptyRssKib,
      )} without a management cluster + ${mib(minimalDataKib(f))}`,
    met: f => minimalDataKib(f) <= T.rssOverRaw * rawKib(f),
    measured: f =>
      Number.isFinite(minimalDataKib(f)) && Number.isFinite(rawKib(f)),
  },
  // The app's backend has many more plugins (scaffolder and its forge modules, auth, signals, notifications, ...): its
  // own footprint is measured without any management cluster, and the goal's data part applied to the difference.
  {
    goal: 'full app backend RSS after sync: what the data adds ≤ 2 × the raw objects',
    target: f => `≤ + ${mib(T.rssOverRaw * rawKib(f))}`,
    value: f =>
      `${mib(f.rssAfterSyncKib)} = ${mib(
        f.emptyRssKib,
      )} without a management cluster + ${mib(dataKib(f))}`,
    met: f => dataKib(f) <= T.rssOverRaw * rawKib(f),
    measured: f => Number.isFinite(dataKib(f)) && Number.isFinite(rawKib(f)),
  },
];

export type Verdict = 'met' | 'NOT met' | 'not measured';

export const verdict = (met: boolean, measured: boolean): Verdict =>
  !measured ? 'not measured' : met ? 'met' : 'NOT met';

export interface Judged {
  goal: string;
  target: string;
  value: string;
  verdict: Verdict;
}

/** Each goal judged on one backend's figures. */
export const judge = (f: Figures, goals: readonly Goal[] = GOALS): Judged[] =>
  goals.map(g => ({
    goal: g.goal,
    target: g.target(f),
    value: g.value(f),
    verdict: verdict(g.met(f), g.measured(f)),
  }));

/**
 * A --baseline backend's figures with the references measured once in a run, after both backends (clusterctl, the
 * stock backend, the empty and minimal backends), taken from ours.
 */
export const withReferences = (baseline: Figures, ours: Figures): Figures => ({
  ...baseline,
  describeMs: ours.describeMs,
  stockQueryMs: ours.stockQueryMs,
  stockRssKib: ours.stockRssKib,
  emptyRssKib: ours.emptyRssKib,
  minimalRssKib: ours.minimalRssKib,
  minimalEmptyRssKib: ours.minimalEmptyRssKib,
});
