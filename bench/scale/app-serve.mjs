// The built app for the scale benchmarks (app-open.mjs, app-backup.mjs): built as `npm start`
// builds it (its CSP and headers; no test hooks) and served by `vite preview` on a port of its
// own, and a fresh Chromium profile to open it in.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { CHROMIUM_FLAGS } from '../lib/chromium.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const CHROMIUM = process.env.BENCH_CHROMIUM ?? '/usr/bin/chromium';

/**
 * Builds (unless SCALE_NO_BUILD=1) the app, and `also` (e.g. the CLI), each under `nice` when
 * `nice` is set, then serves dist/app on `port`; resolves once it answers.
 */
export async function serveApp(port, { also = [], nice = false } = {}) {
  if (process.env.SCALE_NO_BUILD !== '1') {
    for (const [cmd, args] of [['npx', ['vite', 'build', '--logLevel', 'warn']], ...also]) {
      const argv = nice ? ['nice', ['-n', '19', cmd, ...args]] : [cmd, args];
      const b = spawnSync(argv[0], argv[1], { cwd: ROOT, stdio: 'inherit', env: { ...process.env, CAIRN_TEST_HOOKS: '' } });
      if (b.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed`);
    }
  }
  const p = spawn('npx', ['vite', 'preview', '--port', String(port), '--strictPort'], { cwd: ROOT, stdio: 'ignore', detached: true });
  const url = `http://localhost:${port}/`;
  for (let i = 0; i < 150; i++) {
    if (
      await fetch(url).then(
        (r) => r.ok,
        () => false,
      )
    )
      return { url, stop: () => process.kill(-p.pid) };
    await new Promise((r) => setTimeout(r, 200));
  }
  process.kill(-p.pid);
  throw new Error(`vite preview did not answer on ${url}`);
}

/** A headless Chromium on profile directory `dir`, or a fresh one named `prefix…` (returned, for PSS sampling). */
export async function launchProfile(prefix, dir) {
  const { chromium } = await import('playwright-core');
  const userDir = dir ? (fs.mkdirSync(dir, { recursive: true }), dir) : fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  const ctx = await chromium.launchPersistentContext(userDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_FLAGS,
    viewport: { width: 1100, height: 800 },
  });
  return { ctx, userDir };
}

/** Fills the app's bucket form with `loc` (scaleLocation's shape): the bucket, its folder and its keys. */
export async function fillBucketForm(page, loc) {
  await page.getByLabel(/An S3-compatible bucket/).check();
  await page.getByLabel('Endpoint', { exact: true }).fill(loc.env.endpoint);
  await page.getByLabel('Bucket', { exact: true }).fill(loc.env.bucket);
  await page.getByLabel(/Folder in the bucket/).fill(loc.prefix);
  await page.getByLabel('Region', { exact: true }).fill(loc.env.region);
  await page.getByLabel('Access key ID', { exact: true }).fill(loc.env.accessKeyId);
  await page.getByLabel('Secret access key', { exact: true }).fill(loc.env.secretAccessKey);
}
