/**
 * A management cluster's kube-apiserver taken away and brought back through `capz-mgmt-cluster` (packages/mgmt-cluster
 * src/cluster.ts): `stop` (the process killed: its port refuses connections) or `pause` (SIGSTOP: connections hang,
 * nothing answers), then `restore` (start-apiserver or resume-apiserver, which wait for /readyz). A test restores in
 * a `finally` and in afterAll, so one that fails midway still leaves its API server running and `stop` of the cluster
 * ends every process.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
// eslint-disable-next-line @backstage/no-undeclared-imports
import { repoRoot } from '@internal/mgmt-cluster';

const run = promisify(execFile);
const cli = join(repoRoot, 'packages', 'mgmt-cluster', 'src', 'cli.ts');

/** How long the outage lasts: the API server away for a minute. */
export const OUTAGE_MS = 60_000;

export class ApiServerFault {
  private down?: 'stopped' | 'paused';
  private since = 0;

  constructor(
    private readonly clusterName: string,
    private readonly say: (message: string) => void = () => undefined,
  ) {}

  private async mgmt(command: string): Promise<void> {
    await run('node', [cli, command, '--name', this.clusterName], {
      timeout: 180_000,
    });
  }

  /** Kills the API server: connections are refused until restore(). */
  async stop(): Promise<void> {
    await this.mgmt('stop-apiserver');
    this.down = 'stopped';
    this.since = Date.now();
    this.say(`kube-apiserver of ${this.clusterName} stopped (refused)`);
  }

  /** Freezes the API server: connections hang until restore(). */
  async pause(): Promise<void> {
    await this.mgmt('pause-apiserver');
    this.down = 'paused';
    this.since = Date.now();
    this.say(`kube-apiserver of ${this.clusterName} paused (hangs)`);
  }

  /** How long it has been away (0 when it is up). */
  elapsed(): number {
    return this.down ? Date.now() - this.since : 0;
  }

  /** Brings it back and waits until it is ready; nothing when it is up. */
  async restore(): Promise<void> {
    const was = this.down;
    if (!was) return;
    await this.mgmt(was === 'stopped' ? 'start-apiserver' : 'resume-apiserver');
    this.down = undefined;
    this.say(
      `kube-apiserver of ${this.clusterName} back after ${(
        (Date.now() - this.since) /
        1000
      ).toFixed(1)} s ${was}`,
    );
  }

  /**
   * Keeps it away until `ms` have passed since it went away, running `observe` (the test's checks during the outage)
   * about every `everyMs` meanwhile, then brings it back. The outage's length is the fault's, not a wait for a
   * condition: the checks run throughout it.
   */
  async holdFor(
    ms: number,
    observe: () => Promise<void>,
    everyMs = 2_000,
  ): Promise<void> {
    for (;;) {
      await observe();
      const left = ms - this.elapsed();
      if (left <= 0) break;
      await new Promise(r => setTimeout(r, Math.min(everyMs, left)));
    }
    await this.restore();
  }
}
