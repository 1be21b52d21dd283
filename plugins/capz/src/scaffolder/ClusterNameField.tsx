import type { FieldExtensionComponentProps } from '@backstage/plugin-scaffolder-react';
import { TextField } from '@backstage/ui';
import { fieldDescription, FieldFrame, plainDescription } from './FieldFrame';

/**
 * CapzClusterNameField: the new cluster's name. A field of its own so that its rules (capz-common
 * `clusterNameErrors`: the region's node-resource-group limit included) and the check that no cluster of that name
 * exists yet are reported under it (`validateClusterName`), not under the region.
 */
export function ClusterNameField(props: FieldExtensionComponentProps<string>) {
  const onChange = props.onChange as (v: string | undefined) => void;
  return (
    <FieldFrame field={props}>
      <div data-testid="capz-cluster-name-field">
        <TextField
          label={props.schema.title ?? 'Name'}
          description={plainDescription(fieldDescription(props))}
          isRequired={props.required}
          // The form validates (rjsf and the fields' rules): a native check would block its submit silently.
          validationBehavior="aria"
          isDisabled={props.disabled || props.readonly}
          value={props.formData ?? ''}
          // A name has no spaces: what is typed around it is not part of it.
          onChange={v => onChange(v.trim() ? v.trim() : undefined)}
          placeholder="e.g. payments-prod"
        />
      </div>
    </FieldFrame>
  );
}
