/**
 * The managers' validating/mutating webhook configurations: those of config/webhook/manifests.yaml (CAPI, CAPZ) and of
 * the controller-gen webhook output (ASO), pointed at the managers' webhook ports on loopback, installed once the
 * servers are ready and removed when the managers stop (so that the cluster keeps accepting writes).
 */
import { join } from 'node:path';
import { apiRequest, type ClusterInfo } from '../api.ts';
import type { AsoCrds } from './managerCrds.ts';
import type { ManagerName } from './managers.ts';
import { readYamlDocs, type Doc } from './yamlDocs.ts';

const LABEL = 'capz-backstage/real-controllers';
const ADMISSION = '/apis/admissionregistration.k8s.io/v1';

/** A webhook configuration with every Service reference turned into `url: https://127.0.0.1:<port><path>`. */
function pointWebhooksAt(
  doc: Doc,
  name: string,
  port: number,
  caPem: string,
): Doc {
  return {
    apiVersion: doc.apiVersion,
    kind: doc.kind,
    metadata: { name, labels: { [LABEL]: 'true' } },
    webhooks: (doc.webhooks as Doc[]).map(w => ({
      ...w,
      clientConfig: {
        url: `https://127.0.0.1:${port}${w.clientConfig.service.path}`,
        caBundle: Buffer.from(caPem).toString('base64'),
      },
    })),
  };
}

/** The webhook configurations of the managers in `which`, each pointed at its manager's webhook port. */
export function admissionWebhookConfigs(opts: {
  which: ManagerName[];
  capiRoot: string;
  capzRoot: string;
  aso: AsoCrds;
  webhookPorts: Record<ManagerName, number>;
  caPem: string;
}): Doc[] {
  const { which, aso, webhookPorts, caPem } = opts;
  const configs: Doc[] = [];
  const fromManifests = (m: 'capi' | 'capz', root: string) => {
    for (const d of readYamlDocs(join(root, 'config/webhook/manifests.yaml'))) {
      configs.push(
        pointWebhooksAt(d, `${m}-${d.metadata.name}`, webhookPorts[m], caPem),
      );
    }
  };
  if (which.includes('capi')) fromManifests('capi', opts.capiRoot);
  if (which.includes('capz')) fromManifests('capz', opts.capzRoot);
  const asoResources = new Set(
    aso.crds.map(c => `${c.spec.group}/${c.spec.names.plural}`),
  );
  for (const d of which.includes('aso') ? aso.webhooks : []) {
    const doc = pointWebhooksAt(
      d,
      `azureserviceoperator-${d.metadata.name}`,
      webhookPorts.aso,
      caPem,
    );
    // Only the kinds whose CRDs are installed: ASO registers webhook handlers for ready CRDs only.
    doc.webhooks = (doc.webhooks as Doc[]).filter(w =>
      (w.rules as Doc[]).every(r =>
        (r.resources as string[]).every(res =>
          (r.apiGroups as string[]).some(g => asoResources.has(`${g}/${res}`)),
        ),
      ),
    );
    configs.push(doc);
  }
  return configs;
}

async function ok(r: Promise<{ status: number; body: string }>, what: string) {
  const res = await r;
  if (res.status >= 300)
    throw new Error(`${what}: HTTP ${res.status}: ${res.body.slice(0, 1500)}`);
  return JSON.parse(res.body) as Doc;
}

/** Create or replace (plain PUT with the live resourceVersion) a cluster-scoped object. */
async function upsert(
  info: ClusterInfo,
  collection: string,
  obj: Doc,
): Promise<void> {
  const created = await apiRequest(info, 'POST', collection, obj);
  if (created.status === 409) {
    const live = await ok(
      apiRequest(info, 'GET', `${collection}/${obj.metadata.name}`),
      `read ${obj.metadata.name}`,
    );
    await ok(
      apiRequest(info, 'PUT', `${collection}/${obj.metadata.name}`, {
        ...obj,
        metadata: {
          ...obj.metadata,
          resourceVersion: live.metadata.resourceVersion,
        },
      }),
      `replace ${obj.kind} ${obj.metadata.name}`,
    );
  } else if (created.status >= 300) {
    throw new Error(
      `create ${obj.kind} ${obj.metadata.name}: HTTP ${
        created.status
      }: ${created.body.slice(0, 1500)}`,
    );
  }
}

/** Creates or replaces each configuration; resolves with the number of webhooks installed. */
export async function installAdmissionWebhooks(
  info: ClusterInfo,
  configs: Doc[],
): Promise<number> {
  for (const c of configs) {
    await upsert(
      info,
      `${ADMISSION}/${
        c.kind === 'MutatingWebhookConfiguration'
          ? 'mutatingwebhookconfigurations'
          : 'validatingwebhookconfigurations'
      }`,
      c,
    );
  }
  return configs.reduce((n, c) => n + c.webhooks.length, 0);
}

/** Deletes every webhook configuration this package installed (by its label); errors are ignored. */
export async function removeAdmissionWebhooks(
  info: ClusterInfo,
): Promise<void> {
  for (const kind of [
    'mutatingwebhookconfigurations',
    'validatingwebhookconfigurations',
  ]) {
    await apiRequest(
      info,
      'DELETE',
      `${ADMISSION}/${kind}?labelSelector=${encodeURIComponent(
        `${LABEL}=true`,
      )}`,
    ).catch(() => undefined);
  }
}
