import { spawn } from 'node:child_process';
import { basename } from 'node:path';

/**
 * Runs one of the build scripts that build (or find cached) Go binaries, its progress on this process's stderr, and
 * resolves with the last line it printed: the path of what it built. Shared by the Kubernetes, managers', clusterctl,
 * Flux and Gitea builds.
 *
 * It settles on `close`, not `exit`: Node may emit `exit` before the last chunk of stdout is read (and a process the
 * script left behind may still hold stdout), and a path read too early is '' (CI saw `scandir 'crds'`).
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
    child.on('close', (code, signal) => {
      const last = out.trim().split('\n').pop() ?? '';
      if (code !== 0)
        reject(
          new Error(
            `${basename(script)} failed with ${
              signal ? `signal ${signal}` : `exit code ${code}`
            }`,
          ),
        );
      else if (!last)
        reject(
          new Error(
            `${basename(script)} exited 0 but printed no path on stdout`,
          ),
        );
      else resolvePromise(last);
    });
  });
}
