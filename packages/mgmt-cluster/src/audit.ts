/**
 * Reading the API server's audit log while it is being written. kube-apiserver writes each event as one line in one
 * write (k8s.io/apiserver v0.35.4 `plugin/pkg/audit/log/backend.go`, `logEvent`: `fmt.Fprint(b.out, line)`), but a
 * reader can meet a line half written (a write that crosses a page of the page cache is not atomic to a concurrent
 * read: a test read `{"kind":"Event",…` cut at 363 bytes). So both readers stop at the last newline: what follows it
 * is read next time.
 */
import { readFileSync } from 'node:fs';

const NEWLINE = 0x0a;

function contents(auditLog: string): Buffer {
  try {
    return readFileSync(auditLog);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return Buffer.alloc(0);
    throw e;
  }
}

/** Where the audit log's complete lines end (a byte offset): read from it with {@link auditLogEntries}. */
export function auditLogEnd(auditLog: string): number {
  return contents(auditLog).lastIndexOf(NEWLINE) + 1;
}

/** The audit log's events from byte `fromByte` (an {@link auditLogEnd}) on, each complete line parsed. */
export function auditLogEntries<T = any>(auditLog: string, fromByte = 0): T[] {
  const bytes = contents(auditLog);
  const end = bytes.lastIndexOf(NEWLINE) + 1;
  if (end <= fromByte) return [];
  return bytes
    .subarray(fromByte, end)
    .toString('utf8')
    .split('\n')
    .filter(Boolean)
    .map(line => JSON.parse(line) as T);
}
