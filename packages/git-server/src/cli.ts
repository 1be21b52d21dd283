#!/usr/bin/env node
/**
 * Serves a directory of bare repositories over smart HTTP until stopped (SIGINT/SIGTERM), creating the named ones:
 *
 *   node packages/git-server/src/cli.ts --root .local/git --repo gitops [--port 0] [--url-file FILE] [--exit-with PID]
 *
 * Prints each repository's URL (one a line) once it serves, and writes the first to --url-file if given (for scripts
 * that start it in the background). With --exit-with, it stops when that process is gone (the script that started it).
 */
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { startGitServer } from './index.ts';
import { closeWith } from './lifetime.ts';

const { values } = parseArgs({
  options: {
    root: { type: 'string' },
    repo: { type: 'string', multiple: true },
    port: { type: 'string', default: '0' },
    host: { type: 'string', default: '127.0.0.1' },
    'url-file': { type: 'string' },
    'exit-with': { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  },
});
if (values.help || !values.root) {
  process.stderr.write(
    'usage: cli.ts --root DIR [--repo NAME]... [--port N] [--host H] [--url-file FILE] [--exit-with PID]\n',
  );
  process.exit(values.help ? 0 : 2);
}

async function main() {
  const server = await startGitServer({
    root: resolve(values.root!),
    port: Number(values.port),
    host: values.host,
  });
  const urls: string[] = [];
  for (const name of values.repo ?? [])
    urls.push(await server.createRepo(name));
  for (const u of urls.length ? urls : [server.url])
    process.stdout.write(`${u}\n`);
  if (values['url-file'])
    writeFileSync(values['url-file'], `${urls[0] ?? server.url}\n`);

  closeWith(() => server.close(), Number(values['exit-with']));
}

main().catch(e => {
  process.stderr.write(`git-server: ${(e as Error).message}\n`);
  process.exit(1);
});
