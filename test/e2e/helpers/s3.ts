// A real S3 endpoint (radosgw) for the S3 specs, as a worker-scoped Playwright fixture: reused
// from CAIRN_S3_ENV when scripts/test.sh already runs one (its CORS origins include the e2e
// server's), else started here (~3.5 s) for the e2e server's origin and stopped afterwards.
// Each test gets its own key prefix in the bucket, so tests never see each other's data.

import { test as base, type Page } from '@playwright/test';
import { randomBytes } from 'node:crypto';
import { emptyBucket, startS3, type S3Server } from '../../helpers/s3-server';

export const E2E_ORIGINS = (port: number) => `http://localhost:${port},http://127.0.0.1:${port}`;

export interface S3Repo {
  server: S3Server;
  prefix: string;
  /** restic's repository string for this prefix. */
  repository: string;
  /** restic's environment for this server (credentials, region, password). */
  resticEnv(password: string): Record<string, string>;
}

export const test = base.extend<{ s3repo: S3Repo }, { s3: S3Server }>({
  s3: [
    async ({}, use) => {
      const port = Number(process.env['CAIRN_E2E_PORT'] ?? 4173);
      const server = await startS3({ origin: E2E_ORIGINS(port) });
      await use(server);
      await server.stop();
    },
    { scope: 'worker', timeout: 240_000 },
  ],
  s3repo: async ({ s3 }, use) => {
    const prefix = `e2e-${randomBytes(6).toString('hex')}`;
    await use({
      server: s3,
      prefix,
      repository: `s3:${s3.endpoint}/${s3.bucket}/${prefix}`,
      resticEnv: (password) => ({
        RESTIC_PASSWORD: password,
        AWS_ACCESS_KEY_ID: s3.accessKeyId,
        AWS_SECRET_ACCESS_KEY: s3.secretAccessKey,
        AWS_DEFAULT_REGION: s3.region,
      }),
    });
    await emptyBucket(s3, s3.bucket, prefix + '/');
  },
});

/** Fills the create/open form's bucket fields for `r` (a wrong `secret` if given). */
export async function fillBucket(page: Page, r: S3Repo, opts: { secret?: string; rememberKeys?: boolean } = {}): Promise<void> {
  await page.getByLabel(/An S3-compatible bucket/).check();
  await page.getByLabel('Endpoint', { exact: true }).fill(r.server.endpoint);
  await page.getByLabel('Bucket', { exact: true }).fill(r.server.bucket);
  await page.getByLabel(/Folder in the bucket/).fill(r.prefix);
  await page.getByLabel('Region', { exact: true }).fill(r.server.region);
  await page.getByLabel('Access key ID', { exact: true }).fill(r.server.accessKeyId);
  await page.getByLabel('Secret access key', { exact: true }).fill(opts.secret ?? r.server.secretAccessKey);
  if (opts.rememberKeys) await page.getByLabel(/Remember the bucket keys/).check();
}

export { expect } from '@playwright/test';
