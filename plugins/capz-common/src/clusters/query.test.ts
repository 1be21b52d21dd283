import type { ClusterSummary } from '../api';
import {
  attentionMatches,
  filterClusters,
  pageOfClusters,
  worstAttention,
  type FilterableCluster,
} from './query';

const c = (
  name: string,
  extra: Partial<ClusterSummary> & {
    attention?: { items: Array<{ severity: 'now' | 'soon' }> };
  } = {},
) =>
  ({
    managementCluster: 'local',
    namespace: 'team-a',
    name,
    api: 'aso-v1beta1',
    ...extra,
  } as unknown as FilterableCluster);

describe('the clusters query', () => {
  const now = c('eol', {
    health: 'healthy',
    attention: { items: [{ severity: 'soon' }, { severity: 'now' }] as never },
  });
  const soon = c('ending', {
    health: 'degraded',
    attention: { items: [{ severity: 'soon' }] as never },
  });
  const fine = c('fine', { health: 'failed', attention: { items: [] } });

  it('keeps the clusters whose most urgent attention matches: now, only soon, or any', () => {
    expect(worstAttention(now.attention!.items as never)).toBe('now');
    const names = (f: Parameters<typeof filterClusters>[1]) =>
      filterClusters([now, soon, fine], f).map(x => x.name);
    expect(names({ attention: 'now' })).toEqual(['eol']);
    expect(names({ attention: 'soon' })).toEqual(['ending']);
    expect(names({ attention: 'any' })).toEqual(['eol', 'ending']);
    // The same test on a judgement held apart from the summary (the server's paged views), none judged as none.
    const kept = (f: 'now' | 'soon' | 'any') =>
      [now, soon, fine, c('unjudged')]
        .filter(x => attentionMatches(x.attention, f))
        .map(x => x.name);
    expect(kept('now')).toEqual(['eol']);
    expect(kept('soon')).toEqual(['ending']);
    expect(kept('any')).toEqual(['eol', 'ending']);
  });

  it('sorts worst health first by default and pages the result, ties by place', () => {
    const twin = c('eol', { namespace: 'team-0', health: 'healthy' });
    const page = pageOfClusters([now, soon, fine, twin], {
      offset: 1,
      limit: 2,
    });
    // failed, degraded, then the two healthy ones by management cluster, namespace and name.
    expect(page).toEqual({
      items: [soon, twin],
      total: 4,
      offset: 1,
    });
  });
});
