import { after, before } from 'node:test';
import { testCluster, testNamespace } from '@internal/mgmt-cluster/testing';
import { AzureWorld } from '../src/azure/model.ts';
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
export function simulatorForFile(operationMs = 30): { sim: Simulator; world: AzureWorld; kube: Kube } {
  const env = {} as { sim: Simulator; world: AzureWorld; kube: Kube };
  before(async () => {
    env.world = new AzureWorld({ operationMs, subscriptions: [SUB] });
    env.sim = await Simulator.start({ cluster: testCluster(), world: env.world, namespaces: ns => namespaces.has(ns), log: process.env.CAPZ_SIM_LOG ? undefined : () => {} });
    env.kube = new Kube(testCluster());
  });
  after(() => env.sim.stop());
  return env;
}

export async function namespaceFor(t: { after(fn: () => unknown): void }, prefix: string): Promise<string> {
  const ns = await testNamespace(t, prefix);
  namespaces.add(ns);
  return ns;
}

export const credentialSecret = (namespace: string, name: string, subscription = SUB): Obj =>
  credentialSecretObject(namespace, name, subscription);

export const obj = (kind: KindName, namespace: string, name: string, spec: unknown, metadata: Partial<Obj['metadata']> = {}): Obj => ({
  apiVersion: apiVersionOf(K[kind]),
  kind: K[kind].kind,
  metadata: { name, namespace, ...metadata },
  spec,
});

/** Polls the real API server until `check` returns a value; fails naming what it waited for and the last state. */
export async function until<T>(what: string, check: () => Promise<T | undefined | false>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (let delay = 25; ; delay = Math.min(delay * 2, 250)) {
    try {
      const v = await check();
      if (v !== undefined && v !== false) return v as T;
    } catch (e) {
      last = e;
    }
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last ? `: ${(last as Error).message}` : ''}`);
    await new Promise(r => setTimeout(r, delay));
  }
}

export const ready = (o: Obj | undefined) =>
  o?.status?.conditions?.find((c: { type: string }) => c.type === 'Ready')?.status === 'True' ? o : undefined;
export const condition = (o: Obj | undefined, type: string) =>
  o?.status?.conditions?.find((c: { type: string }) => c.type === type);
