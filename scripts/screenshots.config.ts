// Playwright config for scripts/screenshots.ts: the documentation screenshots of the app, taken
// from the e2e build the app specs use (the repository's playwright.config.ts), one runner at a
// time, in UTC, with service workers blocked so that every script comes through page.route
// (see the worker clock in the script).
// Run: flock /tmp/cairn-e2e.lock npx playwright test -c scripts/screenshots.config.ts

import { defineConfig } from '@playwright/test';
import app from '../playwright.config';

export default defineConfig({
  ...app,
  testDir: '.',
  testMatch: 'screenshots.ts',
  timeout: 600_000,
  expect: { timeout: 60_000 },
  fullyParallel: false,
  workers: 1,
  reporter: 'list',
  outputDir: '../test-results/screenshots',
  use: { ...app.use, timezoneId: 'UTC', locale: 'en-GB', serviceWorkers: 'block', trace: 'off' },
  webServer: { ...(app.webServer as object), cwd: '..' },
});
