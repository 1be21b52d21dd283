import { apiGet, apiRequest, type ClusterInfo } from './api.ts';
import type { Crd } from './crds.ts';
import { log } from './log.ts';

const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';

async function ok(
  res: Promise<{ status: number; body: string }>,
  what: string,
) {
  const r = await res;
  if (r.status >= 300)
    throw new Error(`${what}: HTTP ${r.status}: ${r.body.slice(0, 2000)}`);
  return JSON.parse(r.body) as Record<string, any>;
}

/** How long CRDs may take to be established before installCrds gives up. */
const ESTABLISHED_WITHIN_MS = 300_000;

/**
 * Creates each CRD, or replaces it when it exists (a plain create/replace, never client-side apply: the ASO CRDs
 * would overflow the last-applied annotation), then waits until every CRD is Established and its versions are in
 * discovery, so that clients can use them at once.
 */
export async function installCrds(
  info: ClusterInfo,
  crds: Crd[],
): Promise<void> {
  const started = Date.now();
  for (const crd of crds) {
    const name = crd.metadata.name;
    const created = await apiRequest(info, 'POST', CRDS, crd);
    if (created.status === 409) {
      const current = await ok(
        apiGet(info, `${CRDS}/${name}`),
        `read CRD ${name}`,
      );
      await ok(
        apiRequest(info, 'PUT', `${CRDS}/${name}`, {
          ...crd,
          metadata: {
            ...crd.metadata,
            resourceVersion: current.metadata.resourceVersion,
          },
        }),
        `replace CRD ${name}`,
      );
    } else if (created.status >= 300) {
      throw new Error(
        `create CRD ${name}: HTTP ${created.status}: ${created.body.slice(
          0,
          2000,
        )}`,
      );
    }
  }
  await waitForCrds(info, crds);
  log(
    `${info.name}: ${crds.length} CRDs installed and established in ${
      Date.now() - started
    } ms`,
  );
}

/** Waits until every CRD is Established and its served versions are in discovery. */
export async function waitForCrds(
  info: ClusterInfo,
  crds: Crd[],
): Promise<void> {
  // A hang detector, not a goal: establishing ~100 CRDs took up to ~27 s beside the test lanes under stress-ng.
  const deadline = Date.now() + ESTABLISHED_WITHIN_MS;
  const pending = new Set(crds);
  for (let delay = 50; ; delay = Math.min(delay * 2, 500)) {
    for (const crd of [...pending]) {
      const live = await ok(
        apiGet(info, `${CRDS}/${crd.metadata.name}`),
        `read CRD ${crd.metadata.name}`,
      );
      const established = (live.status?.conditions ?? []).some(
        (c: { type: string; status: string }) =>
          c.type === 'Established' && c.status === 'True',
      );
      if (!established) continue;
      const inDiscovery = await Promise.all(
        crd.spec.versions
          .filter(v => v.served)
          .map(async v => {
            const res = await apiGet(info, `/apis/${crd.spec.group}/${v.name}`);
            return (
              res.status === 200 &&
              (
                JSON.parse(res.body) as { resources: Array<{ name: string }> }
              ).resources.some(r => r.name === crd.spec.names.plural)
            );
          }),
      );
      if (inDiscovery.every(Boolean)) pending.delete(crd);
    }
    if (!pending.size) break;
    if (Date.now() > deadline) {
      throw new Error(
        `CRDs not established after ${ESTABLISHED_WITHIN_MS / 1000} s: ${[
          ...pending,
        ]
          .map(c => c.metadata.name)
          .join(', ')}`,
      );
    }
    await new Promise(r => setTimeout(r, delay));
  }
}
