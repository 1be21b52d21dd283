import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  GOALS,
  judge,
  newFigures,
  THRESHOLDS,
  verdict,
  withReferences,
  type Figures,
} from '../src/goals.ts';

const MIB = 1024; // KiB

/** A run that meets every goal: 1,000 clusters' figures of the README's last run, rounded. */
const good = (): Figures => ({
  listSequentialMs: 1210,
  rawBytes: 37 * 1024 * 1024,
  syncMs: 1370,
  clustersP50: 9.48,
  clustersP99: 24.3,
  clustersPageP50: 2.1,
  clustersPageP99: 6.4,
  clustersNamespacePageP50: 1.5,
  clustersNamespacePageP99: 3.2,
  clustersAttentionPageP50: 12.5,
  clustersAttentionPageP99: 30.1,
  namespaceClusters: 50,
  treeTargetMs: 0.64,
  describeMs: 154,
  stockQueryMs: 13.7,
  pushP95: 48.3,
  pushNamespaceClusters: 50,
  rssAfterSyncKib: 792 * MIB,
  stockRssKib: 569 * MIB,
  emptyRssKib: 734 * MIB,
  minimalRssKib: 632 * MIB,
  minimalEmptyRssKib: 598 * MIB,
  fleetPreviewP50Ms: 1230,
  fleetPreviewMaxMs: 1480,
  fleetPreviewClusters: 1000,
});

const verdicts = (f: Figures) => judge(f).map(g => g.verdict);
const byGoal = (f: Figures, prefix: string) => {
  const g = judge(f).find(x => x.goal.startsWith(prefix));
  assert.ok(g, `no goal starting with ${prefix}`);
  return g;
};

describe('goals', () => {
  it('judges every goal met on a good run, with its figure and target as printed', () => {
    assert.deepEqual(judge(good()), [
      {
        goal: 'initial sync (median of 3 starts) ÷ plain sequential LIST of the same kinds',
        target: '≤ 1.5×',
        value: '1.13× (1.37 s ÷ 1.21 s)',
        verdict: 'met',
      },
      {
        goal: 'one tree vs `clusterctl describe` of the same cluster',
        target: '≤ 1/50',
        value: '1/241 (0.64 ms vs 154 ms)',
        verdict: 'met',
      },
      {
        goal: 'one tree vs the stock custom-resource query',
        target: '≤ 1/20',
        value: '1/21.4 (0.64 ms vs 13.7 ms)',
        verdict: 'met',
      },
      {
        goal: '`GET /clusters`, the whole list, p50 / p99',
        target: '≤ 50 / 100 ms',
        value: '9.48 ms / 24.3 ms',
        verdict: 'met',
      },
      {
        goal: '`GET /clusters?sort=name&limit=50`, the first page, p50 / p99',
        target: 'p99 ≤ 100 ms',
        value: '2.10 ms / 6.40 ms',
        verdict: 'met',
      },
      {
        goal: '`GET /clusters?namespace=<biggest>&sort=health&limit=50` p50 / p99',
        target: 'p99 ≤ 100 ms',
        value: '1.50 ms / 3.20 ms (50 clusters in it)',
        verdict: 'met',
      },
      {
        goal: '`GET /clusters?attention=now&limit=50` p50 / p99',
        target: 'p99 ≤ 100 ms',
        value: '12.5 ms / 30.1 ms',
        verdict: 'met',
      },
      {
        goal: 'change → push p95',
        target: '≤ 150 ms',
        value: '48.3 ms (50 clusters in the namespace)',
        verdict: 'met',
      },
      {
        goal: "a fleet run's preview (`POST /fleet-runs/preview`) over every cluster, median / max",
        target: '≤ 5 s',
        value: '1.23 s / 1.48 s (1000 clusters)',
        verdict: 'met',
      },
      {
        goal: 'minimal CAPZ backend RSS after sync vs the stock minimal backend + 2 × the raw objects',
        target: '≤ 643 MiB (569 MiB + 2 × 37 MiB)',
        value: '632 MiB',
        verdict: 'met',
      },
      {
        goal: 'minimal CAPZ backend: what the data adds ≤ 2 × the raw objects',
        target: '≤ + 74 MiB',
        value: '632 MiB = 598 MiB without a management cluster + 34 MiB',
        verdict: 'met',
      },
      {
        goal: 'full app backend RSS after sync: what the data adds ≤ 2 × the raw objects',
        target: '≤ + 74 MiB',
        value: '792 MiB = 734 MiB without a management cluster + 58 MiB',
        verdict: 'met',
      },
    ]);
  });

  it('judges nothing when nothing was measured', () => {
    assert.deepEqual(
      verdicts(newFigures()),
      GOALS.map(() => 'not measured'),
    );
    assert.equal(byGoal(newFigures(), 'change').value, 'n/a');
    assert.equal(
      byGoal(newFigures(), '`GET /clusters?namespace').value,
      'n/a / n/a',
    );
  });

  it('holds each threshold inclusive, and fails just past it', () => {
    const at = (patch: Partial<Figures>) => ({ ...good(), ...patch });
    const sync = (syncMs: number) =>
      byGoal(at({ syncMs, listSequentialMs: 1000 }), 'initial sync').verdict;
    assert.equal(sync(1000 * THRESHOLDS.syncOverList), 'met');
    assert.equal(sync(1000 * THRESHOLDS.syncOverList + 1), 'NOT met');

    const describeVs = (describeMs: number) =>
      byGoal(at({ describeMs, treeTargetMs: 1 }), 'one tree vs `clusterctl')
        .verdict;
    assert.equal(describeVs(50), 'met');
    assert.equal(describeVs(49.9), 'NOT met');

    const stockVs = (stockQueryMs: number) =>
      byGoal(at({ stockQueryMs, treeTargetMs: 1 }), 'one tree vs the stock')
        .verdict;
    assert.equal(stockVs(20), 'met');
    assert.equal(stockVs(19.9), 'NOT met');

    const clusters = (clustersP50: number, clustersP99: number) =>
      byGoal(at({ clustersP50, clustersP99 }), '`GET /clusters`').verdict;
    assert.equal(clusters(50, 100), 'met');
    assert.equal(clusters(50.1, 100), 'NOT met');
    assert.equal(clusters(50, 100.1), 'NOT met');

    const page = (prefix: string, patch: (p99: number) => Partial<Figures>) =>
      [100, 100.1].map(p99 => byGoal(at(patch(p99)), prefix).verdict);
    // Only the p99 is judged: a slow p50 under a p99 within the goal still meets it.
    assert.deepEqual(
      page('`GET /clusters?sort', p99 => ({
        clustersPageP50: 100,
        clustersPageP99: p99,
      })),
      ['met', 'NOT met'],
    );
    assert.deepEqual(
      page('`GET /clusters?namespace', p99 => ({
        clustersNamespacePageP99: p99,
      })),
      ['met', 'NOT met'],
    );
    assert.deepEqual(
      page('`GET /clusters?attention', p99 => ({
        clustersAttentionPageP99: p99,
      })),
      ['met', 'NOT met'],
    );

    const push = (pushP95: number) =>
      byGoal(at({ pushP95 }), 'change → push').verdict;
    assert.equal(push(150), 'met');
    assert.equal(push(150.1), 'NOT met');

    const preview = (fleetPreviewMaxMs: number) =>
      byGoal(at({ fleetPreviewMaxMs }), "a fleet run's preview").verdict;
    assert.equal(preview(5000), 'met');
    assert.equal(preview(5000.1), 'NOT met');
  });

  it('applies the RSS goals to what the data adds, against twice the raw objects', () => {
    const raw = { rawBytes: 10 * 1024 * 1024 }; // 10 MiB: the data may add 20 MiB
    const like = (minimalRssKib: number) =>
      byGoal(
        { ...good(), ...raw, stockRssKib: 500 * MIB, minimalRssKib },
        'minimal CAPZ backend RSS after sync',
      );
    assert.equal(like(520 * MIB).verdict, 'met');
    assert.equal(like(520 * MIB).target, '≤ 520 MiB (500 MiB + 2 × 10 MiB)');
    assert.equal(like(520 * MIB + 1).verdict, 'NOT met');

    const minimalData = (minimalRssKib: number) =>
      byGoal(
        { ...good(), ...raw, minimalEmptyRssKib: 600 * MIB, minimalRssKib },
        'minimal CAPZ backend: what the data adds',
      ).verdict;
    assert.equal(minimalData(620 * MIB), 'met');
    assert.equal(minimalData(620 * MIB + 1), 'NOT met');

    const appData = (rssAfterSyncKib: number) =>
      byGoal(
        { ...good(), ...raw, emptyRssKib: 700 * MIB, rssAfterSyncKib },
        'full app backend',
      ).verdict;
    assert.equal(appData(720 * MIB), 'met');
    assert.equal(appData(720 * MIB + 1), 'NOT met');
  });

  it('says "not measured" when one figure a goal needs is missing, met or not', () => {
    assert.equal(
      byGoal({ ...good(), stockRssKib: NaN }, 'minimal CAPZ backend RSS')
        .verdict,
      'not measured',
    );
    assert.equal(
      byGoal({ ...good(), rawBytes: NaN }, 'full app backend').verdict,
      'not measured',
    );
    assert.equal(
      byGoal({ ...good(), describeMs: NaN }, 'one tree vs `clusterctl').verdict,
      'not measured',
    );
    assert.equal(verdict(false, false), 'not measured');
    assert.equal(verdict(true, false), 'not measured');
  });

  it("judges a baseline on its own figures and this run's references", () => {
    const ours = good();
    const baseline = {
      ...newFigures(),
      listSequentialMs: ours.listSequentialMs,
      rawBytes: ours.rawBytes,
      syncMs: 12_700,
      treeTargetMs: 11.8,
      clustersP50: 108,
      clustersP99: 342,
      pushP95: 195,
      pushNamespaceClusters: 50,
      rssAfterSyncKib: 811 * MIB,
    };
    const judged = judge(withReferences(baseline, ours));
    assert.deepEqual(
      judged.map(g => g.verdict),
      [
        'NOT met',
        'NOT met',
        'NOT met',
        'NOT met',
        'not measured',
        'not measured',
        'not measured',
        'NOT met',
        'not measured',
        'met',
        'met',
        'NOT met',
      ],
    );
    // The references come from ours; the baseline's own figures stay its own.
    assert.equal(judged[1].value, '1/13 (11.8 ms vs 154 ms)');
    assert.equal(
      judged[11].value,
      '811 MiB = 734 MiB without a management cluster + 77 MiB',
    );
    assert.equal(withReferences(baseline, ours).syncMs, 12_700);
  });
});
