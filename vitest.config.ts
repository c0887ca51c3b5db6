import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['core/**/*.test.ts', 'cli/**/*.test.ts', 'test/**/*.test.ts', 'workers/**/*.test.ts', 'web/**/*.test.ts', 'sw/**/*.test.ts'],
    exclude: ['test/e2e/**', 'test/firefox/**', 'test/webkit/**', 'node_modules/**'],
    globalSetup: ['test/setup/build-cli.ts'],
    // Limits that only catch a hang: a loaded 2-core machine runs the longest files several
    // times slower than a quiet one. A bound that is the behaviour uses test/helpers/time-limit.ts.
    testTimeout: 300_000,
    hookTimeout: 300_000,
  },
});
