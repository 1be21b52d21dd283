export interface Config {
  catalog?: {
    providers?: {
      /** CAPZ clusters as catalog entities. */
      capz?: {
        /** Owner written on every cluster entity that has no `capz.io/owner` annotation. Default: `group:default/platform`. */
        defaultOwner?: string;
        /** How often to refresh, in seconds. Default: 60. */
        refreshSeconds?: number;
      };
    };
  };
}
