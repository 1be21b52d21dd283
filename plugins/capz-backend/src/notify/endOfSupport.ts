/**
 * The owners hear of a cluster whose Kubernetes version leaves AKS support: once its current support (community, or
 * long-term support) ends within `capz.notifications.endOfSupportWithin` (default 30 days), and again at each later
 * stage it reaches without an upgrade (platform support only, out of support). One notification per (cluster, minor
 * version, support status, its last day), never repeated: a cluster upgraded to a supported minor hears nothing more.
 *
 * A scheduled task, global (one replica at a time), goes over the clusters of the watch cache every hour: no API call,
 * never per request or event. Each notice is a row of the plugin's database, claimed before it is sent, so it is told
 * once whichever replica runs the task and across restarts; like the health episodes, it waits until the catalog holds
 * the cluster's entity (through which the notifications backend finds its owners). The notices due in one scan go out
 * as one notification per owner: a fleet whose 10,000 clusters run a minor that has just left support gives each team
 * one digest, and the scan neither floods the notifications backend nor holds the page views' event loop
 * (docs/scale.md#end-of-support-notices-at-scale).
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
import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import { readDurationMs } from '../config/durations';
import { clusterAddressees, type CatalogOwners } from './catalogOwners';
import { inTransactions, yieldToEventLoop } from './batches';
import { clusterEntityRef } from './ownerNotifications';
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

const KEY_COLUMNS = [
  'management_cluster',
  'cluster_uid',
  'minor',
  'status',
  'until_day',
];

/**
 * How many rows one transaction writes: a scan of 10,000 clusters commits 200 times, not 20,000, and holds the event
 * loop ~15 ms at a time on SQLite (whose driver is synchronous), not ~60 as with 200 (endOfSupport.bench.ts).
 */
const ROWS_PER_TRANSACTION = 50;

/** How many clusters the scan weighs between two turns of the event loop. */
const YIELD_EVERY = 500;

/** At most this many clusters are named in one owner's digest; the link lists them all. */
const DIGEST_NAMES = 20;

/** The stages in a digest's title. */
const STATUS_WORDS: Record<EndOfSupportNotice['status'], string> = {
  'out-of-support': 'out of support',
  platform: 'on platform support only',
  lts: 'leaving long-term support',
  community: 'leaving community support',
};

/** A notice found due in a scan, and the cluster it is for. */
interface Due {
  c: ClusterSummary;
  notice: EndOfSupportNotice;
  key: Key;
}

/**
 * One scan: every cluster of every synced management cluster against the notices already told. What is due is told
 * once per set of owners: one cluster's notice as it is, several clusters' as one digest naming them, so that a
 * team whose 500 clusters reach the same stage gets one notification, not 500, and the scan asks the catalog in
 * batches and writes the database in a few transactions, yielding the event loop between them.
 */
export class EndOfSupportNotices {
  constructor(
    private readonly o: {
      db: Knex;
      source: HealthSource;
      notifications?: NotificationService;
      logger: LoggerService;
      withinDays: number;
      /**
       * The catalog's owners of the clusters' entities (catalogOwners.ts): a notice waits until the catalog holds
       * its cluster's entity, and goes to its owners.
       */
      owners?: CatalogOwners;
      calendar?: readonly AksMinorLifecycle[];
    },
  ) {}

  /** Runs one scan on the day of `now`; says how many clusters' owners it told. */
  async check(now = Date.now()): Promise<number> {
    return (await this.scan(now)).told;
  }

  /**
   * Runs one scan on the day of `now`: how many clusters' owners it told, and how many notices wait for the catalog
   * to hold their cluster's entity (the catalog module adds a new cluster's entity minutes after the watch sees it).
   */
  async scan(now = Date.now()): Promise<{ told: number; waiting: number }> {
    const { db, source, notifications, withinDays, calendar } = this.o;
    if (!notifications) return { told: 0, waiting: 0 };
    const rows = new Map<string, NoticeRow>();
    for (const r of (await db(TABLE).select()) as NoticeRow[])
      rows.set(keyOf(r), r);
    const synced = new Map<string, boolean>();
    const isSynced = (mc: string) => {
      if (!synced.has(mc)) synced.set(mc, source.synced(mc));
      return synced.get(mc)!;
    };
    const present = new Set<string>();
    const due: Due[] = [];
    let seen = 0;
    for (const c of source.clusters()) {
      if (++seen % YIELD_EVERY === 0) await yieldToEventLoop();
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
      due.push({ c, notice, key });
    }
    // The rows of notices seen for the first time: kept whether or not they can be told yet.
    const fresh = due.filter(d => !rows.has(keyOf(d.key)));
    await inTransactions(db, fresh, ROWS_PER_TRANSACTION, async (trx, d) => {
      await trx(TABLE)
        .insert({
          ...d.key,
          namespace: d.c.namespace,
          name: d.c.name,
          due_at: new Date(now),
          notified_at: null,
        })
        .onConflict(KEY_COLUMNS)
        .ignore();
    });
    const addressees = await clusterAddressees(
      due.map(d => d.c),
      this.o,
    );
    // Claimed first: of two scans that both got here, one updates a row and tells it. What is claimed is grouped by
    // owner: one notification each.
    const held = due.flatMap((d, i) => {
      const a = addressees[i];
      return a.held ? [{ d, owner: a.owner }] : [];
    });
    const claimed = await inTransactions(
      db,
      held,
      ROWS_PER_TRANSACTION,
      async (trx, { d }) =>
        (await trx(TABLE)
          .where(d.key)
          .whereNull('notified_at')
          .update({ notified_at: new Date(now) })) === 1,
    );
    const told = new Map<string, Due[]>();
    for (const { d, owner } of claimed) {
      if (!told.has(owner)) told.set(owner, []);
      told.get(owner)!.push(d);
    }
    let sent = 0;
    for (const [owner, group] of told) {
      if (await this.send(owner, group)) sent += group.length;
      // Not told (the notifications backend away or failing): released for the next scan to try again.
      else
        await inTransactions(
          db,
          group,
          ROWS_PER_TRANSACTION,
          async (trx, d) => {
            await trx(TABLE).where(d.key).update({ notified_at: null });
          },
        );
    }
    // The notices of clusters a synced management cluster no longer holds: deleted, nothing more to tell.
    const gone = new Map<
      string,
      Pick<NoticeRow, 'management_cluster' | 'cluster_uid'>
    >();
    for (const r of rows.values()) {
      const id = `${r.management_cluster}\u0000${r.cluster_uid}`;
      if (isSynced(r.management_cluster) && !present.has(id))
        gone.set(id, {
          management_cluster: r.management_cluster,
          cluster_uid: r.cluster_uid,
        });
    }
    await inTransactions(
      db,
      [...gone.values()],
      ROWS_PER_TRANSACTION,
      async (trx, g) => {
        await trx(TABLE).where(g).delete();
      },
    );
    return { told: sent, waiting: due.length - held.length };
  }

  /**
   * One cluster's notice goes to its entity, as every notification of this plugin (the notifications backend resolves
   * its owners); a digest goes to the owner the clusters share, the one that resolution would reach: one reference
   * whatever the digest's size, where its clusters' 10,000 references (~550 kB) would pass the notifications
   * backend's request body limit (docs/scale.md#end-of-support-notices-at-scale).
   */
  private async send(owner: string, due: readonly Due[]): Promise<boolean> {
    const payload = due.length === 1 ? this.single(due[0]) : this.digest(due);
    try {
      await this.o.notifications!.send({
        recipients: {
          type: 'entity',
          entityRef: due.length === 1 ? clusterEntityRef(due[0].c) : owner,
        },
        payload: { ...payload, topic: LIFECYCLE_NOTIFICATION_TOPIC },
      });
      return true;
    } catch (e) {
      const what =
        due.length === 1
          ? `${due[0].c.namespace}/${due[0].c.name} that Kubernetes ${due[0].notice.minor} leaves`
          : `${due.length} clusters that their Kubernetes versions leave`;
      this.o.logger.warn(
        `could not notify the owners of ${what} AKS support: ${
          (e as Error).message
        }`,
      );
      return false;
    }
  }

  private single({ c, notice: n }: Due) {
    return {
      title: n.title,
      description: n.description,
      severity: n.severity,
      link: clusterPagePath(c),
      // The notice's own key: a send repeated after a failure that did deliver replaces it rather than adding one.
      scope: `capz:lifecycle:${c.managementCluster}:${c.namespace}/${c.name}:${n.minor}:${n.status}:${n.until}`,
    };
  }

  private digest(due: readonly Due[]) {
    const counts = new Map<string, number>();
    for (const d of due)
      counts.set(d.notice.status, (counts.get(d.notice.status) ?? 0) + 1);
    const parts = (['out-of-support', 'platform', 'lts', 'community'] as const)
      .filter(s => counts.has(s))
      .map(s => `${counts.get(s)} ${STATUS_WORDS[s]}`);
    const named = due.slice(0, DIGEST_NAMES).map(d => d.notice.title);
    const more = due.length - named.length;
    return {
      title: `${
        due.length
      } of your clusters need a Kubernetes upgrade for AKS support (${parts.join(
        ', ',
      )})`,
      description: `${named.join('. ')}.${
        more > 0 ? ` And ${more} more.` : ''
      } Each cluster's page says how to upgrade it; the clusters page lists them all under "Needs attention".`,
      severity: due.some(d => d.notice.severity === 'high')
        ? ('high' as const)
        : ('normal' as const),
      link: '/capz?attention=any',
      // The digest's own key (its notices'): a send repeated after a failure that did deliver replaces it.
      scope: `capz:lifecycle:digest:${createHash('sha256')
        .update(
          due
            .map(d => keyOf(d.key))
            .sort()
            .join('\n'),
        )
        .digest('hex')
        .slice(0, 32)}`,
    };
  }
}

const TASK_ID = 'capz-end-of-support-notifications';

/** While notices wait for their clusters' catalog entities, the scan runs again after 2, 4, 8, 16, 32 minutes. */
const WAITING_RETRY_MS = [2, 4, 8, 16, 32].map(m => m * 60_000);

/**
 * Runs the scan on the scheduler, on one replica at a time: a minute after start, then every hour. The notices are per
 * day. A management cluster's first list (`whenListed`) asks for a scan at once: at 10,000 clusters the list takes
 * longer than that minute, and the scan skips a cache that is not synced yet (it would take a cluster it has not
 * listed for a deleted one), so without it the first notices of a restart would wait an hour. Notices waiting for
 * their clusters' catalog entities (at 10,000 new clusters the catalog ingests for minutes after the first list) are
 * looked at again sooner than the hour, 2 minutes later and then twice as long each time, up to the hourly scan; a
 * cluster the catalog never holds (an entity filtered out) costs five more scans, not one every few minutes, and more
 * clusters waiting than the scan before start them again.
 */
export async function scheduleEndOfSupportNotifications(o: {
  scheduler: SchedulerService;
  notices: Pick<EndOfSupportNotices, 'scan'>;
  logger: LoggerService;
  whenListed?: (run: () => void) => void;
}): Promise<void> {
  const trigger = (why: string) =>
    // A scan already running (a ConflictError) reads the cache as it is then, or the next one does: nothing is lost.
    Promise.resolve()
      .then(() => o.scheduler.triggerTask(TASK_ID))
      .catch(e =>
        o.logger.debug(
          `the end-of-support scan ${why}: ${(e as Error).message}`,
        ),
      );
  // The retries since more notices started waiting than the scan before found: a notice that keeps waiting (its
  // entity never comes) does not restart them each hour; new clusters waiting do.
  let retries = 0;
  let waitingBefore = 0;
  let retry: ReturnType<typeof setTimeout> | undefined;
  await o.scheduler.scheduleTask({
    id: TASK_ID,
    scope: 'global',
    frequency: { hours: 1 },
    timeout: { minutes: 10 },
    initialDelay: { minutes: 1 },
    fn: async () => {
      const { told, waiting } = await o.notices.scan();
      if (told)
        o.logger.info(
          `told the owners of ${told} cluster(s) that their Kubernetes version leaves AKS support`,
        );
      clearTimeout(retry);
      retry = undefined;
      if (waiting > waitingBefore) retries = 0;
      waitingBefore = waiting;
      if (!waiting || retries >= WAITING_RETRY_MS.length) return;
      const ms = WAITING_RETRY_MS[retries++];
      o.logger.info(
        `${waiting} end-of-support notice(s) wait for their clusters' catalog entities; scanning again in ${
          ms / 60_000
        } minutes`,
      );
      // Not holding the process open: a stopping backend drops it, and the hourly scan remains.
      retry = setTimeout(() => {
        retry = undefined;
        trigger('for the notices waiting for the catalog');
      }, ms);
      retry.unref?.();
    },
  });
  o.whenListed?.(() => {
    trigger('after a first list');
  });
}
