/**
 * The owners hear of a cluster whose Kubernetes version leaves AKS support: once its current support (community, or
 * long-term support) ends within `capz.notifications.endOfSupportWithin` (default 30 days), and again at each later
 * stage it reaches without an upgrade (platform support only, out of support). One notification per (cluster, minor
 * version, support status, its last day), never repeated: a cluster upgraded to a supported minor hears nothing more.
 *
 * A scheduled task, global (one replica at a time), goes over the clusters of the watch cache every hour: no API call,
 * never per request or event. Each notice is a row of the plugin's database, claimed before it is sent, so it is told
 * once whichever replica runs the task and across restarts; like the health episodes, it waits until the catalog holds
 * the cluster's entity (through which the notifications backend finds its owners).
 */
import type {
  LoggerService,
  SchedulerService,
} from '@backstage/backend-plugin-api';
import { type Config, readDurationFromConfig } from '@backstage/config';
import type { NotificationService } from '@backstage/plugin-notifications-node';
import {
  AKS_RELEASE_CALENDAR,
  aksDateInWords,
  aksDaysInWords,
  aksVersionSupport,
  clusterPagePath,
  type AksMinorLifecycle,
  type AksSupportStatus,
  type ClusterSummary,
} from '@capz-backstage/plugin-capz-common';
import type { Knex } from 'knex';
import { readDurationMs } from '../config/durations';
import { catalogHoldsCluster, clusterEntityRef } from './ownerNotifications';
import type { HealthSource } from './healthEpisodes';

/** The topic of these notifications (a user may switch it off in the notification settings). */
export const LIFECYCLE_NOTIFICATION_TOPIC = 'capz-lifecycle';

export const DEFAULT_END_OF_SUPPORT_WITHIN_DAYS = 30;

const KEY = 'capz.notifications.endOfSupportWithin';
const DAY_MS = 24 * 60 * 60 * 1000;
const TABLE = 'capz_end_of_support_notices';

/**
 * `capz.notifications.endOfSupportWithin` in whole days (a part of a day counts as a day); undefined when it is zero
 * (`{ days: 0 }`, `0d`, `P0D`): the notifications are off.
 */
export function readEndOfSupportWithinDays(config: Config): number | undefined {
  if (
    config.has(KEY) &&
    Object.values(readDurationFromConfig(config, { key: KEY })).every(
      v => v === 0,
    )
  )
    return undefined;
  return Math.ceil(
    readDurationMs(config, KEY, DEFAULT_END_OF_SUPPORT_WITHIN_DAYS * DAY_MS) /
      DAY_MS,
  );
}

/** What the owners of one cluster are told of its version's support, and what makes it one notification. */
export interface EndOfSupportNotice {
  /** `1.33` */
  minor: string;
  status: Exclude<AksSupportStatus, 'unknown'>;
  /** The last day of that status (`YYYY-MM-DD`); empty when the calendar does not date it yet. */
  until: string;
  title: string;
  description: string;
  severity: 'high' | 'normal';
}

/**
 * The notice of a cluster on `today`, or undefined when its owners need not hear anything: no version, one the
 * calendar does not know, support that lasts longer than `withinDays`, or community support ending on a cluster with
 * long-term support on (it moves to LTS; they hear when that ends). Platform support only and out of support are told
 * at once (severity high), whatever the window.
 */
export function endOfSupportNotice(
  c: Pick<ClusterSummary, 'namespace' | 'name' | 'kubernetesVersion'> &
    Partial<Pick<ClusterSummary, 'lifecycle'>>,
  o: {
    today: string | Date;
    withinDays: number;
    calendar?: readonly AksMinorLifecycle[];
  },
): EndOfSupportNotice | undefined {
  if (!c.kubernetesVersion) return undefined;
  const calendar = o.calendar ?? AKS_RELEASE_CALENDAR;
  const lts = c.lifecycle?.lts === true;
  const s = aksVersionSupport(c.kubernetesVersion, {
    today: o.today,
    lts,
    soonDays: o.withinDays,
    calendar,
  });
  if (s.status === 'unknown' || s.attention === 'none') return undefined;
  if (
    s.status === 'community' &&
    lts &&
    calendar.find(e => e.minor === s.minor)?.ltsEndOfLife
  )
    return undefined;
  const what = `${c.namespace}/${c.name}: Kubernetes ${s.minor}`;
  const until = s.until ?? '';
  let title: string;
  switch (s.status) {
    case 'community':
      title = `${what} leaves AKS community support on ${aksDateInWords(
        until,
      )} (${aksDaysInWords(s.daysLeft ?? 0)})`;
      break;
    case 'lts':
      title = `${what} leaves AKS long-term support on ${aksDateInWords(
        until,
      )} (${aksDaysInWords(s.daysLeft ?? 0)})`;
      break;
    case 'platform':
      title = `${what} is on AKS platform support only (no fixes or security patches)${
        until ? ` until ${aksDateInWords(until.slice(0, 7))}` : ''
      }`;
      break;
    default:
      title = `${what} is out of AKS support`;
  }
  return {
    minor: s.minor,
    status: s.status,
    until,
    title,
    description: [s.message, s.fix].filter(Boolean).join(' '),
    severity: s.attention === 'now' ? 'high' : 'normal',
  };
}

interface NoticeRow {
  management_cluster: string;
  cluster_uid: string;
  minor: string;
  status: string;
  until_day: string;
  namespace: string;
  name: string;
  due_at: Date | string;
  notified_at: Date | string | null;
}

type Key = Pick<
  NoticeRow,
  'management_cluster' | 'cluster_uid' | 'minor' | 'status' | 'until_day'
>;
const keyOf = (k: Key) =>
  [k.management_cluster, k.cluster_uid, k.minor, k.status, k.until_day].join(
    '\u0000',
  );

/** One scan: every cluster of every synced management cluster against the notices already told. */
export class EndOfSupportNotices {
  constructor(
    private readonly o: {
      db: Knex;
      source: HealthSource;
      notifications?: NotificationService;
      logger: LoggerService;
      withinDays: number;
      /** As for the health episodes: false holds the notice back until the catalog holds the cluster's entity. */
      ownerKnown?: (entityRef: string) => Promise<boolean>;
      calendar?: readonly AksMinorLifecycle[];
    },
  ) {}

  /** Runs one scan on the day of `now`; says how many notifications it sent. */
  async check(now = Date.now()): Promise<number> {
    const { db, source, notifications, withinDays, calendar } = this.o;
    if (!notifications) return 0;
    const rows = new Map<string, NoticeRow>();
    for (const r of (await db(TABLE).select()) as NoticeRow[])
      rows.set(keyOf(r), r);
    const synced = new Map<string, boolean>();
    const isSynced = (mc: string) => {
      if (!synced.has(mc)) synced.set(mc, source.synced(mc));
      return synced.get(mc)!;
    };
    const present = new Set<string>();
    let sent = 0;
    for (const c of source.clusters()) {
      if (!c.uid || !isSynced(c.managementCluster)) continue;
      present.add(`${c.managementCluster}\u0000${c.uid}`);
      const notice = endOfSupportNotice(c, {
        today: new Date(now),
        withinDays,
        ...(calendar ? { calendar } : {}),
      });
      if (!notice) continue;
      const key: Key = {
        management_cluster: c.managementCluster,
        cluster_uid: c.uid,
        minor: notice.minor,
        status: notice.status,
        until_day: notice.until,
      };
      const row = rows.get(keyOf(key));
      if (row?.notified_at) continue;
      if (!row)
        await db(TABLE)
          .insert({
            ...key,
            namespace: c.namespace,
            name: c.name,
            due_at: new Date(now),
            notified_at: null,
          })
          .onConflict([
            'management_cluster',
            'cluster_uid',
            'minor',
            'status',
            'until_day',
          ])
          .ignore();
      if (!(await catalogHoldsCluster(c, this.o))) continue;
      // Claimed first: of two scans that both got here, one updates the row and tells.
      const claimed = await db(TABLE)
        .where(key)
        .whereNull('notified_at')
        .update({ notified_at: new Date(now) });
      if (claimed !== 1) continue;
      if (await this.send(c, notice)) sent += 1;
      // Not told (the notifications backend away or failing): released for the next scan to try again.
      else await db(TABLE).where(key).update({ notified_at: null });
    }
    // The notices of clusters a synced management cluster no longer holds: deleted, nothing more to tell.
    for (const r of rows.values())
      if (
        isSynced(r.management_cluster) &&
        !present.has(`${r.management_cluster}\u0000${r.cluster_uid}`)
      )
        await db(TABLE)
          .where({
            management_cluster: r.management_cluster,
            cluster_uid: r.cluster_uid,
          })
          .delete();
    return sent;
  }

  private async send(
    c: Pick<ClusterSummary, 'managementCluster' | 'namespace' | 'name'>,
    n: EndOfSupportNotice,
  ): Promise<boolean> {
    try {
      await this.o.notifications!.send({
        recipients: { type: 'entity', entityRef: clusterEntityRef(c) },
        payload: {
          title: n.title,
          description: n.description,
          severity: n.severity,
          link: clusterPagePath(c),
          topic: LIFECYCLE_NOTIFICATION_TOPIC,
          // The notice's own key: a send repeated after a failure that did deliver replaces it rather than adding one.
          scope: `capz:lifecycle:${c.managementCluster}:${c.namespace}/${c.name}:${n.minor}:${n.status}:${n.until}`,
        },
      });
      return true;
    } catch (e) {
      this.o.logger.warn(
        `could not notify the owners of ${c.namespace}/${
          c.name
        } that Kubernetes ${n.minor} leaves AKS support: ${
          (e as Error).message
        }`,
      );
      return false;
    }
  }
}

/**
 * Runs the scan on the scheduler, on one replica at a time: a minute after start, then every hour. The notices are per
 * day; the hourly scan catches a cache not yet synced, or a catalog entity not yet there, on the same day.
 */
export async function scheduleEndOfSupportNotifications(o: {
  scheduler: SchedulerService;
  notices: EndOfSupportNotices;
  logger: LoggerService;
}): Promise<void> {
  await o.scheduler.scheduleTask({
    id: 'capz-end-of-support-notifications',
    scope: 'global',
    frequency: { hours: 1 },
    timeout: { minutes: 10 },
    initialDelay: { minutes: 1 },
    fn: async () => {
      const sent = await o.notices.check();
      if (sent)
        o.logger.info(
          `told the owners of ${sent} cluster(s) that their Kubernetes version leaves AKS support`,
        );
    },
  });
}
