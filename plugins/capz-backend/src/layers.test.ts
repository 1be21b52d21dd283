/**
 * The layer rule of .eslintrc.js (docs/architecture.md#backend-layers), run through ESLint's Node API on planted
 * sources: an import that runs up a layer or across to a peer fails the lint stage, one that runs down does not.
 */
// eslint-disable-next-line @backstage/no-undeclared-imports
import { ESLint } from 'eslint';
import { join } from 'node:path';

const plugin = join(__dirname, '..');
// One ESLint for the file: its first lint loads the parser and plugins (the test took 23 s under stress-ng with one
// per test). The timeout only detects a hang.
const eslint = new ESLint({ cwd: plugin });
jest.setTimeout(120_000);

async function layerErrors(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, {
    filePath: join(plugin, 'src', file),
  });
  return result.messages
    .filter(m => m.ruleId === 'import/no-restricted-paths')
    .map(m => m.message);
}

describe('the backend layers lint rule', () => {
  it('fails an edge that imports a service (cluster/ → day2/)', async () => {
    const errors = await layerErrors(
      'cluster/planted.ts',
      "import type { Day2Cluster } from '../day2/Day2Service';\nexport type Planted = Day2Cluster;\n",
    );
    expect(errors).toEqual([
      expect.stringContaining('cluster/ is in the Kubernetes edge layer'),
    ]);
  });

  it('fails the ARM edge importing the Kubernetes edge (azure/ → cluster/)', async () => {
    const errors = await layerErrors(
      'azure/planted.ts',
      "import type { WatchCache } from '../cluster/WatchCache';\nexport type Planted = WatchCache;\n",
    );
    expect(errors).toEqual([
      expect.stringContaining('azure/ is in the ARM and Git edges layer'),
    ]);
  });

  it('fails the Git edge importing its peer the ARM edge, or a service (git/ → azure/, day2/)', async () => {
    const errors = await layerErrors(
      'git/planted.ts',
      [
        "import type { AksDiscovery } from '../azure/AksDiscovery';",
        "import type { GitChange } from '../day2/gitChange';",
        'export type Planted = [AksDiscovery, GitChange];',
        '',
      ].join('\n'),
    );
    expect(errors).toEqual([
      expect.stringContaining('git/ is in the ARM and Git edges layer'),
      expect.stringContaining('git/ is in the ARM and Git edges layer'),
    ]);
  });

  it('fails a service importing a router or a peer service', async () => {
    const errors = await layerErrors(
      'live/planted.ts',
      [
        "import type { RouterOptions } from '../routers/router';",
        "import type { ClusterViews } from '../views/clusterViews';",
        'export type Planted = [RouterOptions, ClusterViews];',
        '',
      ].join('\n'),
    );
    expect(errors).toHaveLength(2);
  });

  it('passes imports that run down the layers', async () => {
    const errors = await layerErrors(
      'day2/planted.ts',
      [
        "import type { WatchCache } from '../cluster/WatchCache';",
        "import type { AksDiscovery } from '../azure/AksDiscovery';",
        "import type { ManagementClusterConfig } from '../config/managementClusters';",
        "import type { CapzClusterResource } from '../permissions/rules';",
        "import type { GitOpsRepository } from '../git/GitOpsRepository';",
        'export type Planted = [WatchCache, AksDiscovery, ManagementClusterConfig, CapzClusterResource, GitOpsRepository];',
        '',
      ].join('\n'),
    );
    expect(errors).toEqual([]);
  });
});
