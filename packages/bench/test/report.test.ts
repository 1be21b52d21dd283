import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Judged } from '../src/goals.ts';
import {
  goalLogLines,
  goalTable,
  Recorder,
  renderReport,
  resultFileName,
} from '../src/report.ts';

const mine: Judged[] = [
  {
    goal: 'change → push p95',
    target: '≤ 150 ms',
    value: '48.3 ms',
    verdict: 'met',
  },
  { goal: 'g2', target: 't2', value: 'n/a', verdict: 'not measured' },
];
const base: Judged[] = [
  {
    goal: 'change → push p95',
    target: '≤ 150 ms',
    value: '195 ms',
    verdict: 'NOT met',
  },
  { goal: 'g2', target: 't2', value: '1 ms', verdict: 'met' },
];

describe('report', () => {
  it('records rows in order, logs each, and labels a baseline', () => {
    const logged: string[] = [];
    const r = new Recorder(line => logged.push(line));
    r.record('Seeding', '1.00 s', 'how');
    r.as('Baseline (/old)')('CAPZ backend RSS after sync', '700 MiB', 'VmRSS');
    r.record('Stock', '500 MiB', 'x');
    assert.deepEqual(r.rows, [
      { metric: 'Seeding', value: '1.00 s', how: 'how' },
      {
        metric: 'Baseline (/old): CAPZ backend RSS after sync',
        value: '700 MiB',
        how: 'VmRSS',
      },
      { metric: 'Stock', value: '500 MiB', how: 'x' },
    ]);
    assert.deepEqual(logged, [
      'Seeding: 1.00 s',
      'Baseline (/old): CAPZ backend RSS after sync: 700 MiB',
      'Stock: 500 MiB',
    ]);
  });

  it('prints the goal table, with the baseline columns only when measured', () => {
    assert.deepEqual(goalTable(mine), [
      '| goal | target | this run | |',
      '|---|---|---|---|',
      '| change → push p95 | ≤ 150 ms | 48.3 ms | met |',
      '| g2 | t2 | n/a | not measured |',
    ]);
    assert.deepEqual(goalTable(mine, base), [
      '| goal | target | this run | | baseline | |',
      '|---|---|---|---|---|---|',
      '| change → push p95 | ≤ 150 ms | 48.3 ms | met | 195 ms | NOT met |',
      '| g2 | t2 | n/a | not measured | 1 ms | met |',
    ]);
  });

  it('logs each goal of this run', () => {
    assert.deepEqual(goalLogLines(mine), [
      'goal: change → push p95: 48.3 ms, goal ≤ 150 ms: met',
      'goal: g2: n/a, goal t2: not measured',
    ]);
  });

  it('names the result file by the parameters that differ from the defaults', () => {
    const p = { clusters: 1000, pools: 3, namespaces: 20 };
    assert.equal(resultFileName(p), 'result-1000.md');
    assert.equal(resultFileName({ ...p, pools: 50 }), 'result-1000-p50.md');
    assert.equal(
      resultFileName({ ...p, clusters: 20, pools: 1, namespaces: 4 }),
      'result-20-p1-ns4.md',
    );
  });

  it('renders the whole table as the run prints and writes it', () => {
    const text = renderReport({
      clusters: 20,
      pools: 3,
      namespaces: 20,
      objects: 280,
      cores: 2,
      cpu: 'Test CPU @ 2.00GHz',
      memoryBytes: 24 * 2 ** 30,
      nodeVersion: 'v24.21.0',
      database: 'in-memory SQLite',
      runAt: new Date('2026-11-28T00:38:12.345Z'),
      totalMs: 98_765,
      rows: [
        { metric: 'Seeding', value: '0.52 s', how: '280 objects' },
        { metric: 'a | b', value: '1 ms', how: 'x | y' },
      ],
      goals: mine,
    });
    assert.equal(
      text,
      [
        '## Read-path benchmark: N=20 clusters',
        '',
        'Parameters: N=20 clusters × P=3 pools over 20 namespaces = 280 objects (per cluster: Cluster, AzureASOManagedCluster, AzureASOManagedControlPlane, ResourceGroup, ManagedCluster, 3× MachinePool, AzureASOManagedMachinePool, ManagedClustersAgentPool); about 5% of clusters have a blocked ManagedCluster. Machine: 2 cores (Test CPU @ 2.00GHz), 24 GiB; Node v24.21.0; local kube-apiserver 1.35.4 + etcd 3.6.16 on loopback with a metadata audit log; the backends on in-memory SQLite; run 2026-11-28T00:38Z, 98.77 s in all.',
        '',
        '| metric | value | how |',
        '|---|---|---|',
        '| Seeding | 0.52 s | 280 objects |',
        // Only the "how" column is escaped, as before.
        '| a | b | 1 ms | x \\| y |',
        '',
        'Goals, from the figures above:',
        '',
        '| goal | target | this run | |',
        '|---|---|---|---|',
        '| change → push p95 | ≤ 150 ms | 48.3 ms | met |',
        '| g2 | t2 | n/a | not measured |',
        '',
      ].join('\n'),
    );
  });

  it('counts at most one namespace per cluster', () => {
    const text = renderReport({
      clusters: 5,
      pools: 1,
      namespaces: 20,
      objects: 50,
      cores: 2,
      cpu: 'c',
      memoryBytes: 2 ** 30,
      nodeVersion: 'v24',
      database: 'PostgreSQL (127.0.0.1:5499, databases capz_bench_7_*)',
      runAt: new Date(0),
      totalMs: 1000,
      rows: [],
      goals: [],
      baselineGoals: [],
    });
    assert.match(text, /P=1 pools over 5 namespaces = 50 objects/);
    assert.match(
      text,
      /the backends on PostgreSQL \(127\.0\.0\.1:5499, databases capz_bench_7_\*\)/,
    );
    assert.match(text, /\| goal \| target \| this run \| \| baseline \| \|/);
  });
});
