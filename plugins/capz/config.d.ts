export interface Config {
  /** Configuration of the CAPZ plugins (the backend's keys are in plugins/capz-backend/config.d.ts). */
  capz?: {
    /**
     * Where the project's docs are rendered, e.g. `https://github.com/capz-backstage/capz-backstage/blob/main/docs`.
     * The job wizards' plans cite them as `docs/<page>.md#<anchor>`: with this set, each citation is a link to
     * `<docsBaseUrl>/<page>.md#<anchor>`; without it, citations are left out of the text.
     * @visibility frontend
     */
    docsBaseUrl?: string;
    lifecycle?: {
      /**
       * A version whose AKS support ends within this many days needs attention (the clusters page's "Attention" and
       * the cluster page). Default 60.
       * @visibility frontend
       */
      soonDays?: number;
      /**
       * AKS release calendar entries laid over the one this product ships (docs/lifecycle-facts.md#aks-calendar): an
       * entry replaces the shipped minor of the same name or adds one. Read by the pages and by the backend (its
       * end-of-support notices and the MCP reads), which refuses to start on an entry that is not valid.
       * @visibility frontend
       */
      calendar?: Array<{
        /** The Kubernetes minor version, `1.38`. */
        minor: string;
        /** The month AKS made it generally available, `YYYY-MM`. */
        ga: string;
        /** The last day of community support, `YYYY-MM-DD`. */
        endOfLife: string;
        /** The last day of long-term support, `YYYY-MM-DD`. */
        ltsEndOfLife?: string;
      }>;
    };
  };
}
