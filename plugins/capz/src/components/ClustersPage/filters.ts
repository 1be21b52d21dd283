import {
  ClusterApi,
  ClusterSummary,
  Health,
} from '@capz-backstage/plugin-capz-common';

/** The clusters page's filters; every one is optional ("all"). They live in the URL, so a filtered view is a link. */
export interface ClusterFilters {
  q?: string;
  managementCluster?: string;
  namespace?: string;
  health?: Health;
  api?: ClusterApi;
  /** 'yes' | 'no' */
  migration?: 'yes' | 'no';
  location?: string;
}

export const FILTER_KEYS = [
  'q',
  'managementCluster',
  'namespace',
  'health',
  'api',
  'migration',
  'location',
] as const;

export const API_LABEL: Record<ClusterApi, string> = {
  'aso-v1beta1': 'ASO-managed (v1beta1)',
  'aso-v1alpha1': 'ASO-managed (v1alpha1, deprecated)',
  'azure-managed': 'AzureManaged (deprecated)',
};

export function readFilters(params: URLSearchParams): ClusterFilters {
  const f: Record<string, string> = {};
  for (const k of FILTER_KEYS) {
    const v = params.get(k);
    if (v) f[k] = v;
  }
  return f as ClusterFilters;
}

/** Whether a cluster matches the search text: any of its names, reason, message, version, location or owner. */
function matchesSearch(c: ClusterSummary, q: string): boolean {
  const needle = q.trim().toLowerCase();
  if (!needle) return true;
  return [
    c.name,
    c.namespace,
    c.managementCluster,
    c.reason,
    c.message,
    c.kubernetesVersion,
    c.location,
    c.owner,
  ].some(v => v?.toLowerCase().includes(needle));
}

export function applyFilters(
  items: ClusterSummary[],
  f: ClusterFilters,
): ClusterSummary[] {
  return items.filter(
    c =>
      (!f.q || matchesSearch(c, f.q)) &&
      (!f.managementCluster || c.managementCluster === f.managementCluster) &&
      (!f.namespace || c.namespace === f.namespace) &&
      (!f.health || (c.health ?? 'unknown') === f.health) &&
      (!f.api || c.api === f.api) &&
      (!f.migration ||
        Boolean(c.migrationCandidate) === (f.migration === 'yes')) &&
      (!f.location || c.location === f.location),
  );
}

export const distinct = (values: Array<string | undefined>): string[] =>
  [...new Set(values.filter((v): v is string => Boolean(v)))].sort((a, b) =>
    a.localeCompare(b),
  );
