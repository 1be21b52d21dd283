import { spawn } from 'node:child_process';
import { basename } from 'node:path';

/**
 * Runs one of the build scripts that build (or find cached) Go binaries, its progress on this process's stderr, and
 * resolves with the last line it printed: the path of what it built. Shared by the Kubernetes, managers', clusterctl
 * and Gitea builds.
 */
export function runBuildScript(
  script: string,
  args: string[] = [],
): Promise<string> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn('bash', [script, ...args], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', d => (out += d));
    child.on('error', reject);
    child.on('exit', code =>
      code === 0
        ? resolvePromise(out.trim().split('\n').pop()!)
        : reject(
            new Error(`${basename(script)} failed with exit code ${code}`),
          ),
    );
  });
}
