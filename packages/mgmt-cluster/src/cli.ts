#!/usr/bin/env node
/**
 * capz-mgmt-cluster: a real local management cluster for development, the demo and tests.
 *
 *   start  [--name demo] [--ephemeral] [--no-crds]   start (or reuse) and print the kubeconfig path
 *   stop   [--name demo]                              stop the processes (state kept unless ephemeral)
 *   status [--name demo]                              print the cluster's URL and kubeconfig, exit 1 if down
 *   env    [--name demo]                              print `export KUBECONFIG=...` for the shell
 *   restart-apiserver [--name demo]                   kill the kube-apiserver and start it again (same port, same etcd)
 *   stop-apiserver  [--name demo]                     kill the kube-apiserver and leave it down: connections refused
 *   start-apiserver [--name demo]                     start it again after stop-apiserver (same port, same etcd)
 *   pause-apiserver [--name demo]                     SIGSTOP the kube-apiserver: connections hang, nothing answers
 *   resume-apiserver [--name demo]                    SIGCONT it after pause-apiserver and wait until it is ready
 *   build                                             build the Kubernetes binaries only
 *   build-controllers [capi] [capz] [aso]             build the real CAPI/CAPZ/ASO managers (cached; see README)
 *   controllers start|stop [--name demo] [--only capi,capz,aso]
 *                                                     start/stop the real managers on a running cluster
 *   build-flux                                        build Flux's source- and kustomize-controller (cached; see README)
 *   flux start|stop [--name demo]                     install Flux's CRDs and start/stop both controllers on a running cluster
 *   flux follow --url URL --credentials FILE [--path ./]   a GitRepository and Kustomization flux-system/clusters for a repo
 *   flux status [--name demo]                         Flux's GitRepositories and Kustomizations: Ready, revision
 *   port                                              print a free port to listen on, below the ephemeral range
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { ensureBinaries } from './binaries.ts';
import {
  apiGet,
  pauseApiServer,
  restartApiServer,
  resumeApiServer,
  runningCluster,
  startApiServer,
  startManagementCluster,
  stopApiServer,
  stopManagementCluster,
  type ClusterInfo,
} from './cluster.ts';
import {
  ensureControllerBinaries,
  MANAGERS,
  startControllers,
  stopControllers,
  type ManagerName,
} from './controllers/index.ts';
import {
  ensureFluxBinaries,
  fluxStatus,
  followGitRepository,
  startFlux,
  stopFlux,
} from './flux.ts';
import { stateDirFor } from './paths.ts';
import { listenPort } from './ports.ts';

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: {
    name: { type: 'string', default: 'demo' },
    ephemeral: { type: 'boolean', default: false },
    'no-crds': { type: 'boolean', default: false },
    only: { type: 'string' },
    url: { type: 'string' },
    credentials: { type: 'string' },
    path: { type: 'string' },
    kustomization: { type: 'string' },
    interval: { type: 'string' },
  },
});
const [command = 'status'] = positionals;
const name = values.name!;

async function main(): Promise<number> {
  switch (command) {
    case 'build':
      process.stdout.write(`${(await ensureBinaries()).dir}\n`);
      return 0;
    case 'build-controllers': {
      const which = positionals.slice(1) as ManagerName[];
      process.stdout.write(
        `${
          (await ensureControllerBinaries(which.length ? which : MANAGERS)).dir
        }\n`,
      );
      return 0;
    }
    case 'build-flux':
      process.stdout.write(`${(await ensureFluxBinaries()).dir}\n`);
      return 0;
    case 'flux': {
      const info = runningCluster(name);
      if (!info) {
        process.stderr.write(`${name}: not running\n`);
        return 1;
      }
      if (positionals[1] === 'stop') {
        await stopFlux(info);
        process.stderr.write(`${name}: flux stopped\n`);
        return 0;
      }
      if (positionals[1] === 'status') {
        for (const l of await fluxStatus(info)) process.stdout.write(`${l}\n`);
        return 0;
      }
      if (positionals[1] === 'follow') {
        // The repository's URL and a credentials file ({username, password}, as gitea-cli writes it): never the
        // password on the command line.
        if (!values.url || !values.credentials) {
          process.stderr.write(
            'use: flux follow --url URL --credentials FILE [--path ./] [--kustomization clusters] [--interval 1m] [--name x]\n',
          );
          return 2;
        }
        const c = JSON.parse(readFileSync(values.credentials, 'utf8'));
        await followGitRepository(info, {
          url: values.url,
          username: c.username,
          password: c.password,
          path: values.path,
          name: values.kustomization,
          interval: values.interval,
        });
        process.stderr.write(
          `${name}: Flux follows ${values.url} (flux-system/${
            values.kustomization ?? 'clusters'
          }, path ${values.path ?? './'})\n`,
        );
        return 0;
      }
      if (positionals[1] !== 'start') {
        process.stderr.write('use: flux start|stop|status|follow [--name x]\n');
        return 2;
      }
      process.stdout.write(
        `${JSON.stringify(await startFlux(info), null, 2)}\n`,
      );
      return 0;
    }
    case 'controllers': {
      const info = runningCluster(name);
      if (!info) {
        process.stderr.write(`${name}: not running\n`);
        return 1;
      }
      if (positionals[1] === 'stop') {
        await stopControllers(info);
        process.stderr.write(`${name}: real controllers stopped\n`);
        return 0;
      }
      if (positionals[1] !== 'start') {
        process.stderr.write(
          'use: controllers start|stop [--name x] [--only capi,capz,aso]\n',
        );
        return 2;
      }
      const running = await startControllers(info, {
        managers: values.only
          ? (values.only.split(',') as ManagerName[])
          : undefined,
      });
      process.stdout.write(`${JSON.stringify(running, null, 2)}\n`);
      return 0;
    }
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
      if (info) await stopControllers(info); // the real managers, if `controllers start` ran
      if (info) await stopFlux(info); // and Flux, if `flux start` ran
      if (info) await stopManagementCluster(info);
      process.stderr.write(
        info ? `${name}: stopped\n` : `${name}: not running\n`,
      );
      return 0;
    }
    case 'restart-apiserver':
    case 'stop-apiserver':
    case 'start-apiserver':
    case 'pause-apiserver':
    case 'resume-apiserver': {
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
      const expected: Record<string, ClusterInfo['apiserverDown']> = {
        'start-apiserver': 'stopped',
        'resume-apiserver': 'paused',
      };
      if (command in expected && info.apiserverDown !== expected[command]) {
        process.stderr.write(
          `${name}: the kube-apiserver is ${
            info.apiserverDown ?? 'running'
          }, not ${expected[command]}\n`,
        );
        return 1;
      }
      if (
        !(command in expected) &&
        command !== 'restart-apiserver' &&
        info.apiserverDown
      ) {
        process.stderr.write(
          `${name}: the kube-apiserver is already ${info.apiserverDown}\n`,
        );
        return 1;
      }
      const run = {
        'restart-apiserver': restartApiServer,
        'stop-apiserver': stopApiServer,
        'start-apiserver': startApiServer,
        'pause-apiserver': pauseApiServer,
        'resume-apiserver': resumeApiServer,
      }[command];
      // Restart means up again in a fresh process: a stopped one is only started (SIGKILL ends a paused one too).
      if (command === 'restart-apiserver' && info.apiserverDown === 'stopped')
        await startApiServer(info);
      else await run(info);
      return 0;
    }
    case 'port':
      process.stdout.write(`${await listenPort()}\n`);
      return 0;
    case 'status':
    case 'env': {
      const info = runningCluster(name);
      const ready =
        info &&
        (await apiGet(info, '/readyz').catch(() => ({ status: 0 }))).status ===
          200;
      if (!info || !ready) {
        process.stderr.write(
          info?.apiserverDown
            ? `${name}: kube-apiserver ${info.apiserverDown} on purpose; ${
                info.apiserverDown === 'stopped' ? 'start' : 'resume'
              }-apiserver brings it back\n`
            : `${name}: not running (state in ${stateDirFor(name)})\n`,
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
        `unknown command "${command}": use start, stop, status, env, restart-apiserver, stop-apiserver, start-apiserver, pause-apiserver, resume-apiserver, build, build-controllers, controllers, build-flux, flux or port\n`,
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
