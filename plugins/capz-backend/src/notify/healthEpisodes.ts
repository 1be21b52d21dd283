/**
 * The owners hear of a cluster that stays unhealthy, and of its recovery: one notification per episode, sent once
 * the cluster has been degraded or failed for `capz.notifications.unhealthyAfter` (default 30 minutes) and updated in
 * place (its scope) when it is healthy again or gone. A blip shorter than that is told to nobody.
 *
 * A scheduled check, global (one replica at a time), reads the clusters' health from the watch cache: no API call,
 * and once a minute rather than per event. Each episode is a row of the plugin's database, so it is told once whichever
 * replica runs the check and across restarts; the row is claimed before the notification is sent.
 */
import type {
  LoggerService,
  SchedulerService,
} from '@backstage/backend-plugin-api';
import type { NotificationService } from '@backstage/plugin-notifications-node';
import type {
  ClusterSummary,
  Health,
} from '@capz-backstage/plugin-capz-common';
import { clusterPagePath } from '@capz-backstage/plugin-capz-common';
import type { Knex } from 'knex';
import { clusterAddressees, type CatalogOwners } from './catalogOwners';
import { inTransactions } from './batches';
import { clusterEntityRef } from './ownerNotifications';

/** The topic of these notifications (a user may switch it off in the notification settings). */
export const HEALTH_NOTIFICATION_TOPIC = 'capz-cluster-health';

export const DEFAULT_UNHEALTHY_AFTER_MS = 30 * 60 * 1000;

const TABLE = 'capz_health_episodes';

/** Degraded (the controller retries) and failed (it gave up): what an owner must hear of. */
const UNHEALTHY: ReadonlySet<Health | undefined> = new Set([
  'degraded',
  'failed',
]);

/** An unhealthy episode as the database keeps it. */
export interface HealthEpisode {
  startedAt: number;
  notifiedAt?: number;
}

/** What one check does with one cluster. */
export type EpisodeStep =
  | { do: 'nothing' }
  /** It turned unhealthy: the episode starts now, told to nobody yet. */
  | { do: 'start' }
  /** Unhealthy for long enough: its owners hear of it. */
  | { do: 'notify' }
  /** Healthy again (or gone): the episode ends; its notification is updated if there was one. */
  | { do: 'end'; notified: boolean };

/**
 * The step for a cluster of `health` (undefined: the cluster is gone) with `episode` open or not. Progressing, paused,
 * deleting and unknown neither start nor end an episode: an upgrade after a failure is not yet a recovery.
 */
export function episodeStep(
  health: Health | undefined | 'gone',
  episode: HealthEpisode | undefined,
  now: number,
  unhealthyAfterMs: number,
): EpisodeStep {
  if (UNHEALTHY.has(health as Health)) {
    if (!episode) return { do: 'start' };
    if (!episode.notifiedAt && now - episode.startedAt >= unhealthyAfterMs)
      return { do: 'notify' };
    return { do: 'nothing' };
  }
  if (episode && (health === 'healthy' || health === 'gone'))
    return { do: 'end', notified: episode.notifiedAt !== undefined };
  return { do: 'nothing' };
}

const minutesOf = (ms: number) => Math.max(1, Math.round(ms / 60000));

/** The notification of an episode, from its first telling to its end. */
export function episodeNotification(
  cluster: Pick<ClusterSummary, 'namespace' | 'name'> &
    Partial<Pick<ClusterSummary, 'health' | 'reason' | 'message'>>,
  state: { unhealthyForMs: number } | { recovered: true } | { gone: true },
): {
  title: string;
  description?: string;
  severity: 'high' | 'normal' | 'low';
} {
  const what = `${cluster.namespace}/${cluster.name}`;
  if ('unhealthyForMs' in state)
    return {
      title: `${what} has been ${cluster.health} for ${minutesOf(
        state.unhealthyForMs,
      )} minutes`,
      description: [cluster.reason, cluster.message].filter(Boolean).join(': '),
      severity: cluster.health === 'failed' ? 'high' : 'normal',
    };
  if ('gone' in state)
    return {
      title: `${what} was unhealthy and is now deleted`,
      severity: 'low',
    };
  return { title: `${what} is healthy again`, severity: 'low' };
}

interface EpisodeRow {
  management_cluster: string;
  cluster_uid: string;
  namespace: string;
  name: string;
  started_at: Date | string;
  notified_at: Date | string | null;
}

const time = (v: Date | string) => new Date(v).getTime();

/** The clusters as the watch cache knows them, and whether it holds a management cluster's full state. */
export interface HealthSource {
  clusters(): ClusterSummary[];
  synced(managementCluster: string): boolean;
}

/** The key of a cluster's episode row. */
const where = (c: Pick<ClusterSummary, 'managementCluster' | 'uid'>) => ({
  management_cluster: c.managementCluster,
  cluster_uid: c.uid,
});

/** How many rows one transaction writes: 500 clusters turning degraded at once commit 3 times, not 500. */
const ROWS_PER_TRANSACTION = 200;

type Place = Pick<
  ClusterSummary,
  'managementCluster' | 'uid' | 'namespace' | 'name'
> &
  Partial<ClusterSummary>;

/**
 * One check: every cluster of every synced management cluster against the open episodes. The episodes that start
 * are written a few transactions at a time, and the catalog is asked of those to tell in batches, yielding the event
 * loop between them: a region's outage that degrades 500 clusters is not 500 commits and 500 catalog requests in a row.
 */
export class HealthEpisodes {
  constructor(
    private readonly o: {
      db: Knex;
      source: HealthSource;
      notifications?: NotificationService;
      logger: LoggerService;
      unhealthyAfterMs: number;
      /**
       * The catalog's owners of the clusters' entities (catalogOwners.ts), through which the notifications backend
       * finds whom to tell: a notification addressed to an entity it does not hold yet (a new cluster, a backend just
       * started) reaches nobody, so the episode waits for it. An answer that cannot be had (the catalog away) tells
       * anyway.
       */
      owners?: CatalogOwners;
    },
  ) {}

  /** Runs one check; says how many notifications it sent. */
  async check(now = Date.now()): Promise<number> {
    const { db, source, unhealthyAfterMs } = this.o;
    const open = new Map<string, EpisodeRow>();
    for (const r of (await db(TABLE).select()) as EpisodeRow[])
      open.set(`${r.management_cluster}\u0000${r.cluster_uid}`, r);
    const seen = new Set<string>();
    const synced = new Map<string, boolean>();
    const isSynced = (mc: string) => {
      if (!synced.has(mc)) synced.set(mc, source.synced(mc));
      return synced.get(mc)!;
    };
    const starts: Place[] = [];
    const notify: { c: Place; row: EpisodeRow }[] = [];
    const ends: { c: Place; row: EpisodeRow; notified: boolean }[] = [];
    const plan = (step: EpisodeStep, c: Place, row: EpisodeRow | undefined) => {
      if (step.do === 'start') starts.push(c);
      else if (step.do === 'notify') notify.push({ c, row: row! });
      else if (step.do === 'end')
        ends.push({ c, row: row!, notified: step.notified });
    };
    for (const c of source.clusters()) {
      if (!c.uid || !isSynced(c.managementCluster)) continue;
      const key = `${c.managementCluster}\u0000${c.uid}`;
      seen.add(key);
      const row = open.get(key);
      plan(
        episodeStep(c.health, row && episodeOf(row), now, unhealthyAfterMs),
        c,
        row,
      );
    }
    // Episodes of clusters no synced management cluster holds any more: deleted while unhealthy.
    for (const [key, row] of open) {
      if (seen.has(key) || !isSynced(row.management_cluster)) continue;
      plan(
        episodeStep('gone', episodeOf(row), now, unhealthyAfterMs),
        {
          managementCluster: row.management_cluster,
          uid: row.cluster_uid,
          namespace: row.namespace,
          name: row.name,
        },
        row,
      );
    }

    await inTransactions(db, starts, ROWS_PER_TRANSACTION, async (trx, c) => {
      await trx(TABLE)
        .insert({
          ...where(c),
          namespace: c.namespace,
          name: c.name,
          started_at: new Date(now),
          notified_at: null,
        })
        .onConflict(['management_cluster', 'cluster_uid'])
        .ignore();
    });

    let sent = 0;
    const addressees = await clusterAddressees(
      notify.map(n => n.c),
      this.o,
    );
    const toTell = notify.filter((_, i) => addressees[i].held);
    // Claimed first: of two checks that both got here, one updates the row and tells.
    await inTransactions(
      db,
      toTell,
      ROWS_PER_TRANSACTION,
      async (trx, n) =>
        (await trx(TABLE)
          .where(where(n.c))
          .whereNull('notified_at')
          .update({ notified_at: new Date(now) })) === 1,
      async claimed => {
        for (const { c, row } of claimed) {
          const startedAt = time(row.started_at);
          sent += await this.send(c, startedAt, {
            unhealthyForMs: now - startedAt,
          });
        }
      },
    );

    await inTransactions(
      db,
      ends,
      ROWS_PER_TRANSACTION,
      async (trx, e) => (await trx(TABLE).where(where(e.c)).delete()) === 1,
      async ended => {
        for (const { c, row, notified } of ended)
          if (notified)
            sent += await this.send(
              c,
              time(row.started_at),
              c.health === undefined ? { gone: true } : { recovered: true },
            );
      },
    );
    return sent;
  }

  private async send(
    c: Pick<ClusterSummary, 'managementCluster' | 'namespace' | 'name'> &
      Partial<ClusterSummary>,
    startedAt: number,
    state: Parameters<typeof episodeNotification>[1],
  ): Promise<number> {
    const { notifications, logger } = this.o;
    if (!notifications) return 0;
    try {
      await notifications.send({
        recipients: { type: 'entity', entityRef: clusterEntityRef(c) },
        payload: {
          ...episodeNotification(c, state),
          link: clusterPagePath(c),
          topic: HEALTH_NOTIFICATION_TOPIC,
          // One notification per episode: its end replaces its start (and marks it unread again).
          scope: `capz:health:${c.managementCluster}:${c.namespace}/${c.name}:${startedAt}`,
        },
      });
      return 1;
    } catch (e) {
      logger.warn(
        `could not notify the owners of ${c.namespace}/${
          c.name
        } about its health: ${(e as Error).message}`,
      );
      return 0;
    }
  }
}

function episodeOf(row: EpisodeRow): HealthEpisode {
  return {
    startedAt: time(row.started_at),
    ...(row.notified_at ? { notifiedAt: time(row.notified_at) } : {}),
  };
}

/**
 * Runs the check on the scheduler, on one replica at a time: every minute, or four times per `unhealthyAfterMs` when
 * that is shorter (at least every 5 s), so that an episode is told at most a quarter late.
 */
export async function scheduleHealthNotifications(o: {
  scheduler: SchedulerService;
  episodes: HealthEpisodes;
  unhealthyAfterMs: number;
  logger: LoggerService;
}): Promise<void> {
  const everyMs = Math.min(60_000, Math.max(5_000, o.unhealthyAfterMs / 4));
  await o.scheduler.scheduleTask({
    id: 'capz-health-notifications',
    scope: 'global',
    frequency: { milliseconds: everyMs },
    timeout: { minutes: 5 },
    initialDelay: { milliseconds: everyMs },
    fn: async () => {
      const sent = await o.episodes.check();
      if (sent)
        o.logger.info(
          `told the owners of ${sent} cluster(s) about their health`,
        );
    },
  });
}
