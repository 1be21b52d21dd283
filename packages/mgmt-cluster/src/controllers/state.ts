/** What runs: the managers this package started on a cluster, kept in `<cluster state>/controllers.json`. */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ClusterInfo } from '../api.ts';
import type { ManagerName } from './managers.ts';

export interface ControllerPorts {
  webhook: number;
  health: number;
  metrics: number;
}

export interface RunningControllers {
  cluster: string;
  stateDir: string;
  certDir: string;
  binaries: string;
  asoCrdsDir: string;
  /** The extra environment the managers were started with (`StartControllersOptions.env`: proxy and CA bundle). */
  env?: Record<string, string>;
  managers: Record<
    ManagerName,
    { pid: number; log: string; ports: ControllerPorts; args: string[] }
  >;
}

export function controllersFile(stateDir: string) {
  return join(stateDir, 'controllers.json');
}

export function runningControllers(
  info: ClusterInfo,
): RunningControllers | undefined {
  const f = controllersFile(info.stateDir);
  if (!existsSync(f)) return undefined;
  return JSON.parse(readFileSync(f, 'utf8')) as RunningControllers;
}

export function saveRunningControllers(
  info: ClusterInfo,
  running: RunningControllers,
): void {
  writeFileSync(
    controllersFile(info.stateDir),
    JSON.stringify(running, null, 2),
    { mode: 0o600 },
  );
}
