/**
 * Where a Kubernetes version stands in AKS's support policy on a given day, and the version conflicts that CAPZ's ASO
 * path turns into a fight with AKS (docs/lifecycle-facts.md). Pure: no I/O, no clock (the caller passes today).
 */
import {
  compareKubernetesVersions,
  parseKubernetesVersion,
} from '../day2/versions';
import { isObj } from '../objects/read';
import type { ObservedObject } from '../objects/types';
import { AKS_RELEASE_CALENDAR, type AksMinorLifecycle } from './calendar';

/**
 * - `community`: supported (N-2);
 * - `lts`: past community support, under long-term support (Premium tier, AKSLongTermSupport);
 * - `platform`: N-3, platform support only (no Kubernetes fixes, no new clusters);
 * - `out-of-support`: past all of them (Azure may upgrade the cluster on its own);
 * - `unknown`: not in the calendar.
 * @public
 */
export type AksSupportStatus =
  | 'community'
  | 'lts'
  | 'platform'
  | 'out-of-support'
  | 'unknown';

/** A version's support on a day, in words. @public */
export interface AksVersionSupport {
  version: string;
  /** `1.33` */
  minor: string;
  status: AksSupportStatus;
  /** The last day of the current status (`YYYY-MM-DD`), when the calendar dates it. */
  until?: string;
  /** Whole days from today to `until` (0: ends today). */
  daysLeft?: number;
  /** `now`: out of support or platform support only; `soon`: its support ends within `soonDays`. */
  attention: 'none' | 'soon' | 'now';
  message: string;
  /** What to do, when something is to be done. */
  fix?: string;
}

/** `v1.33.2` or `1.33` → `[1, 33]`: AKS accepts a minor alone (docs/lifecycle-facts.md#aks-calendar). */
const minorOf = (version: string | undefined) => {
  const m = /^v?(\d+)\.(\d+)(?:\.\d+)?$/.exec((version ?? '').trim());
  return m ? [Number(m[1]), Number(m[2])] : undefined;
};

const DAY = 24 * 3600 * 1000;
const dayOf = (d: string | Date) => {
  const s = typeof d === 'string' ? d : d.toISOString();
  return Date.UTC(
    Number(s.slice(0, 4)),
    Number(s.slice(5, 7)) - 1,
    Number(s.slice(8, 10) || '1'),
  );
};
const MONTHS = [
  'Jan',
  'Feb',
  'Mar',
  'Apr',
  'May',
  'Jun',
  'Jul',
  'Aug',
  'Sep',
  'Oct',
  'Nov',
  'Dec',
];
/**
 * A calendar day or month in words: `2026-07-31` → `Jul 31, 2026`; `2026-10` → `Oct 2026`.
 * @public
 */
export const aksDateInWords = (d: string) =>
  d.length === 7
    ? `${MONTHS[Number(d.slice(5, 7)) - 1]} ${d.slice(0, 4)}`
    : `${MONTHS[Number(d.slice(5, 7)) - 1]} ${Number(
        d.slice(8, 10),
      )}, ${d.slice(0, 4)}`;
/**
 * Whole days ahead in words: `today`, `in 1 day`, `in 12 days` (a day already past reads `today`).
 * @public
 */
export const aksDaysInWords = (n: number) =>
  n <= 0 ? 'today' : `in ${n} day${n === 1 ? '' : 's'}`;

/**
 * The support of `version` on `today` (docs/lifecycle-facts.md#aks-support): community support until the calendar's end
 * of life; then, with long-term support on, until its LTS end; else platform support (N-3) until the minor four
 * versions newer reaches AKS GA (the calendar's month, counted from its first day: the day is not published); then out
 * of support. `soonDays` (default 60) is when an ending support asks for attention.
 * @public
 */
export function aksVersionSupport(
  version: string,
  o: {
    today: string | Date;
    lts?: boolean;
    soonDays?: number;
    calendar?: readonly AksMinorLifecycle[];
  },
): AksVersionSupport {
  const calendar = o.calendar ?? AKS_RELEASE_CALENDAR;
  const soonDays = o.soonDays ?? 60;
  const v = minorOf(version);
  const minor = v ? `${v[0]}.${v[1]}` : version;
  const entry = calendar.find(c => c.minor === minor);
  const name = `Kubernetes ${minor}`;
  if (!v || !entry)
    return {
      version,
      minor,
      status: 'unknown',
      attention: 'none',
      message: `${name} is not in the AKS release calendar this product ships (${
        calendar[0]?.minor
      }–${
        calendar[calendar.length - 1]?.minor
      }); its support dates are not known here.`,
    };
  const today = dayOf(o.today);
  const left = (until: string) => Math.round((dayOf(until) - today) / DAY);
  const next = `${v[0]}.${v[1] + 1}`;
  const upgrade = `Upgrade the control plane to ${next}, then its node pools: AKS moves a supported cluster one minor version at a time.`;
  const soon = (
    status: AksSupportStatus,
    until: string,
    message: string,
    fix?: string,
  ): AksVersionSupport => {
    const daysLeft = left(until);
    return {
      version,
      minor,
      status,
      until,
      daysLeft,
      attention: daysLeft <= soonDays ? 'soon' : 'none',
      message,
      ...(daysLeft <= soonDays && fix ? { fix } : {}),
    };
  };
  if (today <= dayOf(entry.endOfLife))
    return soon(
      'community',
      entry.endOfLife,
      `${name} is supported until ${aksDateInWords(
        entry.endOfLife,
      )} (${aksDaysInWords(left(entry.endOfLife))}).`,
      upgrade,
    );
  const ended = `${name}'s community support ended ${aksDateInWords(
    entry.endOfLife,
  )}`;
  if (o.lts && entry.ltsEndOfLife && today <= dayOf(entry.ltsEndOfLife))
    return soon(
      'lts',
      entry.ltsEndOfLife,
      `${ended}; long-term support lasts until ${aksDateInWords(
        entry.ltsEndOfLife,
      )} (${aksDaysInWords(left(entry.ltsEndOfLife))}).`,
      `Upgrade before ${aksDateInWords(
        entry.ltsEndOfLife,
      )}: under LTS the cluster may move to the next LTS minor directly.`,
    );
  const n4 = `${v[0]}.${v[1] + 4}`;
  const n4ga = calendar.find(c => c.minor === n4)?.ga;
  const platformEnd = n4ga ? `${n4ga}-01` : undefined;
  if (!platformEnd || today < dayOf(platformEnd))
    return {
      version,
      minor,
      status: 'platform',
      ...(platformEnd
        ? { until: platformEnd, daysLeft: left(platformEnd) }
        : {}),
      attention: 'now',
      message: `${ended}: platform support only (N-3: no Kubernetes fixes or security patches, no new clusters) until ${n4} reaches AKS GA (${
        n4ga ? aksDateInWords(n4ga) : 'not dated yet'
      }).`,
      fix: upgrade,
    };
  return {
    version,
    minor,
    status: 'out-of-support',
    attention: 'now',
    message: `${ended}, and its platform support when ${n4} reached AKS GA (${aksDateInWords(
      n4ga!,
    )}): it is out of support, and Azure may upgrade the cluster on its own, which CAPZ then fights while spec.version names ${minor}.`,
    fix: `Upgrade now: an out-of-support cluster may skip minor versions in one full upgrade (control plane and pools together) to a supported one.`,
  };
}

/** A version conflict that makes CAPZ fight AKS over a cluster's version. @public */
export interface VersionConflict {
  id: 'auto-upgrade-with-version' | 'upgraded-outside-capz';
  message: string;
  fix: string;
}

/** The ManagedCluster embedded in an AzureASOManagedControlPlane's spec.resources. */
function embeddedManagedCluster(
  cp: ObservedObject,
): Record<string, unknown> | undefined {
  const resources = (cp.spec as { resources?: unknown } | undefined)?.resources;
  if (!Array.isArray(resources)) return undefined;
  return resources.find(
    (r): r is Record<string, unknown> =>
      isObj(r) &&
      r.kind === 'ManagedCluster' &&
      String(r.apiVersion ?? '').startsWith('containerservice.azure.com/'),
  );
}

/**
 * The conflicts of an AzureASOManagedControlPlane's version with what AKS does (docs/lifecycle-facts.md#version-owner):
 * CAPZ forces a set spec.version into the embedded ManagedCluster, so an AKS auto-upgrade channel beside it, or a live
 * version already past it, has CAPZ asking AKS for a version it has left.
 * @public
 */
export function versionConflicts(cp: ObservedObject): VersionConflict[] {
  const spec = (cp.spec ?? {}) as { version?: string };
  const status = (cp.status ?? {}) as { version?: string };
  if (!parseKubernetesVersion(spec.version)) return [];
  const out: VersionConflict[] = [];
  const mc = embeddedManagedCluster(cp);
  const channel = (
    (mc?.spec as { autoUpgradeProfile?: { upgradeChannel?: string } })
      ?.autoUpgradeProfile?.upgradeChannel ?? ''
  ).toLowerCase();
  if (['patch', 'stable', 'rapid'].includes(channel))
    out.push({
      id: 'auto-upgrade-with-version',
      message: `AKS upgrades this cluster on its own (auto-upgrade channel ${channel}) while spec.version is ${spec.version}: CAPZ writes ${spec.version} into the ManagedCluster at every reconcile, so after AKS's upgrade it asks for the version AKS has left.`,
      fix: 'Choose one owner of the version: set the auto-upgrade channel to none (or node-image) and upgrade through spec.version, or leave spec.version empty and let AKS upgrade it.',
    });
  if (
    parseKubernetesVersion(status.version) &&
    compareKubernetesVersions(status.version!, spec.version!) > 0
  )
    out.push({
      id: 'upgraded-outside-capz',
      message: `Azure runs ${status.version}, newer than spec.version ${spec.version}: the cluster was upgraded outside CAPZ (an auto-upgrade channel, Fleet Manager, or AKS's own upgrade of an unsupported version), and CAPZ keeps asking for ${spec.version}.`,
      fix: `Set spec.version to ${status.version} (or leave it empty), so that CAPZ stops asking for the older version.`,
    });
  return out;
}

/** A node pool further behind its control plane than AKS allows, or ahead of it. @public */
export interface PoolSkew {
  pool: string;
  poolVersion: string;
  controlPlaneVersion: string;
  /** Minor versions the pool is behind (negative: ahead). */
  behind: number;
  message: string;
  fix: string;
}

/**
 * The pools whose version AKS's skew rule refuses (docs/lifecycle-facts.md#pool-skew): from Kubernetes 1.28 the control
 * plane may be up to three minor versions ahead of its node pools (two before), and never behind them. Pools without a
 * version are skipped.
 * @public
 */
export function poolSkews(
  controlPlaneVersion: string,
  pools: ReadonlyArray<{ name: string; version?: string }>,
): PoolSkew[] {
  const cp = minorOf(controlPlaneVersion);
  if (!cp) return [];
  const allowed = cp[0] > 1 || cp[1] >= 28 ? 3 : 2;
  const out: PoolSkew[] = [];
  for (const p of pools) {
    const v = minorOf(p.version);
    if (!v || v[0] !== cp[0]) continue;
    const behind = cp[1] - v[1];
    if (behind > allowed)
      out.push({
        pool: p.name,
        poolVersion: p.version!,
        controlPlaneVersion,
        behind,
        message: `Pool ${p.name} runs ${p.version}, ${behind} minor versions behind the control plane's ${controlPlaneVersion}: AKS keeps pools within ${allowed}, so the control plane cannot move further until the pool catches up.`,
        fix: `Upgrade pool ${p.name} to ${v[0]}.${
          cp[1] - allowed
        } or later (one minor version at a time while it is supported).`,
      });
    else if (behind < 0)
      out.push({
        pool: p.name,
        poolVersion: p.version!,
        controlPlaneVersion,
        behind,
        message: `Pool ${p.name} runs ${p.version}, newer than the control plane's ${controlPlaneVersion}: a node pool may not be ahead of its control plane.`,
        fix: `Upgrade the control plane to ${v[0]}.${v[1]} first.`,
      });
  }
  return out;
}
