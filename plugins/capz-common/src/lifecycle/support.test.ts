import type { ObservedObject } from '../objects/types';
import { AKS_RELEASE_CALENDAR } from './calendar';
import { aksVersionSupport, poolSkews, versionConflicts } from './support';

describe('aksVersionSupport: where a version stands on a day', () => {
  it('community support until the last day of the end-of-life month, with attention once the end is near', () => {
    const far = aksVersionSupport('v1.35.1', { today: '2026-12-03' });
    expect(far).toMatchObject({
      minor: '1.35',
      status: 'community',
      until: '2027-03-31',
      daysLeft: 118,
      attention: 'none',
      message: 'Kubernetes 1.35 is supported until Mar 31, 2027 (in 118 days).',
    });
    expect(far.fix).toBeUndefined();
    const near = aksVersionSupport('1.34.2', { today: '2026-11-01' });
    expect(near).toMatchObject({
      status: 'community',
      daysLeft: 29,
      attention: 'soon',
      fix: 'Upgrade the control plane to 1.35, then its node pools: AKS moves a supported cluster one minor version at a time.',
    });
    // The last day itself is still supported; the day after is not.
    expect(aksVersionSupport('1.34', { today: '2026-11-30' })).toMatchObject({
      status: 'community',
      daysLeft: 0,
    });
    expect(aksVersionSupport('1.34', { today: '2026-12-01' }).status).toBe(
      'platform',
    );
    // An explicit day in the table (1.30: Aug 22, 2025).
    expect(aksVersionSupport('1.30.5', { today: '2025-08-22' }).status).toBe(
      'community',
    );
    expect(aksVersionSupport('1.30.5', { today: '2025-08-23' }).status).toBe(
      'platform',
    );
  });

  it('platform support (N-3) after that, until the minor four versions newer reaches GA, then out of support', () => {
    // 1.33: community until Jul 2026; 1.37 reached GA in Oct 2026.
    expect(aksVersionSupport('v1.33.2', { today: '2026-08-15' })).toMatchObject(
      {
        status: 'platform',
        until: '2026-10-01',
        daysLeft: 47,
        attention: 'now',
        message:
          "Kubernetes 1.33's community support ended Jul 31, 2026: platform support only (N-3: no Kubernetes fixes or security patches, no new clusters) until 1.37 reaches AKS GA (Oct 2026).",
      },
    );
    const out = aksVersionSupport('v1.33.2', { today: '2026-12-03' });
    expect(out).toMatchObject({
      status: 'out-of-support',
      attention: 'now',
      message: expect.stringMatching(
        /^Kubernetes 1\.33's community support ended Jul 31, 2026, and its platform support when 1\.37 reached AKS GA \(Oct 2026\): it is out of support/,
      ),
    });
    expect(out.fix).toMatch(/^Upgrade now/);
    // 1.34's N-4 (1.38) is not dated yet: platform support with no end known.
    expect(aksVersionSupport('1.34.1', { today: '2026-12-03' })).toMatchObject({
      status: 'platform',
      message: expect.stringContaining(
        'until 1.38 reaches AKS GA (not dated yet)',
      ),
    });
    expect(
      aksVersionSupport('1.34.1', { today: '2026-12-03' }).until,
    ).toBeUndefined();
  });

  it('long-term support, when the cluster has it, after community support', () => {
    const lts = aksVersionSupport('1.33.2', { today: '2026-12-03', lts: true });
    expect(lts).toMatchObject({
      status: 'lts',
      until: '2027-07-31',
      daysLeft: 240,
      attention: 'none',
      message:
        "Kubernetes 1.33's community support ended Jul 31, 2026; long-term support lasts until Jul 31, 2027 (in 240 days).",
    });
    expect(
      aksVersionSupport('1.31.4', { today: '2026-12-03', lts: true }).status,
    ).toBe('out-of-support');
    // During community support LTS changes nothing.
    expect(
      aksVersionSupport('1.35.0', { today: '2026-12-03', lts: true }).status,
    ).toBe('community');
  });

  it('says so for a version the calendar does not hold, or no version at all', () => {
    expect(aksVersionSupport('1.40.0', { today: '2026-12-03' })).toMatchObject({
      status: 'unknown',
      attention: 'none',
      message:
        'Kubernetes 1.40 is not in the AKS release calendar this product ships (1.29–1.37); its support dates are not known here.',
    });
    expect(aksVersionSupport('latest', { today: '2026-12-03' }).status).toBe(
      'unknown',
    );
  });

  it('the shipped calendar is ordered, and each end of life follows its GA', () => {
    const minors = AKS_RELEASE_CALENDAR.map(c => Number(c.minor.split('.')[1]));
    expect(minors).toEqual([...minors].sort((a, b) => a - b));
    for (const c of AKS_RELEASE_CALENDAR) {
      expect(c.endOfLife > c.ga).toBe(true);
      expect((c.ltsEndOfLife ?? '9999') > c.endOfLife).toBe(true);
    }
  });
});

describe('versionConflicts: when CAPZ and AKS both own the version', () => {
  const cp = (o: {
    version?: string;
    live?: string;
    channel?: string;
  }): ObservedObject => ({
    apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1',
    kind: 'AzureASOManagedControlPlane',
    metadata: { name: 'pay', namespace: 'team-pay' },
    spec: {
      ...(o.version ? { version: o.version } : {}),
      resources: [
        {
          apiVersion: 'containerservice.azure.com/v1api20240901',
          kind: 'ManagedCluster',
          metadata: { name: 'pay' },
          spec: o.channel
            ? { autoUpgradeProfile: { upgradeChannel: o.channel } }
            : {},
        },
      ],
    },
    status: o.live ? { version: o.live } : {},
  });

  it('an auto-upgrade channel beside a set spec.version', () => {
    expect(
      versionConflicts(
        cp({ version: 'v1.33.2', live: 'v1.33.2', channel: 'stable' }),
      ),
    ).toEqual([
      expect.objectContaining({
        id: 'auto-upgrade-with-version',
        message: expect.stringMatching(
          /^AKS upgrades this cluster on its own \(auto-upgrade channel stable\) while spec\.version is v1\.33\.2/,
        ),
      }),
    ]);
    // node-image and none change no Kubernetes version.
    expect(
      versionConflicts(cp({ version: 'v1.33.2', channel: 'node-image' })),
    ).toEqual([]);
    expect(
      versionConflicts(cp({ version: 'v1.33.2', channel: 'none' })),
    ).toEqual([]);
  });

  it('a live version past spec.version: upgraded outside CAPZ', () => {
    expect(
      versionConflicts(cp({ version: 'v1.33.2', live: 'v1.34.1' })),
    ).toEqual([
      expect.objectContaining({
        id: 'upgraded-outside-capz',
        fix: 'Set spec.version to v1.34.1 (or leave it empty), so that CAPZ stops asking for the older version.',
      }),
    ]);
    // Behind (an upgrade in progress) or equal is no conflict.
    expect(
      versionConflicts(cp({ version: 'v1.34.1', live: 'v1.33.2' })),
    ).toEqual([]);
  });

  it('no spec.version: AKS owns the version, nothing conflicts', () => {
    expect(versionConflicts(cp({ live: 'v1.34.1', channel: 'rapid' }))).toEqual(
      [],
    );
  });
});

describe('poolSkews: pools further from the control plane than AKS allows', () => {
  it('three minors behind is allowed from 1.28, four is not; two before 1.28; never ahead', () => {
    const pools = [
      { name: 'system', version: 'v1.35.1' },
      { name: 'three', version: 'v1.32.4' },
      { name: 'four', version: 'v1.31.9' },
      { name: 'ahead', version: 'v1.36.0' },
      { name: 'none' },
    ];
    expect(poolSkews('v1.35.1', pools)).toEqual([
      expect.objectContaining({
        pool: 'four',
        behind: 4,
        message:
          "Pool four runs v1.31.9, 4 minor versions behind the control plane's v1.35.1: AKS keeps pools within 3, so the control plane cannot move further until the pool catches up.",
        fix: 'Upgrade pool four to 1.32 or later (one minor version at a time while it is supported).',
      }),
      expect.objectContaining({
        pool: 'ahead',
        behind: -1,
        fix: 'Upgrade the control plane to 1.36 first.',
      }),
    ]);
    expect(
      poolSkews('v1.27.3', [{ name: 'old', version: 'v1.24.1' }]).map(
        p => p.behind,
      ),
    ).toEqual([3]);
    expect(poolSkews('unknown', pools)).toEqual([]);
  });
});
