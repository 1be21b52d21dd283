import { rmSync } from 'node:fs';
import type { ClusterInfo } from '../api.ts';
import { stopProcessGroups } from '../processes.ts';
import { removeAdmissionWebhooks } from './admissionWebhooks.ts';
import { controllersFile, runningControllers } from './state.ts';

/**
 * Stops the managers this package started (stopProcessGroups: SIGTERM to each process group, SIGKILL after 10 s) and
 * removes the webhook configurations that point at them, so that the cluster keeps accepting writes.
 */
export async function stopControllers(info: ClusterInfo): Promise<void> {
  const running = runningControllers(info);
  if (!running) return;
  await stopProcessGroups(Object.values(running.managers).map(m => m.pid));
  await removeAdmissionWebhooks(info);
  rmSync(controllersFile(info.stateDir), { force: true });
}
