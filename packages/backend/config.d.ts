export interface Config {
  capz?: {
    /** The app's permission policy (packages/backend/src/permissionPolicy.ts). */
    permissionPolicy?: {
      /**
       * Entity refs of the groups whose members may do everything with CAPZ clusters (create, adopt, migrate, delete,
       * every day-2 action, on every cluster). Default: the clusters' default owner
       * (`catalog.providers.capz.defaultOwner`, else group:default/platform).
       */
      platformGroups?: string[];
    };
  };
}
