// The engine's end-to-end specs (test/e2e/engine-*.spec.ts): real Chromium drives the engine
// worker API on the harness page (./index.html), built for production and served by
// `vite preview` on its own port, so it can run next to the app's suite (../../../playwright.config.ts).
//
//   npx playwright test -c test/e2e/harness/playwright.config.ts

import { defineConfig } from '@playwright/test';

export const HARNESS_PORT = Number(process.env['CAIRN_ENGINE_E2E_PORT'] ?? 4174);
const BASE_URL = `http://localhost:${HARNESS_PORT}`;

export default defineConfig({
  testDir: '..',
  testMatch: 'engine-*.spec.ts',
  timeout: 300_000,
  expect: { timeout: 60_000 },
  fullyParallel: true,
  workers: Number(process.env['CAIRN_E2E_WORKERS'] ?? 2),
  forbidOnly: true,
  retries: 0,
  reporter: 'list',
  outputDir: '../../../test-results/engine-e2e',
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
  },
  webServer: {
    command: `npx vite build --logLevel warn --config test/e2e/harness/vite.config.ts && npx vite preview --config test/e2e/harness/vite.config.ts --port ${HARNESS_PORT} --strictPort`,
    cwd: '../../..',
    url: BASE_URL,
    reuseExistingServer: false,
    timeout: 300_000,
    stdout: 'ignore',
    stderr: 'pipe',
  },
});
