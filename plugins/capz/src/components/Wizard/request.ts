import {
  DNS_LABEL_MAX_LENGTH,
  DNS_LABEL_PATTERN,
} from '@capz-backstage/plugin-capz-common';

/**
 * Why `value` is not a valid namespace name (an RFC 1123 DNS label, as Kubernetes requires), or undefined. capz-common's
 * rule, the backend's too, checked here in the form's own words so the user sees it while typing.
 */
export function dnsLabelError(value: string): string | undefined {
  if (!value) return 'Enter a namespace name.';
  if (value.length > DNS_LABEL_MAX_LENGTH)
    return `Must be at most ${DNS_LABEL_MAX_LENGTH} characters (it has ${value.length}).`;
  if (!DNS_LABEL_PATTERN.test(value)) {
    return 'Must be a DNS label: lowercase letters, digits and "-", starting and ending with a letter or digit.';
  }
  return undefined;
}
