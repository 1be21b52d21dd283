export interface Config {
  auth?: {
    providers?: {
      /**
       * The demo's second sign-in (src/demoSignIn.ts): a catalog user without credentials, for development only.
       * Off unless set.
       */
      'demo-team-member'?: {
        /** The user signed in, e.g. user:default/pat. */
        userEntityRef: string;
        /** The claims its token carries until the catalog has read that user (default: the user alone). */
        ownershipEntityRefs?: string[];
        /** Allows it outside NODE_ENV=development (like the guest provider's setting of the same name). */
        dangerouslyAllowOutsideDevelopment?: boolean;
      };
    };
  };
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
