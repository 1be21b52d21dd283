import { useEffect, useRef } from 'react';

/**
 * The parent fields each picker reads from the form data, by default; a template renames them with the field's
 * `ui:options` (e.g. `ui:options: { managementClusterField: mc }`).
 */
export const PARENT_DEFAULTS = {
  managementClusterField: 'managementCluster',
  namespaceField: 'namespace',
  credentialField: 'credentialSecretName',
  locationField: 'location',
  nameField: 'name',
  deliveryField: 'delivery',
} as const;
export type ParentOption = keyof typeof PARENT_DEFAULTS;
export type ParentOptions = Partial<Record<ParentOption, string>>;

/** The value of a parent field in the whole form's data (every step), or undefined when it is empty. */
export function parentValue(
  formData: unknown,
  uiOptions: ParentOptions | undefined,
  option: ParentOption,
): string | undefined {
  const field = uiOptions?.[option] ?? PARENT_DEFAULTS[option];
  const v = (formData as Record<string, unknown> | undefined)?.[field];
  return typeof v === 'string' && v ? v : undefined;
}

/** A field's props as the scaffolder hands them (only what the pickers read). */
export interface PickerProps<T> {
  formData?: T;
  onChange: (value: T | undefined) => void;
  formContext?: { formData?: Record<string, unknown> };
  uiSchema?: { 'ui:options'?: ParentOptions & Record<string, unknown> };
}

/** The parents' values for this field, from the live form data. */
export function useParents<T>(
  props: PickerProps<T>,
  ...options: ParentOption[]
): Array<string | undefined> {
  return options.map(o =>
    parentValue(props.formContext?.formData, props.uiSchema?.['ui:options'], o),
  );
}

/** Clears the field when any parent changes after the field was shown (its choices belong to the old parent). */
export function useResetOnChange(
  parents: Array<string | undefined>,
  onChange: (v: undefined) => void,
  hasValue: boolean,
) {
  const key = JSON.stringify(parents);
  const previous = useRef(key);
  useEffect(() => {
    if (previous.current === key) return;
    previous.current = key;
    if (hasValue) onChange(undefined);
  }, [key, hasValue, onChange]);
}
