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
       * The backend requests a token for the AKS server application and refreshes it before it expires.
       * The identity needs Kubernetes RBAC (or Azure RBAC for Kubernetes) to list and watch the watched kinds.
       */
      azure?: {
        /**
         * Which credential to use: `clientSecret` (tenantId, clientId, clientSecret), `workloadIdentity`
         * (tenantId, clientId, tokenFilePath; default from AZURE_TENANT_ID, AZURE_CLIENT_ID,
         * AZURE_FEDERATED_TOKEN_FILE), `managedIdentity` (clientId of a user-assigned identity, else the
         * system-assigned one), `default` (DefaultAzureCredential).
         */
        credential:
          | 'clientSecret'
          | 'workloadIdentity'
          | 'managedIdentity'
          | 'default';
        /** The Entra tenant (directory) id. */
        tenantId?: string;
        /** The app registration's or the user-assigned managed identity's client id. */
        clientId?: string;
        /**
         * The app registration's client secret (credential `clientSecret` only).
         * @visibility secret
         */
        clientSecret?: string;
        /** The federated (projected service-account) token file of workload identity. */
        tokenFilePath?: string;
        /**
         * The Entra application the API server accepts tokens for; the scope requested is `<id>/.default`.
         * Default: 6dae42f8-4368-4678-94ff-3960e28e3630, the AKS server application (all clouds).
         */
        serverApplicationId?: string;
        /**
         * The Entra authority host, e.g. https://login.microsoftonline.us for Azure Government.
         * Default: the public cloud (or AZURE_AUTHORITY_HOST).
         */
        authorityHost?: string;
        /** Skip Entra instance discovery, for private authorities (Azure Stack Hub, a test authority). */
        disableInstanceDiscovery?: boolean;
        /** PEM CA bundle for the authority's TLS certificate, replacing the well-known CAs (private authorities). */
        authorityCaData?: string;
        /**
         * How many seconds before expiry the token is refreshed in the background (default 300; at most half of
         * the token's lifetime).
         */
        refreshMarginSeconds?: number;
      };
      /**
       * Only watch these namespaces (default: all namespaces).
       */
      namespaces?: string[];
    }>;
    /** Connecting to workload clusters (the cluster page's Connect dialog). */
    connect?: {
      /**
       * Whether a user with `capz.cluster.connect` may download the kubeconfig of a cluster with local accounts,
       * which holds a secret (AKS's user credential of such a cluster is a cluster-admin client certificate and
       * token). Default false: only Entra ID clusters' kubeconfigs (kubelogin, no secret) are handed out.
       */
      allowLocalAccountKubeconfig?: boolean;
    };
    /**
     * AKS discovery for adoption and the migration's final check: the backend lists and reads AKS clusters through
     * Azure Resource Manager with the credential of the chosen ASO credential Secret. No configuration is needed for
     * the Azure public cloud. The same keys under `managementClusters.<name>` override these for one management
     * cluster (e.g. one in a sovereign cloud).
     */
    azureDiscovery?: AzureDiscoverySettings & {
      /** Per management cluster (by `capz.managementClusters[].name`): overrides of the keys above. */
      managementClusters?: { [name: string]: AzureDiscoverySettings };
    };
    /**
     * Day-2 actions on objects a Flux Kustomization applies: instead of a live write (Flux would put it back), the
     * confirm pushes a branch to the Kustomization's Git repository and opens its pull request. The repository is
     * reached with the `integrations` entry of its host (the scaffolder's publish credentials).
     */
    gitops?: {
      /**
       * Whether such actions, and a migration's new manifests, are proposed to Git (default true); false refuses the
       * day-2 actions with 409, and a migration in Git mode stops at its proposal for the change to be made by hand.
       */
      pullRequests?: boolean;
      /** The commits' author (default "Backstage CAPZ" <capz@backstage.local>); the user who confirmed is in the message. */
      author?: {
        name?: string;
        email?: string;
      };
    };
    /** The plugin's actions in Backstage's actions registry (served to AI assistants by the MCP actions backend). */
    actions?: {
      /**
       * Whether a service principal (a static token of `backend.auth.externalAccess`, another plugin) may confirm a
       * day-2 action, through `capz:apply-cluster-action` and the confirm route (default false: it may preview only).
       * Backstage grants service principals every permission without asking the policy, so with this on any holder
       * of such a token can change any cluster; the audit event names the token's subject. Deletes stay with users.
       */
      allowServicePrincipalApply?: boolean;
    };
    /** Adoption, migration and apiVersion-upgrade jobs. */
    jobs?: {
      /**
       * How long a replica's lease on a running job lasts without a heartbeat (default 30). A crashed replica's job
       * is resumed by another replica (or the restarted one) after at most this long.
       */
      leaseSeconds?: number;
    };
    /** Where a cluster's Kubernetes version stands in AKS's support (docs/lifecycle-facts.md); shared with the pages. */
    lifecycle?: {
      /**
       * A version whose AKS support ends within this many days needs attention (default 60): the MCP reads of the
       * clusters that need attention, as the pages.
       * @visibility frontend
       */
      soonDays?: number;
      /**
       * AKS release calendar entries laid over the shipped one: an entry replaces the shipped minor of the same name
       * or adds one. The backend refuses to start on an entry that is not valid (a wrong date would move every notice).
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
    /**
     * What the owners of a cluster are told through Backstage's notifications (topics capz-jobs, capz-cluster-health,
     * capz-day2, capz-lifecycle).
     */
    notifications?: {
      /**
       * How long a cluster stays degraded or failed before its owners hear of it (default 30 minutes); they hear of
       * its recovery in the same notification. A HumanDuration object (`{ minutes: 30 }`) or a string (`PT30M`, `30m`).
       */
      unhealthyAfter?:
        | {
            days?: number;
            hours?: number;
            minutes?: number;
            seconds?: number;
            milliseconds?: number;
          }
        | string;
      /**
       * How long before its support ends a cluster's Kubernetes version is told to its owners (default 30 days, topic
       * capz-lifecycle): once when its community support (or long-term support, with LTS on) ends within it, and again
       * at once when the version is on platform support only, or out of support. Counted in whole days (a part of a
       * day counts as one). A HumanDuration object (`{ days: 30 }`) or a string (`P30D`, `30d`); zero (`{ days: 0 }`)
       * switches these notifications off.
       */
      endOfSupportWithin?:
        | {
            months?: number;
            weeks?: number;
            days?: number;
            hours?: number;
          }
        | string;
    };
    /** The condition history: every observed condition transition and Event, kept in the plugin's database. */
    history?: {
      /**
       * How long transitions and Events are kept (default 30 days): a duration object such as `{ days: 30 }`, or
       * a string, ISO 8601 (`P30D`) or short (`30d`). Pruned hourly by a scheduled task; each condition's latest
       * transition stays while its object lives (the state a timeline starts from).
       */
      retention?:
        | {
            years?: number;
            months?: number;
            weeks?: number;
            days?: number;
            hours?: number;
            minutes?: number;
            seconds?: number;
            milliseconds?: number;
          }
        | string;
    };
  };
}

/** Where ARM and Entra ID are for AKS discovery, and which credential the backend uses. */
interface AzureDiscoverySettings {
  /**
   * The ARM endpoint (https). Default https://management.azure.com; e.g. https://management.usgovcloudapi.net for
   * Azure Government, or the simulated ARM endpoint in development.
   */
  resourceManagerEndpoint?: string;
  /**
   * The resource ARM tokens are requested for (scope `<audience>/.default`). Default https://management.azure.com;
   * set it with `resourceManagerEndpoint` for sovereign clouds (ASO's AZURE_RESOURCE_MANAGER_AUDIENCE).
   */
  resourceManagerAudience?: string;
  /** The Entra ID authority host (https), e.g. https://login.microsoftonline.us. Default: the public cloud. */
  authorityHost?: string;
  /** Skip Entra instance discovery, for private authorities (Azure Stack Hub, a test Entra ID). */
  disableInstanceDiscovery?: boolean;
  /**
   * PEM CA bundle trusted for ARM and Entra ID instead of the well-known CAs (private endpoints, the simulator).
   * Applies to these clients only; nothing process-wide changes.
   */
  caData?: string;
  /**
   * `secret` (default): the service principal in the ASO credential Secret (AZURE_CLIENT_SECRET, or a PEM
   * AZURE_CLIENT_CERTIFICATE). Secrets for workload identity or managed identity name ASO's own pod identity, which
   * the backend cannot use: with `default` the backend uses its own identity (DefaultAzureCredential: environment,
   * workload identity, managed identity, Azure CLI) with the Secret's subscription and tenant, for every Secret.
   * That identity needs read access (e.g. Reader) to the subscriptions' AKS clusters.
   */
  credential?: 'secret' | 'default';
  /**
   * How long one ARM request may take before the backend gives it up and tells the user to try again (default 30;
   * the Azure SDK itself sets no bound).
   */
  requestTimeoutSeconds?: number;
}
