/**
 * clusterctl, built from Go modules (packages/mgmt-cluster/go/clusterctl, scripts/build-clusterctl.sh) on demand, and
 * the CAPI CRDs `clusterctl describe cluster` needs beyond what the management cluster installs (it lists Machines).
 */
import { execFile, execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import {
  apiGet,
  apiRequest,
  patchCrd,
  runBuildScript,
  type ClusterInfo,
  type Crd,
} from '@internal/mgmt-cluster';
import { log } from './util.ts';

const CAPI = { module: 'sigs.k8s.io/cluster-api', version: 'v1.13.3' };
const EXTRA_CRDS = ['machines', 'machinesets', 'machinedeployments'];

/** Builds clusterctl (cached by a hash of its wrapper module); returns its path and how long this call took. */
export async function ensureClusterctl(
  repoRoot: string,
): Promise<{ path: string; ms: number }> {
  const script = join(
    repoRoot,
    'packages',
    'mgmt-cluster',
    'scripts',
    'build-clusterctl.sh',
  );
  const started = performance.now();
  const path = await runBuildScript(script);
  return { path, ms: performance.now() - started };
}

/** Machine, MachineSet and MachineDeployment CRDs of the same CAPI version, patched like the others. */
export async function installDescribeCrds(info: ClusterInfo): Promise<void> {
  const out = execFileSync(
    'go',
    ['mod', 'download', '-json', `${CAPI.module}@${CAPI.version}`],
    {
      cwd: tmpdir(),
      encoding: 'utf8',
      env: { ...process.env, GOFLAGS: '-mod=mod' },
    },
  );
  const dir = (JSON.parse(out) as { Dir: string }).Dir;
  for (const plural of EXTRA_CRDS) {
    const crd = parseAllDocuments(
      readFileSync(
        join(dir, 'config', 'crd', 'bases', `cluster.x-k8s.io_${plural}.yaml`),
        'utf8',
      ),
    )[0].toJS() as Crd;
    const res = await apiRequest(
      info,
      'POST',
      '/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
      patchCrd(crd, {}),
    );
    if (res.status >= 300 && res.status !== 409)
      throw new Error(
        `create CRD ${crd.metadata.name}: ${res.status} ${res.body.slice(
          0,
          300,
        )}`,
      );
  }
  const deadline = Date.now() + 60_000;
  for (const plural of EXTRA_CRDS) {
    for (;;) {
      const res = await apiGet(
        info,
        `/apis/cluster.x-k8s.io/v1beta2/${plural}?limit=1`,
      );
      if (res.status === 200) break;
      if (Date.now() > deadline)
        throw new Error(`CRD ${plural} not served after 60 s`);
      await new Promise(r => setTimeout(r, 100));
    }
  }
  log(`installed the ${EXTRA_CRDS.join(', ')} CRDs for clusterctl describe`);
}

/** One `clusterctl describe cluster`: wall time (process start, discovery, requests, rendering) and its output. */
export function describeOnce(
  clusterctl: string,
  kubeconfig: string,
  namespace: string,
  name: string,
): Promise<{ ms: number; output: string }> {
  const started = performance.now();
  return new Promise((resolvePromise, reject) => {
    execFile(
      clusterctl,
      [
        'describe',
        'cluster',
        name,
        '-n',
        namespace,
        '--kubeconfig',
        kubeconfig,
        '--show-conditions',
        'all',
      ],
      // No version check: it would ask GitHub for the latest release on every run.
      {
        env: { ...process.env, CLUSTERCTL_DISABLE_VERSIONCHECK: 'true' },
        timeout: 120_000,
        maxBuffer: 16 << 20,
      },
      (err, stdout, stderr) => {
        const ms = performance.now() - started;
        if (err)
          reject(
            new Error(`clusterctl describe failed: ${err.message}\n${stderr}`),
          );
        else resolvePromise({ ms, output: stdout });
      },
    );
  });
}
