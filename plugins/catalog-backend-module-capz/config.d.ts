export interface Config {
  catalog?: {
    providers?: {
      /** CAPZ clusters as catalog entities. */
      capz?: {
        /** Owner written on every cluster entity that has no `capz.io/owner` annotation. Default: `group:default/platform`. */
        defaultOwner?: string;
        /**
         * How often every cluster is read again and compared with the entities, in seconds: what moved is applied as a
         * delta mutation (nothing when nothing moved), and the whole set is replaced (a full mutation) once an hour.
         * The safety net behind the live updates. Default: 60.
         */
        refreshSeconds?: number;
        /**
         * Apply each cluster change the capz backend announces (its `capz:changes` signals) as a delta mutation within
         * moments, between the full refreshes. Default: true.
         */
        liveUpdates?: boolean;
        /** How long to gather a burst of changes before reading the clusters, in milliseconds. Default: 200. */
        liveUpdateDelayMs?: number;
      };
    };
  };
}
