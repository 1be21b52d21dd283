/**
 * AKS discovery for adoption, cluster creation and the migration's final check: which AKS clusters an ASO credential
 * can see, whether one (with its pools) exists, a resource group's location and tags, the versions and regions AKS
 * offers, a cluster's user kubeconfig. Reads ARM with `@azure/arm-containerservice` and the credential the ASO Secret
 * describes (docs/azure-facts.md#credential-from-aso-secret, docs/azure-facts.md#arm-sdk), against
 * `capz.azureDiscovery` (public cloud by default; the simulated ARM and Entra ID in dev and test). The credential and
 * client cache is arm/ArmAccess.ts; each query is a module of queries/.
 */
import type { LoggerService } from '@backstage/backend-plugin-api';
import type { Config } from '@backstage/config';
import type { DiscoveredAksClustersResponse } from '@capz-backstage/plugin-capz-common';
import {
  ArmAccess,
  type ArmCallOptions,
  type AzureRegion,
  type CredentialQuery,
  type SecretReader,
} from './arm/ArmAccess';
import { readAzureDiscoveryConfig } from './config';
import {
  AzureCredentialError,
  AzureRequestError,
  AzureServiceError,
} from './errors';
import {
  clusterExists,
  listClusters,
  type AsoTargetSources,
  type ClusterExistsQuery,
  type ClusterExistsResult,
} from './queries/clusters';
import {
  listKubernetesVersions,
  type OfferedKubernetesVersions,
} from './queries/kubernetesVersions';
import { listLocations } from './queries/locations';
import {
  resourceGroup,
  type ResourceGroupInfo,
  type ResourceGroupQuery,
} from './queries/resourceGroup';
import { listClusterUserCredential } from './queries/userCredential';

export {
  AKS_API_VERSION,
  LOCATIONS_API_VERSION,
  RESOURCES_API_VERSION,
  SUBSCRIPTIONS_API_VERSION,
} from './arm/pipeline';
export { LOCATIONS_TTL_MS } from './arm/ArmAccess';
export type {
  ArmCallOptions,
  AzureRegion,
  CredentialQuery,
} from './arm/ArmAccess';
export type {
  ClusterExistsQuery,
  ClusterExistsResult,
} from './queries/clusters';
export type {
  OfferedKubernetesVersion,
  OfferedKubernetesVersions,
} from './queries/kubernetesVersions';
export type {
  ResourceGroupInfo,
  ResourceGroupQuery,
} from './queries/resourceGroup';

export interface AksDiscoveryOptions extends AsoTargetSources {
  /** The root config (`capz.azureDiscovery`). */
  config: Config;
  logger: LoggerService;
  /** A Secret's data, base64-decoded; undefined when it does not exist. */
  readSecret: SecretReader;
}

export class AksDiscovery {
  private readonly arm: ArmAccess;

  constructor(private readonly options: AksDiscoveryOptions) {
    // Validated here, so a misconfiguration stops the backend at start with the key's name.
    this.arm = new ArmAccess(
      readAzureDiscoveryConfig(options.config),
      options.readSecret,
      options.logger,
    );
  }

  /** GET /azure/clusters: every AKS cluster of the Secret's subscription, marked when an ASO object already owns it. */
  listClusters(q: {
    managementCluster: string;
    namespace: string;
    credentialSecret: string;
  }): Promise<DiscoveredAksClustersResponse> {
    return listClusters(this.arm, this.options, q);
  }

  /** Whether the AKS cluster (and these pools) exists; a missing cluster or group is an answer, not an error. */
  clusterExists(q: ClusterExistsQuery): Promise<ClusterExistsResult> {
    return clusterExists(this.arm, q);
  }

  /** A resource group's location and tags; undefined when it does not exist. */
  resourceGroup(q: ResourceGroupQuery): Promise<ResourceGroupInfo | undefined> {
    return resourceGroup(this.arm, q);
  }

  /** The Kubernetes versions AKS offers in a region, newest first, previews left out. */
  listKubernetesVersions(
    q: CredentialQuery & { location: string },
  ): Promise<OfferedKubernetesVersions> {
    return listKubernetesVersions(this.arm, q);
  }

  /** The AKS cluster's user kubeconfig (may hold a secret: callers check it; never logged). */
  listClusterUserCredential(
    q: CredentialQuery & { resourceGroup: string; name: string },
    opts: ArmCallOptions = {},
  ): Promise<string> {
    return listClusterUserCredential(this.arm, q, opts);
  }

  /** The regions of the Secret's subscription, kept per credential and subscription for LOCATIONS_TTL_MS. */
  listLocations(
    q: CredentialQuery,
  ): Promise<{ subscriptionId: string; items: AzureRegion[] }> {
    return listLocations(this.arm, q);
  }
}

export { AzureCredentialError, AzureRequestError, AzureServiceError };
