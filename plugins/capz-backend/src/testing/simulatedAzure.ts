/**
 * The simulated Azure in process for integration tests that need ARM but not the simulated controllers: the Azure
 * model, its ARM endpoint and Entra ID (packages/capz-sim), with the simulator's service principal allowed on one
 * subscription, and AKS discovery built as the backend builds it, reading the ASO credential Secrets from the test's
 * API server.
 */
import type { LoggerService } from '@backstage/backend-plugin-api';
import { ConfigReader } from '@backstage/config';
import type { ObservedObject } from '@capz-backstage/plugin-capz-common';
// Test-only: the simulated Azure endpoints.
// eslint-disable-next-line @backstage/no-undeclared-imports
import {
  ARM_RESOURCE,
  AzureWorld,
  entraAuthorizer,
  SIM_SERVICE_PRINCIPAL,
  startArmServer,
  startEntraSim,
} from '@internal/capz-sim/azure';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AksDiscovery } from '../azure/AksDiscovery';
import { ClusterInfo, kube } from './realCluster';

export interface SimulatedAzure {
  world: AzureWorld;
  /** The `stringData` of an ASO credential Secret for the simulator's service principal on the subscription. */
  credentialData: Record<string, string>;
  /** AKS discovery against the simulated endpoints; the watch cache's ASO objects when given. */
  discovery(o: {
    logger: LoggerService;
    managedClusters?: (managementCluster: string) => ObservedObject[];
    resourceGroups?: (managementCluster: string) => ObservedObject[];
  }): AksDiscovery;
  stop(): Promise<void>;
}

export async function startSimulatedAzure(
  info: Pick<ClusterInfo, 'url' | 'caPem' | 'adminToken'>,
  subscription: string,
): Promise<SimulatedAzure> {
  const stateDir = mkdtempSync(join(tmpdir(), 'capz-simulated-azure-'));
  const world = new AzureWorld({
    operationMs: 1,
    subscriptions: [subscription],
  });
  const entra = await startEntraSim({
    stateDir,
    applications: [ARM_RESOURCE],
    servicePrincipals: [SIM_SERVICE_PRINCIPAL],
  });
  const arm = await startArmServer({
    world,
    authorize: entraAuthorizer(entra, {
      [SIM_SERVICE_PRINCIPAL.clientId]: [subscription],
    }),
    stateDir,
  });
  const readSecret = async (_mc: string, namespace: string, name: string) => {
    const r = await kube(
      info,
      'GET',
      `/api/v1/namespaces/${namespace}/secrets/${name}`,
    );
    if (r.status === 404) return undefined;
    return Object.fromEntries(
      Object.entries(r.body.data as Record<string, string>).map(([k, v]) => [
        k,
        Buffer.from(v, 'base64').toString('utf8'),
      ]),
    );
  };
  return {
    world,
    credentialData: {
      AZURE_SUBSCRIPTION_ID: subscription,
      AZURE_TENANT_ID: SIM_SERVICE_PRINCIPAL.tenantId,
      AZURE_CLIENT_ID: SIM_SERVICE_PRINCIPAL.clientId,
      AZURE_CLIENT_SECRET: SIM_SERVICE_PRINCIPAL.clientSecret,
    },
    discovery: o =>
      new AksDiscovery({
        config: new ConfigReader({
          capz: {
            azureDiscovery: {
              resourceManagerEndpoint: arm.url,
              authorityHost: entra.url,
              disableInstanceDiscovery: true,
              caData: `${arm.caPem}\n${entra.caPem}`,
            },
          },
        }),
        logger: o.logger,
        readSecret,
        managedClusters: o.managedClusters ?? (() => []),
        resourceGroups: o.resourceGroups,
      }),
    stop: async () => {
      await arm.close();
      await entra.close();
      world.close();
      rmSync(stateDir, { recursive: true, force: true });
    },
  };
}
