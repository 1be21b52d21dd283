/**
 * A minimal Backstage backend with the stock @backstage/plugin-kubernetes-backend, for the benchmark's comparison
 * only (it is not part of the product's backend). The catalog is there because the plugin resolves the entity of a
 * query through it; permissions allow all. Run by src/backends.ts with `--config <generated file>`.
 */
import type { BackendFeature } from '@backstage/backend-plugin-api';
import { createBackend } from '@backstage/backend-defaults';

// These packages are CommonJS: imported from ESM, their `exports.default` (the feature) is under `default.default`.
const feature = (
  m: Promise<{ default: unknown }>,
): Promise<{ default: BackendFeature }> =>
  m.then(ns => {
    const d = ns.default as BackendFeature | { default: BackendFeature };
    return { default: '$$type' in d ? d : d.default };
  });

const backend = createBackend();
backend.add(feature(import('@backstage/plugin-catalog-backend')));
backend.add(feature(import('@backstage/plugin-permission-backend')));
backend.add(
  feature(
    import('@backstage/plugin-permission-backend-module-allow-all-policy'),
  ),
);
backend.add(feature(import('@backstage/plugin-kubernetes-backend')));
backend.start().catch(e => {
  process.stderr.write(
    `stock backend failed to start: ${(e as Error).stack ?? e}\n`,
  );
  process.exit(1);
});
