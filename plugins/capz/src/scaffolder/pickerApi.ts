import { ResponseError } from '@backstage/errors';
import {
  discoveryApiRef,
  fetchApiRef,
  useApi,
} from '@backstage/frontend-plugin-api';
import type {
  CredentialSecretsResponse,
  ManagementClustersResponse,
} from '@capz-backstage/plugin-capz-common';
import { useCallback } from 'react';

import type { NamespacesResponse } from '../api/CapzApi';

export type { NamespacesResponse };
/** GET /pickers/regions */
export interface RegionsResponse {
  subscriptionId: string;
  items: Array<{ name: string; displayName: string }>;
}
/** GET /pickers/kubernetes-versions */
export interface KubernetesVersionsResponse {
  subscriptionId: string;
  location: string;
  previewsHidden: number;
  items: Array<{
    version: string;
    minor: string;
    isDefault: boolean;
    supportPlans: string[];
  }>;
}
/** GET /pickers/vm-sizes */
export interface VmSizesResponse {
  items: Array<{ name: string; vCPUs: number; memoryGiB: number }>;
}

/** The capz backend's read routes the form's fields use. */
export interface PickerApi {
  managementClusters(): Promise<ManagementClustersResponse>;
  namespaces(q: { managementCluster: string }): Promise<NamespacesResponse>;
  credentialSecrets(q: {
    managementCluster: string;
    namespace: string;
  }): Promise<CredentialSecretsResponse>;
  regions(q: {
    managementCluster: string;
    namespace: string;
    credentialSecret: string;
  }): Promise<RegionsResponse>;
  kubernetesVersions(q: {
    managementCluster: string;
    namespace: string;
    credentialSecret: string;
    location: string;
  }): Promise<KubernetesVersionsResponse>;
  vmSizes(): Promise<VmSizesResponse>;
}

/** The pickers' HTTP client over Backstage's discovery and fetch APIs (the user's token travels with fetchApi). */
export function usePickerApi(): PickerApi {
  const discoveryApi = useApi(discoveryApiRef);
  const fetchApi = useApi(fetchApiRef);
  const get = useCallback(
    async <T>(path: string, query: Record<string, string> = {}) => {
      const base = await discoveryApi.getBaseUrl('capz');
      const qs = new URLSearchParams(query).toString();
      const res = await fetchApi.fetch(`${base}${path}${qs ? `?${qs}` : ''}`);
      if (!res.ok) throw await ResponseError.fromResponse(res);
      return (await res.json()) as T;
    },
    [discoveryApi, fetchApi],
  );
  return {
    managementClusters: () => get('/management-clusters'),
    namespaces: q => get('/pickers/namespaces', q),
    credentialSecrets: q => get('/credential-secrets', q),
    regions: q => get('/pickers/regions', q),
    kubernetesVersions: q => get('/pickers/kubernetes-versions', q),
    vmSizes: () => get('/pickers/vm-sizes'),
  };
}
