/**
 * CRDs planted in a new cluster's etcd instead of created through its API server.
 *
 * Creating the 19 CRDs costs a new API server ~8 CPU-seconds and 5-20 s (each CRD is validated, its CEL rules
 * compiled, its names accepted, then established, each step a write that every CRD controller reacts to), and the
 * test command starts ~40 clusters. An API server that finds the same CRDs already in etcd at its start only loads
 * them (~2.7 CPU-seconds; the measures and sources: ../README.md, "The CRD seed"). So the first cluster started with a given
 * set of CRDs and binaries installs them as before and then keeps their etcd records (the API server's own encoding,
 * read back from etcd) in the machine cache; each later cluster with an empty data directory gets those records
 * written into its etcd before its API server starts, and only waits until they are established and in discovery.
 *
 * Only the CRD records are kept: everything else in etcd (namespaces, RBAC, leases, the authentication ConfigMap
 * with the cluster's own CA) is still made by each API server for itself. `CAPZ_CRD_SEED=off` turns it off.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { KubeBinaries } from './binaries.ts';
import type { Crd } from './crds.ts';
import { cacheDir, writeCacheEntry } from './paths.ts';

/** Where the API server keeps CRDs in etcd (its default --etcd-prefix, /registry). */
const CRD_PREFIX = '/registry/apiextensions.k8s.io/customresourcedefinitions/';

/** One etcd record as etcd's JSON gateway gives it: key and value base64-encoded. */
interface SeedRecord {
  key: string;
  value: string;
}

interface SeedFile {
  crds: string[];
  records: SeedRecord[];
}

export interface CrdSeed {
  /** The cache file for these CRDs and binaries. */
  file: string;
  /** Its records when the file exists (a later cluster), else undefined (the first: it writes the file). */
  records?: SeedRecord[];
}

const b64 = (s: string) => Buffer.from(s).toString('base64');

/** The seed for these CRDs on these binaries, read from the cache when there is one; undefined when turned off. */
export function crdSeedFor(
  bins: Pick<KubeBinaries, 'etcd' | 'kubeApiserver'>,
  crds: Crd[],
): CrdSeed | undefined {
  if (process.env.CAPZ_CRD_SEED === 'off' || !crds.length) return undefined;
  const key = createHash('sha256')
    .update('crd-seed-v1\0')
    .update(`${bins.etcd}\0${bins.kubeApiserver}\0`)
    .update(JSON.stringify(crds))
    .digest('hex')
    .slice(0, 16);
  const file = join(cacheDir(), 'crd-seeds', `${key}.json`);
  if (!existsSync(file)) return { file };
  let seed: SeedFile;
  try {
    seed = JSON.parse(readFileSync(file, 'utf8')) as SeedFile;
  } catch {
    return { file }; // unreadable (a disk that filled up while it was written): made again
  }
  const names = crds.map(c => c.metadata.name).sort();
  // A file that does not hold exactly these CRDs (written by hand, or cut short) is not used: install as before.
  if (
    !Array.isArray(seed.records) ||
    !Array.isArray(seed.crds) ||
    seed.records.length !== names.length ||
    JSON.stringify([...seed.crds].sort()) !== JSON.stringify(names)
  )
    return { file };
  return { file, records: seed.records };
}

async function etcdPost(etcdUrl: string, path: string, body: unknown) {
  const res = await fetch(`${etcdUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok)
    throw new Error(`etcd ${path}: HTTP ${res.status}: ${text.slice(0, 500)}`);
  return JSON.parse(text) as Record<string, any>;
}

/** Writes the seed's records into a new cluster's etcd (answering already) in one transaction. */
export async function plantCrdSeed(
  etcdUrl: string,
  records: SeedRecord[],
): Promise<void> {
  await etcdPost(etcdUrl, '/v3/kv/txn', {
    success: records.map(r => ({
      request_put: { key: r.key, value: r.value },
    })),
  });
}

/**
 * Keeps the CRD records of a cluster that has just installed and established `crds` (and nothing else has touched
 * them yet) as the seed file. Concurrent writers write the same records.
 */
export async function saveCrdSeed(
  etcdUrl: string,
  seed: CrdSeed,
  crds: Crd[],
): Promise<void> {
  const end = `${CRD_PREFIX.slice(0, -1)}0`; // the prefix with its last character ('/') incremented
  const res = await etcdPost(etcdUrl, '/v3/kv/range', {
    key: b64(CRD_PREFIX),
    range_end: b64(end),
  });
  const records: SeedRecord[] = (res.kvs ?? []).map(
    (kv: { key: string; value: string }) => ({ key: kv.key, value: kv.value }),
  );
  const names = records.map(r =>
    Buffer.from(r.key, 'base64').toString().slice(CRD_PREFIX.length),
  );
  const wanted = new Set(crds.map(c => c.metadata.name));
  // Only an exact match is kept (a cluster that had other CRDs before, e.g. a reused state folder, is not a seed).
  if (names.length !== wanted.size || !names.every(n => wanted.has(n))) return;
  writeCacheEntry(
    seed.file,
    JSON.stringify({ crds: names, records } satisfies SeedFile),
  );
}
