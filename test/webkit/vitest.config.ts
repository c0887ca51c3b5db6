// The WebKit run: a step of `npm test` (scripts/test.sh), or alone with `npm run test:webkit`.
// Kept apart from vitest.config.ts because it needs the built app, Xvfb and WebKitWebDriver.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    root: new URL('../..', import.meta.url).pathname,
    include: ['test/webkit/**/*.test.ts'],
    testTimeout: 300_000,
    hookTimeout: 300_000,
  },
});
