/*
 * The TypeScript transform of the lighter test backend (testBackend.ts): the CommonJS half of @backstage/cli-node's
 * config/nodeTransform.cjs (what `backstage-cli package start` preloads), the same SWC options, without its module
 * hooks for ESM. Those run on a thread of their own and every module an ESM import loads makes a synchronous round
 * trip to it: loading the Kubernetes client (ESM) cost twice the CPU it costs without them. The workspace's code
 * reaches ESM only through `import()` of packages, which Node loads itself.
 */
/* eslint-disable @backstage/no-undeclared-imports -- the CLI's own dependencies, resolved as it resolves them */
const { transformSync } = require('@swc/core');
const { addHook } = require('pirates');

addHook(
  (code, filename) =>
    transformSync(code, {
      filename,
      sourceMaps: 'inline',
      module: { type: 'commonjs', ignoreDynamic: true },
      jsc: { target: 'es2023', parser: { syntax: 'typescript' } },
    }).code,
  { extensions: ['.ts', '.cts'], ignoreNodeModules: true },
);
