import type { FieldExtensionComponentProps } from '@backstage/plugin-scaffolder-react';
import { ScaffolderField } from '@backstage/plugin-scaffolder-react/alpha';
import { FieldLabel, Flex, Text } from '@backstage/ui';
import { useId, type ReactNode } from 'react';

/** The field's words for the user: the template's `ui:description`, else the schema's description. */
export const fieldDescription = (f: FieldExtensionComponentProps<any>) =>
  (f.uiSchema?.['ui:description'] as string | undefined) ??
  f.schema.description;

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
      rawDescription={fieldDescription(f)}
      rawErrors={f.rawErrors}
      required={f.required}
      disabled={f.disabled || f.readonly}
      displayLabel={false}
    >
      {props.children}
    </ScaffolderField>
  );
}

/**
 * A field's description in BUI's secondary text, for a control that has no description of its own (a checkbox), with
 * the template's `code` spans as code. `id` is what the control's `aria-describedby` names.
 */
export function FieldDescription(props: { id: string; text?: string }) {
  if (!props.text) return null;
  return (
    <Text as="p" id={props.id} variant="body-small" color="secondary">
      {props.text
        .split('`')
        .map((part, i) => (i % 2 ? <code key={i}>{part}</code> : part))}
    </Text>
  );
}

/**
 * A field of several controls (rows of values and their buttons) in its frame: a group named by the field's title,
 * described by its description, as BUI draws a field's label.
 */
export function FieldGroup(props: {
  field: FieldExtensionComponentProps<any>;
  /** `data-testid` of the group (capz-<field>). */
  testId: string;
  children: ReactNode;
}) {
  const id = useId();
  const f = props.field;
  const description = fieldDescription(f);
  return (
    <FieldFrame field={f}>
      <div
        data-testid={props.testId}
        role="group"
        aria-labelledby={`${id}-label`}
        aria-describedby={description ? `${id}-description` : undefined}
      >
        <FieldLabel
          label={f.schema.title ?? f.name}
          description={description}
          id={`${id}-label`}
          descriptionId={`${id}-description`}
        />
        <Flex direction="column" gap="2">
          {props.children}
        </Flex>
      </div>
    </FieldFrame>
  );
}
