/**
 * The words and grouping of a health digest (healthEpisodes.ts): several unhealthy clusters of one owner told in one
 * notification, updated in place as they recover. Pure: no database, no sending.
 */
import type { ClusterSummary } from '@capz-backstage/plugin-capz-common';
import { createHash } from 'node:crypto';

/**
 * An owner told of this many episodes or more in one check (an outage) gets one digest; fewer are told one by one,
 * each with its reason, its cluster's page and its own recovery.
 */
export const DIGEST_FROM = 5;

/** The clusters of a digest, at most this many named; the link lists them all. */
const DIGEST_NAMES = 20;

/**
 * A digest's partial recoveries are told at most this often: each update raises the notification again
 * (healthEpisodes.ts, `updateDigest`), and an outage's clusters come back over many checks. Its end is told at once.
 */
export const DIGEST_UPDATE_EVERY_MS = 15 * 60_000;

export const minutesOf = (ms: number) => Math.max(1, Math.round(ms / 60000));

/** A cluster of a digest as it is told: where, how unhealthy and why. */
export type DigestMember = Pick<ClusterSummary, 'namespace' | 'name'> &
  Partial<Pick<ClusterSummary, 'health' | 'reason'>> & {
    unhealthyForMs: number;
  };

/** The scope of the digest of these episodes (each its management cluster, uid and start): the same group, the same. */
export function digestScope(episodeKeys: readonly string[]): string {
  const hash = createHash('sha256')
    .update([...episodeKeys].sort().join('\n'))
    .digest('hex');
  return `capz:health:digest:${hash.slice(0, 32)}`;
}

/** Worst first, as the clusters page lists them: the failed, then by namespace and name. */
export function worstFirst<M extends DigestMember>(members: readonly M[]): M[] {
  return [...members].sort(
    (a, b) =>
      Number(b.health === 'failed') - Number(a.health === 'failed') ||
      `${a.namespace}/${a.name}`.localeCompare(`${b.namespace}/${b.name}`),
  );
}

const are = (n: number) => `${n} ${n === 1 ? 'is' : 'are'}`;

/**
 * The notification of several clusters of one owner told at once; its in-place update when some of them are no
 * longer unhealthy (`recovered` of `size`: each healthy again or deleted, the digest does not tell which; `stillFailed`:
 * whether one of those still unhealthy is failed); and once none of them is.
 */
export function digestNotification(
  state:
    | { members: readonly DigestMember[] }
    | { size: number; recovered: number; stillFailed: boolean }
    | { ended: number },
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
  if ('recovered' in state) {
    const { size, recovered } = state;
    return {
      title: `${size} of your clusters were unhealthy; ${
        size - recovered
      } still ${size - recovered === 1 ? 'is' : 'are'}, ${are(
        recovered,
      )} not any more`,
      description: `${
        recovered === 1 ? 'That one is' : `Each of those ${recovered} is`
      } healthy again or deleted. The clusters page lists those still unhealthy worst first.`,
      // What is left is as grave as a digest of it would be: the update replaces the notification, and a failed
      // cluster is no less failed for the others' recovery. Only the end, nothing left unhealthy, is low.
      severity: state.stillFailed ? 'high' : 'normal',
    };
  }
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
