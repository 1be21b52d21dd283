/**
 * A cluster's lifecycle on the pages: what needs attention today (capz-common `clusterAttention`, judged in the
 * browser for its own day: the summary carries only the undated facts) and its version's support in a few words.
 */
import { configApiRef, useApi } from '@backstage/frontend-plugin-api';
import {
  aksLifecycleSettings,
  clusterAttention,
  type AksVersionSupport,
  type AttentionInput,
  type AttentionItem,
  type AttentionOptions,
  worstAttention,
} from '@capz-backstage/plugin-capz-common';
import { useMemo } from 'react';

/** What the pages judge support with. */
export type LifecycleSettings = Omit<AttentionOptions, 'today'>;

/**
 * `capz.lifecycle`: `soonDays` (an ending support needs attention this many days ahead, default 60) and the release
 * calendar with the operator's entries. Read as the backend reads it (capz-common `aksLifecycleSettings`); the backend
 * refuses to start on a wrong entry, so the pages never judge with a calendar the backend does not.
 */
export function useLifecycleSettings(): LifecycleSettings {
  const config = useApi(configApiRef);
  return useMemo(() => {
    const { soonDays, calendar } = aksLifecycleSettings(config);
    return { soonDays, calendar };
  }, [config]);
}

/** A cluster's attention today. */
export interface Attention {
  items: AttentionItem[];
  support?: AksVersionSupport;
}

/** The attention of a cluster on `today` (the browser's day by default). */
export function attentionOf(
  c: AttentionInput,
  settings: LifecycleSettings,
  today: Date = new Date(),
): Attention {
  return clusterAttention(c, { ...settings, today });
}

/** {@link attentionOf} for one cluster, recomputed when it changes. */
export function useAttention(c: AttentionInput | undefined): Attention {
  const settings = useLifecycleSettings();
  return useMemo(
    () => (c ? attentionOf(c, settings) : { items: [] }),
    [c, settings],
  );
}

/** The most urgent severity, if any: `now` before `soon`. */
export function worstSeverity(
  items: AttentionItem[],
): 'now' | 'soon' | undefined {
  return worstAttention(items);
}

/** A version's support in a few words for a table cell: "supported", "LTS, ends in 40 days", "out of support". */
export function supportWords(
  s: AksVersionSupport | undefined,
): string | undefined {
  if (!s) return undefined;
  let ends = '';
  if (s.daysLeft === 0) ends = ', ends today';
  else if (s.daysLeft !== undefined)
    ends = `, ends in ${s.daysLeft} day${s.daysLeft === 1 ? '' : 's'}`;
  switch (s.status) {
    case 'community':
      return s.attention === 'soon' ? `supported${ends}` : 'supported';
    case 'lts':
      return `long-term support${s.attention === 'soon' ? ends : ''}`;
    case 'platform':
      return 'platform support only';
    case 'out-of-support':
      return 'out of support';
    default:
      return 'support not known';
  }
}

/** One reason in a few words, for a table cell (the cluster page gives it in full, with the fix). */
export function attentionWords(
  item: AttentionItem,
  support: AksVersionSupport | undefined,
): string {
  switch (item.id) {
    case 'version-support':
      return supportWords(support) ?? 'support ending';
    case 'auto-upgrade-with-version':
      return 'AKS auto-upgrade beside spec.version';
    case 'upgraded-outside-capz':
      return 'upgraded outside CAPZ';
    case 'pool-skew':
      return `pool ${item.pool} out of skew`;
    case 'legacy-api':
      return 'legacy API';
    default:
      return 'written at v1alpha1';
  }
}

/** The Kubernetes cell's second line: the most urgent reason (and how many more), else the version's support. */
export function versionCellWords(a: Attention | undefined): string | undefined {
  const [first, ...rest] = a?.items ?? [];
  if (!first) return supportWords(a?.support);
  return `${attentionWords(first, a?.support)}${
    rest.length ? ` (+${rest.length} more)` : ''
  }`;
}
