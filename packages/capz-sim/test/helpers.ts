import { after, before } from 'node:test';
import {
  testCluster,
  testNamespace,
  until as untilShared,
} from '@internal/mgmt-cluster/testing';
import { AzureWorld, type AzureWorldOptions } from '../src/azure/model.ts';
import { K, type KindName, apiVersionOf } from '../src/runtime/kinds.ts';
import { Kube } from '../src/runtime/kube.ts';
import { credentialSecretObject } from '../src/scenarios/seed.ts';
import type { Obj } from '../src/runtime/types.ts';
import { Simulator } from '../src/simulator.ts';

export const SUB = '11111111-2222-3333-4444-555555555555';
const namespaces = new Set<string>();

/**
 * One simulator per test file, simulating only the namespaces this file creates: started before the file's tests,
 * stopped after them. The returned object is filled in by then.
 */
export function simulatorForFile(
  operationMs = 30,
  worldOptions: Pick<AzureWorldOptions, 'kubeconfigFor'> = {},
): {
  sim: Simulator;
  world: AzureWorld;
  kube: Kube;
} {
  const env = {} as { sim: Simulator; world: AzureWorld; kube: Kube };
  before(async () => {
    env.world = new AzureWorld({
      operationMs,
      subscriptions: [SUB],
      ...worldOptions,
    });
    env.sim = await Simulator.start({
      cluster: testCluster(),
      world: env.world,
      namespaces: ns => namespaces.has(ns),
      log: process.env.CAPZ_SIM_LOG ? undefined : () => {},
    });
    env.kube = new Kube(testCluster());
  });
  after(() => env.sim.stop());
  return env;
}

/**
 * A namespace of the test's own, simulated by this file's simulator. Cleanup also removes the finalizers of what the
 * test left in it: namespace deletion removes the credential Secret as early as anything else, after which ASO (like
 * the real one) can never finish deleting a managed object, and the namespace would hang in Terminating.
 */
export async function namespaceFor(
  t: { after(fn: () => unknown): void },
  prefix: string,
): Promise<string> {
  const ns = await testNamespace(t, prefix);
  namespaces.add(ns);
  t.after(async () => {
    // Order-independent: delete the namespace, then clear finalizers until it is gone (controllers may re-add
    // them on objects that are not being deleted yet).
    const kube = new Kube(testCluster());
    await kube.delete(K.Namespace, undefined, ns);
    const deadline = Date.now() + 30_000;
    while (
      (await kube.get(K.Namespace, undefined, ns)) &&
      Date.now() < deadline
    ) {
      for (const kind of Object.values(K)) {
        if (!kind.namespaced || kind.kind === 'Event' || kind.kind === 'Secret')
          continue;
        const { items } = await kube
          .list(kind, ns)
          .catch(() => ({ items: [] as Obj[] }));
        for (const o of items) {
          if (o.metadata.finalizers?.length)
            await kube
              .mergePatch(kind, ns, o.metadata.name, {
                metadata: { finalizers: null },
              })
              .catch(() => undefined);
        }
      }
      await new Promise(r => setTimeout(r, 100)); // the namespace controller finishes asynchronously
    }
  });
  return ns;
}

export const credentialSecret = (
  namespace: string,
  name: string,
  subscription = SUB,
): Obj => credentialSecretObject(namespace, name, subscription);

export const obj = (
  kind: KindName,
  namespace: string,
  name: string,
  spec: unknown,
  metadata: Partial<Obj['metadata']> = {},
): Obj => ({
  apiVersion: apiVersionOf(K[kind]),
  kind: K[kind].kind,
  metadata: { name, namespace, ...metadata },
  spec,
});

/**
 * The shared condition wait. Its deadline only detects a hang: the simulated operations these tests wait
 * for take up to ~20 s per test on a loaded machine, so 60 s (an explicit one is 90 s or more).
 */
export const until = <T>(
  what: string,
  check: () => Promise<T | undefined | false>,
  timeoutMs = 60_000,
) => untilShared<T>(what, check, timeoutMs);

export const ready = (o: Obj | undefined) =>
  o?.status?.conditions?.find((c: { type: string }) => c.type === 'Ready')
    ?.status === 'True'
    ? o
    : undefined;
export const condition = (o: Obj | undefined, type: string) =>
  o?.status?.conditions?.find((c: { type: string }) => c.type === type);
