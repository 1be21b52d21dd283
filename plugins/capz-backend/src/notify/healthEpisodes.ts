/**
 * The owners hear of a cluster that stays unhealthy, and of its recovery: one notification per episode, sent once
 * the cluster has been degraded or failed for `capz.notifications.unhealthyAfter` (default 30 minutes) and updated in
 * place (its scope) when it is healthy again or gone. A blip shorter than that is told to nobody. When one check
 * tells an owner of five or more clusters (a region's outage), they go out as one digest to that owner, updated in
 * place once the last of them is no longer unhealthy: 500 clusters degraded at once are one notification per team,
 * not 500.
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
import { createHash } from 'node:crypto';
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

/**
 * An owner told of this many episodes or more in one check (an outage) gets one digest; fewer are told one by one,
 * each with its reason, its cluster's page and its own recovery.
 */
export const DIGEST_FROM = 5;

/** The clusters of a digest, at most this many named; the link lists them all. */
const DIGEST_NAMES = 20;

/** A cluster of a digest as it is told: where, how unhealthy and why. */
export type DigestMember = Pick<ClusterSummary, 'namespace' | 'name'> &
  Partial<Pick<ClusterSummary, 'health' | 'reason'>> & {
    unhealthyForMs: number;
  };

/**
 * The notification of several clusters of one owner told at once, and its in-place update once none of them is
 * unhealthy any more (each healthy again or deleted: the digest does not tell which).
 */
export function digestNotification(
  state: { members: readonly DigestMember[] } | { ended: number },
): {
  title: string;
  description?: string;
  severity: 'high' | 'normal' | 'low';
} {
  if ('ended' in state)
    return {
      title: `${state.ended} of your clusters were unhealthy; none is any more`,
      description:
        'Each is healthy again or deleted. The clusters page shows how each is now.',
      severity: 'low',
    };
  const { members } = state;
  const failed = members.filter(m => m.health === 'failed').length;
  const parts = [
    failed ? `${failed} failed` : '',
    members.length - failed ? `${members.length - failed} degraded` : '',
  ].filter(Boolean);
  const shortest = Math.min(...members.map(m => m.unhealthyForMs));
  const named = members
    .slice(0, DIGEST_NAMES)
    .map(
      m =>
        `${m.namespace}/${m.name}: ${m.health}${
          m.reason ? ` (${m.reason})` : ''
        }`,
    );
  const more = members.length - named.length;
  return {
    title: `${
      members.length
    } of your clusters have been unhealthy for ${minutesOf(
      shortest,
    )} minutes or more (${parts.join(', ')})`,
    description: `${named.join('. ')}.${
      more > 0 ? ` And ${more} more.` : ''
    } The clusters page lists them worst first.`,
    severity: failed ? 'high' : 'normal',
  };
}

interface EpisodeRow {
  management_cluster: string;
  cluster_uid: string;
  namespace: string;
  name: string;
  started_at: Date | string;
  notified_at: Date | string | null;
  digest_scope?: string | null;
}

const DIGESTS = 'capz_health_digests';

interface DigestRow {
  scope: string;
  owner: string;
  size: number;
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

  /** Runs one check; says how many clusters' owners it told of (a digest counts its clusters). */
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

    let told = 0;
    const addressees = await clusterAddressees(
      notify.map(n => n.c),
      this.o,
    );
    const toTell = notify.flatMap((n, i) => {
      const a = addressees[i];
      return a.held ? [{ ...n, owner: a.owner }] : [];
    });
    // Claimed first: of two checks that both got here, one updates the row and tells.
    const claimed = await inTransactions(
      db,
      toTell,
      ROWS_PER_TRANSACTION,
      async (trx, n) =>
        (await trx(TABLE)
          .where(where(n.c))
          .whereNull('notified_at')
          .update({ notified_at: new Date(now) })) === 1,
    );
    const byOwner = new Map<string, typeof claimed>();
    for (const n of claimed) {
      if (!byOwner.has(n.owner)) byOwner.set(n.owner, []);
      byOwner.get(n.owner)!.push(n);
    }
    for (const [owner, group] of byOwner) {
      if (group.length >= DIGEST_FROM) {
        told += await this.tellDigest(owner, group, now);
        continue;
      }
      for (const { c, row } of group) {
        const startedAt = time(row.started_at);
        told += await this.send(c, startedAt, {
          unhealthyForMs: now - startedAt,
        });
      }
    }

    const digestsTouched = new Set<string>();
    await inTransactions(
      db,
      ends,
      ROWS_PER_TRANSACTION,
      async (trx, e) => (await trx(TABLE).where(where(e.c)).delete()) === 1,
      async ended => {
        for (const { c, row, notified } of ended)
          if (row.digest_scope) digestsTouched.add(row.digest_scope);
          else if (notified)
            told += await this.send(
              c,
              time(row.started_at),
              c.health === undefined ? { gone: true } : { recovered: true },
            );
      },
    );
    // A digest whose last cluster is no longer unhealthy: its notification says so, in place.
    for (const scope of digestsTouched) told += await this.endDigest(scope);
    return told;
  }

  /**
   * Several episodes of one owner, told in one notification to that owner (one reference, as the end-of-support
   * digests: docs/scale.md#end-of-support-notices-at-scale). Its episodes keep its scope, so that the last one to end
   * updates it in place.
   */
  private async tellDigest(
    owner: string,
    group: readonly { c: Place; row: EpisodeRow }[],
    now: number,
  ): Promise<number> {
    const { db } = this.o;
    const scope = `capz:health:digest:${createHash('sha256')
      .update(
        group
          .map(
            ({ c, row }) =>
              `${c.managementCluster}\u0000${c.uid}\u0000${time(
                row.started_at,
              )}`,
          )
          .sort()
          .join('\n'),
      )
      .digest('hex')
      .slice(0, 32)}`;
    await db(DIGESTS)
      .insert({ scope, owner, size: group.length, told_at: new Date(now) })
      .onConflict('scope')
      .ignore();
    // A transaction per ROWS_PER_TRANSACTION members: one owner's 10,000 clusters do not hold the event loop at once.
    await inTransactions(
      db,
      group,
      ROWS_PER_TRANSACTION,
      async (trx, { c }) => {
        await trx(TABLE).where(where(c)).update({ digest_scope: scope });
      },
    );
    // Worst first, as the clusters page lists them.
    const members = group
      .map(({ c, row }) => ({
        namespace: c.namespace,
        name: c.name,
        health: c.health,
        reason: c.reason,
        unhealthyForMs: now - time(row.started_at),
      }))
      .sort(
        (a, b) =>
          Number(b.health === 'failed') - Number(a.health === 'failed') ||
          `${a.namespace}/${a.name}`.localeCompare(`${b.namespace}/${b.name}`),
      );
    return this.sendDigest(
      owner,
      scope,
      digestNotification({ members }),
      group.length,
    );
  }

  /** Updates a digest in place once none of its episodes is open; says how many clusters it told of. */
  private async endDigest(scope: string): Promise<number> {
    const { db } = this.o;
    const digest = await db.transaction(async trx => {
      const open = await trx(TABLE)
        .where({ digest_scope: scope })
        .count({ n: '*' });
      if (Number(open[0].n) > 0) return undefined;
      const row = (await trx(DIGESTS).where({ scope }).first()) as
        | DigestRow
        | undefined;
      // Deleted by whichever check got here first: that one tells.
      if (!row || (await trx(DIGESTS).where({ scope }).delete()) !== 1)
        return undefined;
      return row;
    });
    if (!digest) return 0;
    return this.sendDigest(
      digest.owner,
      scope,
      digestNotification({ ended: digest.size }),
      digest.size,
    );
  }

  /** A digest's notification (or its in-place update) to its owner; says how many clusters it told of. */
  private async sendDigest(
    owner: string,
    scope: string,
    words: ReturnType<typeof digestNotification>,
    size: number,
  ): Promise<number> {
    const { notifications, logger } = this.o;
    if (!notifications) return 0;
    try {
      await notifications.send({
        recipients: { type: 'entity', entityRef: owner },
        payload: {
          ...words,
          link: '/capz',
          topic: HEALTH_NOTIFICATION_TOPIC,
          scope,
        },
      });
      return size;
    } catch (e) {
      logger.warn(
        `could not notify ${owner} about ${size} clusters' health: ${
          (e as Error).message
        }`,
      );
      return 0;
    }
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
