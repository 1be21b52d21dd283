import {
  day2ActionTitle,
  type ClusterPlace,
  type Day2Plan,
} from '@capz-backstage/plugin-capz-common';
import { useSyncExternalStore } from 'react';

/** An applied day-2 action the cluster page keeps following after its dialog is closed. */
export interface FollowedAction {
  plan: Day2Plan;
  /** When it was applied (ms since the epoch). */
  appliedAt: number;
}

// Kept in sessionStorage so that a reload or a visit to another page does not lose what the user is waiting for.
const STORAGE_KEY = 'capz.followedActions';
const keyOf = (c: ClusterPlace) =>
  `${c.managementCluster}/${c.namespace}/${c.name}`;

let followed: Record<string, FollowedAction> = load();
const listeners = new Set<() => void>();

function load(): Record<string, FollowedAction> {
  try {
    const raw = globalThis.sessionStorage?.getItem(STORAGE_KEY);
    return raw ? JSON.parse(raw) : {};
  } catch {
    return {};
  }
}

function update(next: Record<string, FollowedAction>) {
  followed = next;
  try {
    globalThis.sessionStorage?.setItem(STORAGE_KEY, JSON.stringify(next));
  } catch {
    // A full or disabled storage only costs the reload case.
  }
  listeners.forEach(l => l());
}

/** Follow `plan` on the cluster's page (one action per cluster: the latest replaces the one before). */
export function followAction(cluster: ClusterPlace, plan: Day2Plan) {
  update({
    ...followed,
    [keyOf(cluster)]: { plan, appliedAt: Date.now() },
  });
}

/** Stop following the cluster's action (the user dismissed it). */
export function dismissAction(cluster: ClusterPlace) {
  const { [keyOf(cluster)]: _gone, ...rest } = followed;
  update(rest);
}

const subscribe = (l: () => void) => {
  listeners.add(l);
  return () => {
    listeners.delete(l);
  };
};

/** The action the cluster's page follows, if any; re-renders when it changes. */
export function useFollowedAction(
  cluster: ClusterPlace,
): FollowedAction | undefined {
  const key = keyOf(cluster);
  return useSyncExternalStore(subscribe, () => followed[key]);
}

/** The action in the words of the menu, e.g. "Scale pool system to 5" (capz-common, as the pull requests name it). */
export const actionTitle = day2ActionTitle;
