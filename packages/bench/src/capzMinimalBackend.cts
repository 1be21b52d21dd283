/**
 * A minimal Backstage backend with the CAPZ backend plugin and its catalog module, for the benchmark's like-for-like
 * memory comparison with src/stockBackend.ts (same catalog and allow-all permissions, our plugin in place of the stock
 * Kubernetes plugin); the product's backend is packages/backend. It runs as the stock backend does, with plain `node`
 * and the same flags, and as a production backend does, on built JavaScript: our workspace packages (named
 * @capz-backstage/*, whose package.json `main` is their TypeScript source for development) resolve to the
 * `publishConfig.main` that `backstage-cli package build` writes (dist/index.cjs.js), which src/backends.ts builds
 * first. CommonJS, as that build and the Backstage backend bundle are. Run by src/backends.ts.
 */
/* eslint-disable @typescript-eslint/no-require-imports */
const nodeModule = require('node:module');
const { existsSync, readFileSync } = require('node:fs');
const { dirname, join } = require('node:path');

type Resolve = (request: string, ...rest: unknown[]) => string;
const loader = nodeModule as unknown as { _resolveFilename: Resolve };
const resolveFilename = loader._resolveFilename;
const built = new Map<string, string>();
const builtMain = (request: string, rest: unknown[]): string => {
  const manifest = resolveFilename(`${request}/package.json`, ...rest);
  const pkg = JSON.parse(readFileSync(manifest, 'utf8'));
  const file: string = join(
    dirname(manifest),
    pkg.publishConfig?.main ?? pkg.main,
  );
  if (!existsSync(file))
    throw new Error(
      `${request} is not built (${file} is missing): run the bench without --no-build`,
    );
  built.set(request, file);
  return file;
};
loader._resolveFilename = (request, ...rest) =>
  /^@capz-backstage\/[^/]+$/.test(request)
    ? built.get(request) ?? builtMain(request, rest)
    : resolveFilename(request, ...rest);

const { createBackend } = require('@backstage/backend-defaults');

const backend = createBackend();
for (const name of [
  '@backstage/plugin-catalog-backend',
  '@backstage/plugin-permission-backend',
  '@backstage/plugin-permission-backend-module-allow-all-policy',
  '@capz-backstage/plugin-capz-backend',
  '@capz-backstage/plugin-catalog-backend-module-capz',
])
  backend.add(require(name).default);
backend.start().catch((e: Error) => {
  process.stderr.write(`minimal CAPZ backend failed to start: ${e.stack}\n`);
  process.exit(1);
});
