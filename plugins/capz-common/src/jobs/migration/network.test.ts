import { evaluateObjectCondition } from '../conditions';
import type { ObservedObject } from '../../objects/types';
import type { PlannedCondition } from '../types';
import { find, mergePatch } from '../__fixtures__/snapshots';
import { params, POLICY, snapshot, step } from '../__fixtures__/migration';
import { planMigration, requiredMigrationAccess } from '.';

const PRE_PAUSE =
  'sigs.k8s.io/cluster-api-provider-azure-pre-pause-reconcile-policy';
const VNET = 'VirtualNetwork/legacy-1';
const SUBNET = 'VirtualNetworksSubnet/legacy-1-legacy-1';

/** A legacy cluster with the VNet and subnet real CAPZ v1.26.0's control plane makes (docs/real-controllers.md finding 10). */
const withNetwork = () => snapshot({ network: true });
const refs = (cs: PlannedCondition[]) =>
  cs.map(c =>
    c.type === 'annotation' ? `${c.ref.kind}/${c.ref.name}=${c.value}` : c.type,
  );

/** The JSON patch in the not-adopted fix, as the shell hands it to kubectl. */
function carryOverOf(fix: string | undefined): any[] {
  const m = /--type json -p '(\[.*\])'/.exec(fix ?? '');
  if (!m) throw new Error(`no JSON patch in: ${fix}`);
  return JSON.parse(m[1].replace(/'\\''/g, "'"));
}

describe('planMigration: the legacy control plane VNet and subnet', () => {
  it('checks one owner per AKS cluster with them excepted, and waits for CAPZ to have set them to skip', () => {
    const plan = planMigration(params, withNetwork()).plan;
    const sole = step(plan, 'pause').preconditions.find(
      c => c.type === 'sole-manager',
    ) as Extract<PlannedCondition, { type: 'sole-manager' }>;
    expect(sole.except.map(r => `${r.kind}/${r.name}`)).toEqual(
      expect.arrayContaining([VNET, SUBNET]),
    );
    const wait = step(plan, 'wait-block-move');
    expect(refs(wait.waitFor)).toEqual(
      expect.arrayContaining([`${VNET}=skip`, `${SUBNET}=skip`]),
    );
    expect(refs(wait.invariants ?? [])).toEqual(
      expect.arrayContaining([`${VNET}=skip`, `${SUBNET}=skip`]),
    );
  });

  it('disarms them (skip, finalizers dropped) after the ManagedCluster and before the group, subnet first, and the patch makes the waits hold', () => {
    const snap = withNetwork();
    const s = step(planMigration(params, snap).plan, 'disarm');
    expect(
      s.actions.map(a =>
        a.action === 'merge-patch' ? `${a.ref.kind}/${a.ref.name}` : a.action,
      ),
    ).toEqual([
      'ManagedClustersAgentPool/legacy-1-pool0',
      'ManagedClustersAgentPool/legacy-1-pool1',
      'ManagedCluster/legacy-1',
      SUBNET,
      VNET,
      'ResourceGroup/rg-legacy-1',
    ]);
    const net = s.actions.slice(3, 5);
    for (const a of net)
      expect(a).toMatchObject({
        action: 'merge-patch',
        ref: {
          apiVersion: 'network.azure.com/v1api20201101',
          namespace: 'team-legacy',
        },
        patch: {
          metadata: { annotations: { [POLICY]: 'skip' }, finalizers: null },
        },
      });
    const live = (kind: string, name: string) =>
      snap.objects.find(
        o => o.kind === kind && o.metadata.name === name,
      ) as ObservedObject;
    for (const a of net) {
      if (a.action !== 'merge-patch') continue;
      const wait = s.waitFor.find(
        c => c.type === 'annotation' && c.ref.name === a.ref.name,
      )!;
      expect(
        evaluateObjectCondition(wait, live(a.ref.kind, a.ref.name)).holds,
      ).toBe(false);
      expect(
        evaluateObjectCondition(
          wait,
          mergePatch(live(a.ref.kind, a.ref.name), a.patch) as ObservedObject,
        ).holds,
      ).toBe(true);
    }
  });

  it('deletes the old objects only with them on skip, drops their finalizers again, and verifies they are gone', () => {
    const plan = planMigration(params, withNetwork()).plan;
    const del = step(plan, 'delete-old');
    expect(refs(del.preconditions)).toEqual(
      expect.arrayContaining([`${VNET}=skip`, `${SUBNET}=skip`]),
    );
    expect(
      del.actions
        .filter(a => a.action === 'merge-patch')
        .map(a => (a.action === 'merge-patch' ? a.ref.kind : '')),
    ).toEqual(
      expect.arrayContaining(['VirtualNetwork', 'VirtualNetworksSubnet']),
    );
    // Never deleted by the job: they go with the old control plane (garbage collector), under skip.
    expect(
      del.actions
        .filter(a => a.action === 'delete')
        .map(a => (a.action === 'delete' ? a.ref.kind : '')),
    ).not.toContain('VirtualNetwork');
    expect(
      step(plan, 'verify')
        .waitFor.filter(c => c.type === 'absent')
        .map(c => (c.type === 'absent' ? `${c.ref.kind}/${c.ref.name}` : '')),
    ).toEqual(expect.arrayContaining([VNET, SUBNET]));
  });

  it('asks for get and patch on them in the old namespace', () => {
    const need = requiredMigrationAccess(params)
      .filter(a => a.group === 'network.azure.com')
      .map(a => `${a.verb} ${a.resource} ${a.namespace}`);
    expect(need).toEqual([
      'get virtualnetworks team-legacy',
      'patch virtualnetworks team-legacy',
      'get virtualnetworkssubnets team-legacy',
      'patch virtualnetworkssubnets team-legacy',
    ]);
  });

  it('warns that they stay unmanaged, with the exact spec.resources entries that keep their lifecycle', () => {
    const r = planMigration(params, withNetwork());
    const check = r.preflight.find(c => c.id === 'not-adopted')!;
    expect(check).toMatchObject({
      status: 'warn',
      message: expect.stringContaining(
        'VirtualNetwork legacy-1, VirtualNetworksSubnet legacy-1-legacy-1',
      ),
    });
    expect(check.fix).toContain(
      "kubectl -n team-legacy-aso patch azureasomanagedcluster legacy-1 --type json -p '",
    );
    // The command is quoted in backticks, whole: the wizard folds it with a Copy button.
    expect(check.fix).toMatch(/run: `kubectl [^`]+'`\./);
    const tags = {
      Name: 'legacy-1',
      'sigs.k8s.io_cluster-api-provider-azure_cluster_legacy-1': 'owned',
      'sigs.k8s.io_cluster-api-provider-azure_role': 'common',
    };
    const credential = {
      'serviceoperator.azure.com/credential-from': 'legacy-1-aso-secret',
    };
    // manage (CAPZ's own policy) is ASO's default: no annotation, which CAPZ's pause accepts.
    expect(carryOverOf(check.fix)).toEqual([
      {
        op: 'add',
        path: '/spec/resources/-',
        value: {
          apiVersion: 'network.azure.com/v1api20201101',
          kind: 'VirtualNetwork',
          metadata: { name: 'legacy-1', annotations: credential },
          spec: {
            azureName: 'legacy-1',
            location: 'westeurope',
            owner: { name: 'rg-legacy-1' },
            addressSpace: { addressPrefixes: ['10.0.0.0/8'] },
            tags,
          },
        },
      },
      {
        op: 'add',
        path: '/spec/resources/-',
        value: {
          apiVersion: 'network.azure.com/v1api20201101',
          kind: 'VirtualNetworksSubnet',
          metadata: { name: 'legacy-1-legacy-1', annotations: credential },
          spec: {
            azureName: 'legacy-1',
            owner: { name: 'legacy-1' },
            addressPrefix: '10.240.0.0/16',
            addressPrefixes: ['10.240.0.0/16'],
          },
        },
      },
    ]);
  });

  it('keeps the policy before the pause: skip is pinned, detach-on-delete is left out, manage saved by CAPZ stays unannotated', () => {
    const snap = withNetwork();
    const vnet = find(snap.objects, 'VirtualNetwork', 'legacy-1');
    const subnet = find(
      snap.objects,
      'VirtualNetworksSubnet',
      'legacy-1-legacy-1',
    );
    // What CAPZ's pause leaves: skip, with the earlier policy saved (azure/services/aso/aso.go PauseResource).
    vnet.metadata.annotations = {
      ...vnet.metadata.annotations,
      [POLICY]: 'skip',
      [PRE_PAUSE]: 'manage',
    };
    subnet.metadata.annotations = {
      ...subnet.metadata.annotations,
      [POLICY]: 'skip',
    };
    let fix = planMigration(params, snap).preflight.find(
      c => c.id === 'not-adopted',
    )!.fix;
    expect(
      carryOverOf(fix).map(op => [
        op.value.kind,
        op.value.metadata.annotations[POLICY],
      ]),
    ).toEqual([
      ['VirtualNetwork', undefined],
      ['VirtualNetworksSubnet', 'skip'],
    ]);
    subnet.metadata.annotations[POLICY] = 'detach-on-delete';
    fix = planMigration(params, snap).preflight.find(
      c => c.id === 'not-adopted',
    )!.fix;
    expect(carryOverOf(fix).map(op => op.value.kind)).toEqual([
      'VirtualNetwork',
    ]);
    expect(fix).toContain(
      'Left unmanaged on purpose: VirtualNetworksSubnet legacy-1-legacy-1 (detach-on-delete',
    );
  });

  it('names a VNet in a group the job does not adopt by its ARM id', () => {
    const snap = withNetwork();
    const vnet = find(snap.objects, 'VirtualNetwork', 'legacy-1');
    vnet.spec.owner = { name: 'rg-network' };
    vnet.status.id =
      '/subscriptions/s1/resourceGroups/network-rg/providers/Microsoft.Network/virtualNetworks/legacy-1';
    const fix = planMigration(params, snap).preflight.find(
      c => c.id === 'not-adopted',
    )!.fix;
    expect(carryOverOf(fix)[0].value.spec.owner).toEqual({
      armId: '/subscriptions/s1/resourceGroups/network-rg',
    });
  });

  it('without them there is nothing to warn about', () => {
    expect(
      planMigration(params, snapshot()).preflight.map(c => c.id),
    ).not.toContain('not-adopted');
  });
});

describe('planMigration: the texts a user reads', () => {
  it('name no Go source file: the wizard shows descriptions, checks and fixes as they are', () => {
    const r = planMigration(params, withNetwork());
    const texts = [
      ...r.preflight.flatMap(c => [c.title, c.message, c.fix ?? '']),
      ...r.plan.flatMap(s => [
        s.title,
        s.description,
        ...[...s.preconditions, ...s.waitFor, ...(s.invariants ?? [])].map(
          c => c.description,
        ),
        ...s.actions.map(a => a.description),
      ]),
    ];
    expect(texts.filter(t => /\b[\w/-]+\.go\b/.test(t))).toEqual([]);
  });
});
