// Playwright config for scripts/screenshots.ts: the documentation screenshots of the app, taken
// from the e2e build (dist/app-e2e, with the OPFS folder-pick hook) served like the app specs.
// Run: flock /tmp/cairn-e2e.lock npx playwright test -c scripts/screenshots.config.ts

import { defineConfig } from '@playwright/test';

const PORT = Number(process.env['CAIRN_E2E_PORT'] ?? 4173);
const BASE_URL = `http://localhost:${PORT}`;

export default defineConfig({
  testDir: '.',
  testMatch: 'screenshots.ts',
  timeout: 600_000,
  expect: { timeout: 60_000 },
  workers: 1,
  retries: 0,
  reporter: 'list',
  outputDir: '../test-results/screenshots',
  use: {
    baseURL: BASE_URL,
    browserName: 'chromium',
    timezoneId: 'UTC',
    locale: 'en-GB',
    launchOptions: {
      executablePath: process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium',
      args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    },
    // Blocked so that every script comes through page.route (see the worker clock in the script).
    serviceWorkers: 'block',
    viewport: { width: 1100, height: 800 },
  },
  webServer: {
    command: `npx vite build --logLevel warn && npx vite preview --port ${PORT} --strictPort`,
    cwd: '..',
    env: { CAIRN_TEST_HOOKS: '1' },
    url: BASE_URL,
    reuseExistingServer: false,
    timeout: 300_000,
    stdout: 'ignore',
    stderr: 'pipe',
  },
});
