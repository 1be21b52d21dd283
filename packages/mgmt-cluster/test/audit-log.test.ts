import assert from 'node:assert/strict';
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { auditLogEnd, auditLogEntries } from '../src/audit.ts';

test('the audit log is read to its last complete line: a line still being written waits for the next read', () => {
  const dir = mkdtempSync(join(tmpdir(), 'audit-log-'));
  try {
    const file = join(dir, 'audit.log');
    assert.equal(auditLogEnd(file), 0, 'no log yet: nothing to read');
    assert.deepEqual(auditLogEntries(file), []);

    const line = (verb: string) =>
      `${JSON.stringify({
        verb,
        requestURI: `/api/v1/namespaces/é/${verb}`,
      })}\n`;
    const third = line('delete');
    // Two lines written, the third cut inside its JSON string (as a reader met it beside a running API server).
    writeFileSync(file, line('get') + line('list') + third.slice(0, 20));
    const end = auditLogEnd(file);
    assert.equal(end, Buffer.byteLength(line('get') + line('list')));
    assert.deepEqual(
      auditLogEntries<{ verb: string }>(file).map(e => e.verb),
      ['get', 'list'],
    );
    assert.deepEqual(auditLogEntries(file, end), []);

    // Once the line is whole, a read from the end of the last one gets it, and only it.
    appendFileSync(file, third.slice(20));
    assert.deepEqual(
      auditLogEntries<{ verb: string }>(file, end).map(e => e.verb),
      ['delete'],
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
