/**
 * The simulated AKS's version lifecycle, in the model and on ARM's wire (no Kubernetes): auto-upgrade channels moving a
 * cluster's version when the maintenance tick runs (docs/azure-facts.md#aks-auto-upgrade), upgrades that fail on
 * demand (docs/azure-facts.md#aks-upgrade-failed), versions leaving the region's offer after their end of support
 * (docs/azure-facts.md#aks-version-end-of-support).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ContainerServiceClient } from '@azure/arm-containerservice';
import { startArmServer } from '../src/arm/server.ts';
import {
  kubernetesVersionsToWire,
  managedClusterToWire,
} from '../src/arm/wire.ts';
import {
  autoUpgradeTarget,
  AzureWorld,
  KUBERNETES_VERSIONS,
  type AzureWorldOptions,
} from '../src/azure/model.ts';

const SUB = 'sub-1';
const MC_PATH = (rg: string, name: string) =>
  `/subscriptions/${SUB}/resourceGroups/${rg}/providers/Microsoft.ContainerService/managedClusters/${name}`;

/** A world with one Succeeded cluster on `version` and the given auto-upgrade channel (none when undefined). */
function worldWith(
  version: string,
  channel?: string,
  opts: AzureWorldOptions = {},
) {
  const w = new AzureWorld({
    operationMs: 60_000,
    subscriptions: [SUB],
    ...opts,
  });
  w.putResourceGroup(SUB, 'rg', { location: 'westeurope' });
  w.putManagedCluster(SUB, 'rg', 'aks', {
    location: 'westeurope',
    kubernetesVersion: version,
    agentPoolProfiles: [
      { name: 'system', mode: 'System', count: 1 },
      { name: 'user', mode: 'User', count: 1 },
    ],
    ...(channel
      ? {
          extra: {
            properties: { autoUpgradeProfile: { upgradeChannel: channel } },
          },
        }
      : {}),
  });
  w.completePendingOperations();
  const get = () =>
    managedClusterToWire(w.getManagedCluster(SUB, 'rg', 'aks')!);
  return { w, get };
}

/** Runs the maintenance tick and lets its operations finish; returns the versions ARM's GET then shows. */
function tick(
  w: AzureWorld,
  get: () => ReturnType<typeof managedClusterToWire>,
) {
  w.autoUpgradeNow();
  w.completePendingOperations();
  const p = get().properties;
  return {
    kubernetesVersion: p.kubernetesVersion,
    currentKubernetesVersion: p.currentKubernetesVersion,
    pools: p.agentPoolProfiles.map(x => x.currentOrchestratorVersion),
    provisioningState: p.provisioningState,
  };
}

describe('auto-upgrade channels (the region offers 1.31-1.33 GA, 1.34 preview)', () => {
  it('patch: the latest patch of its minor, never the next minor', () => {
    const { w, get } = worldWith('1.32.5', 'patch');
    assert.deepEqual(tick(w, get), {
      kubernetesVersion: '1.32.6',
      currentKubernetesVersion: '1.32.6',
      pools: ['1.32.6', '1.32.6'],
      provisioningState: 'Succeeded',
    });
    assert.equal(tick(w, get).currentKubernetesVersion, '1.32.6');
    w.close();
  });

  it('stable: towards the latest patch of N-1 (1.32), one minor at a time; at N-1 nothing more', () => {
    const { w, get } = worldWith('1.31.9', 'stable');
    assert.equal(tick(w, get).currentKubernetesVersion, '1.32.6');
    assert.equal(tick(w, get).currentKubernetesVersion, '1.32.6');
    w.close();
    // A cluster on N keeps its version (it is past the channel's minor).
    const on = worldWith('1.33.1', 'stable');
    assert.equal(tick(on.w, on.get).currentKubernetesVersion, '1.33.1');
    on.w.close();
  });

  it('rapid: towards the latest GA patch (1.33.2), N-2 first to N-1, previews never', () => {
    const { w, get } = worldWith('1.31.9', 'rapid');
    assert.equal(tick(w, get).currentKubernetesVersion, '1.32.6');
    assert.equal(tick(w, get).currentKubernetesVersion, '1.33.2');
    assert.equal(tick(w, get).currentKubernetesVersion, '1.33.2');
    w.close();
  });

  it('node-image, none and no channel leave the Kubernetes version alone', () => {
    for (const channel of ['node-image', 'none', undefined]) {
      const { w, get } = worldWith('1.31.9', channel);
      assert.deepEqual(w.autoUpgradeNow(), [], String(channel));
      assert.equal(tick(w, get).currentKubernetesVersion, '1.31.9');
      w.close();
    }
  });

  it('the tick is an AKS operation: Updating with the goal version, the running one moves when it is done', () => {
    const { w, get } = worldWith('1.32.5', 'patch');
    assert.deepEqual(w.autoUpgradeNow(), [
      {
        subscriptionId: SUB,
        resourceGroup: 'rg',
        name: 'aks',
        channel: 'patch',
        from: '1.32.5',
        to: '1.32.6',
      },
    ]);
    const during = get().properties;
    assert.equal(during.provisioningState, 'Updating');
    assert.equal(during.kubernetesVersion, '1.32.6');
    assert.equal(during.currentKubernetesVersion, '1.32.5');
    // Busy: the next tick starts nothing, and AKS's own upgrade is not a write anybody made.
    assert.deepEqual(w.autoUpgradeNow(), []);
    assert.equal(w.counters.updated.managedClusters, 0);
    w.completePendingOperations();
    assert.equal(get().properties.currentKubernetesVersion, '1.32.6');
    w.close();
  });

  it('autoUpgradeMs runs the tick on its own; without it nothing moves', async () => {
    const idle = worldWith('1.32.5', 'patch', { operationMs: 1 });
    const moving = worldWith('1.32.5', 'patch', {
      operationMs: 1,
      autoUpgradeMs: 5,
    });
    await new Promise<void>(resolve => {
      const check = () => {
        if (moving.get().properties.currentKubernetesVersion !== '1.32.6')
          return;
        moving.w.off('change', check);
        resolve();
      };
      moving.w.on('change', check);
    });
    assert.equal(idle.get().properties.currentKubernetesVersion, '1.32.5');
    idle.w.close();
    moving.w.close();
  });

  it("AKS's documented example: 1.17.7 with 1.17.9, 1.18.4, 1.18.6, 1.19.1 available", () => {
    const offered = [
      { minor: '1.17', patches: ['1.17.7', '1.17.9'] },
      { minor: '1.18', patches: ['1.18.4', '1.18.6'] },
      { minor: '1.19', patches: ['1.19.1'] },
    ];
    assert.equal(autoUpgradeTarget('patch', '1.17.7', offered), '1.17.9');
    assert.equal(autoUpgradeTarget('stable', '1.17.7', offered), '1.18.6');
    assert.equal(autoUpgradeTarget('rapid', '1.17.7', offered), '1.18.6');
    assert.equal(autoUpgradeTarget('rapid', '1.18.6', offered), '1.19.1');
    assert.equal(autoUpgradeTarget('node-image', '1.17.7', offered), undefined);
  });
});

describe('an upgrade that fails on demand', () => {
  it("a PUT to the failing version: accepted, then Failed with AKS's UpgradeFailed; the running version stays", () => {
    const { w, get } = worldWith('1.32.6');
    w.failUpgrade({ version: '1.33.2', cluster: 'AKS' });
    const { created } = w.putManagedCluster(SUB, 'rg', 'aks', {
      location: 'westeurope',
      kubernetesVersion: '1.33.2',
    });
    assert.equal(created, false);
    w.completePendingOperations();
    const p = get().properties;
    assert.equal(p.provisioningState, 'Failed');
    assert.equal(p.currentKubernetesVersion, '1.32.6');
    const e = w.operationError(MC_PATH('rg', 'aks'));
    assert.equal(e?.code, 'UpgradeFailed');
    assert.match(
      e!.message,
      /^Drain node aks-system-[0-9a-f]{8}-vmss000000 failed when evicting pod .* Pod Disruption Budget \(PDB\)/,
    );
    // It keeps failing (a retry meets the same cause) until the rule is lifted; then the upgrade goes through.
    w.putManagedCluster(SUB, 'rg', 'aks', {
      location: 'westeurope',
      kubernetesVersion: '1.33.2',
    });
    w.completePendingOperations();
    assert.equal(get().properties.provisioningState, 'Failed');
    w.clearUpgradeFailures();
    w.putManagedCluster(SUB, 'rg', 'aks', {
      location: 'westeurope',
      kubernetesVersion: '1.33.2',
    });
    w.completePendingOperations();
    assert.equal(get().properties.provisioningState, 'Succeeded');
    assert.equal(get().properties.currentKubernetesVersion, '1.33.2');
    assert.equal(w.operationError(MC_PATH('rg', 'aks')), undefined);
    w.close();
  });

  it('only the named cluster and version fail; other changes of that cluster succeed', () => {
    const { w, get } = worldWith('1.32.5');
    w.failUpgrade({ version: '1.33' });
    w.putManagedCluster(SUB, 'rg', 'aks', {
      location: 'westeurope',
      kubernetesVersion: '1.32.6',
      tags: { team: 'a' },
    });
    w.completePendingOperations();
    assert.equal(get().properties.provisioningState, 'Succeeded');
    assert.equal(get().properties.currentKubernetesVersion, '1.32.6');
    w.failUpgrade({ version: '1.32.6', cluster: 'other' });
    w.putAgentPool(SUB, 'rg', 'aks', 'user', { orchestratorVersion: '1.32.6' });
    w.completePendingOperations();
    assert.equal(
      w.getAgentPool(SUB, 'rg', 'aks', 'user')?.provisioningState,
      'Succeeded',
    );
    w.close();
  });

  it("a pool's upgrade to the failing version fails the same way (its own operation, the pool Failed)", () => {
    const { w } = worldWith('1.32.5');
    w.failUpgrade({
      version: '1.32.6',
      cluster: 'aks',
      error: { code: 'UpgradeFailed', message: 'drain failed' },
    });
    w.putAgentPool(SUB, 'rg', 'aks', 'user', { orchestratorVersion: '1.32.6' });
    w.completePendingOperations();
    const pool = w.getAgentPool(SUB, 'rg', 'aks', 'user')!;
    assert.equal(pool.provisioningState, 'Failed');
    assert.equal(pool.currentOrchestratorVersion, '1.32.5');
    assert.deepEqual(
      w.operationError(`${MC_PATH('rg', 'aks')}/agentPools/user`)?.toBody(),
      { error: { code: 'UpgradeFailed', message: 'drain failed' } },
    );
    w.close();
  });

  it('an auto-upgrade to the failing version leaves the cluster Failed on its running version', () => {
    const { w, get } = worldWith('1.32.5', 'patch');
    w.failUpgrade({ version: '1.32.6' });
    const after = tick(w, get);
    assert.equal(after.provisioningState, 'Failed');
    assert.equal(after.currentKubernetesVersion, '1.32.5');
    assert.deepEqual(after.pools, ['1.32.5', '1.32.5']);
    w.close();
  });
});

describe('versions leaving support on a date', () => {
  // The dates of the backend's release calendar (capz-common AKS_RELEASE_CALENDAR) for the simulated minors.
  const versionSupport = [
    { minor: '1.31', endOfLife: '2025-11-01', ltsEndOfLife: '2026-11-30' },
    { minor: '1.32', endOfLife: '2026-03-31', ltsEndOfLife: '2027-03-31' },
    { minor: '1.33', endOfLife: '2026-07-31', ltsEndOfLife: '2027-07-31' },
    { minor: '1.34', endOfLife: '2026-11-30', ltsEndOfLife: '2027-11-30' },
  ];
  const minors = (w: AzureWorld) =>
    kubernetesVersionsToWire(w.kubernetesVersions()).values.map(v => v.version);

  it("listKubernetesVersions drops a minor the day after its end of support, by the simulator's clock", () => {
    let today = '2026-03-31T23:59:59Z';
    const { w } = worldWith('1.32.6', undefined, {
      versionSupport,
      now: () => new Date(today),
    });
    assert.deepEqual(minors(w), ['1.31', '1.32', '1.33', '1.34']);
    today = '2026-04-01T00:00:00Z';
    assert.deepEqual(minors(w), ['1.31', '1.33', '1.34']);
    // 1.31 is offered as LTS (AKSLongTermSupport) until its LTS end; 1.33's community support has ended.
    today = '2026-08-01T00:00:00Z';
    assert.deepEqual(minors(w), ['1.31', '1.34']);
    // The region no longer takes it in a PUT; the cluster on it keeps running.
    assert.throws(
      () =>
        w.putAgentPool(SUB, 'rg', 'aks', 'extra', {
          orchestratorVersion: '1.32.6',
        }),
      { code: 'AgentPoolK8sVersionNotSupported' },
    );
    assert.equal(
      w.getManagedCluster(SUB, 'rg', 'aks')?.currentKubernetesVersion,
      '1.32.6',
    );
    w.close();
  });

  it("the ARM endpoint's listKubernetesVersions (the real SDK) answers by the clock", async () => {
    let today = '2026-03-31T12:00:00Z';
    const world = new AzureWorld({
      subscriptions: [SUB],
      versionSupport,
      now: () => new Date(today),
    });
    const stateDir = mkdtempSync(join(tmpdir(), 'capz-sim-eos-'));
    const server = await startArmServer({
      world,
      tokens: { token: [SUB] },
      stateDir,
    });
    try {
      const sdk = new ContainerServiceClient(
        {
          getToken: async () => ({
            token: 'token',
            expiresOnTimestamp: Date.now() + 3600_000,
          }),
        },
        SUB,
        {
          endpoint: server.url,
          apiVersion: '2024-09-01',
          tlsOptions: { ca: server.caPem },
          retryOptions: { maxRetries: 0 },
        },
      );
      const list = async () =>
        (
          await sdk.managedClusters.listKubernetesVersions('westeurope')
        ).values?.map(v => v.version);
      assert.deepEqual(await list(), ['1.31', '1.32', '1.33', '1.34']);
      today = '2026-04-01T12:00:00Z';
      assert.deepEqual(await list(), ['1.31', '1.33', '1.34']);
    } finally {
      await server.close();
      world.close();
      rmSync(stateDir, { recursive: true, force: true });
    }
  });

  it('without dates every version is offered whatever the clock', () => {
    const { w } = worldWith('1.32.6', undefined, {
      now: () => new Date('2030-01-01T00:00:00Z'),
    });
    assert.deepEqual(
      minors(w),
      KUBERNETES_VERSIONS.map(m => m.minor),
    );
    w.close();
  });

  it('auto-upgrade channels only move to versions still offered', () => {
    const { w, get } = worldWith('1.32.5', 'rapid', {
      versionSupport: [{ minor: '1.33', endOfLife: '2026-07-31' }],
      now: () => new Date('2026-08-01T00:00:00Z'),
    });
    // 1.33 is gone: N is 1.32, so rapid takes 1.32's latest patch.
    assert.equal(tick(w, get).currentKubernetesVersion, '1.32.6');
    w.close();
  });
});
