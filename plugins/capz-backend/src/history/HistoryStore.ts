import {
  ObjectDeletion,
  TimelineResponse,
} from '@capz-backstage/plugin-capz-common';
import { ObservedEvent, ObservedTransition } from './extract';

/** Where an object lives: its management cluster, namespace, and the CAPI Cluster it belongs to (if known). */
export interface HistoryScope {
  managementCluster: string;
  namespace: string;
  clusterName?: string;
}

export type TransitionRow = ObservedTransition & HistoryScope;
export type EventRow = ObservedEvent & HistoryScope;
export type DeletionRow = ObjectDeletion & HistoryScope;

/** One cluster's timeline: `GET /clusters/:managementCluster/:namespace/:name/timeline`. */
export interface TimelineQuery {
  managementCluster: string;
  namespace: string;
  /** The CAPI Cluster's name. */
  cluster: string;
  from: Date;
  to: Date;
  /** Only this object's transitions and Events. */
  objectUid?: string;
  /** At most this many transitions and this many Events; the newest are kept when more match. */
  limit: number;
}

/** The condition history (docs/architecture.md#flow-history). */
export interface HistoryStore {
  /**
   * Records transitions in order, skipping any whose state is already the latest one stored for its object and
   * condition (re-observations, e.g. the initial list after a restart, or another replica). Returns the new ones.
   */
  recordTransitions(rows: TransitionRow[]): Promise<TransitionRow[]>;
  /** Upserts Events by uid: a repeated Event updates its count, last timestamp and message. */
  recordEvents(rows: EventRow[]): Promise<void>;
  /** Records objects seen deleted; a uid already recorded as deleted is left as it is. */
  recordDeletions(rows: DeletionRow[]): Promise<void>;
  /**
   * Transitions (by when they occurred), deletions and Events (by last timestamp) in the range, oldest first, and
   * each condition's state at the range's start (its last transition before `from`, for objects not deleted by then).
   */
  timeline(query: TimelineQuery): Promise<TimelineResponse>;
  /**
   * Deletes transitions, deletions and Events older than `olderThan`, except each condition's latest transition of an
   * object not seen deleted (the state it still holds); returns how many rows went.
   */
  prune(
    olderThan: Date,
  ): Promise<{ transitions: number; events: number; deletions: number }>;
}
