import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The package's own folder (go wrapper modules, scripts). */
export const packageDir = resolve(
  dirname(fileURLToPath(import.meta.url)),
  '..',
);
/** The repository root. */
export const repoRoot = resolve(packageDir, '..', '..');

/** Machine-level cache shared by clones: Kubernetes binaries and patched CRDs (never in git). */
export function cacheDir(): string {
  return (
    process.env.CAPZ_CACHE_DIR ??
    join(
      process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'),
      'capz-backstage',
    )
  );
}

/**
 * Writes a machine-cache entry whole or not at all: through a temporary file of this process's own (another process
 * may be writing the same entry, with the same content, at the same time), renamed into place.
 */
export function writeCacheEntry(file: string, text: string): void {
  mkdirSync(dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, text);
  renameSync(tmp, file);
}

/** Where named management clusters keep their state (ignored by git): `.local/mgmt-clusters/<name>`. */
export function stateRoot(): string {
  return (
    process.env.CAPZ_STATE_DIR ?? join(repoRoot, '.local', 'mgmt-clusters')
  );
}

export function stateDirFor(name: string): string {
  if (!/^[a-z0-9][-a-z0-9]{0,40}$/.test(name)) {
    throw new Error(
      `management cluster name "${name}" must be lowercase letters, digits and '-'`,
    );
  }
  return join(stateRoot(), name);
}
