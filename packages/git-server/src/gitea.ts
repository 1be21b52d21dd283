/**
 * A real forge for the pull-request tests: Gitea, built from its Go module (scripts/build-gitea.sh: the version pinned
 * there, cached by a hash of the script under CAPZ_CACHE_DIR/gitea), run on 127.0.0.1 in a directory of its own with a
 * sqlite database, one admin user and the repositories asked for (each with one commit on `main`). Its REST API
 * (`/api/v1`) and smart HTTP are Gitea's own: what capz:cluster:propose calls on a Gitea host.
 *
 * @internal
 */
import { execFile, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { freePort, launch, runBuildScript } from '@internal/mgmt-cluster';

const run = promisify(execFile);
const packageDir = join(dirname(fileURLToPath(import.meta.url)), '..');

/** Builds Gitea (or finds it built): the directory with the `gitea` binary and its source (`src/`, STATIC_ROOT_PATH). */
export async function ensureGitea(): Promise<string> {
  const script = join(packageDir, 'scripts', 'build-gitea.sh');
  return runBuildScript(script);
}

export interface GiteaOptions {
  /** Gitea's work directory (database, repositories, app.ini, gitea.log); a new temp dir when omitted (removed on close). */
  root?: string;
  /** Default 0: a free port. */
  port?: number;
  /** Repositories of the admin user to create, each with one commit on `main`. */
  repos?: string[];
}

export interface GiteaServer {
  /** `http://127.0.0.1:<port>`, Gitea's ROOT_URL without the trailing slash. */
  url: string;
  /** `127.0.0.1:<port>`: the `integrations.gitea[].host`. */
  host: string;
  root: string;
  /** The admin user (owner of the repositories) and its password, for HTTP Basic on the API and smart HTTP. */
  username: string;
  password: string;
  /** The smart-HTTP URL of one of the user's repositories. */
  repoUrl(name: string): string;
  /** A request to Gitea's REST API as the admin user; the parsed JSON (undefined for 204). Throws on other statuses. */
  api(method: string, path: string, body?: unknown): Promise<any>;
  close(): Promise<void>;
}

/** Starts Gitea; resolves once its API answers and the repositories exist. */
export async function startGitea(
  opts: GiteaOptions = {},
): Promise<GiteaServer> {
  const dir = await ensureGitea();
  const ownRoot = !opts.root;
  const root = opts.root ?? mkdtempSync(join(tmpdir(), 'gitea-'));
  mkdirSync(join(root, 'data'), { recursive: true });
  const port = opts.port || (await freePort());
  const url = `http://127.0.0.1:${port}`;
  const username = 'capz';
  // A root kept from an earlier start (the demo's): its database has the admin user, whose password gitea-cli wrote
  // into credentials.json; reused, so the repositories and their pull requests survive a restart.
  const saved = join(root, 'credentials.json');
  const kept =
    existsSync(join(root, 'data', 'gitea.db')) && existsSync(saved)
      ? (JSON.parse(readFileSync(saved, 'utf8')) as { password: string })
      : undefined;
  const password = kept?.password ?? randomBytes(12).toString('hex');
  writeFileSync(saved, JSON.stringify({ username, password }), {
    mode: 0o600,
  });
  const ini = join(root, 'app.ini');
  // app.ini for a throw-away instance: no installer (INSTALL_LOCK), sqlite, no SSH, no outside requests; run as root in
  // sandboxes (Gitea refuses root without the flag); the module source as STATIC_ROOT_PATH (templates, locales).
  writeFileSync(
    ini,
    `I_AM_BEING_UNSAFE_RUNNING_AS_ROOT = true
APP_NAME = capz-e2e
RUN_MODE = prod
WORK_PATH = ${root}

[server]
HTTP_ADDR = 127.0.0.1
HTTP_PORT = ${port}
ROOT_URL = ${url}/
OFFLINE_MODE = true
STATIC_ROOT_PATH = ${join(dir, 'src')}
DISABLE_SSH = true
START_SSH_SERVER = false
LFS_START_SERVER = false

[database]
DB_TYPE = sqlite3
PATH = ${join(root, 'data', 'gitea.db')}

[repository]
ROOT = ${join(root, 'repos')}
DEFAULT_BRANCH = main

[security]
INSTALL_LOCK = true
INTERNAL_TOKEN = ${randomBytes(32).toString('hex')}

[oauth2]
JWT_SECRET = ${randomBytes(32).toString('base64url')}

[service]
DISABLE_REGISTRATION = true

[log]
MODE = console
LEVEL = warn
`,
  );
  const gitea = join(dir, 'gitea');
  const env = {
    ...process.env,
    HOME: join(root, 'home'),
    GITEA_WORK_DIR: root,
  };
  mkdirSync(env.HOME, { recursive: true });
  await run(gitea, ['migrate', '-c', ini], { env });
  if (!kept)
    await run(
      gitea,
      [
        'admin',
        'user',
        'create',
        '--admin',
        '--username',
        username,
        '--password',
        password,
        '--email',
        `${username}@example.com`,
        '--must-change-password=false',
        '-c',
        ini,
      ],
      { env },
    );
  const child: ChildProcess = await launch(gitea, ['web', '-c', ini], {
    logFile: join(root, 'gitea.log'),
    env,
    detached: false,
  });
  let exited: string | undefined;
  child.on(
    'exit',
    code =>
      (exited = `gitea web exited (${code}); see ${join(root, 'gitea.log')}`),
  );

  const auth = `Basic ${Buffer.from(`${username}:${password}`).toString(
    'base64',
  )}`;
  async function api(method: string, path: string, body?: unknown) {
    const res = await fetch(`${url}/api/v1${path}`, {
      method,
      headers: {
        Authorization: auth,
        Accept: 'application/json',
        ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (!res.ok)
      throw new Error(
        `Gitea ${method} ${path}: ${res.status} ${text.slice(0, 300)}`,
      );
    return text ? JSON.parse(text) : undefined;
  }
  // Up when the API answers (a hang detector, not a timing: ~1 s here).
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (exited) throw new Error(exited);
    try {
      await api('GET', '/version');
      break;
    } catch (e) {
      if (Date.now() > deadline) {
        child.kill('SIGTERM');
        throw new Error(
          `Gitea did not answer on ${url} in 120 s: ${(e as Error).message}`,
        );
      }
      await new Promise(r => setTimeout(r, 200));
    }
  }
  for (const name of opts.repos ?? []) {
    await api('POST', '/user/repos', {
      name,
      auto_init: true,
      default_branch: 'main',
    }).catch(e => {
      if (!/: 409 /.test((e as Error).message)) throw e;
    });
  }
  return {
    url,
    host: `127.0.0.1:${port}`,
    root,
    username,
    password,
    repoUrl: name => `${url}/${username}/${name}.git`,
    api,
    close: async () => {
      if (!exited) {
        const gone = new Promise(r => child.once('exit', r));
        child.kill('SIGTERM');
        await gone;
      }
      if (ownRoot) rmSync(root, { recursive: true, force: true });
    },
  };
}
