// Which clusters a view keeps and in what order: the clusters page's filters and sort, paged by GET /clusters too.
export {
  CLUSTER_FILTER_KEYS,
  CLUSTER_SORT_COLUMNS,
  clusterMatches,
  DEFAULT_CLUSTER_SORT,
  filterClusters,
  pageOfClusters,
  sortClusters,
  worstAttention,
  type ClusterFilters,
  type ClusterPageQuery,
  type ClusterSortColumn,
  type FilterableCluster,
} from './query';
