// radosgw for the engine specs: reused from CAIRN_S3_ENV when scripts/test.sh runs one, else
// started here. Either way the specs use a bucket of their own whose CORS rule allows the
// harness's origin (the shared bucket's rule names the app's port, not ours).

import { test as base } from '@playwright/test';
import { randomBytes } from 'node:crypto';
import { adminRequest, createBucket, emptyBucket, startS3, type S3Server } from '../../helpers/s3-server';
import { HARNESS_PORT } from './playwright.config';
import type { S3Location } from '../../../workers/api';

export const BUCKET = 'cairn-engine-e2e';
const ORIGINS = [`http://localhost:${HARNESS_PORT}`, `http://127.0.0.1:${HARNESS_PORT}`];

async function corsBucket(s: S3Server): Promise<void> {
  await createBucket(s, BUCKET);
  const xml =
    '<CORSConfiguration><CORSRule>' +
    ORIGINS.map((o) => `<AllowedOrigin>${o}</AllowedOrigin>`).join('') +
    ['GET', 'PUT', 'HEAD', 'DELETE', 'POST'].map((m) => `<AllowedMethod>${m}</AllowedMethod>`).join('') +
    '<AllowedHeader>*</AllowedHeader><ExposeHeader>ETag</ExposeHeader><ExposeHeader>Content-Range</ExposeHeader><ExposeHeader>Content-Length</ExposeHeader><MaxAgeSeconds>3600</MaxAgeSeconds>' +
    '</CORSRule></CORSConfiguration>';
  const res = await adminRequest(s, 'PUT', `/${BUCKET}`, { cors: '' }, xml);
  if (!res.ok) throw new Error(`put bucket cors: HTTP ${res.status} ${await res.text()}`);
  await res.body?.cancel();
}

export interface EngineS3 {
  server: S3Server;
  prefix: string;
  /** The engine's RepoLocation for this prefix (keys auth). */
  location: Omit<S3Location, 'auth'> & { auth: { type: 'keys'; accessKeyId: string; secretAccessKey: string } };
  /** restic's repository string and environment. */
  repository: string;
  resticEnv(password: string): Record<string, string>;
}

export const test = base.extend<{ s3: EngineS3 }, { s3server: S3Server }>({
  s3server: [
    async ({}, use) => {
      const server = await startS3({ origin: ORIGINS.join(',') });
      await corsBucket(server);
      await use(server);
      await server.stop();
    },
    { scope: 'worker', timeout: 240_000 },
  ],
  s3: async ({ s3server: s }, use) => {
    const prefix = `engine-${randomBytes(6).toString('hex')}`;
    await use({
      server: s,
      prefix,
      location: {
        kind: 's3',
        endpoint: s.endpoint,
        region: s.region,
        bucket: BUCKET,
        prefix,
        pathStyle: true,
        auth: { type: 'keys', accessKeyId: s.accessKeyId, secretAccessKey: s.secretAccessKey },
      },
      repository: `s3:${s.endpoint}/${BUCKET}/${prefix}`,
      resticEnv: (password) =>
        ({
          ...process.env,
          RESTIC_PASSWORD: password,
          AWS_ACCESS_KEY_ID: s.accessKeyId,
          AWS_SECRET_ACCESS_KEY: s.secretAccessKey,
          AWS_DEFAULT_REGION: s.region,
        }) as Record<string, string>,
    });
    await emptyBucket(s, BUCKET, prefix + '/');
  },
});

export { expect } from '@playwright/test';
