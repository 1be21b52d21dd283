import type { ClusterInfo } from '@internal/mgmt-cluster';
import type { RecordRow } from '../report.ts';

/** What every measure is given: the seeded management cluster, where files go, and where its rows go. */
export interface MeasureContext {
  info: ClusterInfo;
  /** .local/bench: configs, logs, profiles and heap snapshots. */
  localDir: string;
  /** Adds a row to the result table (a --baseline backend's are labelled). */
  record: RecordRow;
  /** --heap-snapshot: each backend's memory split and a heap snapshot once it has synced. */
  heapSnapshot: boolean;
  /** The API server's pid, for the CPU time a phase costs it. */
  apiServerPid?: number;
  /** --backend-config: more config files for this checkout's CAPZ backend, after the bench's own. */
  backendConfigs?: string[];
}
