#!/usr/bin/env node
// Writes src/schema/openapi.generated.ts from src/schema/openapi.yaml: the spec as a typed constant for
// createValidatedOpenApiRouter (what `backstage-repo-tools package schema openapi generate` does, without the
// Java generator it needs for the rest). src/schema/openapi.test.ts fails when the two drift apart.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import YAML from 'yaml';

const dir = join(
  dirname(fileURLToPath(import.meta.url)),
  '..',
  'src',
  'schema',
);
const spec = YAML.parse(readFileSync(join(dir, 'openapi.yaml'), 'utf8'));
writeFileSync(
  join(dir, 'openapi.generated.ts'),
  `// Generated from openapi.yaml by scripts/generate-openapi.mjs (yarn generate:openapi); do not edit.
import { createValidatedOpenApiRouter } from '@backstage/backend-openapi-utils';

export const spec = ${JSON.stringify(spec, null, 2)} as const;

export const createOpenApiRouter = async (
  options?: Parameters<typeof createValidatedOpenApiRouter>['1'],
) => createValidatedOpenApiRouter<typeof spec>(spec, options);
`,
);
