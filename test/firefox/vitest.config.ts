// The Firefox run (npm run test:firefox), kept out of `npm test`: see app-firefox.test.ts for why.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    root: new URL('../..', import.meta.url).pathname,
    include: ['test/firefox/**/*.test.ts'],
    testTimeout: 300_000,
    hookTimeout: 300_000,
  },
});
