/**
 * A minimal Backstage backend with the CAPZ backend plugin and its catalog module, for the benchmark's like-for-like
 * memory comparison with src/stockBackend.ts (same catalog and allow-all permissions, our plugin in place of the stock
 * Kubernetes plugin); the product's backend is packages/backend. CommonJS, because it is run as packages/backend is
 * (`backstage-cli package start`): through the CLI's require hook, which transpiles the plugins' TypeScript sources,
 * but without the CLI's --enable-source-maps (the stock backend runs without it too). Run by src/backends.ts.
 */
/* eslint-disable @typescript-eslint/no-require-imports */
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
