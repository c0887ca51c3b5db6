// The Firefox run: the last step of `npm test` (scripts/test.sh), or alone with `npm run test:firefox`.
// Kept apart from vitest.config.ts because it needs the built app and a browser of its own.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    root: new URL('../..', import.meta.url).pathname,
    include: ['test/firefox/**/*.test.ts'],
    testTimeout: 300_000,
    hookTimeout: 300_000,
  },
});
