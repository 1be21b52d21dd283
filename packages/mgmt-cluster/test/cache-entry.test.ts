/**
 * The build scripts that write the shared machine cache, run twice at once for one key (the demo and the test command
 * started together): one build, the second caller waits for it and prints the same entry (scripts/lib/cache-entry.sh).
 * A fake `go` first on PATH stands in for the compiler: each `go build` is logged, and the first one holds until the
 * test has seen the second caller waiting, so the overlap is certain rather than a matter of timing.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { packageDir } from '../src/paths.ts';

const fakeGo = `#!/usr/bin/env bash
set -eu
case "$1" in
  # build-controllers.sh's copy of ASO's module (its folder), its trimmer (go run) and the copy's go.mod (go mod edit).
  list) if [[ " $* " == *"{{.Dir}}"* ]]; then mkdir -p "$FAKE_GO_DIR/aso/internal/controllers"; echo "$FAKE_GO_DIR/aso"; exit 0; fi
    case "\${!#}" in k8s.io/kubernetes) echo v1.35.4 ;; *etcd*) echo v3.6.16 ;; *) echo v1.13.3 ;; esac ;;
  build)
    out=""; pkgs=(); shift
    while [ $# -gt 0 ]; do case "$1" in -o) out=$2; shift 2 ;; -trimpath) shift ;; -*) shift 2 ;; *) pkgs+=("$1"); shift ;; esac; done
    echo "build $out" >> "$FAKE_GO_DIR/builds.log"
    touch "$FAKE_GO_DIR/building"
    while [ ! -e "$FAKE_GO_DIR/release" ] && [ -d "$FAKE_GO_DIR" ]; do sleep 0.05; done
    if [[ "$out" == */ ]]; then for p in "\${pkgs[@]}"; do printf '#!/bin/sh\\n' > "$out\${p##*/}"; chmod +x "$out\${p##*/}"; done
    else printf '#!/bin/sh\\n' > "$out"; chmod +x "$out"; fi ;;
  mod | run) ;;
  *) echo "fake go: $*" >&2; exit 1 ;;
esac
`;

interface Run {
  child: ChildProcess;
  stdout: string;
  stderr: string;
  exit: Promise<number | null>;
}

function run(script: string, args: string[], env: NodeJS.ProcessEnv): Run {
  const child = spawn('bash', [join(packageDir, 'scripts', script), ...args], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const r: Run = {
    child,
    stdout: '',
    stderr: '',
    // 'close', not 'exit': at 'exit' the child's stdout may still hold unread output (the entry's path).
    exit: new Promise(res => child.once('close', res)),
  };
  child.stdout!.on('data', d => (r.stdout += d));
  child.stderr!.on('data', d => (r.stderr += d));
  return r;
}

/** Polls a condition every 20 ms; the limit only detects a hang (the waits below take milliseconds). */
async function until(what: string, ok: () => boolean, runs: Run[]) {
  const deadline = Date.now() + 60_000;
  while (!ok()) {
    if (Date.now() > deadline)
      throw new Error(
        `no ${what} within 60 s:\n${runs.map(r => r.stderr).join('\n---\n')}`,
      );
    await new Promise(r => setTimeout(r, 20));
  }
}

const scripts: Array<[string, string[], number]> = [
  // script, arguments, the `go build` calls one build makes
  ['build-binaries.sh', [], 2],
  ['build-clusterctl.sh', [], 1],
  ['build-controllers.sh', ['capi'], 1],
];

for (const [script, args, buildsPerBuild] of scripts) {
  test(`${script}: two callers of one key at once make one build, the second waits and reuses it`, async t => {
    const dir = mkdtempSync(join(tmpdir(), 'capz-cache-entry-'));
    const runs: Run[] = [];
    t.after(() => {
      // A failed test leaves no builder behind: the fake go ends when its folder goes.
      for (const r of runs) r.child.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    });
    mkdirSync(join(dir, 'bin'));
    writeFileSync(join(dir, 'bin', 'go'), fakeGo);
    chmodSync(join(dir, 'bin', 'go'), 0o755);
    const env = {
      ...process.env,
      PATH: `${join(dir, 'bin')}:${process.env.PATH}`,
      CAPZ_CACHE_DIR: join(dir, 'cache'),
      FAKE_GO_DIR: dir,
    };

    const first = run(script, args, env);
    runs.push(first);
    await until('first build', () => existsSync(join(dir, 'building')), runs);
    const second = run(script, args, env);
    runs.push(second);
    await until(
      'second caller waiting',
      () => /waiting for it/.test(second.stderr),
      runs,
    );
    writeFileSync(join(dir, 'release'), '');

    assert.equal(await first.exit, 0, first.stderr);
    assert.equal(await second.exit, 0, second.stderr);
    const entry = first.stdout.trim().split('\n').pop();
    assert.ok(entry && existsSync(entry), `no entry at ${entry}`);
    assert.equal(second.stdout.trim().split('\n').pop(), entry);
    const builds = readFileSync(join(dir, 'builds.log'), 'utf8')
      .trim()
      .split('\n');
    assert.equal(builds.length, buildsPerBuild, builds.join('\n'));
    // Nothing half-built is left beside the entry.
    const cacheBin = join(dir, 'cache', 'bin');
    assert.deepEqual(
      readdirSync(cacheBin).filter(f => f.includes('.tmp')),
      [],
    );
  });
}
