/**
 * Node.js helpers shared by the CAPZ backend plugin and its modules: Git over smart HTTP (a shallow clone of one
 * branch, the files under a path at a revision, a commit on a new branch and its push) with the credentials of the
 * `integrations` config, and Gitea pull requests.
 *
 * @packageDocumentation
 */
export { credentialsFor, type GitCredentials } from './credentials';
export { repositoryWebUrl, urlWithoutCredentials } from './urls';
export {
  giteaRepo,
  openGiteaPullRequest,
  type GiteaPullRequest,
} from './gitea';
export {
  cloneBranch,
  describeGitError,
  listRemoteBranches,
  repositoryPath,
  GitClone,
  type GitFile,
  type GitIdentity,
} from './git';
