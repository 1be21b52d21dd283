import type { ResponseError } from '@backstage/errors';
import type {
  AksAsoPoolParams,
  CreateClusterRequest,
  CreateClusterResponse,
} from '@capz-backstage/plugin-capz-common';
import type { CapzApi } from '../api/CapzApi';
import { parentValue, ParentOptions } from './formData';

/**
 * The New AKS cluster form's last check: the capz backend's create dry run (`POST /clusters` with `dryRun: true`:
 * every check of the create, and the API server validating every object with dryRun=All; nothing written), run on
 * the form's values before Review. One module for the field that shows it and the validation that gates Review.
 */

/** How the check ended, in the form's words. */
export type CreateCheck =
  | { state: 'incomplete'; missing: string[] }
  | {
      state: 'accepted';
      managementCluster: string;
      objects: CreateClusterResponse['objects'];
      warnings: string[];
    }
  /** The backend refused the values (400, 404, 409): Create would fail the same way. */
  | { state: 'refused'; status: number; message: string }
  /** 403: the user may not create there; a Git delivery still works (whoever merges applies it). */
  | { state: 'not-allowed'; message: string }
  /** The backend could not be asked (network, 5xx): the create step checks again. */
  | { state: 'unknown'; message: string };

/** The form's words for the values the request needs. */
const REQUIRED: Array<[keyof CreateClusterRequest, string]> = [
  ['managementCluster', 'management cluster'],
  ['namespace', 'namespace'],
  ['credentialSecretName', 'ASO credential'],
  ['name', 'name'],
  ['location', 'Azure region'],
  ['kubernetesVersion', 'Kubernetes version'],
  ['pools', 'node pools'],
];

/**
 * The create request the template's `capz:cluster:create` step sends, built from the whole form's data (the
 * template passes its parameters through unchanged); the parents may be renamed with the field's ui:options.
 */
export function createRequestOf(
  formData: Record<string, unknown> | undefined,
  options?: ParentOptions,
): { request?: CreateClusterRequest; missing: string[] } {
  const data = formData ?? {};
  const request = {
    managementCluster: parentValue(data, options, 'managementClusterField'),
    namespace: parentValue(data, options, 'namespaceField'),
    credentialSecretName: parentValue(data, options, 'credentialField'),
    name: parentValue(data, options, 'nameField'),
    location: parentValue(data, options, 'locationField'),
    kubernetesVersion:
      typeof data.kubernetesVersion === 'string'
        ? data.kubernetesVersion
        : undefined,
    pools: Array.isArray(data.pools)
      ? (data.pools as AksAsoPoolParams[])
      : undefined,
    owner: typeof data.owner === 'string' ? data.owner : undefined,
    tags:
      data.tags && typeof data.tags === 'object'
        ? (data.tags as Record<string, string>)
        : undefined,
    entraOnly: typeof data.entraOnly === 'boolean' ? data.entraOnly : undefined,
    adminGroupObjectIDs: Array.isArray(data.adminGroupObjectIDs)
      ? (data.adminGroupObjectIDs as string[])
      : undefined,
    dryRun: true,
  };
  const missing = REQUIRED.filter(
    ([k]) =>
      request[k] === undefined ||
      (Array.isArray(request[k]) && !(request[k] as unknown[]).length),
  ).map(([, words]) => words);
  if (missing.length) return { missing };
  // Optional values the form left empty are not sent (the backend's schema refuses nothing it does not know).
  const clean = Object.fromEntries(
    Object.entries(request).filter(([, v]) => v !== undefined),
  ) as unknown as CreateClusterRequest;
  return { request: clean, missing: [] };
}

const statusOf = (e: unknown) =>
  (e as ResponseError)?.response?.status ??
  (e as { statusCode?: number })?.statusCode;

/** The backend's message (Backstage's error body), without the "Request failed with 409 Conflict, " prefix. */
const messageOf = (e: unknown) =>
  (e as ResponseError)?.body?.error?.message ??
  (e instanceof Error ? e.message : String(e));

/** Runs the create dry run for the form's values. Never throws: every ending is a CreateCheck. */
export async function runCreateCheck(
  api: Pick<CapzApi, 'createCluster'>,
  formData: Record<string, unknown> | undefined,
  options?: ParentOptions,
): Promise<CreateCheck> {
  const { request, missing } = createRequestOf(formData, options);
  if (!request) return { state: 'incomplete', missing };
  try {
    const answer = await api.createCluster(request);
    return {
      state: 'accepted',
      managementCluster: request.managementCluster,
      objects: answer.objects,
      warnings: answer.warnings ?? [],
    };
  } catch (e) {
    const status = statusOf(e);
    const message = messageOf(e);
    if (status === 403) return { state: 'not-allowed', message };
    if (status && status >= 400 && status < 500)
      return { state: 'refused', status, message };
    return { state: 'unknown', message };
  }
}

/** Whether the check lets the user go on to Review, and if not, the error shown under the field. */
export function createCheckError(
  check: CreateCheck,
  delivery: string | undefined,
): string | undefined {
  switch (check.state) {
    case 'incomplete':
      return `Cannot check the cluster yet: choose its ${check.missing.join(
        ', ',
      )} on the earlier pages`;
    case 'refused':
      return `The management cluster refuses this cluster: ${check.message}`;
    case 'not-allowed':
      // Through Git the user only proposes; whoever merges the proposal applies it.
      return !delivery || delivery === 'apply'
        ? `You may not create clusters there (${check.message}); choose a delivery through Git, or ask for capz.cluster.create`
        : undefined;
    default:
      return undefined;
  }
}

/** One line for the form's Review (the field's value): what the check found. */
export function createCheckSummary(check: CreateCheck): string {
  switch (check.state) {
    case 'accepted':
      return `${check.objects.length} objects accepted by ${
        check.managementCluster
      } (dry run, nothing written): ${check.objects
        .map(o => `${o.kind} ${o.name}`)
        .join(', ')}${
        check.warnings.length
          ? `. Not checked: ${check.warnings.join('; ')}`
          : ''
      }`;
    case 'refused':
      return `Refused: ${check.message}`;
    case 'not-allowed':
      return `Not checked on the management cluster: ${check.message}`;
    case 'unknown':
      return `Not checked (the capz backend could not be asked: ${check.message}); the create step checks again`;
    default:
      return `Not checked: ${check.missing.join(', ')} missing`;
  }
}
