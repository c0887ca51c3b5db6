// End-to-end tests of the app (test/e2e/app-*.spec.ts) in Debian's Chromium against the
// production build served by `vite preview`. The build is the e2e variant (CAIRN_TEST_HOOKS=1,
// dist/app-e2e): the same app plus a hook through which tests hand over OPFS directory
// handles where a user would pick a folder (headless Chromium cannot drive that dialog).
// radosgw is started by the S3 specs themselves (test/e2e/helpers/s3.ts), or reused from
// CAIRN_S3_ENV when scripts/test.sh already runs one.

import { defineConfig } from '@playwright/test';

const PORT = Number(process.env['CAIRN_E2E_PORT'] ?? 4173);
const BASE_URL = `http://localhost:${PORT}`;

export default defineConfig({
  testDir: 'test/e2e',
  testMatch: 'app-*.spec.ts',
  timeout: 300_000,
  expect: { timeout: 60_000 },
  fullyParallel: true,
  // Backups are CPU-bound in the browser's workers; two runners share the cores fairly.
  workers: Number(process.env['CAIRN_E2E_WORKERS'] ?? 2),
  forbidOnly: true,
  retries: 0,
  reporter: process.env['CI'] ? [['list'], ['html', { open: 'never', outputFolder: 'test-results/e2e-report' }]] : 'list',
  outputDir: 'test-results/e2e',
  use: {
    baseURL: BASE_URL,
    browserName: 'chromium',
    launchOptions: {
      executablePath: process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium',
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
    serviceWorkers: 'allow',
    acceptDownloads: true,
    trace: 'retain-on-failure',
    viewport: { width: 1100, height: 800 },
  },
  webServer: {
    command: `npx vite build --logLevel warn && npx vite preview --port ${PORT} --strictPort`,
    env: { CAIRN_TEST_HOOKS: '1' },
    url: BASE_URL,
    reuseExistingServer: false,
    timeout: 300_000,
    stdout: 'ignore',
    stderr: 'pipe',
  },
});
