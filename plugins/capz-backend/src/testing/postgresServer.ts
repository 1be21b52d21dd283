/**
 * A throw-away PostgreSQL server of one test's own, for the tests that stop and start the database under a running
 * backend (the test command's shared server, scripts/test.sh `ensure_postgres`, serves other tests meanwhile and
 * must never go down). Made as ensure_postgres makes that one: the newest /usr/lib/postgresql/<major>/bin, initdb
 * with trust authentication in a temporary directory, a port below the ephemeral range (`listenPort`), TCP on
 * 127.0.0.1 only, fsync off; as root, it runs as the `postgres` user (initdb refuses root). It stops and starts again
 * on the same port and data. A watcher ends it if the test process dies without calling destroy().
 */
import { ChildProcess, execFile, spawn } from 'node:child_process';
import {
  chownSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
} from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
// Test-only helpers (used by *.integration.test.ts alone): the dev dependency is enough.
// eslint-disable-next-line @backstage/no-undeclared-imports
import { listenPort } from '@internal/mgmt-cluster';

export interface PostgresServer {
  /** `postgresql://postgres@127.0.0.1:<port>` (trust authentication: no password). */
  readonly connection: string;
  readonly port: number;
  /** Whether the server is up (as far as start/stop know). */
  readonly running: boolean;
  /** Stops the server: `fast` ends every session and checkpoints, `immediate` is a crash (recovery on start). */
  stop(mode?: 'fast' | 'immediate'): Promise<void>;
  /** Starts it again on the same port and data; resolves once it accepts connections. */
  start(): Promise<void>;
  /** The server's log so far. */
  log(): string;
  /** Stops it (immediate) if it runs and removes its directory; safe to call twice. */
  destroy(): Promise<void>;
}

/** The newest installed PostgreSQL's bin directory (Debian's layout, as ensure_postgres looks for it). */
function postgresBin(): string {
  const root = '/usr/lib/postgresql';
  const majors = existsSync(root)
    ? readdirSync(root)
        .filter(d => existsSync(join(root, d, 'bin', 'postgres')))
        .sort((a, b) => Number(a) - Number(b))
    : [];
  if (!majors.length)
    throw new Error(
      `no PostgreSQL under ${root}: install Debian's postgresql package (scripts/test.sh ensure_postgres does)`,
    );
  return join(root, majors[majors.length - 1], 'bin');
}

const asRoot = userInfo().uid === 0;

/** Runs a PostgreSQL program (as `postgres` when this process is root); rejects with its output on failure. */
function run(bin: string, program: string, args: string[]): Promise<string> {
  const [cmd, argv] = asRoot
    ? ['runuser', ['-u', 'postgres', '--', join(bin, program), ...args]]
    : [join(bin, program), args];
  return new Promise((resolve, reject) =>
    execFile(
      cmd,
      argv,
      { encoding: 'utf8', timeout: 120_000 },
      (error, stdout, stderr) =>
        error
          ? reject(
              new Error(
                `${program} ${args.join(' ')}: ${
                  error.message
                }\n${stdout}${stderr}`,
              ),
            )
          : resolve(stdout),
    ),
  );
}

/**
 * Ends the server and removes its directory once `pid` (this test process) is gone, however it went: destroy() is
 * the normal way, this is for a test process killed before its afterAll.
 */
function watchdog(bin: string, data: string, dir: string): ChildProcess {
  const stop = [
    ...(asRoot ? ['runuser', '-u', 'postgres', '--'] : []),
    join(bin, 'pg_ctl'),
    '-D',
    data,
    '-m',
    'immediate',
    '-s',
    'stop',
  ]
    .map(a => `'${a}'`)
    .join(' ');
  const child = spawn(
    'bash',
    [
      '-c',
      `while kill -0 ${process.pid} 2>/dev/null; do sleep 1; done; ${stop}; rm -rf '${dir}'`,
    ],
    { detached: true, stdio: 'ignore' },
  );
  child.unref();
  return child;
}

/** Makes and starts a server; `name` names its directory. */
export async function startPostgresServer(
  name: string,
): Promise<PostgresServer> {
  const bin = postgresBin();
  const dir = mkdtempSync(join(tmpdir(), `capz-pg-${name}-`));
  const data = join(dir, 'data');
  const logFile = join(dir, 'server.log');
  if (asRoot) chownSync(dir, ...postgresIds());
  const guard = watchdog(bin, data, dir);
  let running = false;
  let destroyed = false;
  let port = 0;
  const destroy = async () => {
    if (destroyed) return;
    destroyed = true;
    if (running || existsSync(join(data, 'postmaster.pid')))
      await run(bin, 'pg_ctl', ['-D', data, '-m', 'immediate', '-s', 'stop'])
        // Already stopped (its postmaster.pid names no live process).
        .catch(() => undefined);
    running = false;
    rmSync(dir, { recursive: true, force: true });
    if (guard.exitCode === null && guard.pid) {
      try {
        process.kill(-guard.pid, 'SIGKILL');
      } catch {
        /* gone already */
      }
    }
  };
  const start = async () => {
    await run(bin, 'pg_ctl', [
      '-D',
      data,
      '-l',
      logFile,
      '-w',
      '-t',
      '60',
      '-s',
      'start',
      '-o',
      `-F -p ${port} -c listen_addresses=127.0.0.1 -c unix_socket_directories=''`,
    ]);
    running = true;
  };
  try {
    await run(bin, 'initdb', [
      '-D',
      data,
      '-A',
      'trust',
      '-U',
      'postgres',
      '--no-sync',
    ]);
    // A port taken between the pick and the bind (another process picked it too) gets another one.
    for (let attempt = 1; ; attempt++) {
      port = await listenPort();
      try {
        await start();
        break;
      } catch (e) {
        const taken = /could not bind|Address already in use/.test(
          readLog(logFile),
        );
        if (!taken || attempt >= 3) throw e;
      }
    }
  } catch (e) {
    await destroy();
    throw e;
  }
  return {
    connection: `postgresql://postgres@127.0.0.1:${port}`,
    port,
    get running() {
      return running;
    },
    async stop(mode = 'fast') {
      await run(bin, 'pg_ctl', ['-D', data, '-m', mode, '-w', '-s', 'stop']);
      running = false;
    },
    start,
    log: () => readLog(logFile),
    destroy,
  };
}

function readLog(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

/** The uid and gid of the `postgres` user (Debian's package makes it). */
function postgresIds(): [number, number] {
  const line = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find(l => l.startsWith('postgres:'));
  if (!line)
    throw new Error(
      'no postgres user: install Debian postgresql (it makes the user)',
    );
  const [, , uid, gid] = line.split(':');
  return [Number(uid), Number(gid)];
}
