/** The clusters page's filter controls: the health buttons at a glance, and the search and filter bar. */
import { Button, Flex, SearchField, Select } from '@backstage/ui';
import { memo, useId, useState } from 'react';
import { ClusterFacets, Health } from '@capz-backstage/plugin-capz-common';
import { HEALTH_LABEL, HEALTH_WORST_FIRST, HealthIcon } from '../shared/health';
import { API_LABEL } from './columns';
import {
  ClusterFilters,
  ClusterFiltersState,
  distinct,
  FILTER_KEYS,
} from './useClusterFilters';

const ALL = '__all__';

function FilterSelect(props: {
  label: string;
  value: string | undefined;
  options: Array<{ id: string; label: string }>;
  onChange: (value: string | undefined) => void;
}) {
  return (
    <Select
      label={props.label}
      size="small"
      style={{ minWidth: 160 }}
      value={props.value ?? ALL}
      onChange={key =>
        props.onChange(key === ALL || key === null ? undefined : String(key))
      }
      options={[{ id: ALL, label: 'All' }, ...props.options]}
    />
  );
}

/** One button per health that some cluster has, with its count; pressing one filters by it (again: unfilters). */
export function HealthButtons(props: {
  counts: Map<Health, number>;
  filters: ClusterFilters;
  setFilter: ClusterFiltersState['setFilter'];
}) {
  const { counts, filters, setFilter } = props;
  return (
    <Flex gap="2" align="center" role="group" aria-label="Health at a glance">
      {HEALTH_WORST_FIRST.filter(h => counts.get(h)).map(h => (
        <Button
          key={h}
          size="small"
          variant={filters.health === h ? 'primary' : 'secondary'}
          aria-pressed={filters.health === h}
          iconStart={<HealthIcon health={h} />}
          onPress={() =>
            setFilter('health', filters.health === h ? undefined : h)
          }
        >
          {`${counts.get(h)} ${HEALTH_LABEL[h].toLowerCase()}`}
        </Button>
      ))}
    </Flex>
  );
}

/**
 * How many clusters need attention now and soon (their version's support, CAPZ fighting AKS over the version, a pool
 * out of skew, the legacy API or v1alpha1); pressing one filters by it (again: unfilters). Nothing when none does.
 */
export function AttentionButtons(props: {
  counts: { now: number; soon: number };
  filters: ClusterFilters;
  setFilter: ClusterFiltersState['setFilter'];
}) {
  const { counts, filters, setFilter } = props;
  if (!counts.now && !counts.soon) return null;
  const press = (v: 'now' | 'soon') =>
    setFilter('attention', filters.attention === v ? undefined : v);
  return (
    <Flex gap="2" align="center" role="group" aria-label="Attention">
      {counts.now > 0 && (
        <Button
          size="small"
          variant={filters.attention === 'now' ? 'primary' : 'secondary'}
          aria-pressed={filters.attention === 'now'}
          onPress={() => press('now')}
        >
          {`${counts.now} need${counts.now === 1 ? 's' : ''} attention now`}
        </Button>
      )}
      {counts.soon > 0 && (
        <Button
          size="small"
          variant={filters.attention === 'soon' ? 'primary' : 'secondary'}
          aria-pressed={filters.attention === 'soon'}
          onPress={() => press('soon')}
        >
          {`${counts.soon} soon`}
        </Button>
      )}
    </Flex>
  );
}

/** The selects' options the clusters give (GET /clusters' facets). */
type FilterOptions = Pick<
  ClusterFacets,
  'managementClusters' | 'namespaces' | 'locations'
>;

/** The filters the selects set: every filter but the search field's `q`. */
const SELECT_FILTERS = FILTER_KEYS.filter(k => k !== 'q');

/**
 * The search field, a "Filters" button that shows one select per filter, their options from the clusters (and, for
 * the management cluster, the configured ones too), and "Clear filters" while any is set. The selects are shown
 * from the start when the address sets one of them. Why behind a button: each select is a react-aria Select that
 * builds its list box's collection even while closed, and the seven of them were half of the page's render in
 * Chromium (`yarn bench:ui`: the clusters page 720 ms with them, 432 ms without, README Benchmarks); the at-a-glance
 * health and attention buttons above cover the common filters.
 */
export const FilterBar = memo(function FilterBarView(props: {
  /** The options the clusters give (GET /clusters' facets). */
  options?: FilterOptions;
  /** The configured management clusters' names. */
  managementClusters: string[];
  state: ClusterFiltersState;
}) {
  const { options, managementClusters } = props;
  const { filters, filtered, setFilter, clearFilters } = props.state;
  const set = SELECT_FILTERS.filter(k => filters[k] !== undefined).length;
  const [shown, setShown] = useState(set > 0);
  const panelId = useId();
  return (
    <Flex direction="column" gap="3">
      <Flex gap="3" align="end" style={{ flexWrap: 'wrap' }}>
        <SearchField
          label="Search"
          size="small"
          placeholder="Name, reason, version…"
          value={filters.q ?? ''}
          onChange={v => setFilter('q', v || undefined)}
        />
        <Button
          size="small"
          variant="secondary"
          aria-expanded={shown}
          aria-controls={shown ? panelId : undefined}
          onPress={() => setShown(s => !s)}
        >
          {`${shown ? 'Hide filters' : 'Filters'}${set ? ` (${set} set)` : ''}`}
        </Button>
        {filtered && (
          <Button size="small" variant="tertiary" onPress={clearFilters}>
            Clear filters
          </Button>
        )}
      </Flex>
      {shown && (
        <FilterSelects
          id={panelId}
          options={options}
          managementClusters={managementClusters}
          filters={filters}
          setFilter={setFilter}
        />
      )}
    </Flex>
  );
});

/** One select per filter (mounted only while the "Filters" button has them shown). */
function FilterSelects(props: {
  id: string;
  options?: FilterOptions;
  managementClusters: string[];
  filters: ClusterFilters;
  setFilter: ClusterFiltersState['setFilter'];
}) {
  const { options, managementClusters, filters, setFilter } = props;
  return (
    <Flex
      id={props.id}
      role="group"
      aria-label="Filters"
      gap="3"
      align="end"
      style={{ flexWrap: 'wrap' }}
    >
      <FilterSelect
        label="Management cluster"
        value={filters.managementCluster}
        options={distinct([
          ...(options?.managementClusters ?? []),
          ...managementClusters,
        ]).map(v => ({ id: v, label: v }))}
        onChange={v => setFilter('managementCluster', v)}
      />
      <FilterSelect
        label="Namespace"
        value={filters.namespace}
        options={(options?.namespaces ?? []).map(v => ({
          id: v,
          label: v,
        }))}
        onChange={v => setFilter('namespace', v)}
      />
      <FilterSelect
        label="Health"
        value={filters.health}
        options={HEALTH_WORST_FIRST.map(h => ({
          id: h,
          label: HEALTH_LABEL[h],
        }))}
        onChange={v => setFilter('health', v)}
      />
      <FilterSelect
        label="API"
        value={filters.api}
        options={Object.entries(API_LABEL).map(([id, label]) => ({
          id,
          label,
        }))}
        onChange={v => setFilter('api', v)}
      />
      <FilterSelect
        label="Migration candidate"
        value={filters.migration}
        options={[
          { id: 'yes', label: 'Yes' },
          { id: 'no', label: 'No' },
        ]}
        onChange={v => setFilter('migration', v)}
      />
      <FilterSelect
        label="Location"
        value={filters.location}
        options={(options?.locations ?? []).map(v => ({
          id: v,
          label: v,
        }))}
        onChange={v => setFilter('location', v)}
      />
      <FilterSelect
        label="Attention"
        value={filters.attention}
        options={[
          { id: 'any', label: 'Needs attention' },
          { id: 'now', label: 'Now' },
          { id: 'soon', label: 'Soon' },
        ]}
        onChange={v => setFilter('attention', v)}
      />
    </Flex>
  );
}
