/**
 * node:test global setup: reuses the run's cluster when the test command started one (CAPZ_TEST_CLUSTER), otherwise
 * starts an ephemeral one for this run and stops it afterwards.
 */
import { join } from 'node:path';
import {
  startManagementCluster,
  stopManagementCluster,
  type ClusterInfo,
} from '../src/cluster.ts';

let owned: ClusterInfo | undefined;

export async function globalSetup(): Promise<void> {
  if (process.env.CAPZ_TEST_CLUSTER) return;
  owned = await startManagementCluster({
    name: `test-${process.pid}`,
    ephemeral: true,
  });
  process.env.CAPZ_TEST_CLUSTER = join(owned.stateDir, 'cluster.json');
}

export async function globalTeardown(): Promise<void> {
  if (owned) await stopManagementCluster(owned);
}
