// The presign endpoint Cairn ships, as a user runs it: `cairn presign init`, `token add` per
// device and `presign serve` (the CLI's test bundle) in front of the spec's radosgw bucket, for
// the repository under the test's prefix, allowing the e2e server's origins. Tokens are read
// from `token add --json`, once, as a user copies them.

import type { Page } from '@playwright/test';
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { CAIRN_BIN, cairn, ok, removeDir, tempDir } from '../../helpers/cli';
import { E2E_ORIGINS, type S3Repo } from './s3';

export type Role = 'read' | 'append-only' | 'maintenance';

export interface PresignEndpoint {
  url: string;
  /** Device name → its token. */
  tokens: Record<string, string>;
  stop(): Promise<void>;
}

function listening(proc: ChildProcess): Promise<string> {
  let out = '';
  return new Promise<string>((resolve, reject) => {
    proc.stdout!.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    proc.on('exit', (code) => reject(new Error(`presign serve exited ${code}: ${out}`)));
  });
}

/** An endpoint for `r`'s repository with one token per device in `devices`. */
export async function startPresign(r: S3Repo, devices: Record<string, Role>): Promise<PresignEndpoint> {
  const dir = await tempDir('cairn-e2e-presign');
  const config = join(dir, 'presign.json');
  const port = Number(process.env['CAIRN_E2E_PORT'] ?? 4173);
  const origins = E2E_ORIGINS(port)
    .split(',')
    .flatMap((o) => ['--origin', o]);
  const s3 = r.server;
  const where = ['--s3-endpoint', s3.endpoint, '--bucket', s3.bucket, '--region', s3.region, '--prefix', r.prefix, '--path-style'];
  await ok(cairn(['presign', 'init', '--config', config, ...where, ...origins]));
  const tokens: Record<string, string> = {};
  for (const [name, role] of Object.entries(devices)) {
    const added = await ok(cairn(['presign', 'token', 'add', '--config', config, '--name', name, '--role', role, '--json']));
    tokens[name] = (JSON.parse(added.stdout) as { token: string }).token;
  }
  const env = { ...process.env, CAIRN_S3_ACCESS_KEY_ID: s3.accessKeyId, CAIRN_S3_SECRET_ACCESS_KEY: s3.secretAccessKey };
  const proc = spawn(process.execPath, [CAIRN_BIN, 'presign', 'serve', '--config', config, '--listen', '127.0.0.1:0'], {
    env,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await listening(proc);
  return {
    url,
    tokens,
    async stop() {
      if (proc.exitCode === null) {
        const exited = new Promise((res) => proc.once('exit', res));
        proc.kill('SIGTERM');
        await exited;
      }
      await removeDir(dir);
    },
  };
}

/** Fills the create/open form's bucket fields for `r`, signed through the endpoint with `token`. */
export async function fillPresignBucket(page: Page, r: S3Repo, endpoint: string, token: string, opts: { remember?: boolean } = {}): Promise<void> {
  await page.getByLabel(/An S3-compatible bucket/).check();
  await page.getByLabel('Endpoint', { exact: true }).fill(r.server.endpoint);
  await page.getByLabel('Bucket', { exact: true }).fill(r.server.bucket);
  await page.getByLabel(/Folder in the bucket/).fill(r.prefix);
  await page.getByLabel('Region', { exact: true }).fill(r.server.region);
  await page.getByLabel('My presign endpoint').check();
  await page.getByLabel('Presign endpoint URL').fill(endpoint);
  await page.getByLabel('Device token', { exact: true }).fill(token);
  if (opts.remember) await page.getByLabel(/Remember the endpoint and device token/).check();
}
