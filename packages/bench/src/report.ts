/**
 * The benchmark's result: the rows the measures record, then the goals judged on their figures, as one markdown table
 * (printed and written to .local/bench/result-<N>.md). Pure but for the sink a recorder logs each row to.
 */
import { sec } from './format.ts';
import type { Judged } from './goals.ts';

export interface Row {
  metric: string;
  value: string;
  how: string;
}

/** Adds one row to the result table. */
export type RecordRow = (metric: string, value: string, how: string) => void;

/** The rows of a run, each also logged as it comes; `as(label)` records a --baseline backend's, labelled. */
export class Recorder {
  readonly rows: Row[] = [];
  readonly record: RecordRow;
  private readonly logLine: (line: string) => void;

  constructor(logLine: (line: string) => void) {
    this.logLine = logLine;
    this.record = this.as('');
  }

  as(label: string): RecordRow {
    return (metric, value, how) => {
      const m = label ? `${label}: ${metric}` : metric;
      this.rows.push({ metric: m, value, how });
      this.logLine(`${m}: ${value}`);
    };
  }
}

/** The log line of each goal of this run's backend. */
export const goalLogLines = (goals: Judged[]): string[] =>
  goals.map(g => `goal: ${g.goal}: ${g.value}, goal ${g.target}: ${g.verdict}`);

/** Each goal next to its figure, from this run only (and the --baseline backend's, when measured). */
export function goalTable(mine: Judged[], base?: Judged[]): string[] {
  return [
    `| goal | target | this run | |${base ? ' baseline | |' : ''}`,
    `|---|---|---|---|${base ? '---|---|' : ''}`,
    ...mine.map(
      (g, i) =>
        `| ${g.goal} | ${g.target} | ${g.value} | ${g.verdict} |${
          base ? ` ${base[i].value} | ${base[i].verdict} |` : ''
        }`,
    ),
  ];
}

export interface RunParameters {
  clusters: number;
  pools: number;
  namespaces: number;
}

/** Where the run's table is written, below .local/bench: the parameters that differ from the defaults name it. */
export const resultFileName = ({
  clusters,
  pools,
  namespaces,
}: RunParameters) =>
  `result-${clusters}${pools !== 3 ? `-p${pools}` : ''}${
    namespaces !== 20 ? `-ns${namespaces}` : ''
  }.md`;

export interface ReportInput extends RunParameters {
  /** Seeded objects. */
  objects: number;
  cores: number;
  cpu: string;
  memoryBytes: number;
  nodeVersion: string;
  /** The backends' database (databaseInWords). */
  database: string;
  runAt: Date;
  /** The run's wall time until the table. */
  totalMs: number;
  rows: Row[];
  goals: Judged[];
  baselineGoals?: Judged[];
}

/** The whole result: parameters and machine, the measured rows, the goals. */
export function renderReport(r: ReportInput): string {
  return [
    `## Read-path benchmark: N=${r.clusters} clusters`,
    '',
    `Parameters: N=${r.clusters} clusters × P=${r.pools} pools over ${Math.min(
      r.namespaces,
      r.clusters,
    )} namespaces = ${r.objects} objects ` +
      `(per cluster: Cluster, AzureASOManagedCluster, AzureASOManagedControlPlane, ResourceGroup, ManagedCluster, ${r.pools}× MachinePool, ` +
      `AzureASOManagedMachinePool, ManagedClustersAgentPool); about 5% of clusters have a blocked ManagedCluster. ` +
      `Machine: ${r.cores} cores (${r.cpu}), ${(
        r.memoryBytes /
        2 ** 30
      ).toFixed(0)} GiB; Node ${r.nodeVersion}; ` +
      `local kube-apiserver 1.35.4 + etcd 3.6.16 on loopback with a metadata audit log; the backends on ${
        r.database
      }; run ${r.runAt.toISOString().slice(0, 16)}Z, ` +
      `${sec(r.totalMs)} in all.`,
    '',
    '| metric | value | how |',
    '|---|---|---|',
    ...r.rows.map(
      row =>
        `| ${row.metric} | ${row.value} | ${row.how.replace(/\|/g, '\\|')} |`,
    ),
    '',
    'Goals, from the figures above:',
    '',
    ...goalTable(r.goals, r.baselineGoals),
    '',
  ].join('\n');
}
