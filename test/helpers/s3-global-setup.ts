// vitest globalSetup that starts one radosgw for the whole run and hands it to every test
// file through CAIRN_S3_ENV (startS3() in a test file then reuses it instead of starting its
// own). Used by test/s3/vitest.config.ts, so plain unit-test runs do not pay for it:
//   npx vitest run --config test/s3/vitest.config.ts

import { join } from 'node:path';
import { startS3 } from './s3-server';

export default async function setup(): Promise<() => Promise<void>> {
  if (process.env['CAIRN_S3_ENV']) return async () => {};
  const server = await startS3();
  process.env['CAIRN_S3_ENV'] = join(server.dir, 'env.json');
  return async () => {
    delete process.env['CAIRN_S3_ENV'];
    await server.stop();
  };
}
