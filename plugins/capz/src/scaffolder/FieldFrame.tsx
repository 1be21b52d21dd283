import type { FieldExtensionComponentProps } from '@backstage/plugin-scaffolder-react';
import { ScaffolderField } from '@backstage/plugin-scaffolder-react/alpha';
import { FieldLabel, Flex, Text } from '@backstage/ui';
import { useId, type ReactNode } from 'react';

/** What a field's frame reads of the scaffolder's props (a picker passes its own). */
export type FramedField = Partial<
  Pick<
    FieldExtensionComponentProps<any>,
    'rawErrors' | 'required' | 'disabled' | 'readonly'
  >
>;

/** The field's words for the user: the template's `ui:description`, else the schema's description. */
export const fieldDescription = (
  f: Pick<FieldExtensionComponentProps<any>, 'schema' | 'uiSchema'>,
) =>
  (f.uiSchema?.['ui:description'] as string | undefined) ??
  f.schema.description;

/**
 * A description as BUI's FieldLabel says it (plain text, under the label): the template's `code` spans without their
 * backquotes.
 */
export const plainDescription = (text: string | undefined) =>
  text?.replace(/`/g, '') || undefined;

/**
 * The scaffolder's frame around every capz field: its state (required, disabled, in error) for the form. rjsf draws
 * no label or description for a custom field (`ui:field`), so the control inside draws both: a BUI control's own label
 * and description (`plainDescription(fieldDescription(field))`), FieldGroup's for several controls, the checkbox's
 * label and FieldDescription. `errors`: the field's errors it says itself, under it (a template with `ui:hideError`
 * leaves them to the field; rjsf says them otherwise).
 */
export function FieldFrame(props: {
  field: FramedField;
  errors?: string[];
  children: ReactNode;
}) {
  const f = props.field;
  return (
    <ScaffolderField
      rawErrors={f.rawErrors}
      required={f.required}
      disabled={f.disabled || f.readonly}
      displayLabel={false}
      errors={
        props.errors?.length ? (
          <div>
            {props.errors.map((e, i) => (
              <Text key={i} as="p" variant="body-small" color="danger">
                {e}
              </Text>
            ))}
          </div>
        ) : undefined
      }
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
  /** The field's errors it says itself (see FieldFrame). */
  errors?: string[];
  children: ReactNode;
}) {
  const id = useId();
  const f = props.field;
  const description = plainDescription(fieldDescription(f));
  return (
    <FieldFrame field={f} errors={props.errors}>
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
