/**
 * Test helpers: one management cluster per test run, a namespace per test.
 *
 * The README's test command starts one ephemeral cluster and exports CAPZ_TEST_CLUSTER (the path of its
 * cluster.json) to every test runner. Run on their own, the node:test suites start one in their global setup
 * (test/globalSetup.ts) and stop it at the end.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { apiRequest, type ClusterInfo } from './cluster.ts';

export function testCluster(): ClusterInfo {
  const file = process.env.CAPZ_TEST_CLUSTER;
  if (!file) {
    throw new Error(
      'CAPZ_TEST_CLUSTER is not set: run the tests through the README test command or with test/globalSetup.ts',
    );
  }
  return JSON.parse(readFileSync(file, 'utf8')) as ClusterInfo;
}

/**
 * A new folder for what a test starts with a state directory of its own (a management cluster's `stateDir`): under
 * the run's state directory when the test command set one (`CAPZ_STATE_DIR`, swept when the tests end however they
 * end: a stopped Jest runs no `afterAll`, and the cluster's processes lead process groups of their own), else under
 * the system's temporary folder.
 */
export function testStateDir(prefix: string): string {
  const root = process.env.CAPZ_STATE_DIR ?? tmpdir();
  mkdirSync(root, { recursive: true });
  return mkdtempSync(join(root, prefix));
}

interface Hooks {
  after(fn: () => Promise<void> | void): void;
}

/**
 * Creates a namespace of its own for a test (`t-<prefix>-<random>`) and deletes it after the test; the real
 * namespace controller then removes what the test left in it.
 */
export async function testNamespace(
  t: Hooks,
  prefix = 'test',
): Promise<string> {
  const info = testCluster();
  const name = `t-${prefix
    .toLowerCase()
    .replace(/[^a-z0-9-]/g, '-')
    .slice(0, 40)}-${randomBytes(3).toString('hex')}`;
  const res = await apiRequest(info, 'POST', '/api/v1/namespaces', {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name, labels: { 'capz.test/namespace': 'true' } },
  });
  if (res.status !== 201)
    throw new Error(`create namespace ${name}: HTTP ${res.status} ${res.body}`);
  t.after(async () => {
    await apiRequest(info, 'DELETE', `/api/v1/namespaces/${name}`);
  });
  return name;
}

/**
 * Polls until `check` returns a value (neither undefined nor false); fails after `timeoutMs` naming what it waited
 * for and the last error `check` threw. A wait on a condition, never a fixed sleep; the default deadline (90 s) only
 * detects a hang, far past what a loaded machine takes.
 */
export async function until<T>(
  what: string,
  check: () => Promise<T | undefined | false> | T | undefined | false,
  timeoutMs = 90_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (let delay = 25; ; delay = Math.min(delay * 2, 250)) {
    try {
      const v = await check();
      if (v !== undefined && v !== false) return v as T;
    } catch (e) {
      last = e;
    }
    if (Date.now() > deadline)
      throw new Error(
        `timed out after ${timeoutMs} ms waiting for ${what}${
          last ? `: ${(last as Error).message}` : ''
        }`,
      );
    await new Promise(r => setTimeout(r, delay));
  }
}
