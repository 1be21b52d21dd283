import YAML from 'yaml';

export const REDACTED = '<redacted>';

/** Keys whose string values are credentials wherever they appear (ASO and CAPZ keep references, not values). */
const SECRET_KEY =
  /^(password|clientSecret|secret|token|accessToken|refreshToken|privateKey|adminPassword|keyData|value)$/i;
const VALUE_KEYS_UNDER_SECRET_KEY_REF = new Set(['value']);

/**
 * Removes what the YAML view must never show: the values of a Secret (data, stringData), the last-applied
 * annotation (it can embed them), string values under credential-looking keys, and managedFields (noise).
 * Pure: returns a copy.
 */
export function redactObject(object: Record<string, any>): Record<string, any> {
  const copy = structuredClone(object);
  if (copy.metadata) {
    delete copy.metadata.managedFields;
    const annotations = copy.metadata.annotations;
    if (
      annotations?.['kubectl.kubernetes.io/last-applied-configuration'] !==
      undefined
    ) {
      annotations['kubectl.kubernetes.io/last-applied-configuration'] =
        REDACTED;
    }
  }
  if (copy.kind === 'Secret') {
    for (const field of ['data', 'stringData']) {
      if (copy[field] && typeof copy[field] === 'object') {
        copy[field] = Object.fromEntries(
          Object.keys(copy[field]).map(k => [k, REDACTED]),
        );
      }
    }
  }
  const walk = (node: unknown, parentKey?: string): void => {
    if (Array.isArray(node)) {
      node.forEach(item => walk(item, parentKey));
      return;
    }
    if (!node || typeof node !== 'object') return;
    for (const [key, value] of Object.entries(
      node as Record<string, unknown>,
    )) {
      if (typeof value === 'string' && SECRET_KEY.test(key)) {
        // `value` alone is only a credential inside env-like { name, value } pairs under a secret-looking parent.
        if (
          VALUE_KEYS_UNDER_SECRET_KEY_REF.has(key) &&
          !(parentKey && SECRET_KEY.test(parentKey))
        )
          continue;
        (node as Record<string, unknown>)[key] = REDACTED;
      } else {
        walk(value, key);
      }
    }
  };
  walk(copy.spec, 'spec');
  walk(copy.status, 'status');
  return copy;
}

export function toYaml(object: Record<string, any>): string {
  return YAML.stringify(redactObject(object), { lineWidth: 0 });
}
