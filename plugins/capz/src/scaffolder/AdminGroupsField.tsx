import type { FieldExtensionComponentProps } from '@backstage/plugin-scaffolder-react';
import { Button, Flex, TextField } from '@backstage/ui';
import { FieldGroup } from './FieldFrame';
import { adminGroupIdError, isAdminGroupIdError } from './validation';

type Props = FieldExtensionComponentProps<string[]>;

/**
 * CapzAdminGroupsField: the object ids of the Entra groups made cluster admins, one text field each, added and removed
 * with buttons. Its validation (`validateAdminGroups`) checks each id when the user asks for the next page or Review
 * and names it by its row; the words are said under the row. The form keeps a field's errors until the next Review:
 * so once it has reported an id, each row's id is checked again as it changes (its error gone as soon as it is a GUID,
 * and with its row when removed), and the field says its other errors itself, with the template's `ui:hideError`.
 */
export function AdminGroupsField(props: Props) {
  const ids = props.formData ?? [];
  const disabled = props.disabled || props.readonly;
  const set = (next: string[]) => props.onChange(next);
  const reported = props.rawErrors ?? [];
  const checkIds = reported.some(isAdminGroupIdError);
  // Without ui:hideError, rjsf says the field's errors under it: said here too, they would be said twice.
  const fieldErrors = props.hideError
    ? reported.filter(m => !isAdminGroupIdError(m))
    : undefined;
  return (
    <FieldGroup
      field={props}
      testId="capz-admin-groups-field"
      errors={fieldErrors}
    >
      {ids.map((id, i) => {
        const error = checkIds ? adminGroupIdError(id, i) : undefined;
        return (
          <Flex key={i} gap="2" align="end">
            <TextField
              label={`Admin group ${i + 1}`}
              style={{ flex: 1 }}
              placeholder="00000000-0000-0000-0000-000000000000"
              isDisabled={disabled}
              value={id}
              // The form validates (the field's validation): its words are shown under the id, not the browser's.
              validationBehavior="aria"
              validate={() => error ?? null}
              onChange={v => set(ids.map((x, j) => (j === i ? v.trim() : x)))}
            />
            <Button
              variant="secondary"
              aria-label={`Remove admin group ${i + 1}`}
              isDisabled={disabled}
              onPress={() => set(ids.filter((_, j) => j !== i))}
            >
              Remove
            </Button>
          </Flex>
        );
      })}
      <div>
        <Button
          variant="secondary"
          isDisabled={disabled}
          onPress={() => set([...ids, ''])}
        >
          Add admin group
        </Button>
      </div>
    </FieldGroup>
  );
}
