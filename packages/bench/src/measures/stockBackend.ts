/**
 * The stock Kubernetes backend as the stock measures start it: its config and catalog entity written, a port and a
 * token of its own, an inspector port when a heap snapshot is asked, and its catalog ready with the entity.
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { listenPort, type ClusterInfo } from '@internal/mgmt-cluster';
import {
  benchDir,
  startStockBackend,
  stockCatalogReady,
  stopBackend,
  writeStockConfig,
  writeStockEntity,
  type RunningBackend,
} from '../backends.ts';
import { inspectOption } from '../probes.ts';
import type { SeededCluster } from '../seed.ts';
import { log } from '../util.ts';

export async function startStockForMeasure(o: {
  info: ClusterInfo;
  target: SeededCluster;
  localDir: string;
  /** Names its config (`app-config.<name>.yaml`) and its log. */
  name: 'stock' | 'stock-empty';
  /** false: no cluster in its config at all (what the plugins cost without data). */
  withCluster: boolean;
  snapshot: boolean;
}): Promise<{ backend: RunningBackend; inspectPort: number }> {
  const port = await listenPort();
  const token = randomBytes(24).toString('hex');
  const configFile = join(o.localDir, `app-config.${o.name}.yaml`);
  const logFile = join(
    o.localDir,
    o.name === 'stock' ? 'stock-backend.log' : 'stock-backend-empty.log',
  );
  writeStockConfig(
    configFile,
    o.info,
    port,
    token,
    writeStockEntity(o.target, o.localDir),
    o.withCluster,
  );
  log(`starting the stock Kubernetes backend on port ${port}; log: ${logFile}`);
  const inspectPort = await listenPort();
  const backend = startStockBackend(
    benchDir,
    configFile,
    port,
    token,
    logFile,
    o.snapshot ? { NODE_OPTIONS: inspectOption(inspectPort) } : {},
  );
  try {
    await stockCatalogReady(backend, o.target);
  } catch (e) {
    await stopBackend(backend);
    throw e;
  }
  return { backend, inspectPort };
}
