import {
  createFormField,
  FormFieldBlueprint,
} from '@backstage/plugin-scaffolder-react/alpha';

/**
 * The new-cluster template's form fields, registered by the capz plugin (FormFieldBlueprint attaches them to the
 * scaffolder's form fields API). Each is loaded on first use.
 */
const field = (
  name: string,
  load: () => Promise<Parameters<typeof createFormField>[0]>,
) =>
  FormFieldBlueprint.make({
    name,
    params: { field: async () => createFormField(await load()) },
  });

export const capzFormFields = [
  field('capz-management-cluster-picker', async () => {
    const [p, v] = await Promise.all([
      import('./pickers'),
      import('./validation'),
    ]);
    return {
      name: 'CapzManagementClusterPicker',
      component: p.ManagementClusterPicker as never,
      validation: v.validateManagementCluster as never,
    };
  }),
  field('capz-namespace-picker', async () => {
    const [p, v] = await Promise.all([
      import('./pickers'),
      import('./validation'),
    ]);
    return {
      name: 'CapzNamespacePicker',
      component: p.NamespacePicker as never,
      validation: v.validateNamespace as never,
    };
  }),
  field('capz-credential-picker', async () => {
    const [p, v] = await Promise.all([
      import('./pickers'),
      import('./validation'),
    ]);
    return {
      name: 'CapzCredentialPicker',
      component: p.CredentialPicker as never,
      validation: v.validateCredential as never,
    };
  }),
  field('capz-region-picker', async () => {
    const [p, v] = await Promise.all([
      import('./pickers'),
      import('./validation'),
    ]);
    return {
      name: 'CapzRegionPicker',
      component: p.RegionPicker as never,
      validation: v.validateRegion as never,
    };
  }),
  field('capz-kubernetes-version-picker', async () => {
    const [p, v] = await Promise.all([
      import('./pickers'),
      import('./validation'),
    ]);
    return {
      name: 'CapzKubernetesVersionPicker',
      component: p.KubernetesVersionPicker as never,
      validation: v.validateKubernetesVersion as never,
    };
  }),
  field('capz-node-pools-field', async () => {
    const [p, v] = await Promise.all([
      import('./NodePoolsField'),
      import('./validation'),
    ]);
    return {
      name: 'CapzNodePoolsField',
      component: p.NodePoolsField as never,
      validation: v.validateNodePools as never,
    };
  }),
];
