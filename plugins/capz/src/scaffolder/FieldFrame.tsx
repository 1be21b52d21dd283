import type { FieldExtensionComponentProps } from '@backstage/plugin-scaffolder-react';
import { ScaffolderField } from '@backstage/plugin-scaffolder-react/alpha';
import type { ReactNode } from 'react';

/**
 * The scaffolder's frame around a field of ours (its description, its errors under it), with the label left to the
 * control inside: every field that is not a picker uses it.
 */
export function FieldFrame(props: {
  field: FieldExtensionComponentProps<any>;
  children: ReactNode;
}) {
  const f = props.field;
  return (
    <ScaffolderField
      rawDescription={
        (f.uiSchema?.['ui:description'] as string | undefined) ??
        f.schema.description
      }
      rawErrors={f.rawErrors}
      required={f.required}
      disabled={f.disabled || f.readonly}
      displayLabel={false}
    >
      {props.children}
    </ScaffolderField>
  );
}
