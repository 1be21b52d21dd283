export interface Config {
  scaffolder?: {
    /** The CAPZ scaffolder actions. */
    capz?: {
      /** Where `capz:cluster:propose` proposes new clusters when its input names no repository. */
      gitops?: {
        /**
         * Git smart-HTTP URL of the GitOps repository, e.g. https://git.example.com/platform/clusters.git. Credentials
         * come from the `integrations` entry of its host, if any.
         */
        repoUrl?: string;
        /** Branch proposals start from. Default: main. */
        baseBranch?: string;
      };
    };
  };
}
