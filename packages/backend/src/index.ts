/*
 * The Backstage backend that hosts the CAPZ plugins. Only what the product needs is installed: catalog,
 * scaffolder (with the GitHub, GitLab and Bitbucket Server modules for pull requests), auth, permissions,
 * notifications and signals (live updates), the events bus, the MCP server of the actions registry, and the three CAPZ
 * packages.
 */
import { createBackend } from '@backstage/backend-defaults';

const backend = createBackend();

backend.add(import('@backstage/plugin-app-backend'));
backend.add(import('@backstage/plugin-auth-backend'));
backend.add(import('@backstage/plugin-auth-backend-module-guest-provider'));
// The demo's second sign-in, a product team's developer (./demoSignIn.ts; development only, off unless configured).
backend.add(import('./demoSignIn'));
backend.add(import('@backstage/plugin-catalog-backend'));
backend.add(
  import('@backstage/plugin-catalog-backend-module-scaffolder-entity-model'),
);
backend.add(import('@backstage/plugin-catalog-backend-module-logs'));
backend.add(import('@backstage/plugin-scaffolder-backend'));
// The forges' own pull-request actions, which the New AKS cluster template's pull-request delivery uses
// (publish:github:pull-request, publish:gitlab:merge-request, publish:bitbucketServer:pull-request).
backend.add(import('@backstage/plugin-scaffolder-backend-module-github'));
backend.add(import('@backstage/plugin-scaffolder-backend-module-gitlab'));
backend.add(
  import('@backstage/plugin-scaffolder-backend-module-bitbucket-server'),
);
backend.add(import('@backstage/plugin-permission-backend'));
// Owners act on their clusters, a platform group on all (./permissionPolicy.ts), in place of allow-all.
backend.add(import('./permissionPolicy'));
backend.add(import('@backstage/plugin-user-settings-backend'));
backend.add(import('@backstage/plugin-notifications-backend'));
backend.add(import('@backstage/plugin-signals-backend'));
// The events bus the catalog and signals subscribe to (without it they log "events backend not found"); it also
// carries signals between backend replicas (through the database with PostgreSQL).
backend.add(import('@backstage/plugin-events-backend'));
// The actions registry's actions (the CAPZ reads, day-2 previews and confirms) as an MCP server for AI assistants, at
// /api/mcp-actions/v1 (docs/install.md#mcp).
backend.add(import('@backstage/plugin-mcp-actions-backend'));

backend.add(import('@capz-backstage/plugin-capz-backend'));
backend.add(import('@capz-backstage/plugin-scaffolder-backend-module-capz'));
backend.add(import('@capz-backstage/plugin-catalog-backend-module-capz'));

// Backstage logs a listen failure as an unhandled rejection and keeps running: a backend nobody can reach, while
// whatever holds the port answers in its place. End instead, naming the port and the setting that moves it.
process.on('unhandledRejection', reason => {
  const e = reason as NodeJS.ErrnoException & { port?: number };
  if (e?.code === 'EADDRINUSE' && e.syscall === 'listen') {
    process.stderr.write(
      `Port ${e.port} is already in use (EADDRINUSE): stop what holds it, or set backend.listen.port (and backend.baseUrl).\n`,
    );
    process.exit(1);
  }
});

backend.start();
