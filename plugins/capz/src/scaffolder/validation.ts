import { parseEntityRef } from '@backstage/catalog-model';
import type { ApiHolder } from '@backstage/frontend-plugin-api';
import type { FieldValidation } from '@rjsf/utils';
import {
  DNS_LABEL_MAX_LENGTH,
  validateDnsSubdomain,
  validateDnsLabel,
  clusterNameErrors,
  isEntraObjectId,
  kubernetesVersionErrors,
  locationErrors,
  nodePoolsErrors,
  normalizeKubernetesVersion,
  tagsErrors,
  type AksAsoPoolParams,
  type ClusterFieldError,
} from '@capz-backstage/plugin-capz-common';
import { capzApiRef } from '../api/CapzApi';
import { createCheckError, runCreateCheck } from './createCheck';
import { parentValue, ParentOptions } from './formData';

/** The part of the scaffolder's validation context the fields read. */
interface Context {
  formData?: Record<string, unknown>;
  uiSchema?: { 'ui:options'?: ParentOptions };
  /** The app's APIs (the scaffolder passes them to every validation). */
  apiHolder?: ApiHolder;
}

const report = (field: FieldValidation, errors: ClusterFieldError[]) => {
  for (const e of errors) field.addError(e.message);
};

export function validateManagementCluster(v: string, field: FieldValidation) {
  if (!v) field.addError('Choose a management cluster');
}

export function validateNamespace(v: string, field: FieldValidation) {
  if (!v || validateDnsLabel(v))
    field.addError(
      `"${
        v ?? ''
      }" is not a namespace name (lowercase letters, digits and '-', at most ${DNS_LABEL_MAX_LENGTH})`,
    );
}

export function validateCredential(v: string, field: FieldValidation) {
  if (!v || validateDnsSubdomain(v))
    field.addError('Choose the ASO credential Secret');
}

export function validateRegion(v: string, field: FieldValidation) {
  report(field, locationErrors(v));
}

/**
 * The cluster name: every rule of capz-common's `clusterNameErrors` with the region chosen beside it (AKS's node
 * resource group `MC_<rg>_<name>_<location>` <= 80), then whether a cluster of that name already exists in the
 * namespace (the capz backend's cache: `GET /clusters/:mc/:ns/:name/tree`), so Create is never offered for a name the
 * backend will refuse. A failed check adds nothing: the backend checks again when the template runs.
 */
export async function validateClusterName(
  v: string,
  field: FieldValidation,
  context: Context,
) {
  const options = context.uiSchema?.['ui:options'];
  const location = parentValue(context.formData, options, 'locationField');
  const errors = clusterNameErrors(v, { location }).filter(
    e => e.field === 'name',
  );
  report(field, errors);
  const mc = parentValue(context.formData, options, 'managementClusterField');
  const ns = parentValue(context.formData, options, 'namespaceField');
  const api = context.apiHolder?.get(capzApiRef);
  if (errors.length || !v || !mc || !ns || !api) return;
  try {
    // The cluster's tree route (there is no plain GET of a cluster): an answer means the cache has it.
    await api.getClusterTree({ managementCluster: mc, namespace: ns, name: v });
  } catch {
    // 404, or unknown: the last page's create dry run and the create step answer 409 for an existing cluster.
    return;
  }
  field.addError(
    `A cluster "${v}" already exists in namespace ${ns} on ${mc}: choose another name`,
  );
}

export function validateKubernetesVersion(v: string, field: FieldValidation) {
  // The actions take `1.33.2` for `v1.33.2`: the form does not refuse it either.
  report(field, kubernetesVersionErrors(v && normalizeKubernetesVersion(v)));
}

/**
 * The owner: an entity reference, as Backstage's OwnerPicker writes one (`group:default/payments`). The picker writes
 * nothing else; a value typed when the catalog cannot be listed is checked here.
 */
export function validateOwner(v: string, field: FieldValidation) {
  if (!v) return;
  try {
    parseEntityRef(v);
  } catch {
    field.addError(
      `"${v}" is not a catalog entity reference (e.g. group:default/platform)`,
    );
  }
}

const ADMIN_GROUP_ID_ERROR = /^Admin group \d+: /;

/**
 * What is wrong with the id of admin group `index` (from 0), in the words said under its row and in the form's error
 * list ("Admin group 2: … is not a GUID …"); undefined for an Entra object id (capz-common's rule, the backend's).
 */
export function adminGroupIdError(
  id: string | undefined,
  index: number,
): string | undefined {
  const label = `Admin group ${index + 1}`;
  if (!id) return `${label}: give the group's object ID (a GUID), or remove it`;
  if (!isEntraObjectId(id))
    return `${label}: "${id}" is not a GUID (the group's object ID in Entra, such as 00000000-0000-0000-0000-000000000000)`;
  return undefined;
}

/** Whether a message of `validateAdminGroups` is about one admin group's id (said under its row, not the field). */
export const isAdminGroupIdError = (message: string) =>
  ADMIN_GROUP_ID_ERROR.test(message);

/**
 * The Entra admin groups: each id an Entra object id, named by its row (the form's error list names the field by
 * its title only: a rule on the schema's items would be said as "'Admin Group Object I Ds 0' …"); an id given twice;
 * admin groups on a cluster that is not Entra-only (capz-common's rules: the backend refuses both).
 */
export function validateAdminGroups(
  ids: string[],
  field: FieldValidation,
  context: Context,
) {
  (ids ?? []).forEach((id, i) => {
    const error = adminGroupIdError(id, i);
    if (error) field.addError(error);
  });
  const given = (ids ?? []).filter(Boolean);
  const twice = given.filter((id, i) => given.indexOf(id) !== i);
  for (const id of new Set(twice))
    field.addError(`${id} is given more than once`);
  if (given.length && context.formData?.entraOnly === false)
    field.addError(
      'Admin groups apply to Entra-only clusters: check Entra ID only, or remove them',
    );
}

/** ARM's tag rules (capz-common `tagsErrors`): at most 50, names without < > % & \ ? /, values of at most 256. */
export function validateTags(
  tags: Record<string, string>,
  field: FieldValidation,
) {
  for (const e of tagsErrors(tags))
    field.addError(e.message.charAt(0).toUpperCase() + e.message.slice(1));
}

/** Every pool rule, and the `<cluster>-<pool>` object names (at most 63). */
export function validateNodePools(
  pools: AksAsoPoolParams[],
  field: FieldValidation,
  context: Context,
) {
  const errors = nodePoolsErrors(pools);
  const name = parentValue(
    context.formData,
    context.uiSchema?.['ui:options'],
    'nameField',
  );
  if (name && pools?.length)
    errors.push(
      ...clusterNameErrors(name, { pools }).filter(
        e => e.rule === 'pool-object-name',
      ),
    );
  for (const e of errors) field.addError(`${e.field}: ${e.message}`);
}

/** The GitOps repository of the pull-request delivery: a host, an owner (or project) and a repository. */
export function validateGitopsRepo(v: string, field: FieldValidation) {
  const m = /^([^?]+)\?(.*)$/.exec(v ?? '');
  const q = new URLSearchParams(m?.[2] ?? '');
  if (!m || !(q.get('owner') || q.get('project')) || !q.get('repo'))
    field.addError(
      'Choose the host, and give the owner (project) and the repository',
    );
}

/**
 * The form's last check, when the user asks for Review: the create dry run on every value chosen (the same request
 * the create step sends). A refusal keeps the user on the page with the backend's words; so does a 403 when the
 * cluster would be applied now (a Git delivery only proposes). When the backend cannot be asked, nothing is added:
 * the create step checks again.
 */
export async function validateCreateCheck(
  _v: string,
  field: FieldValidation,
  context: Context,
) {
  const api = context.apiHolder?.get(capzApiRef);
  if (!api) return;
  const options = context.uiSchema?.['ui:options'];
  const check = await runCreateCheck(api, context.formData, options);
  const error = createCheckError(
    check,
    parentValue(context.formData, options, 'deliveryField'),
  );
  if (error) field.addError(error);
}
