/**
 * The adoption job against the real CAPI v1.13.3, CAPZ v1.26.0 and ASO v2.18.0 managers, with only Azure simulated
 * (`capz-sim run --real-controllers`: Entra ID and ARM under their real names behind an HTTPS proxy, a workload API
 * server with the clusters' Nodes). Part of the real-controllers lane (issue 12), not of the default integration run:
 *
 *   yarn workspace @internal/mgmt-cluster test:real-controllers
 *
 * An AKS cluster that exists only in Azure (made through real ASO with detach-on-delete, then detached) is adopted by
 * the job engine of a real backend process: the real CAPZ adoption controllers build the Cluster from the ASO objects
 * the job writes, real ASO adopts the Azure resources, and Azure creates and deletes nothing.
 */
// Test-only: the simulator's per-field view of one resource group (as safety.integration.test.ts uses it).
// eslint-disable-next-line @backstage/no-undeclared-imports
import { azureResourceState } from '@internal/capz-sim/azure';
import { makeAzureOnlyCluster } from '../testing/jobFixtures';
import { everyStep, JobsWorld, system, user } from '../testing/jobsWorld';
import type { BackendProcess } from '../testing/backendProcess';
import { until } from '../testing/realCluster';

const w = new JobsWorld('real-jobs');
let main: BackendProcess;

const AZURE_ONLY = {
  resourceGroup: 'rg-real-adopt',
  name: 'real-adopt',
  pools: [system(1), user('web', 2)],
};

beforeAll(async () => {
  await w.start({ scenarios: 'none', realControllers: true, operationMs: 300 });
  const backendStarting = w.backend('main', w.sqlite('main'));
  backendStarting.catch(() => undefined);
  await w.namespaceWithCredential('fixtures');
  await makeAzureOnlyCluster(w.c, {
    scratchNamespace: 'fixtures',
    credentialSecret: 'aso-credential',
    ...AZURE_ONLY,
  });
  main = await backendStarting;
  w.markBaseline();
}, 600_000);

afterAll(() => w.stop(), 120_000);

it('adopts an Azure-only AKS cluster through the real CAPZ and ASO, creating and deleting nothing in Azure', async () => {
  const ns = 'adopt-real';
  await w.namespaceWithCredential(ns);
  const azureState = () =>
    azureResourceState(w.azure() as any, {
      resourceGroup: AZURE_ONLY.resourceGroup,
    });
  const before = azureState();
  const started = Date.now();
  const job = await w.finished(
    main,
    (
      await w.submit(
        main,
        w.adopt(ns, {
          resourceGroup: AZURE_ONLY.resourceGroup,
          name: AZURE_ONLY.name,
        }),
      )
    ).id,
  );
  w.say(
    `adoption job finished in ${((Date.now() - started) / 1000).toFixed(1)} s`,
  );
  everyStep(job);
  await w.adoptedCluster(ns, AZURE_ONLY.name, AZURE_ONLY.pools);
  await w.azureUntouched(
    AZURE_ONLY.resourceGroup,
    AZURE_ONLY.name,
    AZURE_ONLY.pools.map(p => p.name),
  );
  // Every field of the group, the cluster and its pools as they were, once the persisted state (which trails ARM by
  // 200 ms) shows nothing in flight.
  await until('the persisted Azure state to show nothing in flight', () =>
    w
      .azure()
      .managedClusters.filter(
        (m: any) => m.resourceGroup === AZURE_ONLY.resourceGroup,
      )
      .every(
        (m: any) =>
          m.provisioningState === 'Succeeded' &&
          Object.values(m.agentPools).every(
            (p: any) => p.provisioningState === 'Succeeded',
          ),
      ),
  );
  expect(azureState()).toEqual(before);
  w.say(
    `Azure after the adoption: updated ${JSON.stringify(
      w.azure().counters.updated,
    )} (PUTs of real ASO onto the existing resources), created/deleted as before`,
  );
}, 600_000);
