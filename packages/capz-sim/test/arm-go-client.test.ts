/**
 * The simulated ARM endpoint driven by the Go code real ASO v2.18.0 runs: azcore v1.21.0's ARM pipeline and pollers
 * (resumed from their tokens, as ASO does between reconciles), azidentity v1.13.1 tokens from the simulated Entra ID
 * for azcore's public-cloud audience, and armcontainerservice v1.0.0 for the admin credentials
 * (`test/arm-go-client/main.go`; docs/azure-facts.md#arm-write-api). The Go program pauses at each `STEP`; the test
 * ends the model's operations there, so what the pollers see before and after is fixed.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { AzureError } from '../src/azure/errors.ts';
import { AzureWorld } from '../src/azure/model.ts';
import {
  entraAuthorizer,
  startArmServer,
  type ArmServer,
} from '../src/arm/server.ts';
import { startEntraSim, type EntraSim } from '../src/entra/server.ts';

const SUB = '5d2a9e4f-0000-4000-8000-0000000000a1';
const TENANT = '72f988bf-0000-4000-8000-0000000000e1';
const SP = {
  tenantId: TENANT,
  clientId: '3b1f0a2c-0000-4000-8000-0000000000e2',
  clientSecret: 'aso-secret',
};
const SOURCE = join(dirname(fileURLToPath(import.meta.url)), 'arm-go-client');

describe('simulated ARM endpoint with the Go clients of ASO v2.18.0 (azcore pollers, azidentity, armcontainerservice)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'capz-arm-go-'));
  const world = new AzureWorld({
    operationMs: 3_600_000, // ended by the test at each STEP
    subscriptions: [SUB],
  });
  let entra: EntraSim;
  let server: ArmServer;
  const binary = join(dir, 'arm-go-client');

  before(async () => {
    // Go's build cache makes this quick after the first build (about 90 s cold on 2 cores).
    await promisify(execFile)('go', ['build', '-o', binary, '.'], {
      cwd: SOURCE,
      env: { ...process.env, CGO_ENABLED: '0', GOFLAGS: '-mod=mod' },
    });
    entra = await startEntraSim({
      stateDir: dir,
      applications: ['https://management.core.windows.net/'],
      servicePrincipals: [SP],
    });
    server = await startArmServer({
      world,
      authorize: entraAuthorizer(entra, { [SP.clientId]: [SUB] }),
      stateDir: dir,
    });
  });

  after(async () => {
    await server?.close();
    await entra?.close();
    world.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('creates, reads, fails, deletes and lists credentials as ASO would', async () => {
    writeFileSync(join(dir, 'arm-ca.pem'), server.caPem);
    writeFileSync(join(dir, 'entra-ca.pem'), entra.caPem);
    world.failNextOperation(
      `/subscriptions/${SUB}/resourceGroups/rg-go/providers/Microsoft.ContainerService/managedClusters/aks-go/agentPools/user`,
      new AzureError(400, 'InvalidParameter', 'vmSize is not available.'),
    );
    const child = spawn(binary, [], {
      env: {
        ...process.env,
        ARM_URL: server.url,
        ENTRA_URL: entra.url,
        CA_FILES: `${join(dir, 'arm-ca.pem')},${join(dir, 'entra-ca.pem')}`,
        SUBSCRIPTION: SUB,
        TENANT_ID: TENANT,
        CLIENT_ID: SP.clientId,
        CLIENT_SECRET: SP.clientSecret,
      },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const exited = new Promise<number | null>(resolve =>
      child.on('close', resolve),
    );
    const steps: string[] = [];
    let result: Record<string, unknown> | undefined;
    for await (const line of createInterface({ input: child.stdout })) {
      if (line.startsWith('STEP ')) {
        steps.push(line.slice(5));
        world.completePendingOperations();
        child.stdin.write('\n');
      } else if (line.startsWith('RESULT ')) {
        result = JSON.parse(line.slice(7));
      }
    }
    assert.equal(await exited, 0, stderr);
    assert.deepEqual(steps, [
      'cluster-accepted',
      'pool-accepted',
      'pool-deleting',
    ]);
    assert.ok(result, stderr);
    const mcGet = result.mcGet as Record<string, unknown>;
    assert.match(String(mcGet.fqdn), /^aks-go-[0-9a-f]{8}\.hcp\.westeurope\./);
    assert.deepEqual(result, {
      // synchronous group PUT: azcore's body poller is done at once; HEAD is CheckExistenceByID's 204
      rgPut: { status: 201, done: true },
      rgHead: 204,
      // 201 + Azure-AsyncOperation: the async poller, still running after a first resumed poll
      mcPut: {
        status: 201,
        doneAtOnce: false,
        doneAfterFirstPoll: false,
        tokenKind: 'async',
      },
      mcDone: { done: true, error: '' },
      mcGet: {
        status: 200,
        provisioningState: 'Succeeded',
        fqdn: mcGet.fqdn,
        pools: 1,
        sku: { name: 'Base', tier: 'Free' },
      },
      adminKubeconfig: 'apiVersion: v1',
      // the failed LRO reaches the Go client as a ResponseError carrying the status body's error.code
      poolPut: { status: 201, done: true, error: 'InvalidParameter' },
      poolDeleteTokenKind: 'async',
      poolDelete: { status: 202, done: true, error: '' },
      unknownApiVersion: { status: 400, error: 'NoRegisteredProviderFound' },
      // the group's DELETE: 202 + Location, azcore's Location poller, done on the first poll
      rgDelete: {
        status: 202,
        doneAtOnce: false,
        tokenKind: 'loc',
        done: true,
        error: '',
      },
    });
    const seen = server.apiVersionsSeen();
    assert.ok(
      seen['POST Microsoft.ContainerService/managedClusters 2022-04-01'] > 0,
    );
    assert.ok(
      seen['PUT Microsoft.ContainerService/managedClusters 2025-08-01'] > 0,
    );
    assert.ok(
      seen['PUT Microsoft.Resources/subscriptions/resourceGroups 2020-06-01'] >
        0,
    );
  });
});
