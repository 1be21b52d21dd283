import type { FieldExtensionComponentProps } from '@backstage/plugin-scaffolder-react';
import { Button, Flex, TextField } from '@backstage/ui';
import { useEffect, useState } from 'react';
import { FieldGroup } from './FieldFrame';

type Tags = Record<string, string>;
type Props = FieldExtensionComponentProps<Tags>;
interface Row {
  name: string;
  value: string;
}

const rowsOf = (tags: Tags | undefined): Row[] =>
  Object.entries(tags ?? {}).map(([name, value]) => ({ name, value }));

/** The row whose name an earlier row has already, by index (its tag is left out of the value). */
const duplicateOf = (rows: Row[], i: number) => {
  const name = rows[i].name.trim();
  const first = rows.findIndex(r => r.name.trim() === name);
  return name && first < i ? first : -1;
};

/**
 * The tags the rows say: a row with neither name nor value is left out, and so is a row repeating an earlier name; a
 * row with a value and no name is kept under the name "" for the field's validation to refuse.
 */
const tagsOf = (rows: Row[]): Tags =>
  Object.fromEntries(
    rows
      .filter(
        (r, i) => (r.name.trim() || r.value.trim()) && duplicateOf(rows, i) < 0,
      )
      .map(r => [r.name.trim(), r.value.trim()]),
  );

/**
 * CapzTagsField: Azure tags as rows of a name and a value, added and removed with buttons; the value is the object of
 * the tags (`{ team: 'payments' }`). The rows are the field's own state (a row being typed has no name yet, two rows
 * can have the same name for a moment) and follow the value when it changes from outside.
 */
export function TagsField(props: Props) {
  const [rows, setRows] = useState(() => rowsOf(props.formData));
  const value = JSON.stringify(props.formData ?? {});
  useEffect(() => {
    if (value !== JSON.stringify(tagsOf(rows)))
      setRows(rowsOf(JSON.parse(value)));
    // Only a value from outside resets the rows: the rows' own changes arrive as the value they wrote.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [value]);
  const disabled = props.disabled || props.readonly;
  const set = (next: Row[]) => {
    setRows(next);
    props.onChange(tagsOf(next));
  };
  const update = (i: number, patch: Partial<Row>) =>
    set(rows.map((r, j) => (j === i ? { ...r, ...patch } : r)));
  return (
    <FieldGroup field={props} testId="capz-tags-field">
      {rows.map((row, i) => {
        const n = i + 1;
        const first = duplicateOf(rows, i);
        const nameError =
          first >= 0
            ? `Tag ${n} has the name of tag ${
                first + 1
              }: give it another name or remove it`
            : null;
        return (
          <Flex key={i} gap="2" align="end">
            <TextField
              label={`Tag ${n} name`}
              style={{ flex: 1 }}
              isDisabled={disabled}
              value={row.name}
              validationBehavior="aria"
              validate={() => nameError}
              onChange={v => update(i, { name: v })}
            />
            <TextField
              label={`Tag ${n} value`}
              style={{ flex: 1 }}
              isDisabled={disabled}
              value={row.value}
              onChange={v => update(i, { value: v })}
            />
            <Button
              variant="secondary"
              aria-label={`Remove tag ${n}`}
              isDisabled={disabled}
              onPress={() => set(rows.filter((_, j) => j !== i))}
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
          onPress={() => setRows([...rows, { name: '', value: '' }])}
        >
          Add tag
        </Button>
      </div>
    </FieldGroup>
  );
}
