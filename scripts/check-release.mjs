#!/usr/bin/env node
/**
 * Fails when a published package (plugins/*, not private) lacks what a published Backstage plugin carries:
 *  - its `backstage` block: `role`, `pluginId`, and `pluginPackages` (plugins, common libraries) or `pluginPackage`
 *    (modules), which Backstage's tooling and the plugin directory read;
 *  - `repository.directory` naming its folder;
 *  - the files a user reads or a release needs: README.md, CHANGELOG.md, catalog-info.yaml, report.api.md;
 *  - a README that names every configuration key of the package's config.d.ts (as `key` or `key:`);
 * or when `backstage-cli repo fix --publish --check` would change any package.json of the repository (drift from
 * what `yarn fix --publish` writes: plugin ids, plugin packages, exports), or
 * `backstage-repo-tools generate-catalog-info --ci` finds a catalog-info.yaml out of step with its package.json or
 * .github/CODEOWNERS.
 *
 *   node scripts/check-release.mjs      exit 0: clean; exit 1: every problem listed
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const problems = [];

const MODULE_ROLES = ['backend-plugin-module', 'frontend-plugin-module'];
const PLUGIN_ROLES = ['backend-plugin', 'frontend-plugin', 'common-library'];
const FILES = [
  'README.md',
  'CHANGELOG.md',
  'catalog-info.yaml',
  'report.api.md',
];

const published = readdirSync(join(root, 'plugins'))
  .map(dir => `plugins/${dir}`)
  .filter(dir => existsSync(join(root, dir, 'package.json')))
  .map(dir => ({
    dir,
    pkg: JSON.parse(readFileSync(join(root, dir, 'package.json'), 'utf8')),
  }))
  .filter(({ pkg }) => !pkg.private);

if (published.length === 0)
  problems.push('no published package under plugins/');

for (const { dir, pkg } of published) {
  const where = `${dir}/package.json (${pkg.name})`;
  const b = pkg.backstage;
  if (!b || typeof b !== 'object') {
    problems.push(
      `${where}: no "backstage" block (role, pluginId, pluginPackages)`,
    );
  } else {
    if (!b.role) problems.push(`${where}: backstage.role missing`);
    if (!b.pluginId) problems.push(`${where}: backstage.pluginId missing`);
    if (MODULE_ROLES.includes(b.role) && !b.pluginPackage) {
      problems.push(
        `${where}: backstage.pluginPackage missing (the plugin this module extends)`,
      );
    }
    if (PLUGIN_ROLES.includes(b.role) && !b.pluginPackages?.length) {
      problems.push(
        `${where}: backstage.pluginPackages missing (the packages of plugin "${b.pluginId}")`,
      );
    }
  }
  if (pkg.repository?.directory !== dir) {
    problems.push(`${where}: repository.directory should be "${dir}"`);
  }
  for (const file of FILES) {
    if (!existsSync(join(root, dir, file)))
      problems.push(`${dir}: ${file} missing`);
  }
}

/** Every property name declared in a config.d.ts (the schema Backstage reads), nested ones included. */
function configKeys(file) {
  const ts = createRequire(import.meta.url)('typescript');
  const source = ts.createSourceFile(
    file,
    readFileSync(file, 'utf8'),
    ts.ScriptTarget.Latest,
  );
  const keys = new Set();
  const visit = node => {
    if (
      ts.isPropertySignature(node) &&
      node.name &&
      ts.isIdentifier(node.name)
    ) {
      keys.add(node.name.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return [...keys];
}

for (const { dir, pkg } of published) {
  const readme = join(root, dir, 'README.md');
  const schema = pkg.configSchema && join(root, dir, pkg.configSchema);
  if (!schema || !existsSync(readme) || !existsSync(schema)) continue;
  const text = readFileSync(readme, 'utf8');
  const missing = configKeys(schema).filter(
    key =>
      !new RegExp(`[\\\`.]${key}\\b|^\\s*#?\\s*-?\\s*${key}:`, 'm').test(text),
  );
  if (missing.length > 0) {
    problems.push(
      `${dir}/README.md: config keys of ${
        pkg.configSchema
      } not documented: ${missing.join(', ')}`,
    );
  }
}

// The CLI's own check: exit 1 and the package names when `repo fix --publish` would rewrite a package.json.
try {
  execFileSync(
    'yarn',
    ['backstage-cli', 'repo', 'fix', '--publish', '--check'],
    {
      cwd: root,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
} catch (e) {
  problems.push(
    `backstage-cli repo fix --publish --check failed (run \`yarn fix --publish\` and commit the result):\n${`${
      e.stdout ?? ''
    }${e.stderr ?? ''}`.trim()}`,
  );
}

// catalog-info.yaml of every Backstage package: name, title, type (from backstage.role) and owner (CODEOWNERS).
try {
  execFileSync(
    'yarn',
    ['backstage-repo-tools', 'generate-catalog-info', '--ci'],
    {
      cwd: root,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
} catch (e) {
  problems.push(
    `backstage-repo-tools generate-catalog-info --ci failed (run \`yarn backstage-repo-tools generate-catalog-info\`):\n${`${
      e.stdout ?? ''
    }${e.stderr ?? ''}`.trim()}`,
  );
}

if (problems.length > 0) {
  for (const p of problems) console.error(`check-release: ${p}`);
  process.exit(1);
}
console.log(`check-release: ${published.length} published packages in order`);
