/**
 * The real Cluster API, CAPZ and ASO managers: which they are, the module versions they are built from, building them
 * (or finding them cached) and where their Go module sources are.
 */
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runBuildScript } from '../buildScript.ts';
import { packageDir } from '../paths.ts';

export type ManagerName = 'capi' | 'capz' | 'aso';
export const MANAGERS: ManagerName[] = ['capi', 'capz', 'aso'];

const BINARY: Record<ManagerName, string> = {
  capi: 'capi-manager',
  capz: 'capz-manager',
  aso: 'aso-controller',
};

/** The module versions, as pinned in go/managers/go.mod (CAPZ v1.26.0's own go.mod). */
export const CONTROLLER_MODULES = {
  capi: { module: 'sigs.k8s.io/cluster-api', version: 'v1.13.3' },
  capz: {
    module: 'sigs.k8s.io/cluster-api-provider-azure',
    version: 'v1.26.0',
  },
  aso: {
    module: 'github.com/Azure/azure-service-operator/v2',
    version: 'v2.18.0',
  },
} as const;

/**
 * The ASO kinds CAPZ v1.26.0 lets ASO manage: the `--crd-pattern` of CAPZ's config/aso/kustomization.yaml
 * (without ADDITIONAL_ASO_CRDS). ASO is run with `--crd-management=none`, so this is also the set of ASO CRDs
 * installed here: in that mode ASO watches exactly the CRDs labelled app.kubernetes.io/name=azure-service-operator.
 */
export const ASO_CRD_PATTERN = [
  'containerservice.azure.com/FleetsMember',
  'containerservice.azure.com/MaintenanceConfiguration',
  'containerservice.azure.com/ManagedCluster',
  'containerservice.azure.com/ManagedClustersAgentPool',
  'kubernetesconfiguration.azure.com/Extension',
  'network.azure.com/BastionHost',
  'network.azure.com/NatGateway',
  'network.azure.com/PrivateEndpoint',
  'network.azure.com/VirtualNetwork',
  'network.azure.com/VirtualNetworksSubnet',
  'resources.azure.com/ResourceGroup',
];

export interface ControllerBinaries {
  dir: string;
  capi: string;
  capz: string;
  aso: string;
}

/** Runs one of the package's build scripts (scripts/<script>) and resolves with the directory it printed. */
export function runScript(
  script: string,
  args: string[] = [],
): Promise<string> {
  return runBuildScript(join(packageDir, 'scripts', script), args);
}

/** Builds (or finds cached) the three managers; one at a time, nice'd (scripts/build-controllers.sh). */
export async function ensureControllerBinaries(
  which: ManagerName[] = MANAGERS,
): Promise<ControllerBinaries> {
  const dir = await runScript('build-controllers.sh', which);
  return {
    dir,
    capi: join(dir, BINARY.capi),
    capz: join(dir, BINARY.capz),
    aso: join(dir, BINARY.aso),
  };
}

/** The source directory of a manager's module in the Go module cache (downloaded when missing). */
export function moduleDir(manager: 'capi' | 'capz'): string {
  const { module, version } = CONTROLLER_MODULES[manager];
  const info = JSON.parse(
    execFileSync('go', ['mod', 'download', '-json', `${module}@${version}`], {
      cwd: tmpdir(),
      encoding: 'utf8',
      env: { ...process.env, GOFLAGS: '-mod=mod' },
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  ) as { Dir?: string; Error?: string };
  if (!info.Dir)
    throw new Error(
      `go mod download ${module}@${version}: ${info.Error ?? 'no Dir'}`,
    );
  return info.Dir;
}
