import {
  createFormField,
  FormFieldBlueprint,
} from '@backstage/plugin-scaffolder-react/alpha';

/**
 * The new-cluster template's form fields, registered by the capz plugin (FormFieldBlueprint attaches them to the
 * scaffolder's form fields API). Each is loaded on first use.
 */
type Validations = typeof import('./validation');

/** A field whose component and validation are loaded on first use (the pickers share one chunk). */
const field = (
  id: string,
  name: string,
  component: () => Promise<unknown>,
  validation?: keyof Validations,
) =>
  FormFieldBlueprint.make({
    name: id,
    params: {
      field: async () => {
        const [c, v] = await Promise.all([component(), import('./validation')]);
        return createFormField({
          name,
          component: c as never,
          validation: (validation && v[validation]) as never,
        });
      },
    },
  });

const picker = (key: keyof typeof import('./pickers')) => async () =>
  (await import('./pickers'))[key];

export const capzFormFields = [
  field(
    'capz-management-cluster-picker',
    'CapzManagementClusterPicker',
    picker('ManagementClusterPicker'),
    'validateManagementCluster',
  ),
  field(
    'capz-namespace-picker',
    'CapzNamespacePicker',
    picker('NamespacePicker'),
    'validateNamespace',
  ),
  field(
    'capz-credential-picker',
    'CapzCredentialPicker',
    picker('CredentialPicker'),
    'validateCredential',
  ),
  field(
    'capz-cluster-name-field',
    'CapzClusterNameField',
    async () => (await import('./ClusterNameField')).ClusterNameField,
    'validateClusterName',
  ),
  field(
    'capz-region-picker',
    'CapzRegionPicker',
    picker('RegionPicker'),
    'validateRegion',
  ),
  field(
    'capz-kubernetes-version-picker',
    'CapzKubernetesVersionPicker',
    picker('KubernetesVersionPicker'),
    'validateKubernetesVersion',
  ),
  field(
    'capz-owner-picker',
    'CapzOwnerPicker',
    picker('OwnerPicker'),
    'validateOwner',
  ),
  field(
    'capz-checkbox-field',
    'CapzCheckboxField',
    async () => (await import('./CheckboxField')).CheckboxField,
  ),
  field(
    'capz-admin-groups-field',
    'CapzAdminGroupsField',
    async () => (await import('./AdminGroupsField')).AdminGroupsField,
    'validateAdminGroups',
  ),
  field(
    'capz-tags-field',
    'CapzTagsField',
    async () => (await import('./TagsField')).TagsField,
    'validateTags',
  ),
  field(
    'capz-gitops-repo-picker',
    'CapzGitopsRepoPicker',
    async () => (await import('./GitopsRepoPicker')).GitopsRepoPicker,
    'validateGitopsRepo',
  ),
  field(
    'capz-node-pools-field',
    'CapzNodePoolsField',
    async () => (await import('./NodePoolsField')).NodePoolsField,
    'validateNodePools',
  ),
  field(
    'capz-create-check',
    'CapzCreateCheck',
    async () => (await import('./CreateCheckField')).CreateCheckField,
    'validateCreateCheck',
  ),
];
