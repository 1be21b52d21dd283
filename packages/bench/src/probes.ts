/**
 * What the measures ask of a running backend and of the API server: request timings, its sync, when it has gone
 * quiet, the API server's audit log, its memory through the inspector.
 */
import { join } from 'node:path';
import type { ClusterInfo } from '@internal/mgmt-cluster';
import {
  fetchJson,
  resolvePid,
  waitUntil,
  type RunningBackend,
} from './backends.ts';
import { mib, sec } from './format.ts';
import { describeMemory, snapshotBackend } from './heap.ts';
import type { RecordRow } from './report.ts';
import { auditSince, auditSize, cpuMs, log } from './util.ts';

/** Non-watch requests a user made in an audit-log window, and which. */
export function auditCount(
  info: ClusterInfo,
  offset: number,
  filter: (e: {
    user?: { username?: string };
    userAgent?: string;
    verb: string;
  }) => boolean,
) {
  const events = auditSince(info.auditLog, offset).filter(
    e => e.verb !== 'watch' && filter(e),
  );
  const byVerb = new Map<string, number>();
  for (const e of events) byVerb.set(e.verb, (byVerb.get(e.verb) ?? 0) + 1);
  const uris = [...new Set(events.map(e => e.requestURI.split('?')[0]))];
  const detail = [...byVerb].map(([v, n]) => `${n} ${v}`).join(', ');
  return {
    count: events.length,
    detail: detail
      ? `${detail}: ${uris.slice(0, 4).join(' ')}${uris.length > 4 ? ' …' : ''}`
      : 'none',
  };
}

/** How long the backend must make no non-watch request to count as settled after its sync. */
export const SETTLE_MS = 3000;

/** Waits until the backend has made no non-watch request for SETTLE_MS (at most two minutes), and counts them. */
export async function backgroundSettled(info: ClusterInfo) {
  const start = auditSize(info.auditLog);
  const byBackend = (e: { user?: { username?: string } }) =>
    e.user?.username === 'capz-backend';
  const deadline = Date.now() + 120_000;
  let seen = -1;
  let quietSince = Date.now();
  for (;;) {
    const { count } = auditCount(info, start, byBackend);
    if (count !== seen) {
      seen = count;
      quietSince = Date.now();
    } else if (Date.now() - quietSince >= SETTLE_MS) break;
    if (Date.now() > deadline) {
      log(
        'WARNING: the backend kept asking the API server for two minutes after sync; page views measured anyway',
      );
      break;
    }
    await new Promise(r => setTimeout(r, 250));
  }
  return auditCount(info, start, byBackend);
}

/** CPU time in one second below which the backend counts as idle. */
export const IDLE_CPU_MS = 50;

/** Waits (at most three minutes) for a second in which the process used less than IDLE_CPU_MS of CPU. */
export async function backendIdle(
  pid: number | undefined,
): Promise<{ ms: number; cpuMs: number; timedOut: boolean }> {
  const started = performance.now();
  if (!pid) return { ms: 0, cpuMs: NaN, timedOut: false };
  const cpuAtStart = cpuMs(pid);
  const deadline = started + 180_000;
  for (;;) {
    const before = cpuMs(pid);
    await new Promise(r => setTimeout(r, 1000));
    const used = cpuMs(pid) - before;
    const timedOut = performance.now() > deadline;
    if (!(used >= IDLE_CPU_MS) || timedOut)
      return {
        ms: performance.now() - started,
        cpuMs: cpuMs(pid) - cpuAtStart,
        timedOut: timedOut && used >= IDLE_CPU_MS,
      };
  }
}

/** GETs each path in turn; each one's time, and the size of the last answer. */
export async function timeRequests(
  b: RunningBackend,
  paths: string[],
  token = b.token,
): Promise<{ times: number[]; bytes: number }> {
  const times: number[] = [];
  let bytes = 0;
  for (const path of paths) {
    const started = performance.now();
    const res = await fetch(`${b.baseUrl}${path}`, {
      headers: { Authorization: `Bearer ${token}` },
    });
    const text = await res.text();
    times.push(performance.now() - started);
    if (res.status !== 200)
      throw new Error(`GET ${path}: HTTP ${res.status} ${text.slice(0, 300)}`);
    bytes = text.length;
  }
  return { times, bytes };
}

export interface WatchStatus {
  synced: boolean;
  kinds: { [kind: string]: { version?: string; synced: boolean } };
}

/** Waits for a just-spawned CAPZ backend to answer, then for its `bench` watch to sync; the API server's CPU meanwhile. */
export async function timeSync(
  b: RunningBackend,
  apiServerPid: number | undefined,
): Promise<{
  up: number;
  synced: number;
  apiCpuMs: number;
  watch?: WatchStatus;
}> {
  const apiCpuAtSpawn = apiServerPid ? cpuMs(apiServerPid) : NaN;
  const up = await waitUntil(
    b,
    'the backend to answer /api/capz/health',
    async () => (await fetch(`${b.baseUrl}/api/capz/health`)).ok,
    300_000,
  );
  let watch: WatchStatus | undefined;
  const synced = await waitUntil(
    b,
    'the bench watch to sync',
    async () => {
      const res = await fetchJson(b, '/api/capz/management-clusters');
      watch = res.body?.items?.find(
        (c: { name: string }) => c.name === 'bench',
      )?.watch;
      return res.status === 200 && watch?.synced === true;
    },
    600_000,
    50,
  );
  const apiCpuMs = (apiServerPid ? cpuMs(apiServerPid) : NaN) - apiCpuAtSpawn;
  return { up, synced, apiCpuMs, watch };
}

/** NODE_OPTIONS for a backend whose inspector --heap-snapshot opens (with SIGUSR1) on a port of its own. */
export const inspectOption = (port: number) =>
  `--inspect-port=127.0.0.1:${port}`;

/** --heap-snapshot: the backend's memory split before and after a full GC, and a heap snapshot file. */
export async function heapSnapshot(
  record: RecordRow,
  b: RunningBackend,
  inspectPort: number,
  label: string,
  localDir: string,
): Promise<void> {
  const pid = resolvePid(b);
  if (!pid) return;
  const file = join(localDir, `${label}.heapsnapshot`);
  const r = await snapshotBackend(pid, inspectPort, file);
  record(
    `${label}: memory (inspector)`,
    mib(r.before.rss),
    describeMemory(r.before),
  );
  record(
    `${label}: memory after a full GC`,
    mib(r.afterGc.rss),
    `${describeMemory(r.afterGc)}; heap snapshot ${file} written in ${sec(
      r.ms,
    )}: \`node packages/bench/src/heapSummary.ts ${file}\``,
  );
}
