// A bucket on a real S3 server (radosgw), judged by the real restic: what the browser backs up,
// restic restores byte-identical; what restic backs up, the browser restores. Also a wrong
// secret key in plain words, and "needs the network" for bucket data when offline.

import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ok, removeDir, restic, tempDir } from '../helpers/cli';
import { backupOpfsFolder, expectUnlocked, fillPasswords, gotoTab, openApp, PASSWORD, unlock } from './helpers/app';
import { bytesOf, digestDir, digests, materialize, sampleTree, sha256 } from './helpers/data';
import { opfsDigests, setPick, writeOpfsTree } from './helpers/opfs';
import { expect, fillBucket, test } from './helpers/s3';

const SRC = ['e2e-src', 'Documents'];

test('the browser backs up into the bucket; restic checks it and restores it byte-identical', async ({ page, s3repo }) => {
  const tree = sampleTree(11);
  await openApp(page);
  await writeOpfsTree(page, SRC, tree);
  await expect(page.getByRole('heading', { name: 'Create a repository' })).toBeVisible();
  await fillBucket(page, s3repo);
  await fillPasswords(page, PASSWORD, true);
  await page.getByRole('button', { name: 'Create repository' }).click();
  await expectUnlocked(page);
  const snap = await backupOpfsFolder(page, SRC, { tags: 'browser' });
  expect(snap.filesNew).toBe(tree.length);

  const env = s3repo.resticEnv(PASSWORD);
  await ok(restic(['-r', s3repo.repository, '--no-cache', 'check', '--read-data'], { env }));
  const listed = JSON.parse((await ok(restic(['-r', s3repo.repository, '--no-cache', 'snapshots', '--json'], { env }))).stdout) as {
    short_id: string;
    tags: string[];
  }[];
  expect(listed.map((s) => s.short_id)).toEqual([snap.snapshotShortId]);
  expect(listed[0]!.tags).toEqual(['browser']);

  const target = await tempDir('cairn-e2e-restic-restore');
  try {
    await ok(restic(['-r', s3repo.repository, '--no-cache', 'restore', 'latest', '--target', target], { env }));
    expect(await digestDir(join(target, 'Documents'))).toEqual(digests(tree));
  } finally {
    await removeDir(target);
  }
});

test('restic backs up into the bucket; the browser opens it, downloads a file and restores the folder', async ({ page, s3repo }) => {
  const tree = sampleTree(12);
  const env = s3repo.resticEnv(PASSWORD);
  const work = await tempDir('cairn-e2e-restic-src');
  try {
    const src = join(work, 'src');
    await materialize(tree, src);
    await ok(restic(['-r', s3repo.repository, '--no-cache', 'init'], { env }));
    await ok(restic(['-r', s3repo.repository, '--no-cache', 'backup', src], { env }));

    await openApp(page);
    await page.getByLabel('Open an existing one').check();
    await fillBucket(page, s3repo, { rememberKeys: true });
    await fillPasswords(page, PASSWORD, false);
    await page.getByRole('button', { name: 'Open repository' }).click();
    await expectUnlocked(page);

    const rows = page.getByTestId('snapshot-list').locator('tbody tr');
    await expect(rows).toHaveCount(1);
    await rows
      .first()
      .getByRole('link', { name: /Open snapshot/ })
      .click();
    for (const part of src.split('/').filter(Boolean))
      await page
        .getByTestId('tree-list')
        .getByRole('link', { name: `${part}/`, exact: true })
        .click();
    await page.getByTestId('tree-list').getByRole('link', { name: 'photos/' }).click();
    await page.evaluate(() => navigator.serviceWorker.ready);
    const [dl] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download big.bin' }).click()]);
    expect(sha256(await readFile((await dl.path())!))).toBe(sha256(bytesOf(tree.find((f) => f.path === 'photos/big.bin')!)));

    await page.getByRole('navigation', { name: 'Folder path' }).getByRole('link', { name: 'src', exact: true }).click();
    await setPick(page, 'restore', ['e2e-restore']);
    await page.getByRole('button', { name: 'Restore into a folder…' }).click();
    await expect(page.getByTestId('restore-result')).toContainText(`${tree.length} files`, { timeout: 60_000 });
    expect(await opfsDigests(page, ['e2e-restore', 'src'])).toEqual(digests(tree));
  } finally {
    await removeDir(work);
  }
});

test('a wrong secret key is reported in plain words; offline, bucket data needs the network', async ({ page, context, s3repo }) => {
  await openApp(page);
  await writeOpfsTree(page, SRC, sampleTree(13));
  await fillBucket(page, s3repo, { secret: 'not-the-secret-key-0000000000000000000000' });
  await fillPasswords(page, PASSWORD, true);
  await page.getByRole('button', { name: 'Create repository' }).click();
  // radosgw answers a bad signature with a 403 that carries no CORS headers, so the browser
  // cannot see it: the engine reports CORS_BLOCKED and the text names both likely causes.
  await expect(page.getByRole('alert')).toHaveAttribute('data-code', 'CORS_BLOCKED');
  await expect(page.getByRole('alert')).toContainText('the keys are wrong');

  // The right key (remembered, encrypted with the password) creates it; back up once.
  await page.getByLabel('Secret access key', { exact: true }).fill(s3repo.server.secretAccessKey);
  await page.getByLabel(/Remember the bucket keys/).check();
  await fillPasswords(page, PASSWORD, true);
  await page.getByRole('button', { name: 'Create repository' }).click();
  await expectUnlocked(page);
  await backupOpfsFolder(page, SRC);
  await page.evaluate(() => navigator.serviceWorker.ready);

  // Offline: unlock with only the password (keys come from the encrypted store), browse, but
  // downloading from the bucket says it needs the network.
  await context.setOffline(true);
  await page.reload();
  await expect(page.getByRole('heading', { name: /^Unlock/ })).toBeVisible();
  await unlock(page, PASSWORD);
  await expectUnlocked(page);
  await expect(page.getByTestId('repo-label')).toContainText('offline copy');
  await gotoTab(page, 'Snapshots');
  await page
    .getByTestId('snapshot-list')
    .getByRole('link', { name: /Open snapshot/ })
    .click();
  await page.getByRole('link', { name: 'Documents/' }).click();
  await expect(page.getByTestId('tree-list').locator('tr[data-name="readme.txt"]')).toBeVisible();
  await expect(page.getByText('Restoring from the bucket needs the network')).toBeVisible();
  await expect(page.getByRole('button', { name: 'Download readme.txt' })).toBeDisabled();
  await context.setOffline(false);
});
