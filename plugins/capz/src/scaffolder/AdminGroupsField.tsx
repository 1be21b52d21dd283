import type { FieldExtensionComponentProps } from '@backstage/plugin-scaffolder-react';
import { Button, Flex, TextField } from '@backstage/ui';
import { FieldGroup } from './FieldFrame';

type Props = FieldExtensionComponentProps<string[]>;

/** The schema's errors of one item (its `errorMessage` in words, e.g. "is not an Entra object id (…)"). */
const itemErrors = (props: Props, i: number): string[] =>
  ((props.errorSchema as Record<number, { __errors?: string[] }> | undefined)?.[
    i
  ]?.__errors ?? []) as string[];

/**
 * CapzAdminGroupsField: the object ids of the Entra groups made cluster admins, one text field each, added and removed
 * with buttons. The template's pattern (a GUID) checks each; its words are said under the id they are about.
 */
export function AdminGroupsField(props: Props) {
  const ids = props.formData ?? [];
  const disabled = props.disabled || props.readonly;
  const set = (next: string[]) => props.onChange(next);
  return (
    <FieldGroup field={props} testId="capz-admin-groups-field">
      {ids.map((id, i) => {
        const label = `Admin group ${i + 1}`;
        const errors = itemErrors(props, i).map(m => `${label} ${m}`);
        return (
          <Flex key={i} gap="2" align="end">
            <TextField
              label={label}
              style={{ flex: 1 }}
              placeholder="00000000-0000-0000-0000-000000000000"
              isDisabled={disabled}
              value={id}
              // The form validates (the template's pattern): its words are shown under the id, not the browser's.
              validationBehavior="aria"
              validate={() => (errors.length ? errors : null)}
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
