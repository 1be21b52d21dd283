/**
 * A lighter backend for the tests that start and SIGKILL a backend dozens of times (the crash tests): the CAPZ plugin
 * exactly as packages/backend installs it, with only what its jobs API needs beside it (auth and the guest sign-in, the
 * permission backend with the app's own policy, which the plugin asks once `permission.enabled` is on, and the events
 * bus its signals are published on). Started by backendProcess.ts (`entry: 'capz'`) as packages/backend is,
 * from packages/backend with the same config files, under the CommonJS half of the CLI's transform (testTransform.cjs).
 *
 * A start of packages/backend took 7 s of CPU on this machine; this one takes about 2.5 s. What it leaves out:
 *  - the other plugins (catalog, scaffolder, notifications, ...), their modules and their database migrations;
 *  - the root logger's config schema: Backstage's default root logger compiles every workspace package's config.d.ts
 *    with TypeScript and Ajv (1-2 s of CPU) to learn which config values are secret and redact them from the log;
 *    here every string under a key that names a secret is redacted instead (the tests' config holds tokens and keys);
 *  - the CLI transform's ESM hooks: a thread every ESM module's resolve and load round-trips to.
 * It loads the Kubernetes client (ESM), which the plugin imports once it runs, before it starts: its first import was a
 * third of the CPU of the start itself.
 *
 * With CAPZ_TEST_BACKEND_AWAIT_START=1 it loads its modules, prints a line and waits for one JSON line on stdin
 * (`{"env": {...}}`) before it starts: a test can load the next backend while the current one still runs.
 */
/* eslint-disable @backstage/no-undeclared-imports -- test-only: the backend's packages resolve from the repository's
   node_modules, as packages/backend resolves them; none of them is a dependency of the plugin */
import { createBackend } from '@backstage/backend-defaults';
import { WinstonLogger } from '@backstage/backend-defaults/rootLogger';
import {
  coreServices,
  createServiceFactory,
} from '@backstage/backend-plugin-api';
import authPlugin from '@backstage/plugin-auth-backend';
import guestProvider from '@backstage/plugin-auth-backend-module-guest-provider';
import eventsPlugin from '@backstage/plugin-events-backend';
import permissionPlugin from '@backstage/plugin-permission-backend';
import { flushCompileCache } from 'node:module';
import { loadClientNode } from '../cluster/kubeConfig';
import { capzPlugin } from '../plugin';
// The app's policy itself: the decisions these tests meet are the ones a user of packages/backend meets.
// eslint-disable-next-line @backstage/no-relative-monorepo-imports
import capzOwnerPolicy from '../../../../packages/backend/src/permissionPolicy';

/** Keys whose string values are redacted from the log (the tests' config: tokens, client secrets, keys). */
const SECRET_KEY = /secret|token|password|keys?$/i;

function secretsOf(value: unknown, secret = false, out: string[] = []) {
  if (typeof value === 'string') {
    if (secret) out.push(value);
  } else if (Array.isArray(value)) {
    for (const v of value) secretsOf(v, secret, out);
  } else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value))
      secretsOf(v, secret || SECRET_KEY.test(k), out);
  }
  return out;
}

const rootLogger = createServiceFactory({
  service: coreServices.rootLogger,
  deps: { config: coreServices.rootConfig },
  async factory({ config }) {
    const logger = WinstonLogger.create({
      meta: { service: 'backstage' },
      level: config.getOptionalString('backend.logger.level') ?? 'info',
    });
    logger.addRedactions(secretsOf(config.getOptional()));
    return logger;
  },
});

/** Resolves with the environment the test sends, once it sends it (one JSON line on stdin). */
function awaitStart(): Promise<Record<string, string>> {
  return new Promise((resolve, reject) => {
    let buffer = '';
    process.stdin.setEncoding('utf8');
    process.stdin.on('data', (chunk: string) => {
      buffer += chunk;
      const end = buffer.indexOf('\n');
      if (end < 0) return;
      // Told to start: the test's end of the pipe closing from here on is no reason to exit.
      process.stdin.removeAllListeners('end');
      process.stdin.destroy();
      try {
        resolve(JSON.parse(buffer.slice(0, end)).env ?? {});
      } catch (e) {
        reject(e);
      }
    });
    // The test went away before it said start: nothing to start for.
    process.stdin.on('end', () => process.exit(0));
  });
}

async function main() {
  // Loaded here, the Kubernetes client is in Node's module cache when the plugin imports it.
  await loadClientNode();
  // The modules are loaded: their compiled code goes to NODE_COMPILE_CACHE now, not at an exit that a SIGKILL skips.
  flushCompileCache();
  if (process.env.CAPZ_TEST_BACKEND_AWAIT_START === '1') {
    process.stdout.write('[testBackend] modules loaded, awaiting start\n');
    Object.assign(process.env, await awaitStart());
  }
  const backend = createBackend();
  backend.add(rootLogger);
  backend.add(authPlugin);
  backend.add(guestProvider);
  backend.add(permissionPlugin);
  backend.add(capzOwnerPolicy);
  // The bus the CAPZ plugin's signals are published on, as in packages/backend.
  backend.add(eventsPlugin);
  backend.add(capzPlugin);
  await backend.start();
}

main().catch(e => {
  process.stderr.write(`${(e as Error).stack ?? e}\n`);
  process.exit(1);
});
