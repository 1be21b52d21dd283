import { auditLogEnd, auditLogEntries } from '@internal/mgmt-cluster';
import { readFileSync, readdirSync, readlinkSync } from 'node:fs';
import { Agent, request as httpsRequest } from 'node:https';

export { median, mib, ms, percentile, sec } from './format.ts';

export function log(message: string): void {
  process.stderr.write(
    `[bench ${new Date().toISOString().slice(11, 19)}] ${message}\n`,
  );
}

/** A keep-alive HTTPS client for an API server: raw GETs, as timed in the LIST baseline. */
export class RawKube {
  private readonly agent: Agent;
  private readonly url: string;
  private readonly token: string;

  constructor(
    conn: { url: string; caPem: string; token: string },
    maxSockets = 16,
  ) {
    this.agent = new Agent({ keepAlive: true, ca: conn.caPem, maxSockets });
    this.url = conn.url;
    this.token = conn.token;
  }

  get(path: string): Promise<{ status: number; body: Buffer }> {
    return new Promise((resolvePromise, reject) => {
      const req = httpsRequest(
        `${this.url}${path}`,
        {
          agent: this.agent,
          headers: {
            Authorization: `Bearer ${this.token}`,
            Accept: 'application/json',
          },
          timeout: 120_000,
        },
        res => {
          const chunks: Buffer[] = [];
          res.on('data', d => chunks.push(d));
          res.on('end', () =>
            resolvePromise({
              status: res.statusCode ?? 0,
              body: Buffer.concat(chunks),
            }),
          );
        },
      );
      req.on('timeout', () => req.destroy(new Error(`timeout on GET ${path}`)));
      req.on('error', reject);
      req.end();
    });
  }

  close(): void {
    this.agent.destroy();
  }
}

/** VmRSS of a process in KiB (NaN when gone). */
export function rssKib(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(
      readFileSync(`/proc/${pid}/status`, 'utf8'),
    );
    return m ? Number(m[1]) : NaN;
  } catch {
    return NaN;
  }
}

/** CPU time (user + system) a process has used so far, in ms (NaN when gone): load-independent where wall time is not. */
export function cpuMs(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8')
      .split(') ')[1]
      .split(' ');
    // utime and stime are fields 14 and 15 of stat(5), in clock ticks (100 a second on Linux).
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return NaN;
  }
}

/** The process (among `root` and its descendants) that listens on TCP `port`, from /proc/net/tcp{,6} socket inodes. */
export function listenerPid(root: number, port: number): number | undefined {
  const hex = port.toString(16).toUpperCase().padStart(4, '0');
  const inodes = new Set<string>();
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text = '';
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f.length > 9 && f[1].endsWith(`:${hex}`) && f[3] === '0A')
        inodes.add(f[9]);
    }
  }
  for (const pid of descendants(root)) {
    let fds: string[] = [];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      try {
        const m = /^socket:\[(\d+)\]$/.exec(
          readlinkSync(`/proc/${pid}/fd/${fd}`),
        );
        if (m && inodes.has(m[1])) return pid;
      } catch {
        /* closed meanwhile */
      }
    }
  }
  return undefined;
}

/** `root` and every process below it (from /proc/<pid>/stat parent ids). */
export function descendants(root: number): number[] {
  const parents = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      parents.set(Number(entry), ppid);
    } catch {
      /* gone */
    }
  }
  const out = [root];
  for (let i = 0; i < out.length; i++) {
    for (const [pid, ppid] of parents) if (ppid === out[i]) out.push(pid);
  }
  return out;
}

/** Audit log lines appended after `offset` (the API server writes one JSON line per request stage). */
export interface AuditEvent {
  verb: string;
  requestURI: string;
  stage: string;
  user?: { username?: string };
  userAgent?: string;
}

export function auditSize(file: string): number {
  return auditLogEnd(file);
}

export function auditSince(file: string, offset: number): AuditEvent[] {
  return auditLogEntries<AuditEvent>(file, offset).filter(
    e => e.stage === 'ResponseComplete' || e.stage === 'Panic',
  );
}
