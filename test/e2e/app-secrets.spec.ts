// Nothing secret is ever stored unencrypted (issue 37 item 8). In a browser profile of our own
// (a persistent context, so the profile directory can be read afterwards), the app backs up a
// folder into a repository in this browser, into a radosgw bucket with "Remember the bucket
// keys", and into a bucket through a presign endpoint (`cairn presign serve`) with "Remember the
// endpoint and device token" — "Open without asking" on each time. Then every storage of the
// origin — each IndexedDB record, each OPFS file, Cache Storage, localStorage, sessionStorage —
// and every file of the profile on disk is searched for the repository password, the bucket's
// secret key, the device token, the master keys (each part as raw bytes, hex and base64) and a
// marker that only the backed-up files contain, in several encodings: none is found anywhere.

import { chromium } from '@playwright/test';
import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { ok, restic, tempDir } from '../helpers/cli';
import { initEngine } from '../helpers/engine';
import { openS3FromEnv } from '../../core/backend/s3';
import { Repository } from '../../core/repository/repository';
import { openKeyFile, parseKeyFile } from '../../core/repository/keyfile';
import type { Key } from '../../core/crypto/keys';
import { backupOpfsFolder, expectUnlocked, fillPasswords, openApp, PASSWORD } from './helpers/app';
import { writeOpfsTree } from './helpers/opfs';
import { expect, fillBucket, test } from './helpers/s3';
import { fillPresignBucket, startPresign } from './helpers/presign';
import { emptyBucket } from '../helpers/s3-server';
import { bytesNeedle, filesUnder, findNeedles, readOriginStorage, searchOriginStorage, textNeedle, type Needle } from './helpers/secrets';

const MARKER = `cairn-plaintext-marker-${randomBytes(8).toString('hex')}`;

function keyNeedles(label: string, key: Key): Needle[] {
  return [
    bytesNeedle(`${label} master key (encrypt)`, key.encrypt),
    bytesNeedle(`${label} master key (mac.k)`, key.macK),
    bytesNeedle(`${label} master key (mac.r)`, key.macR),
  ];
}

test('no password, bucket secret, master key or file content is stored in clear, in the origin or on disk', async ({ s3repo }, testInfo) => {
  const profile = await tempDir('cairn-e2e-profile');
  // The third repository: beside the second, reached only through the endpoint with a device token.
  const viaEndpoint = { ...s3repo, prefix: `${s3repo.prefix}-presign`, repository: `${s3repo.repository}-presign` };
  const ep = await startPresign(viaEndpoint, { laptop: 'append-only' });
  const use = testInfo.project.use;
  const context = await chromium.launchPersistentContext(profile, {
    ...use.launchOptions,
    baseURL: use.baseURL,
    serviceWorkers: 'allow',
    viewport: use.viewport,
  });
  try {
    const page = context.pages()[0] ?? (await context.newPage());
    const tree = [
      { path: 'secret-notes.txt', text: `the marker ${MARKER} is in here\n` },
      { path: 'more/deep.txt', text: `${MARKER}\n`.repeat(50) },
    ];
    await openApp(page);
    await writeOpfsTree(page, ['e2e-secret-src', 'Private'], tree);

    // A repository in this browser, opened without asking from now on; one backup.
    await expect(page.getByRole('heading', { name: 'Create a repository' })).toBeVisible();
    await fillPasswords(page, PASSWORD, true);
    await page.getByLabel('Open without asking for the password on this device').check();
    await page.getByRole('button', { name: 'Create repository' }).click();
    await expectUnlocked(page);
    await backupOpfsFolder(page, ['e2e-secret-src', 'Private']);

    // A bucket, its keys remembered, opened without asking; the same folder backed up.
    await page.getByRole('button', { name: 'Lock' }).click();
    await page.getByRole('button', { name: /Another repository/ }).click();
    await page.getByLabel('Create a new one').check();
    await fillBucket(page, s3repo, { rememberKeys: true });
    await fillPasswords(page, PASSWORD, true);
    await page.getByLabel('Open without asking for the password on this device').check();
    await page.getByRole('button', { name: 'Create repository' }).click();
    await expectUnlocked(page);
    await backupOpfsFolder(page, ['e2e-secret-src', 'Private']);
    await ok(restic(['-r', s3repo.repository, '--no-cache', 'check', '--read-data'], { env: s3repo.resticEnv(PASSWORD) }));

    // A bucket through the presign endpoint, its device token remembered, opened without asking.
    await page.getByRole('button', { name: 'Lock' }).click();
    await page.getByRole('button', { name: /Another repository/ }).click();
    await page.getByLabel('Create a new one').check();
    await fillPresignBucket(page, viaEndpoint, ep.url, ep.tokens['laptop']!, { remember: true });
    await fillPasswords(page, PASSWORD, true);
    await page.getByLabel('Open without asking for the password on this device').check();
    await page.getByRole('button', { name: 'Create repository' }).click();
    await expectUnlocked(page);
    await backupOpfsFolder(page, ['e2e-secret-src', 'Private']);
    await ok(restic(['-r', viaEndpoint.repository, '--no-cache', 'check', '--read-data'], { env: s3repo.resticEnv(PASSWORD) }));

    // The source folder is the test's stand-in for the user's disk: it goes before the search.
    await page.evaluate(async () => (await navigator.storage.getDirectory()).removeEntry('e2e-secret-src', { recursive: true }));
    await page.evaluate(() =>
      Object.keys(localStorage)
        .filter((k) => k.startsWith('cairn-e2e-pick-'))
        .forEach((k) => localStorage.removeItem(k)),
    );
    const stored = await readOriginStorage(page);

    // The master keys, from the key files with the password (Node side).
    await initEngine();
    const s3key = (await Repository.open(openS3FromEnv(s3repo.repository, s3repo.resticEnv(PASSWORD)), PASSWORD)).key;
    const presignKey = (await Repository.open(openS3FromEnv(viaEndpoint.repository, s3repo.resticEnv(PASSWORD)), PASSWORD)).key;
    const [keyPath, keyB64] = Object.entries(stored.opfs).find(([p]) => /^cairn-repos\/[^/]+\/keys\/[0-9a-f]{64}$/.test(p))!;
    const keyID = keyPath.split('/').pop()!;
    const opfsKey = await openKeyFile(parseKeyFile(Buffer.from(keyB64, 'base64'), keyID), PASSWORD, keyID);
    const needles = [
      textNeedle('repository password', PASSWORD),
      textNeedle('bucket secret key', s3repo.server.secretAccessKey),
      textNeedle('presign device token', ep.tokens['laptop']!),
      textNeedle('file content marker', MARKER),
      ...keyNeedles('bucket repository', s3key),
      ...keyNeedles('presign bucket repository', presignKey),
      ...keyNeedles('browser repository', opfsKey),
    ];
    // The search finds what is there: the bucket's folder name (a remembered location is kept
    // in clear, by design) in IndexedDB, as read by the page and on disk below.
    const control = [textNeedle('control: the bucket folder name', s3repo.prefix)];
    expect(searchOriginStorage(control, stored).some((h) => h.includes('in IndexedDB'))).toBe(true);
    expect(searchOriginStorage(needles, stored)).toEqual([]);

    await context.close();
    const hits: string[] = [];
    const files = await filesUnder(profile);
    expect(files.flatMap((f) => findNeedles(control, f.path, f.bytes)).some((h) => h.includes('IndexedDB'))).toBe(true);
    for (const f of files) hits.push(...findNeedles(needles, `profile ${f.path}`, f.bytes));
    expect(hits).toEqual([]);
  } finally {
    await context.close().catch(() => {});
    await rm(profile, { recursive: true, force: true });
    await ep.stop();
    await emptyBucket(s3repo.server, s3repo.server.bucket, viaEndpoint.prefix + '/');
  }
});
