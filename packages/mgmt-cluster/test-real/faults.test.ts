/**
 * The real-controllers lane's fault handling ("a manager that fails to start (port taken, missing CRD, bad
 * cert) stops the lane with its log tail and the cause, never a hang; the lane stops every process it started, also
 * on failure"). One ephemeral management cluster for the file, no Azure (the managers start without it). Each test
 * provokes one fault and checks that startControllers rejects naming the manager, the cause and the log tail, that
 * every manager it started is gone, and that no admission webhook of ours is left to refuse writes.
 *
 *   node --test --test-concurrency=1 test-real/faults.test.ts   (needs the built managers: `node src/cli.ts build-controllers`)
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import {
  apiRequest,
  startManagementCluster,
  stopManagementCluster,
  type ClusterInfo,
} from '../src/cluster.ts';
import {
  ControllersStartError,
  runningControllers,
  startControllers,
  stopControllers,
  type ManagerName,
} from '../src/controllers/index.ts';
import { selfSignedCertificate } from '../src/pki.ts';
import { until } from './wait.ts';
import { fileHooks, settled } from './hooks.ts';

// Hang detectors, at least 3x the longest each took in the lane beside stress-ng on both cores
// (scripts/test-under-load.sh --stages real, 2 cores, load 8-18; three runs). A failed start takes 21-49 s there,
// nearly all of it before the first launch, installing the CRDs again (up to 40 s for 44-45 CRDs); from the launch to
// the rejection < 1 s.
/** The management cluster: 23.5-37.2 s. */
const SETUP_TIMEOUT = 180_000;
/** Stopping it: 1.6-10.6 s. */
const TEARDOWN_TIMEOUT = 60_000;
/**
 * One failed start: 20.9-48.8 s; two (the certificate test): 44.6-85.4 s. The port test took 135.6 s in a cold run
 * beside the managers' build and other sessions' tests (2026-12-03): 480 s keeps it under a third.
 */
const FAULT_TIMEOUT = 480_000;
/** A failed test's clean-up: its own bounds (15 s + 60 s + stopControllers' 10 s + 15 s) and the API calls. */
const CLEANUP_TIMEOUT = 180_000;
/** pgrep and kill(0): 18-250 ms. */
const CHECK_TIMEOUT = 30_000;

let info: ClusterInfo;
/** Every manager PID a failed start reported, checked again after the file (no orphans). */
const seenPids: number[] = [];
const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';

fileHooks({
  setup: async () => {
    info = await startManagementCluster({
      name: `faults-${process.pid}`,
      ephemeral: true,
    });
  },
  setupTimeoutMs: SETUP_TIMEOUT,
  teardown: async () => {
    if (info) {
      await stopControllers(info);
      await stopManagementCluster(info);
    }
  },
  teardownTimeoutMs: TEARDOWN_TIMEOUT,
});

const gone = (pid: number) => {
  try {
    process.kill(pid, 0);
    return false;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'ESRCH';
  }
};

/** The managers of this cluster still running: their command line names its state directory (--webhook-cert-dir). */
const managersOfThisCluster = () => {
  try {
    return execFileSync('pgrep', ['-f', join(info.stateDir, 'controllers')], {
      encoding: 'utf8',
    }).trim();
  } catch {
    return ''; // pgrep exits 1 when nothing matches
  }
};

/** Stops every manager of this cluster still running, by process group (each manager leads its own). */
async function killManagersOfThisCluster(): Promise<void> {
  const pids = managersOfThisCluster().split('\n').filter(Boolean).map(Number);
  const signal = (sig: NodeJS.Signals) => {
    for (const pid of pids)
      try {
        process.kill(-pid, sig);
      } catch {
        /* gone, or not a group leader */
        try {
          process.kill(pid, sig);
        } catch {
          /* gone */
        }
      }
  };
  signal('SIGTERM');
  await until(
    'the managers of this cluster gone',
    () => pids.every(gone),
    15_000,
  ).catch(() => signal('SIGKILL'));
}

/**
 * When the start of each manager was recorded (startControllers saves the record after each launch): where a failed
 * start's time goes, setup (binaries, CRDs) before the first launch or the wait for the managers after it.
 */
function watchLaunches(startedAt: number) {
  const launched = new Map<string, number>();
  const timer = setInterval(() => {
    let managers = {};
    try {
      managers = runningControllers(info)?.managers ?? {};
    } catch {
      return; // caught while being written: read at the next tick
    }
    for (const m of Object.keys(managers))
      if (!launched.has(m)) launched.set(m, Date.now() - startedAt);
  }, 100);
  return {
    stop: () => clearInterval(timer),
    launched,
    text: () =>
      [...launched].map(([m, ms]) => `${m} launched +${ms} ms`).join(', '),
  };
}

/**
 * Runs a start that must fail; checks what every failure must leave behind and returns the error. Also when the
 * test fails or times out (node:test cannot cancel a timed-out test: its start runs on), the test's after-hook stops
 * every manager of this cluster, waits for the start to give up (a start whose manager is gone fails at its next
 * check) and stops what it may have launched meanwhile, so that the next test starts on a cluster without managers.
 */
async function failedStart(
  t: TestContext,
  opts: Parameters<typeof startControllers>[1],
  manager: ManagerName,
): Promise<{
  e: ControllersStartError;
  /** ms from the call to each manager's launch, and to the rejection */
  launched: Map<string, number>;
  rejectedMs: number;
}> {
  if (t.signal.aborted) throw new Error('the test was cancelled: no new start');
  const startedAt = Date.now();
  const watch = watchLaunches(startedAt);
  const start = startControllers(info, opts);
  t.after(
    async () => {
      watch.stop();
      await killManagersOfThisCluster();
      await settled(start, 60_000);
      await stopControllers(info);
      await killManagersOfThisCluster();
    },
    { timeout: CLEANUP_TIMEOUT },
  );
  let error: unknown;
  await start.then(
    () => assert.fail('startControllers resolved'),
    e => (error = e),
  );
  watch.stop();
  const rejectedMs = Date.now() - startedAt;
  t.diagnostic(
    `${watch.text() || 'nothing launched'}; rejected +${rejectedMs} ms`,
  );
  assert.ok(
    error instanceof ControllersStartError,
    `a ControllersStartError: ${String(error)}`,
  );
  assert.equal(error.manager, manager, error.message);
  // Every manager it started is stopped: the PIDs are gone (not zombies: the managers are reaped as children).
  const pids = Object.values(error.started).map(s => s.pid);
  assert.ok(pids.length > 0, 'it reports the processes it started');
  seenPids.push(...pids);
  for (const pid of pids) assert.ok(gone(pid), `pid ${pid} is gone`);
  assert.equal(managersOfThisCluster(), '', 'no manager of this cluster runs');
  // What stopControllers promises: no record of running managers, no webhook configuration of ours left.
  assert.equal(runningControllers(info), undefined);
  for (const kind of [
    'mutatingwebhookconfigurations',
    'validatingwebhookconfigurations',
  ]) {
    const r = await apiRequest(
      info,
      'GET',
      `/apis/admissionregistration.k8s.io/v1/${kind}?labelSelector=${encodeURIComponent(
        'capz-backstage/real-controllers=true',
      )}`,
    );
    assert.deepEqual(JSON.parse(r.body).items, [], kind);
  }
  return { e: error, launched: watch.launched, rejectedMs };
}

const firstLine = (e: Error) => e.message.split('\n')[0];

test(
  'a webhook port held by another listener: the manager exits, named with the port and its log tail',
  { timeout: FAULT_TIMEOUT },
  async t => {
    const holder: Server = createServer(s => s.destroy());
    await new Promise<void>(r => holder.listen(0, '0.0.0.0', r));
    const port = (holder.address() as { port: number }).port;
    const started = Date.now();
    try {
      // CAPI starts too, to prove a manager that was fine is stopped as well.
      const { e } = await failedStart(
        t,
        { managers: ['capi', 'capz'], ports: { capz: { webhook: port } } },
        'capz',
      );
      // controller-runtime v0.23.3's webhook server returns net.Listen's error from mgr.Start (pkg/webhook/server.go line 237),
      // which CAPZ v1.26.0 logs as "problem running manager" and exits 1 (main.go lines 399-402).
      const first = firstLine(e);
      assert.match(
        first,
        /^capz manager exited \(exit code 1\) while starting: /,
      );
      assert.match(
        first,
        new RegExp(`its webhook port ${port} is taken by another listener`),
      );
      assert.match(
        first,
        new RegExp(
          `"problem running manager" err="listen tcp :${port}: bind: address already in use"`,
        ),
      );
      assert.match(e.message, /--- capz log tail/);
      assert.equal(e.takenPort, port);
      assert.ok(e.started.capi, 'CAPI had been started');
      // A pinned port is not retried: one CAPZ process only (the PIDs of a retried start would be new ones).
      t.diagnostic(`rejected after ${Date.now() - started} ms: ${first}`);
    } finally {
      await new Promise(r => holder.close(r));
    }
  },
);

/** Deletes a CRD (a start installs every CRD again unless told to skip it) and waits until it is gone. */
async function deleteCrd(crd: string) {
  await apiRequest(info, 'DELETE', `${CRDS}/${crd}`);
  await until(
    `CRD ${crd} deleted`,
    async () =>
      (await apiRequest(info, 'GET', `${CRDS}/${crd}`)).status === 404,
    60_000,
  );
}

test(
  'a CRD that CAPZ maps at setup is missing: CAPZ exits, and the first line says which kind',
  { timeout: FAULT_TIMEOUT },
  async t => {
    const crd = 'azureasomanagedmachinepools.infrastructure.cluster.x-k8s.io';
    await deleteCrd(crd);
    const started = Date.now();
    const { e } = await failedStart(
      t,
      { managers: ['capz'], skipCrds: [crd] },
      'capz',
    );
    // CAPZ v1.26.0 builds its Cluster-to-AzureASOManagedMachinePool mapper in SetupWithManager
    // (controllers/azureasomanagedmachinepool_controller.go lines 71-74; CAPI v1.13.3 util/util.go line 657 "failed to
    // get restmapping"), and main.go lines 628-634 log "unable to create controller" and exit 1.
    const first = firstLine(e);
    assert.match(
      first,
      /^capz manager exited \(exit code 1\) while starting: /,
    );
    assert.match(first, /"unable to create controller"/);
    assert.match(
      first,
      /no matches for kind \\"AzureASOManagedMachinePoolList\\" in group \\"infrastructure\.cluster\.x-k8s\.io\\"/,
    );
    assert.match(e.message, /--- capz log tail/);
    // This start's log only: the previous test's port error, still in the same log file, once made this fault look
    // like a taken port, and the start was retried twice.
    assert.doesNotMatch(e.message, /address already in use/);
    assert.equal(Object.keys(e.started).join(), 'capz');
    t.diagnostic(`rejected after ${Date.now() - started} ms: ${first}`);
  },
);

test(
  'a CRD that CAPZ only watches is missing: the start fails naming the kind, not after the 2-minute cache-sync timeout',
  { timeout: FAULT_TIMEOUT },
  async t => {
    // AzureMachinePoolMachine: For() of its controller and a Watches() of the AzureMachinePool controller, no
    // setup-time mapper (CAPZ v1.26.0 exp/controllers/azuremachinepoolmachine_controller.go line 100,
    // exp/controllers/azuremachinepool_controller.go lines 137-143). controller-runtime v0.23.3 logs the kind source's
    // NoKindMatchError every 10 s (pkg/internal/source/kind.go lines 68-82) until CacheSyncTimeout, 2 min
    // (pkg/controller/controller.go lines 248-250), while /readyz is already 200 (CAPZ main.go line 738: the webhook
    // server's StartedChecker). The start must give up well before those 2 min, counted from CAPZ's launch.
    const crd = 'azuremachinepoolmachines.infrastructure.cluster.x-k8s.io';
    await deleteCrd(crd);
    const started = Date.now();
    const { e, launched, rejectedMs } = await failedStart(
      t,
      { managers: ['capz'], skipCrds: [crd] },
      'capz',
    );
    const capzLaunched = launched.get('capz');
    assert.ok(capzLaunched !== undefined, 'CAPZ was launched');
    assert.ok(
      rejectedMs - capzLaunched < 120_000,
      `rejected ${
        rejectedMs - capzLaunched
      } ms after CAPZ's launch: not before its cache-sync timeout`,
    );
    const first = firstLine(e);
    assert.match(first, /^capz manager cannot start a controller/);
    assert.match(
      first,
      /if kind is a CRD, it should be installed before calling Start/,
    );
    assert.match(first, /no matches for kind \\"AzureMachinePoolMachine\\"/);
    assert.match(e.message, /--- capz log tail/);
    t.diagnostic(`rejected after ${Date.now() - started} ms: ${first}`);
  },
);

test(
  'a serving certificate the cluster CA did not sign, or an unreadable one: the start fails with the cause, not a readiness timeout',
  { timeout: FAULT_TIMEOUT },
  async t => {
    // A stale certificate in the state directory (issueServingCert keeps an existing one): self-signed, right SANs.
    const certDir = join(info.stateDir, 'controllers', 'certs');
    mkdirSync(certDir, { recursive: true });
    const crt = join(certDir, 'tls.crt');
    const key = join(certDir, 'tls.key');
    selfSignedCertificate({
      files: { cert: crt, key },
      subject: '/CN=127.0.0.1',
      extensions: ['subjectAltName=IP:127.0.0.1,DNS:localhost'],
      days: 1,
    });
    try {
      const started = Date.now();
      const { e } = await failedStart(t, { managers: ['capz'] }, 'capz');
      const first = firstLine(e);
      assert.match(
        first,
        /^capz manager's webhook server on 127\.0\.0\.1:\d+ presents a certificate the cluster CA does not verify: self-signed certificate \(DEPTH_ZERO_SELF_SIGNED_CERT\)/,
      );
      assert.ok(first.includes(crt), 'names the certificate file');
      assert.match(e.message, /--- capz log tail/);
      t.diagnostic(`rejected after ${Date.now() - started} ms: ${first}`);

      // Unreadable: controller-runtime v0.23.3's certwatcher cannot load it (pkg/certwatcher/certwatcher.go line 191
      // ReadCertificate, tls.LoadX509KeyPair), the webhook server's Start fails and CAPZ exits (main.go lines 399-402).
      writeFileSync(crt, 'not a certificate\n');
      const { e: e2 } = await failedStart(t, { managers: ['capz'] }, 'capz');
      const first2 = firstLine(e2);
      assert.match(
        first2,
        /^capz manager exited \(exit code 1\) while starting: "problem running manager" err="tls: failed to find any PEM data in certificate input"/,
      );
      t.diagnostic(`unreadable: ${first2}`);
    } finally {
      rmSync(certDir, { recursive: true, force: true });
    }
  },
);

test(
  'after the faults, nothing started by them runs',
  { timeout: CHECK_TIMEOUT },
  () => {
    assert.ok(seenPids.length >= 6, `pids seen: ${seenPids.join(', ')}`);
    for (const pid of seenPids) assert.ok(gone(pid), `pid ${pid} is gone`);
    assert.equal(managersOfThisCluster(), '');
  },
);
