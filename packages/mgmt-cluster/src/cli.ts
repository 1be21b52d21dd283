#!/usr/bin/env node
/**
 * capz-mgmt-cluster: a real local management cluster for development, the demo and tests.
 *
 *   start  [--name demo] [--ephemeral] [--no-crds]   start (or reuse) and print the kubeconfig path
 *   stop   [--name demo]                              stop the processes (state kept unless ephemeral)
 *   status [--name demo]                              print the cluster's URL and kubeconfig, exit 1 if down
 *   env    [--name demo]                              print `export KUBECONFIG=...` for the shell
 *   restart-apiserver [--name demo]                   kill the kube-apiserver and start it again (same port, same etcd)
 *   build                                             build the Kubernetes binaries only
 */
import { parseArgs } from 'node:util';
import { ensureBinaries } from './binaries.ts';
import {
  apiGet,
  restartApiServer,
  runningCluster,
  startManagementCluster,
  stopManagementCluster,
} from './cluster.ts';
import { stateDirFor } from './paths.ts';

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: {
    name: { type: 'string', default: 'demo' },
    ephemeral: { type: 'boolean', default: false },
    'no-crds': { type: 'boolean', default: false },
  },
});
const [command = 'status'] = positionals;
const name = values.name!;

async function main(): Promise<number> {
  switch (command) {
    case 'build':
      process.stdout.write(`${(await ensureBinaries()).dir}\n`);
      return 0;
    case 'start': {
      const info = await startManagementCluster({
        name,
        ephemeral: values.ephemeral,
        crds: !values['no-crds'],
      });
      process.stdout.write(`${info.kubeconfigPath}\n`);
      return 0;
    }
    case 'stop': {
      const info = runningCluster(name);
      if (info) await stopManagementCluster(info);
      process.stderr.write(
        info ? `${name}: stopped\n` : `${name}: not running\n`,
      );
      return 0;
    }
    case 'restart-apiserver': {
      const info = runningCluster(name);
      if (!info) {
        process.stderr.write(`${name}: not running\n`);
        return 1;
      }
      if (!info.apiserverArgs) {
        process.stderr.write(
          `${name}: started by an older version without its kube-apiserver arguments; stop and start it again\n`,
        );
        return 1;
      }
      await restartApiServer(info);
      return 0;
    }
    case 'status':
    case 'env': {
      const info = runningCluster(name);
      const ready =
        info &&
        (await apiGet(info, '/readyz').catch(() => ({ status: 0 }))).status ===
          200;
      if (!info || !ready) {
        process.stderr.write(
          `${name}: not running (state in ${stateDirFor(name)})\n`,
        );
        return 1;
      }
      process.stdout.write(
        command === 'env'
          ? `export KUBECONFIG=${info.kubeconfigPath}\n`
          : `${name}: running at ${info.url}\nkubeconfig: ${info.kubeconfigPath}\n`,
      );
      return 0;
    }
    default:
      process.stderr.write(
        `unknown command "${command}": use start, stop, status, env, restart-apiserver or build\n`,
      );
      return 2;
  }
}

main().then(
  code => process.exit(code),
  (e: Error) => {
    process.stderr.write(`capz-mgmt-cluster ${command}: ${e.message}\n`);
    process.exit(1);
  },
);
