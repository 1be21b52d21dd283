import type { RootConfigService } from '@backstage/backend-plugin-api';
import { clusterPagePath } from '@capz-backstage/plugin-capz-common';

/** The cluster's page in the app: absolute when app.baseUrl is configured, else relative to the app. */
export function clusterPageUrl(
  config: RootConfigService | undefined,
  c: { managementCluster: string; namespace: string; name: string },
): string {
  const base = config?.getOptionalString('app.baseUrl')?.replace(/\/+$/, '');
  return `${base ?? ''}${clusterPagePath(c)}`;
}
