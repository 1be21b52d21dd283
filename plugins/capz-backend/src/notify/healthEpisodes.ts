/**
 * The owners hear of a cluster that stays unhealthy, and of its recovery: one notification per episode, sent once
 * the cluster has been degraded or failed for `capz.notifications.unhealthyAfter` (default 30 minutes) and updated in
 * place (its scope) when it is healthy again or gone. A blip shorter than that is told to nobody. When one check
 * tells an owner of five or more clusters (a region's outage), they go out as one digest to that owner
 * (healthDigest.ts), updated in place at most every DIGEST_UPDATE_EVERY_MS as some of them are no longer unhealthy,
 * and once the last of them is not: 500 clusters degraded at once are one notification per team, not 500.
 *
 * A scheduled check, global (one replica at a time), reads the clusters' health from the watch cache: no API call,
 * and once a minute rather than per event. Each episode is a row of the plugin's database, so it is told once whichever
 * replica runs the check and across restarts; the row is claimed before the notification is sent, and released when
 * the send fails. While sends fail (the notifications backend away) the check backs off (SendBackoff) and what is due
 * waits in the database, told by the first check whose send goes through.
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
import { SEND_BACKOFF_MAX_MS, SendBackoff } from './sendBackoff';
import {
  DIGEST_FROM,
  DIGEST_UPDATE_EVERY_MS,
  digestNotification,
  digestScope,
  minutesOf,
  worstFirst,
} from './healthDigest';

export { DIGEST_FROM, digestNotification } from './healthDigest';
export type { DigestMember } from './healthDigest';

/** The topic of these notifications (a user may switch it off in the notification settings). */
export const HEALTH_NOTIFICATION_TOPIC = 'capz-cluster-health';

export const DEFAULT_UNHEALTHY_AFTER_MS = 30 * 60 * 1000;

/**
 * How often the check runs: every minute, or four times per `unhealthyAfterMs` when that is shorter (at least every
 * 5 s), so that an episode is told at most a quarter late.
 */
export const healthCheckEveryMs = (unhealthyAfterMs: number) =>
  Math.min(60_000, Math.max(5_000, unhealthyAfterMs / 4));

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
  digest_scope?: string | null;
}

const DIGESTS = 'capz_health_digests';

interface DigestRow {
  scope: string;
  owner: string;
  size: number;
  /** How many of its clusters its notification last said are no longer unhealthy. */
  recovered: number;
  /** When it was told, and last updated with a partial recovery. */
  told_at: Date | string;
  updated_at?: Date | string | null;
  /** The severity it was told at: its updates' when the health of one still unhealthy is not known. */
  severity: 'high' | 'normal';
}

/**
 * What a check knows of a digest's clusters still unhealthy (those it ends left out): whether one is failed, and
 * whether one's health is not known (its management cluster's cache not synced).
 */
interface DigestLeft {
  failed: boolean;
  unknown: boolean;
}

const time = (v: Date | string) => new Date(v).getTime();

/** A timestamp read back, to be written again (SQLite reads it as a number, PostgreSQL as a Date). */
const again = (v: Date | string | null | undefined) =>
  v === null || v === undefined ? null : new Date(time(v));

const inWords = (ms: number) => {
  if (ms < 60_000) return `${Math.round(ms / 1000)} seconds`;
  const m = Math.round(ms / 60_000);
  return `${m} minute${m === 1 ? '' : 's'}`;
};

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

/** An open episode, and the cluster it is of. */
type Due = { c: Place; row: EpisodeRow };

/** What one check does: the episodes it starts, tells and ends; what is left of each digest. */
interface Plan {
  starts: Place[];
  notify: Due[];
  ends: (Due & { notified: boolean })[];
  digests: Map<string, DigestLeft>;
}

type Payload = Parameters<NotificationService['send']>[0]['payload'];

/**
 * One check: every cluster of every synced management cluster against the open episodes. The episodes that start
 * are written a few transactions at a time, and the catalog is asked of those to tell in batches, yielding the event
 * loop between them: a region's outage that degrades 500 clusters is not 500 commits and 500 catalog requests in a row.
 */
export class HealthEpisodes {
  private readonly backoff: SendBackoff;
  /**
   * Of the check running (the scheduler runs one at a time): how many notices wait for the backoff, and the failure
   * that began a stretch of them, logged once at its end with that count.
   */
  private waiting = 0;
  private failure?: string;

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
  ) {
    this.backoff = new SendBackoff(healthCheckEveryMs(o.unhealthyAfterMs));
  }

  /**
   * Runs one check; says how many clusters' owners it told of: a digest counts its clusters, an update of it those
   * it is the first to tell of as no longer unhealthy.
   */
  async check(now = Date.now()): Promise<number> {
    this.waiting = 0;
    this.failure = undefined;
    try {
      return await this.checkAt(now);
    } finally {
      this.logWaiting(now);
    }
  }

  private async checkAt(now: number): Promise<number> {
    const { starts, notify, ends, digests } = await this.plan(now);
    await inTransactions(
      this.o.db,
      starts,
      ROWS_PER_TRANSACTION,
      async (trx, c) => {
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
      },
    );
    const told = await this.tellDue(notify, now);
    return told + (await this.end(ends, digests, now));
  }

  /** One warning per stretch of failed sends, saying how many notices wait; the checks during it at debug. */
  private logWaiting(now: number): void {
    const { logger } = this.o;
    const waiting = `${this.waiting} notice${
      this.waiting === 1 ? '' : 's'
    } wait`;
    const next = inWords(this.backoff.nextTryIn(now));
    if (this.failure)
      logger.warn(
        `${
          this.failure
        }; ${waiting}, tried again in ${next}, then less often (at most every ${inWords(
          SEND_BACKOFF_MAX_MS,
        )}) while sends fail`,
      );
    else if (this.waiting)
      logger.debug(
        `sends of health notifications back off: ${waiting}, next try in ${next}`,
      );
  }

  /** Every cluster of every synced management cluster against the open episodes. */
  private async plan(now: number): Promise<Plan> {
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
    const out: Plan = { starts: [], notify: [], ends: [], digests: new Map() };
    // The health of a digest's cluster still unhealthy; undefined: not known.
    const left = (scope: string, health: Health | undefined) => {
      const d = out.digests.get(scope) ?? { failed: false, unknown: false };
      d.failed ||= health === 'failed';
      d.unknown ||= health === undefined;
      out.digests.set(scope, d);
    };
    const add = (
      c: Place,
      row: EpisodeRow | undefined,
      health: Health | undefined | 'gone' = c.health,
    ) => {
      const step = episodeStep(
        health,
        row && episodeOf(row),
        now,
        unhealthyAfterMs,
      );
      if (step.do === 'start') out.starts.push(c);
      else if (step.do === 'notify') out.notify.push({ c, row: row! });
      else if (step.do === 'end')
        out.ends.push({ c, row: row!, notified: step.notified });
      if (row?.digest_scope && step.do !== 'end')
        left(row.digest_scope, health === 'gone' ? undefined : health);
    };
    for (const c of source.clusters()) {
      if (!c.uid || !isSynced(c.managementCluster)) continue;
      const key = `${c.managementCluster}\u0000${c.uid}`;
      seen.add(key);
      add(c, open.get(key));
    }
    // Episodes of clusters no synced management cluster holds any more: deleted while unhealthy.
    for (const [key, row] of open) {
      if (seen.has(key)) continue;
      if (!isSynced(row.management_cluster)) {
        if (row.digest_scope) left(row.digest_scope, undefined);
        continue;
      }
      add(
        {
          managementCluster: row.management_cluster,
          uid: row.cluster_uid,
          namespace: row.namespace,
          name: row.name,
        },
        row,
        'gone',
      );
    }
    return out;
  }

  /** The episodes due whose owners the catalog knows: claimed, grouped by owner, told one by one or in a digest. */
  private async tellDue(notify: readonly Due[], now: number): Promise<number> {
    // While sends back off, the catalog is not asked either: the episodes wait, unclaimed, for the next try.
    if (notify.length && this.backoff.waits(now)) {
      this.waiting += notify.length;
      return 0;
    }
    const addressees = await clusterAddressees(
      notify.map(n => n.c),
      this.o,
    );
    const toTell = notify.flatMap((n, i) => {
      const a = addressees[i];
      return a.held ? [{ ...n, owner: a.owner }] : [];
    });
    // Claimed first: of two checks that both got here, one updates the row and tells (released if its send fails).
    const claimed = await inTransactions(
      this.o.db,
      toTell,
      ROWS_PER_TRANSACTION,
      async (trx, n) =>
        (await trx(TABLE)
          .where(where(n.c))
          .whereNull('notified_at')
          .update({ notified_at: new Date(now) })) === 1,
    );
    const byOwner = new Map<string, Due[]>();
    for (const n of claimed) {
      if (!byOwner.has(n.owner)) byOwner.set(n.owner, []);
      byOwner.get(n.owner)!.push(n);
    }
    let told = 0;
    for (const [owner, group] of byOwner) {
      // A send of this check failed: the rest wait, released, for the next try.
      if (this.backoff.waits(now)) {
        this.waiting += group.length >= DIGEST_FROM ? 1 : group.length;
        await this.inDigest(group, { digest_scope: null, notified_at: null });
        continue;
      }
      if (group.length >= DIGEST_FROM) {
        told += await this.tellDigest(owner, group, now);
        continue;
      }
      for (const n of group) told += await this.tellOne(n, now);
    }
    return told;
  }

  /** An episode told on its own. A send that fails releases its claim: the next check that tries tells it. */
  private async tellOne({ c, row }: Due, now: number): Promise<number> {
    const startedAt = time(row.started_at);
    const sent = await this.send(
      c,
      startedAt,
      { unhealthyForMs: now - startedAt },
      now,
    );
    if (sent === false)
      await this.o.db(TABLE).where(where(c)).update({ notified_at: null });
    return sent ? 1 : 0;
  }

  /**
   * The episodes that end: their rows deleted (whichever check deletes a row tells its end), the notification of
   * each told on its own updated in place, and each digest they were told in updated once, after all of them. An end
   * to tell on its own keeps its row while sends back off, and gets it back when its send fails: deleted, it could
   * not be told later.
   */
  private async end(
    ends: Plan['ends'],
    left: Plan['digests'],
    now: number,
  ): Promise<number> {
    const { db } = this.o;
    let told = 0;
    const digests = new Set<string>();
    await inTransactions(
      db,
      ends,
      ROWS_PER_TRANSACTION,
      async (trx, e) => {
        if (e.notified && !e.row.digest_scope && this.backoff.waits(now)) {
          this.waiting += 1;
          return false;
        }
        return (await trx(TABLE).where(where(e.c)).delete()) === 1;
      },
      async ended => {
        for (const { c, row, notified } of ended)
          if (row.digest_scope) digests.add(row.digest_scope);
          else if (notified) {
            const state =
              c.health === undefined
                ? { gone: true as const }
                : { recovered: true as const };
            const sent = await this.send(c, time(row.started_at), state, now);
            if (sent) told += 1;
            else if (sent === false)
              await db(TABLE)
                .insert({
                  ...row,
                  started_at: again(row.started_at),
                  notified_at: again(row.notified_at),
                })
                .onConflict(['management_cluster', 'cluster_uid'])
                .ignore();
          }
      },
    );
    // And the digests whose word is due without an end in this check (few rows: one per owner's outage): recoveries
    // that waited for DIGEST_UPDATE_EVERY_MS, and an end not told yet (its send failed or waited for the backoff).
    for (const d of (await db(DIGESTS).select()) as DigestRow[])
      if (
        now - time(d.updated_at ?? d.told_at) >= DIGEST_UPDATE_EVERY_MS ||
        !left.has(d.scope)
      )
        digests.add(d.scope);
    for (const scope of digests)
      told += await this.updateDigest(scope, left.get(scope), now);
    return told;
  }

  /**
   * Several episodes of one owner, told in one notification to that owner (one reference, as the end-of-support
   * digests: docs/scale.md#end-of-support-notices-at-scale). Its episodes keep its scope, so that their ends update
   * it in place. A send that fails releases them: the next check groups them again (with any due since) and tells.
   */
  private async tellDigest(
    owner: string,
    group: readonly Due[],
    now: number,
  ): Promise<number> {
    const { db } = this.o;
    const scope = digestScope(
      group.map(
        ({ c, row }) =>
          `${c.managementCluster}\u0000${c.uid}\u0000${time(row.started_at)}`,
      ),
    );
    const members = worstFirst(
      group.map(({ c, row }) => ({
        namespace: c.namespace,
        name: c.name,
        health: c.health,
        reason: c.reason,
        unhealthyForMs: now - time(row.started_at),
      })),
    );
    const words = digestNotification({ members });
    // The members carry the scope before the digest's row exists, and lose it only after the row is gone: a replica
    // that finds the row counts its members, and a row without them would read as every member recovered (an end,
    // told wrongly: seen once with two replicas on PostgreSQL). A transaction per ROWS_PER_TRANSACTION members: one
    // owner's 10,000 clusters do not hold the event loop at once.
    await this.inDigest(group, { digest_scope: scope });
    await db(DIGESTS)
      .insert({
        scope,
        owner,
        size: group.length,
        told_at: new Date(now),
        severity: words.severity,
      })
      .onConflict('scope')
      .ignore();
    const sent = await this.sendDigest(owner, scope, words, group.length, now);
    if (sent === false) {
      await db(DIGESTS).where({ scope }).delete();
      await this.inDigest(group, { digest_scope: null, notified_at: null });
    }
    return sent ? group.length : 0;
  }

  /** Writes `set` on the rows of `group`, ROWS_PER_TRANSACTION to a transaction. */
  private async inDigest(
    group: readonly Due[],
    set: { digest_scope: string | null; notified_at?: null },
  ): Promise<void> {
    await inTransactions(
      this.o.db,
      group,
      ROWS_PER_TRANSACTION,
      async (trx, { c }) => {
        await trx(TABLE).where(where(c)).update(set);
      },
    );
  }

  /**
   * Updates a digest in place after some of its episodes ended, at most every DIGEST_UPDATE_EVERY_MS: how many are
   * still unhealthy (at their severity, `left`), or that none is. Says how many clusters it told of as no longer
   * unhealthy for the first time. A word that cannot be sent (or waits for the backoff) leaves the row as last told,
   * so that the next check that tries tells it, with any more recovered by then.
   *
   * The notifications backend raises a notification sent again with the same scope to the same user as new: it
   * updates it in place and marks it unread (`@backstage/plugin-notifications-backend` 0.6.9,
   * `dist/database/DatabaseNotificationsStore.cjs.js` lines 282-302, `restoreExistingNotification`: `read: null`),
   * then publishes a `new_notification` signal and runs the processors (e.g. e-mail) again
   * (`dist/service/router.cjs.js` lines 464-491, `sendUserNotification`), on which the app's sidebar item shows a
   * snackbar (`@backstage/plugin-notifications` 0.6.0, `NotificationsSideBarItem.esm.js` line 136). So partial
   * recoveries are told at most every DIGEST_UPDATE_EVERY_MS per digest (not per cluster, nor per check).
   */
  private async updateDigest(
    scope: string,
    left: DigestLeft | undefined,
    now: number,
  ): Promise<number> {
    const update = await this.o.db.transaction(async trx => {
      const row = (await trx(DIGESTS).where({ scope }).first()) as
        | DigestRow
        | undefined;
      if (!row) return undefined;
      const open = await trx(TABLE)
        .where({ digest_scope: scope })
        .count({ n: '*' });
      const recovered = row.size - Number(open[0].n);
      // The end at once; a partial recovery once DIGEST_UPDATE_EVERY_MS has passed since the digest's last word (a
      // later check tells it, with any more recovered by then).
      if (recovered < row.size) {
        const last = time(row.updated_at ?? row.told_at);
        if (recovered <= row.recovered || now - last < DIGEST_UPDATE_EVERY_MS)
          return undefined;
      }
      // Due, but sends back off: the row stays as last told, for the next check that tries.
      if (this.backoff.waits(now)) {
        this.waiting += 1;
        return undefined;
      }
      // Whichever check changes the row tells: the end deletes it, a partial recovery moves its count on from the
      // one this check read; a check that finds it deleted, or moved on already (another replica told it), tells
      // nothing.
      const changed =
        recovered >= row.size
          ? await trx(DIGESTS).where({ scope }).delete()
          : await trx(DIGESTS)
              .where({ scope, recovered: row.recovered })
              .update({ recovered, updated_at: new Date(now) });
      return changed === 1 ? { row, recovered } : undefined;
    });
    if (!update) return 0;
    const { row, recovered } = update;
    // What is left is failed when this check saw one failed; the digest's own severity when it cannot see them all.
    const stillFailed =
      (left?.failed ?? false) ||
      ((left?.unknown ?? true) && row.severity === 'high');
    const words =
      recovered >= row.size
        ? digestNotification({ ended: row.size })
        : digestNotification({ size: row.size, recovered, stillFailed });
    const sent = await this.sendDigest(row.owner, scope, words, row.size, now);
    if (sent === false) await this.untold(row, recovered);
    return sent ? recovered - row.recovered : 0;
  }

  /**
   * A digest's word that was not sent: its row back as last told, so that a later check tells it. Each move is a
   * compare-and-set as the update's: a replica that moved the count on since tells its own (newer) count, and a
   * deleted row comes back only where none is.
   */
  private async untold(row: DigestRow, recovered: number): Promise<void> {
    const { db } = this.o;
    const told = {
      recovered: row.recovered,
      updated_at: again(row.updated_at),
    };
    if (recovered < row.size)
      await db(DIGESTS).where({ scope: row.scope, recovered }).update(told);
    else
      await db(DIGESTS)
        .insert({
          scope: row.scope,
          owner: row.owner,
          size: row.size,
          told_at: again(row.told_at),
          severity: row.severity,
          ...told,
        })
        .onConflict('scope')
        .ignore();
  }

  /** A digest's notification (or its in-place update) to its owner: as `deliver`. */
  private sendDigest(
    owner: string,
    scope: string,
    words: ReturnType<typeof digestNotification>,
    size: number,
    now: number,
  ): Promise<boolean | undefined> {
    return this.deliver(
      owner,
      { ...words, link: '/capz', topic: HEALTH_NOTIFICATION_TOPIC, scope },
      `${owner} about ${size} clusters' health`,
      now,
    );
  }

  /** An episode's notification (or its in-place update) to its cluster's owners: as `deliver`. */
  private send(
    c: Pick<ClusterSummary, 'managementCluster' | 'namespace' | 'name'> &
      Partial<ClusterSummary>,
    startedAt: number,
    state: Parameters<typeof episodeNotification>[1],
    now: number,
  ): Promise<boolean | undefined> {
    return this.deliver(
      clusterEntityRef(c),
      {
        ...episodeNotification(c, state),
        link: clusterPagePath(c),
        topic: HEALTH_NOTIFICATION_TOPIC,
        // One notification per episode: its end replaces its start (and marks it unread again, see updateDigest).
        scope: `capz:health:${c.managementCluster}:${c.namespace}/${c.name}:${startedAt}`,
      },
      `the owners of ${c.namespace}/${c.name} about its health`,
      now,
    );
  }

  /**
   * Sends one notification: true once sent; false when it waits for the backoff or its send failed (which starts or
   * prolongs the backoff); undefined without the notifications backend (nothing tried, and nothing to try again).
   */
  private async deliver(
    entityRef: string,
    payload: Payload,
    about: string,
    now: number,
  ): Promise<boolean | undefined> {
    const { notifications, logger } = this.o;
    if (!notifications) return undefined;
    if (this.backoff.waits(now)) {
      this.waiting += 1;
      return false;
    }
    try {
      await notifications.send({
        recipients: { type: 'entity', entityRef },
        payload,
      });
    } catch (e) {
      this.waiting += 1;
      const why = `could not notify ${about}: ${(e as Error).message}`;
      // The stretch's first failure is warned of once the check knows how many notices wait; the next at debug.
      if (this.backoff.failed(now)) this.failure = why;
      else logger.debug(why);
      return false;
    }
    const failedFor = this.backoff.succeeded(now);
    if (failedFor !== undefined)
      logger.info(
        `health notifications are sent again after ${inWords(
          failedFor,
        )} of failed sends; telling those that waited`,
      );
    return true;
  }
}

function episodeOf(row: EpisodeRow): HealthEpisode {
  return {
    startedAt: time(row.started_at),
    ...(row.notified_at ? { notifiedAt: time(row.notified_at) } : {}),
  };
}

/** Runs the check on the scheduler, on one replica at a time, every `healthCheckEveryMs`. */
export async function scheduleHealthNotifications(o: {
  scheduler: SchedulerService;
  episodes: HealthEpisodes;
  unhealthyAfterMs: number;
  logger: LoggerService;
}): Promise<void> {
  const everyMs = healthCheckEveryMs(o.unhealthyAfterMs);
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
