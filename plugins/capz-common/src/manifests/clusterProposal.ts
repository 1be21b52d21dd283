import { stringify } from 'yaml';
import {
  generateAksAsoClusterManifests,
  type AksAsoClusterParams,
  type KubeObject,
} from './aksAsoCluster';
import { poolObjectName } from './clusterRules';
import {
  CAPZ_CLUSTER_ANNOTATION,
  MANAGEMENT_CLUSTER_LABEL,
} from '../vocabulary';

/**
 * A new AKS cluster proposed through Git: the files a GitOps repository gets and the words that go with them (commit
 * message, pull request title and description). One pure function for `capz:cluster:render` (which writes the files
 * into the scaffolder's workspace for the forges' own pull-request actions) and `capz:cluster:propose` (which pushes
 * them as a branch to a plain Git server), so both deliver the same bytes.
 */

/** Objects as multi-document YAML, as `capz:cluster:render` outputs them and the cluster file holds them. @public */
export function manifestsYaml(objects: KubeObject[]): string {
  return objects.map(o => stringify(o)).join('---\n');
}

/** The multi-document YAML of the cluster: byte for byte `capz:cluster:render`'s `manifests`. @public */
export const PROPOSAL_CLUSTER_FILE = 'cluster.yaml';
/** The Kustomization that lists the cluster file (Flux's and Argo CD's entry point for the directory). @public */
export const PROPOSAL_KUSTOMIZATION_FILE = 'kustomization.yaml';
/** The cluster's catalog entity, when asked for. @public */
export const PROPOSAL_CATALOG_FILE = 'catalog-info.yaml';

/** What a proposal is made from. @public */
export interface ClusterProposalInput {
  /** The cluster's parameters, valid, with `v`-prefixed kubernetesVersion (normalizeKubernetesVersion). */
  params: AksAsoClusterParams;
  /** The management cluster the GitOps controller applies the directory to (capz.managementClusters). */
  managementCluster: string;
  /** Directory in the repository. Default `clusters/<namespace>/<name>`. */
  path?: string;
  /** Also write the cluster's catalog entity (a Resource of type kubernetes-cluster) as catalog-info.yaml. */
  includeCatalogEntity?: boolean;
  /** Who asked (an entity ref), named in the description. */
  requester?: string;
  /** The cluster's page in Backstage, named in the description's after-merge checks. */
  clusterPageUrl?: string;
}

/** A proposal's files and words. @public */
export interface ClusterProposal {
  /** The directory, normalised: relative, no trailing slash. */
  dir: string;
  /** The branch it goes to: one per cluster. */
  branch: string;
  /** The files, by repository-relative path, in the order they are written. */
  files: Array<{ path: string; content: string }>;
  /** The objects in the cluster file. */
  objects: KubeObject[];
  /** The cluster file's content (multi-document YAML). */
  manifests: string;
  /** Pull request title and the commit message's first line. */
  title: string;
  /** Pull request description: what will be created in Azure, and how to check it after merge (Markdown). */
  description: string;
  /** The commit message: the title, a blank line, the description. */
  commitMessage: string;
}

/** The branch a proposal goes to: one per cluster, so a second request for the same cluster is refused. @public */
export function proposalBranch(namespace: string, name: string): string {
  return `capz/new-cluster-${namespace}-${name}`;
}

/**
 * The repository-relative directory, checked: no absolute path, no `..`, no `.git`; `./` and trailing slashes
 * dropped. Throws with the offending path otherwise. @public
 */
export function normalizeProposalDir(path: string): string {
  const parts: string[] = [];
  for (const s of path.replace(/\\/g, '/').split('/')) {
    if (s === '' || s === '.') continue;
    parts.push(s);
  }
  const dir = parts.join('/');
  if (
    !dir ||
    path.replace(/\\/g, '/').startsWith('/') ||
    parts.some(s => s === '..' || s === '.git')
  )
    throw new Error(
      `path ${JSON.stringify(
        path,
      )} must be a directory inside the repository (relative, no "..")`,
    );
  return dir;
}

/**
 * The catalog entity name of a cluster, `<management cluster>-<namespace>-<name>` in the characters entity names
 * allow, at most 63: the name the capz entity provider gives it. @public
 */
export function clusterEntityName(c: {
  managementCluster: string;
  namespace: string;
  name: string;
}): string {
  const raw = `${c.managementCluster}-${c.namespace}-${c.name}`.replace(
    /[^a-zA-Z0-9-_.]/g,
    '-',
  );
  return raw.length <= 63 ? raw : raw.slice(0, 63).replace(/[-_.]+$/, '');
}

function poolLine(p: AksAsoClusterParams['pools'][number]): string {
  return `${p.name} (${p.mode}${
    p.osType && p.osType !== 'Linux' ? `, ${p.osType}` : ''
  }, ${p.vmSize} x ${p.replicas}${
    p.autoscaling
      ? `, autoscaling ${p.autoscaling.minCount}-${p.autoscaling.maxCount}`
      : ''
  })`;
}

/** The files and words of a proposed cluster. Pure; throws when the parameters or the path are invalid. @public */
export function clusterProposal(input: ClusterProposalInput): ClusterProposal {
  const { params: p, managementCluster: mc } = input;
  const objects = generateAksAsoClusterManifests(p);
  const manifests = manifestsYaml(objects);
  const dir = normalizeProposalDir(
    input.path || `clusters/${p.namespace}/${p.name}`,
  );
  const resources = [PROPOSAL_CLUSTER_FILE];
  const files = [
    { path: `${dir}/${PROPOSAL_CLUSTER_FILE}`, content: manifests },
  ];
  files.push({
    path: `${dir}/${PROPOSAL_KUSTOMIZATION_FILE}`,
    content: `# The AKS cluster ${p.namespace}/${
      p.name
    } for management cluster ${mc}, proposed from Backstage.\n${stringify({
      apiVersion: 'kustomize.config.k8s.io/v1beta1',
      kind: 'Kustomization',
      resources,
    })}`,
  });
  if (input.includeCatalogEntity) {
    const ref = `${mc}/${p.namespace}/${p.name}`;
    files.push({
      path: `${dir}/${PROPOSAL_CATALOG_FILE}`,
      // Not in the Kustomization: it is for Backstage's catalog, not for the management cluster.
      content: stringify({
        apiVersion: 'backstage.io/v1alpha1',
        kind: 'Resource',
        metadata: {
          name: clusterEntityName({ ...p, managementCluster: mc }),
          title: p.name,
          description: `AKS cluster ${p.namespace}/${p.name} on management cluster ${mc}`,
          annotations: { [CAPZ_CLUSTER_ANNOTATION]: ref },
          labels: { [MANAGEMENT_CLUSTER_LABEL]: mc },
        },
        spec: {
          type: 'kubernetes-cluster',
          ...(p.owner ? { owner: p.owner } : {}),
        },
      }),
    });
  }

  const tags = Object.entries(p.tags ?? {})
    .map(([k, v]) => `${k}=${v}`)
    .join(', ');
  const title = `Add AKS cluster ${p.namespace}/${p.name} (management cluster ${mc})`;
  const nodeRg = `MC_${p.name}_${p.name}_${p.location}`;
  const pools = p.pools.map(x => poolObjectName(p.name, x.name)).join(' ');
  const description = [
    `The Cluster API manifests (CAPZ aks-aso flavor) of a new AKS cluster, ${
      objects.length
    } objects: ${objects.map(x => `${x.kind}/${x.metadata.name}`).join(', ')}.`,
    '',
    `Region: ${p.location}`,
    `Kubernetes: ${p.kubernetesVersion}`,
    `Node pools: ${p.pools.map(poolLine).join(', ')}`,
    `ASO credential Secret: ${p.credentialSecretName}`,
    `Owner: ${p.owner ?? '(none: the catalog default)'}`,
    `Entra ID only: ${p.entraOnly ? 'yes' : 'no'}`,
    ...(tags ? [`Azure tags: ${tags}`] : []),
    '',
    `What merging creates in Azure (through ASO, with the credential in Secret ${p.namespace}/${p.credentialSecretName}):`,
    `- resource group ${p.name} in ${p.location}${
      tags ? ` (tags ${tags})` : ''
    }`,
    `- managed cluster ${p.name} (AKS, Kubernetes ${
      p.kubernetesVersion
    }, DNS prefix ${p.name}${
      p.entraOnly ? ', Entra ID with Azure RBAC, local accounts disabled' : ''
    }) and AKS's node resource group ${nodeRg}`,
    ...p.pools.map(
      pool =>
        `- agent pool ${poolLine(pool)} (MachinePool ${poolObjectName(
          p.name,
          pool.name,
        )})`,
    ),
    '',
    `How to check it after merge, on management cluster ${mc} (namespace ${p.namespace}):`,
    `- kubectl get cluster,azureasomanagedcontrolplane,azureasomanagedcluster -n ${p.namespace} ${p.name}: the Cluster's Available condition covers the control plane and infrastructure (CAPI leaves MachinePools out of it)`,
    `- kubectl get machinepool,azureasomanagedmachinepool -n ${p.namespace} ${pools}: each pool's own status`,
    `- kubectl get resourcegroup.resources.azure.com,managedcluster.containerservice.azure.com -n ${p.namespace} ${p.name} and kubectl get managedclustersagentpool.containerservice.azure.com -n ${p.namespace} ${pools}: ASO's Ready condition, with Azure's error as its reason and message when Azure refuses`,
    ...(input.clusterPageUrl
      ? [`- the cluster's page in Backstage: ${input.clusterPageUrl}`]
      : []),
    ...(input.includeCatalogEntity
      ? [
          `- ${dir}/${PROPOSAL_CATALOG_FILE} is the cluster's catalog entity; it is not in the Kustomization`,
        ]
      : []),
    '',
    `Proposed from Backstage${
      input.requester ? ` by ${input.requester}` : ''
    }; merging it lets the GitOps controller create the cluster.`,
    '',
  ].join('\n');
  return {
    dir,
    branch: proposalBranch(p.namespace, p.name),
    files,
    objects,
    manifests,
    title,
    description,
    commitMessage: `${title}\n\n${description}`,
  };
}

/**
 * The scaffolder action that opens a pull request on each kind of forge (the `integrations` key of the repository's
 * host): Backstage's own scaffolder modules', and for Gitea (whose module has only `publish:gitea`) capz:cluster:propose,
 * which pushes the branch and opens the pull request through Gitea's API; forges missing here have none the template
 * can use. @public
 */
export const PULL_REQUEST_ACTIONS: Readonly<Record<string, string>> = {
  github: 'publish:github:pull-request',
  gitlab: 'publish:gitlab:merge-request',
  bitbucketServer: 'publish:bitbucketServer:pull-request',
  gitea: 'capz:cluster:propose',
};
