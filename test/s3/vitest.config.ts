// Runs the S3 suites against ONE radosgw for the whole run (instead of one per test file):
//   npx vitest run --config test/s3/vitest.config.ts
import { resolve } from 'node:path';
import { defineConfig } from 'vitest/config';
import base from '../../vitest.config';

const inherited = base.test?.globalSetup ?? [];

export default defineConfig({
  ...base,
  root: resolve(import.meta.dirname, '../..'),
  test: {
    ...base.test,
    include: ['core/backend/s3/**/*.test.ts', 'test/s3/**/*.test.ts'],
    globalSetup: [...(Array.isArray(inherited) ? inherited : [inherited]), 'test/helpers/s3-global-setup.ts'],
  },
});
