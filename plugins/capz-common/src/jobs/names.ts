/**
 * Kubernetes name rules the job planners check before anything is created, and CAPZ's name normalisation
 * (the legacy API names its ASO objects with it, docs/capz-aso-facts.md#legacy-names; adoption reuses it for the
 * ResourceGroup object of an adopted cluster).
 */

/** The longest DNS-1123 label (RFC 1123): most Kubernetes names, and label values, are at most this long. @public */
export const DNS_LABEL_MAX_LENGTH = 63;
const LABEL_MAX = DNS_LABEL_MAX_LENGTH;
const SUBDOMAIN_MAX = 253;
/**
 * The shape of a DNS-1123 label (RFC 1123), its length aside: lowercase letters, digits and '-', starting and ending
 * with a letter or digit. The one copy of the rule; validateDnsLabel adds the {@link DNS_LABEL_MAX_LENGTH} limit.
 * @public
 */
export const DNS_LABEL_PATTERN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const LABEL_RE = DNS_LABEL_PATTERN;

function quote(v: string): string {
  return JSON.stringify(v);
}

/** The characters of `value` that no DNS-1123 name may contain, each once, in order of appearance. */
function badChars(value: string, allowDot: boolean): string[] {
  const bad = new Set<string>();
  for (const ch of value) {
    if (!/[a-z0-9-]/.test(ch) && !(allowDot && ch === '.')) bad.add(ch);
  }
  return [...bad];
}

function labelProblem(
  value: string,
  what: string,
  max: number,
  allowDot: boolean,
): string | undefined {
  if (value === '') return `${what} must not be empty`;
  if (value.length > max)
    return `${what} ${quote(value)} is ${
      value.length
    } characters long; at most ${max} are allowed`;
  const bad = badChars(value, allowDot);
  if (bad.length) {
    const upper = bad.some(c => c !== c.toLowerCase());
    return `${what} ${quote(value)} contains ${bad
      .map(quote)
      .join(', ')}: only lowercase letters, digits, '-'${
      allowDot ? " and '.'" : ''
    } are allowed${upper ? ' (no uppercase)' : ''}`;
  }
  return undefined;
}

/**
 * A DNS-1123 label (RFC 1123), as Kubernetes requires for namespace names: at most 63 characters, lowercase
 * letters, digits and '-', starting and ending with a letter or digit. Returns what is wrong, or undefined.
 * @public
 */
export function validateDnsLabel(
  value: string,
  what = 'name',
): string | undefined {
  const problem = labelProblem(value, what, LABEL_MAX, false);
  if (problem) return problem;
  if (!LABEL_RE.test(value))
    return `${what} ${quote(
      value,
    )} must start and end with a lowercase letter or digit`;
  return undefined;
}

/**
 * A DNS-1123 subdomain, as Kubernetes requires for most object names: at most 253 characters, dot-separated
 * DNS-1123 labels. Returns what is wrong, or undefined.
 * @public
 */
export function validateDnsSubdomain(
  value: string,
  what = 'name',
): string | undefined {
  const problem = labelProblem(value, what, SUBDOMAIN_MAX, true);
  if (problem) return problem;
  const parts = value.split('.');
  if (parts.some(p => p === ''))
    return `${what} ${quote(
      value,
    )} must not contain empty parts between dots (or start or end with '.')`;
  if (parts.some(p => !LABEL_RE.test(p))) {
    return `${what} ${quote(
      value,
    )} must start and end with a lowercase letter or digit (also around each '.')`;
  }
  return undefined;
}

/**
 * CAPZ's `GetNormalizedKubernetesName` (azure/defaults.go, docs/capz-aso-facts.md#legacy-names): lowercase; every
 * character other than [a-z0-9-] becomes '-'; leading and trailing '-' trimmed. `RG_Prod.1` becomes `rg-prod-1`.
 * @public
 */
export function normalizeKubernetesName(name: string): string {
  return name
    .toLowerCase()
    .replace(/[^a-z0-9-]/g, '-')
    .replace(/^-+|-+$/g, '');
}
