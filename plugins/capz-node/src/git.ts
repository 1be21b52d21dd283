/*
 * isomorphic-git rather than shelling out to `git`: a pure-JS smart-HTTP client (clone, commit, push) with no binary
 * to install in the backend's image, credentials passed in memory (onAuth) instead of a credential helper or a URL
 * on a command line, and structured errors (PushRejectedError, NotFoundError...). It is well kept (weekly releases,
 * used by Backstage's own scaffolder-node Git helpers), and is already in the lockfile through scaffolder-node.
 */
import git, { type AuthCallback, type HttpClient } from 'isomorphic-git';
import nodeGitHttp from 'isomorphic-git/http/node';
import * as fs from 'node:fs';
import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { GitCredentials } from './credentials';

/** Who a commit is by. @public */
export interface GitIdentity {
  name: string;
  email: string;
}

/** A file to write, by repository-relative path; a null content removes it. @public */
export interface GitFile {
  path: string;
  content: string | null;
}

/**
 * How long a request may wait for the server without a byte before it fails. isomorphic-git's Node client sends
 * through Node's global agents, whose sockets time out after 5 s idle (Node >= 19): a Git server that took longer to
 * answer a push (receive-pack and its hooks, on a busy machine) failed it with simple-get's "Request timed out". Two
 * minutes still ends a hang.
 */
const GIT_IDLE_TIMEOUT_MS = 120_000;
const agents = {
  http: new HttpAgent({ keepAlive: true, timeout: GIT_IDLE_TIMEOUT_MS }),
  https: new HttpsAgent({ keepAlive: true, timeout: GIT_IDLE_TIMEOUT_MS }),
};
const http: HttpClient = {
  request: r =>
    nodeGitHttp.request({
      ...r,
      agent:
        r.agent ?? (r.url.startsWith('https:') ? agents.https : agents.http),
    }),
};

/** How deep a clone looks back for a revision that is not its branch's tip, at most. */
const DEEPEN = [50, 500];

const onAuthOf = (c?: GitCredentials): AuthCallback | undefined =>
  c ? () => c : undefined;

/**
 * A repository path as Flux and kustomize write it (`./clusters/`, `clusters`, `./`) as a repository-relative path
 * without leading or trailing slash (the root is the empty string); one that leaves the repository is refused.
 * @public
 */
export function repositoryPath(path: string): string {
  const parts = path.split('/').filter(p => p !== '' && p !== '.');
  if (parts.includes('..'))
    throw new Error(`path ${path} leaves the repository`);
  return parts.join('/');
}

/** An isomorphic-git error in words: an HTTP status when the server answered one, else its message. @public */
export function describeGitError(e: unknown): string {
  const err = e as { code?: string; message?: string; data?: any };
  if (err?.code === 'HttpError' && err.data?.statusCode)
    return `HTTP ${err.data.statusCode} ${err.data.statusMessage ?? ''}`.trim();
  return err?.message ?? String(e);
}

/**
 * The branches of a remote repository with their tip commits (one request, no clone).
 * @public
 */
export async function listRemoteBranches(
  url: string,
  credentials?: GitCredentials,
): Promise<Array<{ branch: string; commit: string }>> {
  const refs = await git.listServerRefs({
    http,
    url,
    onAuth: onAuthOf(credentials),
    prefix: 'refs/heads/',
  });
  return refs.map(r => ({
    branch: r.ref.slice('refs/heads/'.length),
    commit: r.oid,
  }));
}

/**
 * A shallow clone of one branch in a temporary directory of its own (`cloneBranch`): read files at a revision, commit
 * files on a new branch, push it, and `remove()` the directory when done.
 * @public
 */
export class GitClone {
  private deepened = 0;

  /** @internal */
  constructor(
    /** The clone's work tree (a temporary directory). */
    readonly dir: string,
    /** The smart-HTTP URL it was cloned from. */
    readonly url: string,
    /** The branch cloned. */
    readonly branch: string,
    /** The branch's tip when cloned. */
    readonly head: string,
    private readonly credentials: GitCredentials | undefined,
  ) {}

  /**
   * The text of every file under `path` (repository-relative, as `repositoryPath` reads it; the root when empty) at
   * `revision` (a commit id; default the clone's head), by repository-relative path. A revision older than the shallow
   * clone is fetched by deepening the branch, up to a few hundred commits; one not found on the branch is an error.
   */
  async readFiles(opts: {
    path?: string;
    revision?: string;
  }): Promise<Record<string, string>> {
    const path = repositoryPath(opts.path ?? '');
    const oid = opts.revision ?? this.head;
    await this.haveCommit(oid);
    const files: Record<string, string> = {};
    let root;
    try {
      root = await git.readTree({
        fs,
        dir: this.dir,
        oid,
        filepath: path || undefined,
      });
    } catch (e) {
      if ((e as { code?: string }).code === 'NotFoundError') return files;
      throw e;
    }
    const walk = async (
      entries: typeof root.tree,
      prefix: string,
    ): Promise<void> => {
      for (const entry of entries) {
        const p = prefix ? `${prefix}/${entry.path}` : entry.path;
        if (entry.type === 'tree') {
          const sub = await git.readTree({ fs, dir: this.dir, oid: entry.oid });
          await walk(sub.tree, p);
        } else if (entry.type === 'blob') {
          const { blob } = await git.readBlob({
            fs,
            dir: this.dir,
            oid: entry.oid,
          });
          files[p] = Buffer.from(blob).toString('utf8');
        }
        // A submodule (`commit`) has no content here.
      }
    };
    await walk(root.tree, path);
    return files;
  }

  /** Fetches more of the branch's history until `oid` is in the clone, or says it is not on the branch. */
  private async haveCommit(oid: string): Promise<void> {
    for (;;) {
      try {
        await git.readCommit({ fs, dir: this.dir, oid });
        return;
      } catch (e) {
        if ((e as { code?: string }).code !== 'NotFoundError') throw e;
      }
      if (this.deepened >= DEEPEN.length)
        throw new Error(
          `commit ${oid} is not among the last ${
            DEEPEN[DEEPEN.length - 1]
          } commits of branch ${this.branch}`,
        );
      await git.fetch({
        fs,
        http,
        dir: this.dir,
        url: this.url,
        ref: this.branch,
        singleBranch: true,
        depth: DEEPEN[this.deepened++],
        tags: false,
        onAuth: onAuthOf(this.credentials),
      });
    }
  }

  /**
   * Writes `files` into the work tree, and commits them on the new local branch `branch`, from the clone's head or
   * from `from` (an older commit of the branch, fetched as `readFiles` does: a change made from what was deployed, so
   * that later commits meet it in the pull request's merge, never overwritten). Returns the commit id. Nothing is
   * pushed.
   */
  async commitFiles(opts: {
    branch: string;
    files: readonly GitFile[];
    message: string;
    author: GitIdentity;
    committer?: GitIdentity;
    from?: string;
  }): Promise<string> {
    if (opts.from && opts.from !== this.head) {
      await this.haveCommit(opts.from);
      await git.branch({
        fs,
        dir: this.dir,
        ref: opts.branch,
        object: opts.from,
      });
      // The work tree and index of `from`: the commit holds its files, not the head's.
      await git.checkout({ fs, dir: this.dir, ref: opts.branch, force: true });
    } else
      await git.branch({ fs, dir: this.dir, ref: opts.branch, checkout: true });
    for (const f of opts.files) {
      const file = join(this.dir, repositoryPath(f.path));
      if (f.content === null) {
        fs.rmSync(file, { force: true });
        await git.remove({
          fs,
          dir: this.dir,
          filepath: repositoryPath(f.path),
        });
        continue;
      }
      fs.mkdirSync(dirname(file), { recursive: true });
      fs.writeFileSync(file, f.content);
      await git.add({ fs, dir: this.dir, filepath: repositoryPath(f.path) });
    }
    return git.commit({
      fs,
      dir: this.dir,
      message: opts.message,
      author: opts.author,
      committer: opts.committer ?? opts.author,
    });
  }

  /**
   * Pushes the local `branch` to the same name on the remote. A branch that appeared there meanwhile is refused
   * (isomorphic-git's `PushRejectedError`: no force); a refusal the server reports in its answer is thrown as its words.
   */
  async pushBranch(branch: string): Promise<void> {
    const result = await git.push({
      fs,
      http,
      dir: this.dir,
      url: this.url,
      ref: branch,
      remoteRef: `refs/heads/${branch}`,
      onAuth: onAuthOf(this.credentials),
    });
    if (!result.ok || result.error)
      throw new Error(result.error ?? `the server refused ${branch}`);
  }

  /** Removes the clone's directory. */
  async remove(): Promise<void> {
    fs.rmSync(this.dir, { recursive: true, force: true });
  }
}

/**
 * A shallow clone (depth 1) of one branch of `url` into a new temporary directory. The caller removes it
 * (`GitClone.remove`); a failed clone leaves nothing behind.
 * @public
 */
export async function cloneBranch(opts: {
  url: string;
  branch: string;
  credentials?: GitCredentials;
  /** The temporary directory's name prefix. */
  prefix?: string;
}): Promise<GitClone> {
  const dir = fs.mkdtempSync(join(tmpdir(), opts.prefix ?? 'capz-git-'));
  try {
    await git.clone({
      fs,
      http,
      dir,
      url: opts.url,
      ref: opts.branch,
      singleBranch: true,
      depth: 1,
      noTags: true,
      onAuth: onAuthOf(opts.credentials),
    });
    const head = await git.resolveRef({ fs, dir, ref: 'HEAD' });
    return new GitClone(dir, opts.url, opts.branch, head, opts.credentials);
  } catch (e) {
    fs.rmSync(dir, { recursive: true, force: true });
    throw e;
  }
}
