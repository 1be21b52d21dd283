import type { FieldExtensionComponentProps } from '@backstage/plugin-scaffolder-react';
import { Checkbox } from '@backstage/ui';
import { useId } from 'react';
import { FieldDescription, fieldDescription, FieldFrame } from './FieldFrame';

/**
 * CapzCheckboxField: a yes/no of the template (e.g. Entra ID only) as a BUI checkbox named by the field's title, its
 * description under it; unchecked or checked as the schema's default says until the user changes it.
 */
export function CheckboxField(props: FieldExtensionComponentProps<boolean>) {
  const descriptionId = `${useId()}-description`;
  const description = fieldDescription(props);
  const onChange = props.onChange as (v: boolean) => void;
  return (
    <FieldFrame field={props}>
      <div data-testid="capz-checkbox-field">
        <Checkbox
          isSelected={props.formData ?? props.schema.default === true}
          isDisabled={props.disabled || props.readonly}
          onChange={onChange}
          aria-describedby={description ? descriptionId : undefined}
        >
          {props.schema.title ?? props.name}
        </Checkbox>
        <FieldDescription id={descriptionId} text={description} />
      </div>
    </FieldFrame>
  );
}
