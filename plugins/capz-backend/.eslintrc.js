const path = require('node:path');

/**
 * The backend's layers, top down (docs/architecture.md#backend-layers): a module imports only from the layers below
 * its own. Folders of one layer do not import each other either (plugin.ts composes them), so no circle can form.
 * permissions/ and schema/ are leaves that every layer may use. src/testing/ is for tests only.
 */
const LAYERS = [
  { name: 'wiring', folders: ['plugin.ts', 'index.ts'] },
  // The routes and the actions registry's actions: the two ways in, peers.
  { name: 'routers', folders: ['routers', 'actions'] },
  {
    name: 'services',
    folders: ['day2', 'jobs', 'history', 'live', 'connect', 'views', 'create'],
  },
  // The Kubernetes edge reads where an ASO object points in Azure through azure/mapping.ts: it stands over azure/.
  { name: 'Kubernetes edge', folders: ['cluster'] },
  // The ARM, Git and notification edges: peers at the bottom, beside each other (none imports another).
  { name: 'ARM and Git edges', folders: ['azure', 'git', 'notify'] },
  { name: 'configuration', folders: ['config'] },
  { name: 'leaves', folders: ['permissions', 'schema'] },
];

/** For every folder below the wiring: the layers above it, its peers and src/testing/ are out of its reach. */
const zones = LAYERS.slice(1).flatMap((layer, i) => {
  const above = LAYERS.slice(0, i + 1).flatMap(l => l.folders);
  return layer.folders.map(folder => ({
    target: `./${folder}`,
    from: [
      ...above,
      ...layer.folders.filter(peer => peer !== folder),
      'testing',
    ].map(f => `./${f}`),
    message: `${folder}/ is in the ${layer.name} layer: it imports only from the layers below it, never from above or from a peer (docs/architecture.md#backend-layers).`,
  }));
});

module.exports = require('@backstage/cli/config/eslint-factory')(__dirname, {
  overrides: [
    {
      files: ['src/**/*.ts'],
      // Tests, benchmarks and their fixtures may reach across layers to build what they test.
      excludedFiles: [
        'src/**/*.test.ts',
        'src/**/*.bench.ts',
        'src/testing/**',
      ],
      settings: {
        // The rule needs each import resolved to a file: the TypeScript sources, without extensions in the imports.
        'import/resolver': { node: { extensions: ['.ts', '.js', '.json'] } },
      },
      rules: {
        'import/no-restricted-paths': [
          'error',
          { basePath: path.join(__dirname, 'src'), zones },
        ],
      },
    },
  ],
});
