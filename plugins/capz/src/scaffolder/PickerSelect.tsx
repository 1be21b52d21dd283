import { Alert, Select, Text, TextField } from '@backstage/ui';
import { useEffect } from 'react';
import useAsync from 'react-use/esm/useAsync';
import { errorMessage } from '../components/shared/errors';
import { FieldFrame, plainDescription } from './FieldFrame';

export interface PickerOption {
  id: string;
  label: string;
  disabled?: boolean;
}

export interface PickerSelectProps {
  /** `data-testid` of the field's wrapper (capz-<field>). */
  testId: string;
  label: string;
  /** The field's description, said under the label (the template's `code` spans as plain text). */
  description?: string;
  required?: boolean;
  disabled?: boolean;
  rawErrors?: string[];
  value?: string;
  onChange: (value: string | undefined) => void;
  /** What must be chosen first, when a parent is missing (then nothing is loaded). */
  waitingFor?: string;
  /** Loads the options; re-run when `deps` change. */
  load: () => Promise<PickerOption[]>;
  deps: unknown[];
  /** The option to choose when the field is empty once the options are loaded (e.g. AKS's default version). */
  preferred?: (options: PickerOption[]) => string | undefined;
  /** Words under the select once loaded (e.g. where the list comes from). */
  note?: (options: PickerOption[]) => string | undefined;
  placeholder?: string;
  /** Also offer a text field (with this label) to type a value that is not in the list. */
  typeNewLabel?: string;
  /** A search box (with this label) above the options, for long lists (e.g. the catalog's groups). */
  searchLabel?: string;
}

/**
 * One picker: a select of what the backend offers for the parents' values. Nothing to choose from until the parents
 * are chosen; when the list cannot be loaded (or is empty), the value can be typed instead, and the error is shown.
 */
export function PickerSelect(p: PickerSelectProps) {
  const ready = !p.waitingFor;
  const options = useAsync(
    async () => (ready ? p.load() : undefined),
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [ready, ...p.deps],
  );
  const loaded = options.value;
  const { value, onChange, preferred } = p;
  useEffect(() => {
    if (!value && loaded?.length && preferred) {
      const choice = preferred(loaded);
      if (choice) onChange(choice);
    }
  }, [value, loaded, preferred, onChange]);

  let placeholder = p.placeholder ?? 'Choose';
  if (options.loading) placeholder = 'Loading…';
  if (p.waitingFor) placeholder = `Choose the ${p.waitingFor} first`;
  const typed = ready && (!!options.error || (loaded && loaded.length === 0));
  const isNew = !!(loaded && value && !loaded.some(o => o.id === value));
  const description = plainDescription(p.description);
  const shown =
    isNew && !p.typeNewLabel
      ? [...loaded, { id: value, label: `${value} (not offered)` }]
      : loaded ?? [];
  return (
    <FieldFrame field={p}>
      <div data-testid={p.testId}>
        {typed ? (
          <>
            {options.error && (
              <Alert
                status="warning"
                title={`Could not list the choices: ${errorMessage(
                  options.error,
                )}`}
                description="Type the value instead."
              />
            )}
            <TextField
              label={p.label}
              isRequired={p.required}
              // The form validates (rjsf and the fields' rules): a native check would block its submit silently.
              validationBehavior="aria"
              isDisabled={p.disabled}
              value={value ?? ''}
              onChange={v => onChange(v.trim() ? v.trim() : undefined)}
              description={
                options.error
                  ? description
                  : [description, 'Nothing to choose from: type it.']
                      .filter(Boolean)
                      .join(' ')
              }
            />
          </>
        ) : (
          <Select
            label={p.label}
            description={description}
            placeholder={placeholder}
            isDisabled={p.disabled || !ready || options.loading}
            isRequired={p.required}
            validationBehavior="aria"
            value={isNew && p.typeNewLabel ? null : value ?? null}
            onChange={key =>
              onChange(
                key === null || key === undefined ? undefined : String(key),
              )
            }
            options={shown}
            searchable={!!p.searchLabel}
            searchPlaceholder={p.searchLabel}
          />
        )}
        {!typed && loaded && p.typeNewLabel && (
          <TextField
            label={p.typeNewLabel}
            isDisabled={p.disabled}
            value={isNew ? value : ''}
            onChange={v => onChange(v.trim() ? v.trim() : undefined)}
          />
        )}
        {loaded && p.note?.(loaded) && (
          <Text as="p" variant="body-small" color="secondary">
            {p.note(loaded)}
          </Text>
        )}
      </div>
    </FieldFrame>
  );
}
