/**
 * Node.js helpers shared by the CAPZ backend plugin and its modules: Git over smart HTTP (a shallow clone of one
 * branch, the files under a path at a revision, a commit on a new branch and its push) with the credentials of the
 * `integrations` config, and pull requests on Gitea, GitHub, GitLab and Bitbucket Server.
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
  openPullRequest,
  pullRequestForge,
  type ForgePullRequest,
  type PullRequestForge,
  type PullRequestRequest,
} from './pullRequests';
export {
  cloneBranch,
  describeGitError,
  listRemoteBranches,
  repositoryPath,
  GitClone,
  type GitFile,
  type GitIdentity,
} from './git';
