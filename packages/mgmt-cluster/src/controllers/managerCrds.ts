/**
 * The managers' CRDs as a real install has them: CAPI's and CAPZ's from their module zips with the conversion webhooks
 * their config/crd/kustomization.yaml enables, ASO's generated ones (scripts/gen-aso-crds.sh) with ASO's labels and a
 * conversion webhook; every clientConfig is `url: https://127.0.0.1:<port>/convert` instead of an in-cluster Service.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Crd } from '../crds.ts';
import { ASO_CRD_PATTERN, type ManagerName, runScript } from './managers.ts';
import { readYamlDocs, type Doc } from './yamlDocs.ts';

export interface AsoCrds {
  dir: string;
  version: string;
  crds: Crd[];
  webhooks: Doc[];
}

/** The generated ASO CRDs (only the kinds of ASO_CRD_PATTERN) and webhook configurations. */
export async function loadAsoCrds(): Promise<AsoCrds> {
  const dir = await runScript('gen-aso-crds.sh');
  const version = readFileSync(join(dir, 'aso-version'), 'utf8').trim();
  const wanted = new Set(ASO_CRD_PATTERN);
  const crds: Crd[] = [];
  for (const f of readdirSync(join(dir, 'crd')).sort()) {
    for (const crd of readYamlDocs(join(dir, 'crd', f)) as Crd[]) {
      if (wanted.has(`${crd.spec.group}/${crd.spec.names.kind}`))
        crds.push(crd);
    }
  }
  const missing = [...wanted].filter(
    p => !crds.some(c => `${c.spec.group}/${c.spec.names.kind}` === p),
  );
  if (missing.length)
    throw new Error(`ASO CRDs not generated: ${missing.join(', ')}`);
  const webhooks = readYamlDocs(join(dir, 'webhook', 'manifests.yaml'));
  return { dir, version, crds, webhooks };
}

/** The CRD files a project's config/crd/kustomization.yaml lists, and the CRDs its patches give a conversion webhook. */
function kustomizedCrds(root: string): {
  crds: Crd[];
  conversion: Set<string>;
} {
  const k = readYamlDocs(join(root, 'config/crd/kustomization.yaml'))[0];
  const crds: Crd[] = [];
  for (const r of k.resources as string[]) {
    for (const d of readYamlDocs(join(root, 'config/crd', r)) as Crd[]) {
      if (d.kind === 'CustomResourceDefinition') crds.push(d);
    }
  }
  const conversion = new Set<string>();
  const labels = new Map<string, Record<string, string>>();
  for (const p of (k.patches ?? []) as Array<{ path?: string }>) {
    if (!p.path) continue;
    const patch = readYamlDocs(join(root, 'config/crd', p.path))[0] as Crd;
    if (patch.spec?.conversion?.strategy === 'Webhook')
      conversion.add(patch.metadata.name);
    if (patch.metadata.labels)
      labels.set(patch.metadata.name, patch.metadata.labels);
  }
  for (const crd of crds) {
    const l = labels.get(crd.metadata.name);
    if (l) crd.metadata.labels = { ...crd.metadata.labels, ...l };
  }
  return { crds, conversion };
}

function withConversionWebhook(crd: Crd, port: number, caPem: string): Crd {
  const out = structuredClone(crd);
  out.spec.conversion = {
    strategy: 'Webhook',
    webhook: {
      conversionReviewVersions: ['v1'],
      clientConfig: {
        url: `https://127.0.0.1:${port}/convert`,
        caBundle: Buffer.from(caPem).toString('base64'),
      },
    },
  };
  if (out.metadata.annotations) {
    delete out.metadata.annotations['cert-manager.io/inject-ca-from'];
  }
  return out;
}

/**
 * Every CRD the three managers need, their conversion webhooks pointed at `webhookPorts` (servers that start after
 * the CRDs are installed: nothing converts until objects exist).
 */
export function managerCrds(opts: {
  capiRoot: string;
  capzRoot: string;
  aso: AsoCrds;
  webhookPorts: Record<ManagerName, number>;
  caPem: string;
}): Crd[] {
  const { aso, webhookPorts, caPem } = opts;
  const crds: Crd[] = [];
  for (const [m, root] of [
    ['capi', opts.capiRoot],
    ['capz', opts.capzRoot],
  ] as const) {
    const k = kustomizedCrds(root);
    for (const crd of k.crds) {
      crds.push(
        k.conversion.has(crd.metadata.name)
          ? withConversionWebhook(crd, webhookPorts[m], caPem)
          : crd,
      );
    }
  }
  // CAPI's kubeadm bootstrap/control-plane CRDs: CAPZ's AzureMachinePool controller watches KubeadmConfig.
  for (const f of [
    'bootstrap/kubeadm/config/crd/bases/bootstrap.cluster.x-k8s.io_kubeadmconfigs.yaml',
    'bootstrap/kubeadm/config/crd/bases/bootstrap.cluster.x-k8s.io_kubeadmconfigtemplates.yaml',
  ]) {
    for (const crd of readYamlDocs(join(opts.capiRoot, f)) as Crd[]) {
      const c = structuredClone(crd);
      // Their conversion webhook lives in the kubeadm bootstrap manager, which does not run here.
      c.spec.conversion = { strategy: 'None' };
      crds.push(c);
    }
  }
  for (const crd of aso.crds) {
    const c = withConversionWebhook(crd, webhookPorts.aso, caPem);
    c.metadata.labels = {
      ...c.metadata.labels,
      'app.kubernetes.io/name': 'azure-service-operator',
      'app.kubernetes.io/version': aso.version,
    };
    crds.push(c);
  }
  return crds;
}
