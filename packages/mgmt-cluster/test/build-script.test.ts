/**
 * runBuildScript resolves with the last line the script printed, read to the end of stdout: a line that arrives
 * after the script's own exit (a child it left behind still writing) is waited for, and a script that prints nothing
 * is an error, never the path ''.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { runBuildScript } from '../src/buildScript.ts';

const dir = mkdtempSync(join(tmpdir(), 'build-script-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function script(name: string, body: string): string {
  const file = join(dir, name);
  writeFileSync(file, `#!/usr/bin/env bash\n${body}\n`);
  return file;
}

test('the path is read to the end of stdout, also when it is written after the script exited', async () => {
  // The background child prints only once its parent (the script) is gone: the exit comes first, the line after it.
  const file = script(
    'late.sh',
    'echo progress >&2; parent=$$; ( while kill -0 "$parent" 2>/dev/null; do sleep 0.01; done; echo first; echo /cache/bin/entry ) & exit 0',
  );
  assert.equal(await runBuildScript(file), '/cache/bin/entry');
});

test('a script that prints no path is an error that names it', async () => {
  const file = script('silent.sh', 'echo only progress >&2; exit 0');
  await assert.rejects(
    runBuildScript(file),
    /silent\.sh exited 0 but printed no path/,
  );
});

test('a failing script is an error with its exit code', async () => {
  const file = script('failing.sh', 'echo /half/built; exit 3');
  await assert.rejects(
    runBuildScript(file),
    /failing\.sh failed with exit code 3/,
  );
});
