import { CLUSTERS, SEARCH_PROD, summary } from '../../__testUtils__/fixtures';
import { sortRows, type Row } from './columns';
import {
  applyFilters,
  countByHealth,
  distinct,
  isFiltered,
  readFilters,
  withFilter,
  withoutFilters,
} from './useClusterFilters';

const names = (items: Array<{ name: string }>) => items.map(c => c.name);

describe('the clusters page filters', () => {
  it('reads the filters from the address, ignoring empty and unknown parameters', () => {
    expect(
      readFilters(
        new URLSearchParams(
          'q=pay&namespace=&health=degraded&migration=yes&tab=tree',
        ),
      ),
    ).toEqual({ q: 'pay', health: 'degraded', migration: 'yes' });
    expect(readFilters(new URLSearchParams())).toEqual({});
  });

  it('sets, replaces and removes one filter, keeping the other parameters and leaving the old address as it was', () => {
    const before = new URLSearchParams('tab=tree&health=failed');
    const set = withFilter(before, 'namespace', 'team-a');
    expect(set.toString()).toBe('tab=tree&health=failed&namespace=team-a');
    expect(withFilter(set, 'health', 'healthy').toString()).toBe(
      'tab=tree&health=healthy&namespace=team-a',
    );
    expect(withFilter(set, 'health', undefined).toString()).toBe(
      'tab=tree&namespace=team-a',
    );
    expect(withFilter(set, 'q', '').toString()).toBe(
      'tab=tree&health=failed&namespace=team-a',
    );
    expect(before.toString()).toBe('tab=tree&health=failed');
  });

  it('clears every filter and nothing else', () => {
    const params = new URLSearchParams(
      'q=x&managementCluster=m&namespace=n&health=failed&api=aso-v1beta1&migration=no&location=l&tab=tree',
    );
    expect(withoutFilters(params).toString()).toBe('tab=tree');
    expect(params.get('q')).toBe('x');
  });

  it('says whether any filter is set', () => {
    expect(isFiltered({})).toBe(false);
    expect(isFiltered({ q: '' })).toBe(false);
    expect(isFiltered({ location: 'eastus' })).toBe(true);
  });

  it('searches names, namespace, management cluster, reason, message, version, location and owner, ignoring case and spaces', () => {
    const owned = summary({ name: 'owned', owner: 'group:Payments-Team' });
    const items = [...CLUSTERS, owned];
    const search = (q: string) => names(applyFilters(items, { q }));
    expect(search('  SEARCH-prod ')).toEqual(['search-prod']);
    expect(search('team-search')).toEqual(['search-prod']);
    expect(search('demo-2')).toEqual(['analytics']);
    expect(search('reconciliationblocked')).toEqual(['search-prod']);
    expect(search('busy with another')).toEqual(['search-prod']);
    expect(search('northeurope')).toEqual(['search-prod']);
    expect(search('payments-team')).toEqual(['owned']);
    expect(search('v1.33')).toHaveLength(items.length);
    expect(search('   ')).toHaveLength(items.length);
    expect(search('nothing like this')).toEqual([]);
  });

  it('filters by each field, and by all of them at once', () => {
    const only = (f: Parameters<typeof applyFilters>[1]) =>
      names(applyFilters(CLUSTERS, f));
    expect(only({})).toEqual(names(CLUSTERS));
    expect(only({ managementCluster: 'demo-2' })).toEqual(['analytics']);
    expect(only({ namespace: 'team-payments' })).toEqual(['payments']);
    expect(only({ health: 'degraded' })).toEqual(['search-prod']);
    expect(only({ api: 'azure-managed' })).toEqual(['legacy-web']);
    expect(only({ migration: 'yes' })).toEqual(['legacy-web']);
    expect(only({ migration: 'no' })).toEqual([
      'search-prod',
      'payments',
      'analytics',
    ]);
    expect(only({ location: 'northeurope' })).toEqual(['search-prod']);
    expect(
      only({ managementCluster: 'local', location: 'westeurope', q: 'pay' }),
    ).toEqual(['payments']);
    expect(only({ managementCluster: 'demo-2', health: 'healthy' })).toEqual(
      [],
    );
  });

  it('counts a cluster without health as unknown, and filters it so', () => {
    const unknown = summary({ name: 'new', health: undefined });
    const items = [...CLUSTERS, unknown];
    expect(names(applyFilters(items, { health: 'unknown' }))).toEqual(['new']);
    expect(Object.fromEntries(countByHealth(items))).toEqual({
      degraded: 1,
      healthy: 2,
      progressing: 1,
      unknown: 1,
    });
  });

  it('keeps the type of the items it filters', () => {
    const rows: Row[] = CLUSTERS.map(c => ({ ...c, id: c.name }));
    const kept: Row[] = applyFilters(rows, { q: 'search' });
    expect(kept.map(r => r.id)).toEqual([SEARCH_PROD.name]);
  });

  it('lists the distinct values, sorted, without empty ones', () => {
    expect(distinct(['b', undefined, 'a', '', 'b', 'c'])).toEqual([
      'a',
      'b',
      'c',
    ]);
  });
});

describe('the clusters table order', () => {
  const rows: Row[] = CLUSTERS.map(c => ({
    ...c,
    id: `${c.managementCluster}/${c.namespace}/${c.name}`,
  }));

  it('puts the worst health first, ties by id', () => {
    expect(names(sortRows(rows, 'health', 'ascending'))).toEqual([
      'search-prod',
      'analytics',
      'legacy-web',
      'payments',
    ]);
  });

  it('sorts by a text column either way', () => {
    expect(names(sortRows(rows, 'name', 'ascending'))).toEqual([
      'analytics',
      'legacy-web',
      'payments',
      'search-prod',
    ]);
    // Ties stay in id order whichever the direction.
    expect(names(sortRows(rows, 'location', 'descending'))).toEqual([
      'analytics',
      'payments',
      'search-prod',
      'legacy-web',
    ]);
  });
});
