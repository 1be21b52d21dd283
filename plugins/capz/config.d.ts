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
    };
  };
}
