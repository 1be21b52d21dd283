import { spawn, type ChildProcess } from 'node:child_process';
import {
  closeSync,
  existsSync,
  openSync,
  readFileSync,
  statSync,
} from 'node:fs';

export interface LaunchOptions {
  /** Appended to: the process's stdout and stderr. */
  logFile: string;
  /** The whole environment of the process (default: this process's). */
  env?: NodeJS.ProcessEnv;
  /** Its own process group, so that it outlives the starting command (a developer's cluster). Default true. */
  detached?: boolean;
}

/** Errors of fork/exec that a moment later may not recur: the process table, memory, descriptors. */
const TRANSIENT = new Set(['EAGAIN', 'ENOMEM', 'EMFILE', 'ENFILE']);
const ATTEMPTS = 8;

/**
 * Starts a server binary with its output in a log file, and resolves once it runs (Node's `spawn` event): a failed
 * start rejects with the system's reason (`spawn etcd EAGAIN`), which `child.pid === undefined` alone hides. A
 * transient failure (a full process table or memory while the managers build beside a test run) is retried with a
 * backoff of 0.5 s doubling to 4 s (~20 s in all), and its message names the machine's thread count; any other
 * (ENOENT, EACCES) fails at once. The log file's descriptor is closed
 * here: the child holds its own copy, and a test worker that starts many clusters would otherwise leak one each.
 */
export async function launch(
  bin: string,
  args: string[],
  opts: LaunchOptions,
): Promise<ChildProcess & { pid: number }> {
  for (let attempt = 1; ; attempt++) {
    const out = openSync(opts.logFile, 'a');
    let child: ChildProcess;
    try {
      child = spawn(bin, args, {
        detached: opts.detached ?? true,
        env: opts.env ?? process.env,
        stdio: ['ignore', out, out],
      });
    } finally {
      closeSync(out);
    }
    const failure = await new Promise<NodeJS.ErrnoException | undefined>(
      resolve => {
        child.once('spawn', () => resolve(undefined));
        child.once('error', e => resolve(e));
      },
    );
    if (!failure && child.pid) return child as ChildProcess & { pid: number };
    const code = failure?.code ?? 'no pid';
    const transient = TRANSIENT.has(code);
    if (!transient || attempt === ATTEMPTS) {
      throw new Error(
        `could not start ${bin}: ${failure?.message ?? code}${
          transient ? ` (after ${attempt} attempts; ${threads()})` : ''
        }`,
      );
    }
    await new Promise(r =>
      setTimeout(r, Math.min(500 * 2 ** (attempt - 1), 4000)),
    );
  }
}

/** "threads: 412 of pid_max 32768", from /proc (Linux); what EAGAIN most often means on a busy test machine. */
function threads(): string {
  try {
    const total = readFileSync('/proc/loadavg', 'utf8')
      .split(' ')[3]
      ?.split('/')[1];
    const max = readFileSync('/proc/sys/kernel/pid_max', 'utf8').trim();
    return `threads: ${total} of pid_max ${max}`;
  } catch {
    return 'threads: unknown';
  }
}

/** A server {@link launchServer} started: its pid, where this start's output begins in its log, and how it ended. */
export interface LaunchedServer {
  pid: number;
  /** The log file's size before the start: earlier starts in the same state directory appended to it. */
  logStart: number;
  /** How the process ended (`exit code 1`, `signal SIGKILL`), once it has. */
  exited: () => string | undefined;
}

/**
 * {@link launch} for a server that is then waited on and left running (unref'd): what a readiness wait needs to read
 * only this start's log and to notice the process ending.
 */
export async function launchServer(
  bin: string,
  args: string[],
  opts: LaunchOptions,
): Promise<LaunchedServer> {
  const logStart = existsSync(opts.logFile) ? statSync(opts.logFile).size : 0;
  const child = await launch(bin, args, opts);
  let exit: string | undefined;
  child.on('exit', (code, signal) => {
    exit = signal ? `signal ${signal}` : `exit code ${code}`;
  });
  child.unref();
  return { pid: child.pid, logStart, exited: () => exit };
}
