import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { log } from './log.ts';
import { cacheDir, writeCacheEntry } from './paths.ts';

/** A CustomResourceDefinition as plain JSON. */
export interface Crd {
  apiVersion: string;
  kind: 'CustomResourceDefinition';
  metadata: {
    name: string;
    annotations?: Record<string, string>;
    labels?: Record<string, string>;
  };
  spec: {
    group: string;
    names: { kind: string; plural: string };
    versions: Array<{
      name: string;
      served: boolean;
      storage: boolean;
      [k: string]: unknown;
    }>;
    conversion?: { strategy: string; [k: string]: unknown };
    [k: string]: unknown;
  };
}

interface CrdSource {
  module: string;
  version: string;
  files: string[];
  /** Keep only these CRDs of a multi-document file. */
  only?: string[];
  /** CRD name -> the version to store (the one the plugins and fixtures write). */
  storage?: Record<string, string>;
  /**
   * Merge the labels of `config/crd/patches/capicontract_in_<plural>.yaml` (the CAPI contract labels kustomize adds
   * in a real install; CAPI resolves v1beta2 references' versions from them).
   */
  contractLabels?: boolean;
  /** Remove `description` fields from the schema (CAPZ v1.24.2 does the same to keep the ASO CRDs small). */
  stripDescriptions?: boolean;
}

const capzBases = (names: string[]) =>
  names.map(n => `config/crd/bases/infrastructure.cluster.x-k8s.io_${n}.yaml`);

/**
 * Where the CRDs come from. Pinned; see the package README for why these versions.
 * - CAPI v1.13.3: the CAPI version CAPZ v1.26.0 requires. v1beta2 is stored, v1beta1 still served.
 * - CAPZ v1.26.0: the newest CAPZ the module proxy serves here. AzureASOManaged* (v1beta1 stored, v1alpha1 served)
 *   and the legacy AzureManaged* (v1beta1), with their templates.
 * - ASO: not in ASO's module. CAPZ <= v1.24 vendors them as config/aso/crds.yaml; v1.24.x is not served by the
 *   proxy here, so v1.23.1 (ASO v2.13.0) is used. It serves containerservice v1api20240901, the version CAPZ's
 *   own aks-aso templates embed.
 */
export const CRD_SOURCES: CrdSource[] = [
  {
    module: 'sigs.k8s.io/cluster-api',
    version: 'v1.13.3',
    files: [
      'config/crd/bases/cluster.x-k8s.io_clusters.yaml',
      'config/crd/bases/cluster.x-k8s.io_machinepools.yaml',
    ],
  },
  {
    module: 'sigs.k8s.io/cluster-api-provider-azure',
    version: 'v1.26.0',
    files: capzBases([
      'azureasomanagedclusters',
      'azureasomanagedclustertemplates',
      'azureasomanagedcontrolplanes',
      'azureasomanagedcontrolplanetemplates',
      'azureasomanagedmachinepools',
      'azureasomanagedmachinepooltemplates',
      'azuremanagedclusters',
      'azuremanagedclustertemplates',
      'azuremanagedcontrolplanes',
      'azuremanagedcontrolplanetemplates',
      'azuremanagedmachinepools',
      'azuremanagedmachinepooltemplates',
    ]),
    contractLabels: true,
  },
  {
    module: 'sigs.k8s.io/cluster-api-provider-azure',
    version: 'v1.23.1',
    files: ['config/aso/crds.yaml'],
    only: [
      'resourcegroups.resources.azure.com',
      'managedclusters.containerservice.azure.com',
      'managedclustersagentpools.containerservice.azure.com',
      // The legacy AzureManagedControlPlane's network (CAPZ v1.26.0 azure/services/virtualnetworks/spec.go and
      // azure/services/subnets/spec.go import network v1api20201101): docs/real-controllers.md finding 10.
      'virtualnetworks.network.azure.com',
      'virtualnetworkssubnets.network.azure.com',
    ],
    storage: {
      'resourcegroups.resources.azure.com': 'v1api20200601',
      'managedclusters.containerservice.azure.com': 'v1api20240901',
      'managedclustersagentpools.containerservice.azure.com': 'v1api20240901',
      'virtualnetworks.network.azure.com': 'v1api20201101',
      'virtualnetworkssubnets.network.azure.com': 'v1api20201101',
    },
    stripDescriptions: true,
  },
];

function stripDescriptions(node: unknown): void {
  if (Array.isArray(node)) node.forEach(stripDescriptions);
  else if (node && typeof node === 'object') {
    const o = node as Record<string, unknown>;
    delete o.description;
    Object.values(o).forEach(stripDescriptions);
  }
}

/**
 * Makes a CRD installable without the providers' webhooks: conversion `None` (no ASO/CAPI webhook server runs
 * here), the cert-manager CA-injection annotation removed, and, where asked, a chosen storage version. With
 * conversion None the API server relabels objects between versions without changing fields, so objects must be
 * written at a version whose schema matches (the storage version, or an identical one such as v1alpha1 of the
 * AzureASOManaged* kinds).
 */
export function patchCrd(
  crd: Crd,
  source: Pick<CrdSource, 'storage' | 'stripDescriptions'>,
): Crd {
  const out = structuredClone(crd);
  out.spec.conversion = { strategy: 'None' };
  if (out.metadata.annotations) {
    delete out.metadata.annotations['cert-manager.io/inject-ca-from'];
    if (!Object.keys(out.metadata.annotations).length)
      delete out.metadata.annotations;
  }
  const storage = source.storage?.[out.metadata.name];
  if (storage) {
    if (!out.spec.versions.some(v => v.name === storage)) {
      throw new Error(`${out.metadata.name} does not serve ${storage}`);
    }
    for (const v of out.spec.versions) v.storage = v.name === storage;
  }
  if (source.stripDescriptions) stripDescriptions(out.spec.versions);
  if (out.spec.versions.filter(v => v.storage).length !== 1) {
    throw new Error(
      `${out.metadata.name} must have exactly one storage version`,
    );
  }
  return out;
}

function moduleDir(module: string, version: string): string {
  const out = execFileSync(
    'go',
    ['mod', 'download', '-json', `${module}@${version}`],
    {
      cwd: tmpdir(),
      encoding: 'utf8',
      env: { ...process.env, GOFLAGS: '-mod=mod' },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const info = JSON.parse(out) as { Dir?: string; Error?: string };
  if (!info.Dir)
    throw new Error(
      `go mod download ${module}@${version}: ${info.Error ?? 'no Dir'}`,
    );
  return info.Dir;
}

/**
 * The patched CRDs, read from the Go module cache (downloaded through the Go module proxy on first use) and cached
 * as JSON under the machine cache, keyed by the pins above.
 */
export function loadCrds(): Crd[] {
  const key = createHash('sha256')
    .update(JSON.stringify(CRD_SOURCES))
    .update(patchCrd.toString())
    .digest('hex')
    .slice(0, 16);
  const file = join(cacheDir(), 'crds', `${key}.json`);
  if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8')) as Crd[];

  const crds: Crd[] = [];
  for (const source of CRD_SOURCES) {
    log(`reading CRDs from ${source.module}@${source.version}`);
    const root = moduleDir(source.module, source.version);
    for (const f of source.files) {
      for (const doc of parseAllDocuments(
        readFileSync(join(root, f), 'utf8'),
      )) {
        const crd = doc.toJS() as Crd | null;
        if (!crd || crd.kind !== 'CustomResourceDefinition') continue;
        if (source.only && !source.only.includes(crd.metadata.name)) continue;
        if (source.contractLabels) {
          const patch = join(
            root,
            'config/crd/patches',
            `capicontract_in_${crd.spec.names.plural}.yaml`,
          );
          if (!existsSync(patch))
            throw new Error(
              `no CAPI contract patch for ${crd.metadata.name} in ${source.module}`,
            );
          const labels =
            (parseAllDocuments(readFileSync(patch, 'utf8'))[0].toJS() as Crd)
              .metadata.labels ?? {};
          crd.metadata.labels = { ...crd.metadata.labels, ...labels };
        }
        crds.push(patchCrd(crd, source));
      }
    }
    for (const name of source.only ?? []) {
      if (!crds.some(c => c.metadata.name === name))
        throw new Error(
          `${name} not found in ${source.module}@${source.version}`,
        );
    }
  }
  writeCacheEntry(file, JSON.stringify(crds));
  return crds;
}
