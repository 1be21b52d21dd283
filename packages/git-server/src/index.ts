/**
 * A local Git server over smart HTTP: Debian git's `git-http-backend` (CGI) behind a tiny Node HTTP server, serving the
 * bare repositories under one directory on 127.0.0.1. For the scaffolder's Git delivery tests, the e2e run and the
 * demo: clients (isomorphic-git, git) clone and push to it exactly as to a hosted Git server's HTTPS endpoint.
 *
 * @internal
 */
import { execFile, spawn } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import {
  createServer,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** Debian's git ships the CGI here; `GIT_HTTP_BACKEND` overrides it. */
export const GIT_HTTP_BACKEND =
  process.env.GIT_HTTP_BACKEND ?? '/usr/lib/git-core/git-http-backend';

export interface GitServerOptions {
  /** Directory of bare repositories (`<name>.git`); a new temp dir when omitted (removed on close). */
  root?: string;
  /** Default 0: a random free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** When set, every request needs these HTTP Basic credentials (else 401), as a hosted server with a token does. */
  auth?: { username: string; password: string };
}

export interface GitServer {
  /** `http://127.0.0.1:<port>`; a repository is at `${url}/<name>.git`. */
  url: string;
  root: string;
  /** The smart-HTTP URL of a repository. */
  repoUrl(name: string): string;
  /**
   * Creates a bare repository (idempotent: an existing one is kept) with one commit on `branch` (default `main`)
   * holding `files` (default a README.md), and returns its URL.
   */
  createRepo(
    name: string,
    opts?: { branch?: string; files?: Record<string, string> },
  ): Promise<string>;
  /** The branches of a repository (names without `refs/heads/`). */
  branches(name: string): Promise<string[]>;
  /** Every file of a branch's tree with its contents, by path. */
  branchFiles(name: string, branch: string): Promise<Record<string, string>>;
  /** A commit's message, author and parents (`git log -1`). */
  commitInfo(
    name: string,
    ref: string,
  ): Promise<{
    oid: string;
    parents: string[];
    author: string;
    message: string;
  }>;
  /** How many requests each route got (e.g. `POST /gitops.git/git-receive-pack`): pushes are visible here. */
  requests: string[];
  close(): Promise<void>;
}

const git = async (gitDir: string, args: string[], env?: NodeJS.ProcessEnv) =>
  (
    await run('git', ['--git-dir', gitDir, ...args], {
      env: { ...process.env, ...env },
      maxBuffer: 64 * 1024 * 1024,
    })
  ).stdout;

const REPO_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

function check(name: string): string {
  if (!REPO_NAME.test(name) || name.includes('..'))
    throw new Error(`invalid repository name ${JSON.stringify(name)}`);
  return name.endsWith('.git') ? name : `${name}.git`;
}

/** Runs git-http-backend for one request (RFC 3875 CGI) and streams its answer back. */
function serveCgi(
  root: string,
  req: IncomingMessage,
  res: ServerResponse,
  remoteUser: string,
): void {
  const url = new URL(req.url ?? '/', 'http://localhost');
  const child = spawn(GIT_HTTP_BACKEND, [], {
    env: {
      PATH: process.env.PATH,
      GIT_PROJECT_ROOT: root,
      GIT_HTTP_EXPORT_ALL: '1',
      // Pushes are allowed for everyone this server lets in (git-http-backend also allows them when REMOTE_USER is set).
      GIT_CONFIG_COUNT: '2',
      GIT_CONFIG_KEY_0: 'http.receivepack',
      GIT_CONFIG_VALUE_0: 'true',
      GIT_CONFIG_KEY_1: 'safe.directory',
      GIT_CONFIG_VALUE_1: '*',
      GATEWAY_INTERFACE: 'CGI/1.1',
      SERVER_PROTOCOL: `HTTP/${req.httpVersion}`,
      REQUEST_METHOD: req.method ?? 'GET',
      PATH_INFO: decodeURIComponent(url.pathname),
      QUERY_STRING: url.search.replace(/^\?/, ''),
      CONTENT_TYPE: req.headers['content-type'] ?? '',
      ...(req.headers['content-length']
        ? { CONTENT_LENGTH: req.headers['content-length'] }
        : {}),
      ...(req.headers['content-encoding']
        ? { HTTP_CONTENT_ENCODING: req.headers['content-encoding'] }
        : {}),
      ...(req.headers['git-protocol']
        ? { GIT_PROTOCOL: String(req.headers['git-protocol']) }
        : {}),
      REMOTE_USER: remoteUser,
      REMOTE_ADDR: req.socket.remoteAddress ?? '127.0.0.1',
    },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', d => (stderr += d));
  req.pipe(child.stdin);
  child.stdin.on('error', () => {}); // the CGI may answer (e.g. 404) before reading the body

  // The CGI's header block ends at the first empty line; "Status:" carries the status code.
  let head = Buffer.alloc(0);
  let headersDone = false;
  child.stdout.on('data', (chunk: Buffer) => {
    if (headersDone) {
      res.write(chunk);
      return;
    }
    head = Buffer.concat([head, chunk]);
    const text = head.toString('latin1');
    const m = /\r?\n\r?\n/.exec(text);
    if (!m) return;
    headersDone = true;
    let status = 200;
    for (const line of text.slice(0, m.index).split(/\r?\n/)) {
      const i = line.indexOf(':');
      if (i < 0) continue;
      const key = line.slice(0, i).trim();
      const value = line.slice(i + 1).trim();
      if (key.toLowerCase() === 'status') status = parseInt(value, 10);
      else res.setHeader(key, value);
    }
    res.writeHead(status);
    const rest = head.subarray(m.index + m[0].length);
    if (rest.length) res.write(rest);
  });
  child.on('close', code => {
    if (!headersDone) {
      if (!res.headersSent)
        res.writeHead(500, { 'Content-Type': 'text/plain' });
      res.end(`git-http-backend exited ${code}: ${stderr}`);
      return;
    }
    res.end();
  });
  child.on('error', e => {
    if (!res.headersSent) res.writeHead(500, { 'Content-Type': 'text/plain' });
    res.end(`cannot run ${GIT_HTTP_BACKEND}: ${e.message}`);
  });
}

/** Starts the server; resolves once it listens. */
export async function startGitServer(
  opts: GitServerOptions = {},
): Promise<GitServer> {
  if (!existsSync(GIT_HTTP_BACKEND))
    throw new Error(
      `${GIT_HTTP_BACKEND} not found: install Debian's git package (or set GIT_HTTP_BACKEND)`,
    );
  const ownRoot = !opts.root;
  const root = opts.root ?? mkdtempSync(join(tmpdir(), 'git-server-'));
  mkdirSync(root, { recursive: true });
  const requests: string[] = [];
  const expected = opts.auth
    ? `Basic ${Buffer.from(
        `${opts.auth.username}:${opts.auth.password}`,
      ).toString('base64')}`
    : undefined;

  const server = createServer((req, res) => {
    requests.push(`${req.method} ${(req.url ?? '').replace(/\?.*/, '')}`);
    let user = 'anonymous';
    if (expected) {
      if (req.headers.authorization !== expected) {
        res
          .writeHead(401, {
            'WWW-Authenticate': 'Basic realm="git"',
            'Content-Type': 'text/plain',
          })
          .end('authentication required');
        req.resume();
        return;
      }
      user = opts.auth!.username;
    }
    serveCgi(root, req, res, user);
  });
  server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1');
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  const { address, port } = server.address() as AddressInfo;
  const url = `http://${address}:${port}`;
  const dirOf = (name: string) => join(root, check(name));

  return {
    url,
    root,
    requests,
    repoUrl: name => `${url}/${check(name)}`,
    async createRepo(name, o = {}) {
      const dir = dirOf(name);
      const branch = o.branch ?? 'main';
      if (!existsSync(join(dir, 'HEAD'))) {
        await run('git', ['init', '--quiet', '--bare', '-b', branch, dir]);
        const work = mkdtempSync(join(tmpdir(), 'git-server-seed-'));
        try {
          const files = o.files ?? {
            'README.md': `# ${name}\n\nCluster manifests, one directory per cluster under clusters/<namespace>/<name>/.\n`,
          };
          for (const [path, text] of Object.entries(files)) {
            mkdirSync(dirname(join(work, path)), { recursive: true });
            writeFileSync(join(work, path), text);
          }
          const env = {
            GIT_AUTHOR_NAME: 'git-server',
            GIT_AUTHOR_EMAIL: 'git-server@localhost',
            GIT_COMMITTER_NAME: 'git-server',
            GIT_COMMITTER_EMAIL: 'git-server@localhost',
          };
          await git(dir, ['--work-tree', work, 'add', '-A'], env);
          await git(
            dir,
            ['--work-tree', work, 'commit', '--quiet', '-m', 'Initial commit'],
            env,
          );
        } finally {
          rmSync(work, { recursive: true, force: true });
        }
      }
      return `${url}/${check(name)}`;
    },
    async branches(name) {
      const out = await git(dirOf(name), [
        'for-each-ref',
        '--format=%(refname:short)',
        'refs/heads/',
      ]);
      return out.split('\n').filter(Boolean);
    },
    async branchFiles(name, branch) {
      const dir = dirOf(name);
      const paths = (
        await git(dir, ['ls-tree', '-r', '--name-only', `refs/heads/${branch}`])
      )
        .split('\n')
        .filter(Boolean);
      const files: Record<string, string> = {};
      for (const p of paths)
        files[p] = await git(dir, ['show', `refs/heads/${branch}:${p}`]);
      return files;
    },
    async commitInfo(name, ref) {
      const out = await git(dirOf(name), [
        'log',
        '-1',
        '--format=%H%n%P%n%an <%ae>%n%B',
        ref,
      ]);
      const [oid, parents, author, ...message] = out.split('\n');
      return {
        oid,
        parents: parents.split(' ').filter(Boolean),
        author,
        message: message.join('\n').trimEnd(),
      };
    },
    async close() {
      await new Promise<void>(resolve => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      if (ownRoot) rmSync(root, { recursive: true, force: true });
    },
  };
}

export {
  ensureGitea,
  startGitea,
  type GiteaOptions,
  type GiteaServer,
} from './gitea.ts';
