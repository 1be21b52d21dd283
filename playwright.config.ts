import { defineConfig } from '@playwright/test';

/**
 * End-to-end tests in Debian's Chromium (Playwright cannot download its own browser here) against the backend
 * serving the built app on port 7017, beside a developer's demo on 7007. The management cluster is the test run's
 * real one: scripts/test.sh exports CAPZ_KUBECONFIG before Playwright starts the backend.
 */
const port = 7017;

export default defineConfig({
  testDir: 'e2e/tests',
  timeout: 60_000,
  expect: { timeout: 20_000 },
  forbidOnly: !!process.env.CI,
  retries: 0,
  workers: 1,
  reporter: [['list'], ['json', { outputFile: 'e2e/artifacts/results.json' }]],
  outputDir: 'e2e/test-results',
  use: {
    baseURL: `http://127.0.0.1:${port}`,
    screenshot: 'only-on-failure',
    trace: 'retain-on-failure',
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    },
  },
  webServer: {
    // scripts/test.sh also passes the simulator's AKS discovery config (capz.azureDiscovery: its ARM and Entra ID).
    command: `yarn workspace backend start --config ../../app-config.yaml --config ../../e2e/app-config.e2e.yaml${
      process.env.CAPZ_AZURE_DISCOVERY_CONFIG
        ? ` --config ${JSON.stringify(process.env.CAPZ_AZURE_DISCOVERY_CONFIG)}`
        : ''
    }`,
    url: `http://127.0.0.1:${port}/api/capz/health`,
    reuseExistingServer: false,
    timeout: 180_000,
    stdout: 'ignore',
    stderr: 'pipe',
  },
});
