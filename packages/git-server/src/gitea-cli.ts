#!/usr/bin/env node
/**
 * Gitea for the e2e run and the demo (src/gitea.ts):
 *
 *   node packages/git-server/src/gitea-cli.ts build
 *   node packages/git-server/src/gitea-cli.ts start --root DIR [--repo gitops]... [--port N] [--info-file FILE] [--exit-with PID]
 *
 * `build` builds Gitea from its Go module (or finds it cached) and prints its directory. `start` runs it until stopped
 * (SIGINT/SIGTERM, or --exit-with's process gone) and, once it serves, writes into --root: credentials.json (the admin
 * user's username and password) and app-config.gitea.yaml (Backstage's `integrations.gitea` for it); then --info-file:
 * JSON {url, host, repos: {name: clone URL}, credentials: path of credentials.json, appConfig: path of the YAML}.
 */
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { ensureGitea, startGitea } from './gitea.ts';
import { closeWith } from './lifetime.ts';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    root: { type: 'string' },
    repo: { type: 'string', multiple: true },
    port: { type: 'string', default: '0' },
    'info-file': { type: 'string' },
    'exit-with': { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  },
});
const usage =
  'usage: gitea-cli.ts build | start --root DIR [--repo NAME]... [--port N] [--info-file FILE] [--exit-with PID]\n';

async function main() {
  const [command] = positionals;
  if (values.help) return void process.stdout.write(usage);
  if (command === 'build')
    return void process.stdout.write(`${await ensureGitea()}\n`);
  if (command !== 'start' || !values.root) {
    process.stderr.write(usage);
    process.exit(2);
  }
  const root = resolve(values.root);
  const gitea = await startGitea({
    root,
    port: Number(values.port),
    repos: values.repo,
  });
  const credentials = join(root, 'credentials.json');
  writeFileSync(
    credentials,
    JSON.stringify({ username: gitea.username, password: gitea.password }),
    {
      mode: 0o600,
    },
  );
  const appConfig = join(root, 'app-config.gitea.yaml');
  writeFileSync(
    appConfig,
    `# Written by packages/git-server/src/gitea-cli.ts: the local Gitea as a Backstage integration.\nintegrations:\n  gitea:\n    - host: '${gitea.host}'\n      baseUrl: ${gitea.url}\n      username: ${gitea.username}\n      password: ${gitea.password}\n`,
    { mode: 0o600 },
  );
  const repos = Object.fromEntries(
    (values.repo ?? []).map(r => [r, gitea.repoUrl(r)]),
  );
  for (const u of Object.values(repos).length
    ? Object.values(repos)
    : [gitea.url])
    process.stdout.write(`${u}\n`);
  if (values['info-file'])
    writeFileSync(
      values['info-file'],
      `${JSON.stringify({
        url: gitea.url,
        host: gitea.host,
        repos,
        credentials,
        appConfig,
      })}\n`,
    );

  closeWith(() => gitea.close(), Number(values['exit-with']));
}

main().catch(e => {
  process.stderr.write(`gitea: ${(e as Error).message}\n`);
  process.exit(1);
});
