// The app in the third engine: WebKit, as Debian's WebKitGTK 2.50 MiniBrowser (Safari's
// engine), driven over W3C WebDriver (WebKitWebDriver) under Xvfb, against the production
// build. This WebKit has no origin-private file system, so the app offers a bucket first and no
// "This browser". It opens a repository restic wrote into a bucket on a real S3 server
// (radosgw), lists it (with the snapshot's size, which restic 0.14 does not record), browses,
// searches, and downloads a file and a folder as a ZIP through the service worker; both are
// compared byte for byte with what restic backed up.
//
// Not here: a backup. WebDriver cannot hand this WebKit a folder: Element Send Keys with a
// folder's path puts nothing into an <input webkitdirectory>, and files sent one by one come
// without their folder (no webkitRelativePath), which the app refuses, as it should ("Choose a
// folder, not files" — checked below). A script-made DataTransfer cannot carry files in
// WebKit either (its items.add() adds none), so neither the input nor a drop can be fed.
//
// Part of `npm test` (scripts/test.sh); alone: `npm run test:webkit`.

import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { PreviewServer } from 'vite';
import { bytesOf, materialize, sampleTree, sha256 } from '../e2e/helpers/data';
import { ensureAppBuild } from '../helpers/app-build';
import { ok, restic } from '../helpers/cli';
import { emptyBucket, startS3, type S3Server } from '../helpers/s3-server';
import { Session, startDriver, type Driver } from './webdriver';

const PORT = Number(process.env['CAIRN_WEBKIT_PORT'] ?? 4176);
const APP = `http://localhost:${PORT}`;
const PASSWORD = 'correct horse battery staple';
const ROOT = join(import.meta.dirname, '../..');
const tree = sampleTree(41);

let server: PreviewServer;
let s3: S3Server;
let driver: Driver;
let page: Session;
let work: string;
const prefix = `webkit-${randomBytes(6).toString('hex')}`;

beforeAll(async () => {
  ensureAppBuild(); // a no-op after scripts/test.sh's build step; rebuilds a stale dist/app
  work = mkdtempSync(join(tmpdir(), 'cairn-webkit-'));
  s3 = await startS3({ origin: `${APP},http://127.0.0.1:${PORT}` });
  const { preview } = await import('vite');
  server = await preview({ root: ROOT, configFile: join(ROOT, 'vite.config.ts'), logLevel: 'warn', preview: { port: PORT, strictPort: true } });

  // restic writes the repository: the source as a relative path, from the work folder.
  await materialize(tree, join(work, 'Documents'));
  const env = { RESTIC_PASSWORD: PASSWORD, AWS_ACCESS_KEY_ID: s3.accessKeyId, AWS_SECRET_ACCESS_KEY: s3.secretAccessKey, AWS_DEFAULT_REGION: s3.region };
  const repo = `s3:${s3.endpoint}/${s3.bucket}/${prefix}`;
  await ok(restic(['-r', repo, '--no-cache', 'init'], { env }));
  await ok(restic(['-r', repo, '--no-cache', 'backup', 'Documents'], { env, cwd: work }));

  driver = await startDriver(join(work, 'home'));
  page = await Session.start(driver.url);
}, 300_000);

afterAll(async () => {
  await page?.end();
  await driver?.stop();
  await server?.close();
  if (s3) await emptyBucket(s3, s3.bucket, prefix + '/').catch(() => {});
  await s3?.stop();
  if (work) rmSync(work, { recursive: true, force: true });
});

/** Clicks the first button or link whose text is exactly `text`. */
async function clickText(text: string): Promise<void> {
  const done = await page.execute<boolean>(
    `const el = [...document.querySelectorAll('button, a')].find((e) => e.innerText.trim() === arguments[0]); el?.click(); return !!el;`,
    text,
  );
  if (!done) throw new Error(`nothing to click named ${JSON.stringify(text)}`);
}

/**
 * The bytes of the download `name` in MiniBrowser's download folder, once the app says its
 * stream ended and the file is `complete` (MiniBrowser writes it under its final name, so a
 * pause in its growth says nothing: the content says when it is whole).
 */
async function downloaded(name: string, complete: (b: Buffer) => boolean): Promise<Buffer> {
  await page.until(
    `the app to finish ${name}`,
    `return document.querySelector('[data-testid=restore-result]')?.innerText.includes(arguments[0])`,
    60_000,
    `“${name.replace(/\.zip$/, '')}”`,
  );
  const file = join(driver.downloads, name);
  const end = Date.now() + 60_000;
  while (Date.now() < end) {
    const b = existsSync(file) ? readFileSync(file) : undefined;
    if (b && complete(b)) return b;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`no download ${name} in ${driver.downloads}: ${existsSync(driver.downloads) ? readdirSync(driver.downloads).join(', ') : 'missing'}`);
}

test('WebKit: opens a bucket restic wrote, lists, browses, searches, and downloads a file and a ZIP byte-identical', async () => {
  expect(page.capabilities['browserName']).toBe('MiniBrowser');
  await page.navigate(`${APP}/`);
  await page.until('the first screen', `return !!document.querySelector('form.unlock')`);

  // No origin-private file system here: "This browser" is not offered; a bucket is the default.
  expect(await page.execute<boolean>(`return typeof navigator.storage?.getDirectory === 'function'`)).toBe(false);
  expect(await page.execute<string | null>(`return document.querySelector('input[name=kind][value=opfs]')?.outerHTML ?? null`)).toBeNull();
  expect(await page.execute<boolean>(`return document.querySelector('input[name=kind][value=s3]').checked`)).toBe(true);
  expect(await page.execute<string>(`return document.querySelector('[data-testid=no-opfs]').innerText`)).toContain('keep it in a bucket');

  await page.click('input[name=mode][value=open]');
  await page.type('#s3-endpoint', s3.endpoint);
  await page.type('#s3-bucket', s3.bucket);
  await page.type('#s3-prefix', prefix);
  await page.execute(`const r = document.querySelector('#s3-region'); r.value = ''; r.dispatchEvent(new Event('input'));`);
  await page.type('#s3-region', s3.region);
  await page.type('#s3-key-id', s3.accessKeyId);
  await page.type('#s3-secret', s3.secretAccessKey);
  await page.type('#unlock-password', PASSWORD);
  await page.click('button[type=submit]');

  // The snapshot list, with the size counted from the snapshot's trees (restic 0.14 writes no summary).
  await page.until('the snapshot list', `return document.querySelectorAll('[data-testid=snapshot-list] tbody tr').length === 1`);
  const total = tree.reduce((n, f) => n + bytesOf(f).length, 0);
  const size = await page.until<string>('the size', `return document.querySelector('[data-testid=snapshot-list] td[data-label=Size]').innerText.trim()`);
  expect(size).toBe(`${(total / 1024 / 1024).toFixed(3)} MiB`);

  // Browse to Documents/photos/.
  await page.click('[data-testid=snapshot-list] a');
  for (const part of ['Documents', 'photos']) {
    await page.until(
      `${part}/`,
      `return [...document.querySelectorAll('[data-testid=tree-list] a')].some((a) => a.innerText === arguments[0])`,
      60_000,
      `${part}/`,
    );
    await clickText(`${part}/`);
  }
  await page.until('photos/', `return !!document.querySelector('[data-testid=tree-list] tr[data-name="big.bin"]')`);
  expect(await page.execute<string>(`return document.querySelector('.path-line').innerText`)).toBe('/Documents/photos · 2 entries');

  // A file through the service worker's stream, into MiniBrowser's download folder.
  await page.until('the service worker', `return navigator.serviceWorker.controller !== null`, 30_000);
  await page.click('button[aria-label="Download big.bin"]');
  const big = bytesOf(tree.find((f) => f.path === 'photos/big.bin')!);
  expect(sha256(await downloaded('big.bin', (b) => b.length >= big.length))).toBe(sha256(big));

  // The folder as a ZIP: every entry byte-identical (read by Python's zipfile).
  await clickText('Dismiss');
  await clickText('Download folder as ZIP');
  const zip = join(work, 'photos.zip');
  writeFileSync(zip, await downloaded('photos.zip', zipEnded));
  const py =
    'import sys,zipfile,hashlib,json;z=zipfile.ZipFile(sys.argv[1]);print(json.dumps({i.filename:hashlib.sha256(z.read(i)).hexdigest() for i in z.infolist() if not i.is_dir()}))';
  const entries = JSON.parse(execFileSync('python3', ['-c', py, zip], { encoding: 'utf8' })) as Record<string, string>;
  expect(entries).toEqual(Object.fromEntries(tree.filter((f) => f.path.startsWith('photos/')).map((f) => [f.path, sha256(bytesOf(f))])));

  // Search across snapshots.
  await clickText('Search');
  await page.until('the search form', `return !!document.querySelector('#search-q')`);
  await page.type('#search-q', 'todo');
  await page.click('form button[type=submit]');
  const hit = await page.until<string>('a hit', `return document.querySelector('[data-testid=search-results] tbody tr')?.innerText`);
  expect(hit).toContain('todo.md');
  expect(await page.execute<number>(`return document.querySelectorAll('[data-testid=search-results] tbody tr').length`)).toBe(1);

  // Files sent to the folder input one by one come without their folder: refused in plain words.
  await clickText('Back up');
  await page.until('the folder input', `return !!document.querySelector('input[type=file][webkitdirectory]')`);
  await page.type('input[type=file][webkitdirectory]', [join(work, 'Documents', 'readme.txt'), join(work, 'Documents', 'photos', 'small.bin')].join('\n'));
  const refusal = await page.until<string>('the refusal', `return document.querySelector('[role=alert]')?.innerText`);
  expect(refusal).toContain('Choose a folder, not files');
});

/** True when `b` ends with a ZIP's end-of-central-directory record (no comment: the app writes none). */
function zipEnded(b: Buffer): boolean {
  return b.length >= 22 && b.readUInt32LE(b.length - 22) === 0x06054b50;
}
