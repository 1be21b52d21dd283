import type { FieldValidation } from '@rjsf/utils';
import {
  DNS_LABEL_MAX_LENGTH,
  validateDnsSubdomain,
  validateDnsLabel,
  clusterNameErrors,
  kubernetesVersionErrors,
  locationErrors,
  nodePoolsErrors,
  normalizeKubernetesVersion,
  type AksAsoPoolParams,
  type ClusterFieldError,
} from '@capz-backstage/plugin-capz-common';
import { parentValue, ParentOptions } from './formData';

/** The part of the scaffolder's validation context the fields read. */
interface Context {
  formData?: Record<string, unknown>;
  uiSchema?: { 'ui:options'?: ParentOptions };
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

/** The region, and the cluster name it limits (AKS's node resource group MC_<rg>_<name>_<location> <= 80). */
export function validateRegion(
  v: string,
  field: FieldValidation,
  context: Context,
) {
  const errors = locationErrors(v);
  if (!errors.length) {
    const name = parentValue(
      context.formData,
      context.uiSchema?.['ui:options'],
      'nameField',
    );
    if (name)
      errors.push(
        ...clusterNameErrors(name, { location: v }).filter(
          e => e.rule === 'node-resource-group',
        ),
      );
  }
  report(field, errors);
}

export function validateKubernetesVersion(v: string, field: FieldValidation) {
  // The actions take `1.33.2` for `v1.33.2`: the form does not refuse it either.
  report(field, kubernetesVersionErrors(v && normalizeKubernetesVersion(v)));
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
