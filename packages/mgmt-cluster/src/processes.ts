/**
 * The servers this package starts (launch.ts: each leads its own process group): whether one still runs, how they are
 * stopped, and what one logged.
 */
import { existsSync, readFileSync } from 'node:fs';

export const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function waitUntilGone(
  pids: number[],
  withinMs: number,
  pollMs: number,
): Promise<void> {
  const deadline = Date.now() + withinMs;
  while (pids.some(isAlive) && Date.now() < deadline)
    await new Promise(r => setTimeout(r, pollMs));
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    // The process group: a detached child leads its own, and its children are in it.
    process.kill(-pid, signal);
  } catch {
    /* already gone */
  }
}

/**
 * Stops the process groups led by `pids`: SIGTERM (SIGKILL at once for those in `killAtOnce`), SIGKILL to any still
 * there after 10 s, then a bounded wait (5 s) until they are gone, since a SIGKILL is not the exit and no caller
 * should see one still there.
 */
export async function stopProcessGroups(
  pids: number[],
  opts: { killAtOnce?: number[] } = {},
): Promise<void> {
  for (const pid of pids)
    signalGroup(pid, opts.killAtOnce?.includes(pid) ? 'SIGKILL' : 'SIGTERM');
  await waitUntilGone(pids, 10_000, 50);
  for (const pid of pids.filter(isAlive)) signalGroup(pid, 'SIGKILL');
  await waitUntilGone(pids, 5_000, 20);
}

/** What a server wrote to its log since `offset`: the log file is appended to by every start in the same state directory. */
export function logSince(file: string, offset = 0): string {
  if (!existsSync(file)) return '';
  const buf = readFileSync(file);
  return buf.subarray(Math.min(offset, buf.length)).toString('utf8');
}

/** The last lines of a log text, for an error message. */
export function logTail(text: string, lines = 25): string {
  return text.trim()
    ? text.trimEnd().split('\n').slice(-lines).join('\n')
    : '(nothing logged)';
}
