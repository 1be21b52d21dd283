export interface Config {
  /** Configuration of the CAPZ plugins. */
  capz?: {
    /**
     * The Cluster API management clusters (running CAPZ and ASO) the backend watches.
     * Each has exactly one of `serviceAccountToken`, `kubeconfig` or `azure`.
     */
    managementClusters?: Array<{
      /**
       * A unique, DNS-label-like name (used in URLs and permissions).
       * @visibility frontend
       */
      name: string;
      /**
       * Human-friendly title.
       * @visibility frontend
       */
      title?: string;
      /**
       * The API server URL. Not needed with `kubeconfig`, which carries its own server.
       */
      url?: string;
      /**
       * PEM CA bundle of the API server (with `serviceAccountToken` or `azure`).
       */
      caData?: string;
      /**
       * A service-account (or static) bearer token.
       * @visibility secret
       */
      serviceAccountToken?: string;
      /** A kubeconfig file and, optionally, the context in it to use (default: its current context). */
      kubeconfig?: {
        path: string;
        context?: string;
      };
      /**
       * Microsoft Entra ID for AKS management clusters with local accounts disabled, through @azure/identity.
       */
      azure?: {
        /** Which credential to use; `default` is DefaultAzureCredential. */
        credential: 'clientSecret' | 'workloadIdentity' | 'managedIdentity' | 'default';
        tenantId?: string;
        clientId?: string;
        /** @visibility secret */
        clientSecret?: string;
      };
      /**
       * Only watch these namespaces (default: all namespaces).
       */
      namespaces?: string[];
    }>;
  };
}
