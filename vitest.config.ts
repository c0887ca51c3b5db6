import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['core/**/*.test.ts', 'cli/**/*.test.ts', 'test/**/*.test.ts', 'workers/**/*.test.ts', 'web/**/*.test.ts', 'sw/**/*.test.ts'],
    exclude: ['test/e2e/**', 'test/firefox/**', 'test/webkit/**', 'node_modules/**'],
    globalSetup: ['test/setup/build-cli.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
