import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { launch } from '../src/launch.ts';

const exited = (child: { once: (e: 'exit', f: () => void) => void }) =>
  new Promise<void>(r => child.once('exit', r));

test('launch resolves with a running process whose output goes to the log file', async t => {
  const dir = mkdtempSync(join(tmpdir(), 'capz-launch-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const logFile = join(dir, 'out.log');
  const child = await launch('sh', ['-c', 'echo out; echo err >&2'], {
    logFile,
    detached: false,
  });
  assert.ok(child.pid > 0);
  await exited(child);
  assert.equal(readFileSync(logFile, 'utf8'), 'out\nerr\n');
});

test('launch names the system reason when a binary cannot start, and does not retry it', async t => {
  const dir = mkdtempSync(join(tmpdir(), 'capz-launch-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  await assert.rejects(
    launch(join(dir, 'no-such-etcd'), [], { logFile: join(dir, 'etcd.log') }),
    (e: Error) =>
      // ENOENT is not transient: the message names no further attempts.
      /could not start .*no-such-etcd: spawn .*no-such-etcd ENOENT$/.test(
        e.message,
      ),
  );
});

test('launch leaves no descriptor of the log file open in the starting process', async t => {
  // A test worker starts dozens of clusters; each start used to leak its log files' descriptors.
  const dir = mkdtempSync(join(tmpdir(), 'capz-launch-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const before = readdirSync('/proc/self/fd').length;
  for (let i = 0; i < 20; i++) {
    const child = await launch('true', [], {
      logFile: join(dir, `true-${i}.log`),
      detached: false,
    });
    await exited(child);
  }
  assert.equal(readdirSync('/proc/self/fd').length, before);
});
