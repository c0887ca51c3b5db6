// The repository tools on a bucket (radosgw), judged by restic 0.14: a check that reads all the
// data names the damaged pack and the file it hits; a key added in the app opens the repository
// in restic, a changed password too (and the old one no longer); retention forgets and prunes in
// the bucket, restic checks what is left and finds nothing more to prune, and the rest browses
// offline from the cache.

import { join } from 'node:path';
import { ok, removeDir, restic, tempDir } from '../helpers/cli';
import { backupOpfsFolder, expectUnlocked, fillPasswords, gotoTab, openApp, PASSWORD, readSummary, unlock } from './helpers/app';
import { bytesOf, materialize, sampleTree, sha256 } from './helpers/data';
import { writeOpfsTree } from './helpers/opfs';
import { expect, fillBucket, test } from './helpers/s3';
import { cachedTrees, damageBlob, gotoRepository, keepLast, removeOpfsFile, resticKeyIds } from './helpers/tools';

const SRC = ['e2e-src', 'Documents'];

test('a full check names the damaged pack, blob and the file it touches', async ({ page, s3repo }) => {
  const tree = sampleTree(51);
  const victim = tree.find((f) => f.path === 'photos/small.bin')!; // one blob: its ID is the file's SHA-256
  const env = s3repo.resticEnv(PASSWORD);
  const work = await tempDir('cairn-e2e-check');
  try {
    const src = join(work, 'src');
    await materialize(tree, src);
    await ok(restic(['-r', s3repo.repository, '--no-cache', 'init'], { env }));
    await ok(restic(['-r', s3repo.repository, '--no-cache', 'backup', src], { env }));
    const blob = sha256(bytesOf(victim));
    const pack = await damageBlob(s3repo, PASSWORD, blob);

    await openApp(page);
    await page.getByLabel('Open an existing one').check();
    await fillBucket(page, s3repo, { rememberKeys: true });
    await fillPasswords(page, PASSWORD, false);
    await page.getByRole('button', { name: 'Open repository' }).click();
    await expectUnlocked(page);
    await gotoRepository(page, 'Health');
    await expect(page.getByTestId('health')).toHaveAttribute('data-status', 'unknown');
    await page.getByLabel('How much of the data to read').selectOption({ label: 'All the data (reads the whole repository)' });
    await page.getByRole('button', { name: 'Check now' }).click();
    await expect(page.getByTestId('health')).toHaveAttribute('data-status', 'damaged', { timeout: 60_000 });
    await expect(page.getByTestId('health')).toContainText('1 damaged data file, 1 file affected, in 1 snapshot');
    const affected = page.getByTestId('affected');
    await expect(affected).toContainText(`${src}/photos/small.bin`);
    await expect(affected).toContainText(`blob ${blob.slice(0, 8)}`);
    await expect(page.getByTestId('check-report')).toContainText(pack.slice(0, 16));
    // The result is kept, without file names: after a reload the repository's health still says so.
    const kept = await page.evaluate(async () => {
      const db = await new Promise<IDBDatabase>((ok, bad) => {
        const r = indexedDB.open('cairn-ui');
        r.onsuccess = () => ok(r.result);
        r.onerror = () => bad(r.error);
      });
      const all = await new Promise<unknown[]>((ok) => {
        const r = db.transaction('prefs').objectStore('prefs').getAll();
        r.onsuccess = () => ok(r.result);
      });
      db.close();
      return JSON.stringify(all);
    });
    expect(kept).toContain(pack);
    expect(kept).not.toContain('small.bin');
    await page.reload();
    await unlock(page);
    await expectUnlocked(page);
    await gotoRepository(page, 'Health');
    await expect(page.getByTestId('health')).toHaveAttribute('data-status', 'damaged');
  } finally {
    await removeDir(work);
  }
});

test('keys and retention in the bucket, as restic sees them; the rest browses offline', async ({ page, context, s3repo }) => {
  const tree = sampleTree(52);
  const added = 'a key added in the browser';
  const changed = 'the password after passwd';
  await openApp(page);
  await writeOpfsTree(page, SRC, tree);
  await fillBucket(page, s3repo, { rememberKeys: true });
  await fillPasswords(page, PASSWORD, true);
  await page.getByRole('button', { name: 'Create repository' }).click();
  await expectUnlocked(page);
  const first = await backupOpfsFolder(page, SRC);
  // The big file only the first snapshot holds: forgetting it leaves its data for prune to free.
  await removeOpfsFile(page, [...SRC, 'photos', 'big.bin']);
  await page.getByRole('button', { name: 'Back up “Documents” now' }).click();
  const second = await readSummary(page, first.snapshotShortId);
  await writeOpfsTree(page, SRC, [{ path: 'readme.txt', text: 'newest\n' }]);
  await page.getByRole('button', { name: 'Back up “Documents” now' }).click();
  const third = await readSummary(page, second.snapshotShortId);

  // A key added in the app: restic lists it and opens the repository with its password.
  await gotoRepository(page, 'Keys');
  await page.getByLabel('Whose password').fill('second');
  await page.getByLabel('New password', { exact: true }).fill(added);
  await page.getByLabel('Confirm new password', { exact: true }).fill(added);
  await page.getByRole('button', { name: 'Add password' }).click();
  await expect(page.getByTestId('key-list').locator('tbody tr')).toHaveCount(2);
  expect(await resticKeyIds(s3repo, added)).toHaveLength(2);

  // The password changed: restic opens with the new one, not with the old.
  await page.getByLabel('Current password').fill(PASSWORD);
  await page.getByLabel('New password for this key').fill(changed);
  await page.getByLabel('Confirm the new password').fill(changed);
  await page.getByRole('button', { name: 'Change password' }).click();
  await expect(page.getByTestId('keys-notice')).toContainText('Password changed');
  expect(await resticKeyIds(s3repo, changed)).toHaveLength(2);
  const old = await restic(['-r', s3repo.repository, '--no-cache', 'snapshots'], { env: s3repo.resticEnv(PASSWORD) });
  expect(old.code).not.toBe(0);

  // Retention: keep the last one and free the space; restic sees one snapshot left, checks the
  // bucket clean and finds nothing more to prune.
  await gotoRepository(page, 'Retention');
  await keepLast(page, 1, 1, 2);
  await expect(page.getByTestId('preview-space')).toContainText('Forget and free space frees 2.');
  const treesBefore = await cachedTrees(page);
  page.once('dialog', (d) => void d.accept());
  await page.getByRole('button', { name: 'Forget and free space' }).click();
  await expect(page.getByTestId('forget-result')).toContainText('Removed 2 snapshots');
  await expect(page.getByTestId('forget-result')).toContainText(/Freed 2\.\d+ MiB/);
  // The offline copy keeps only the folder listings the snapshot left uses.
  const treesAfter = await cachedTrees(page);
  expect(treesAfter).toBeGreaterThan(0);
  expect(treesAfter).toBeLessThan(treesBefore);
  const env = s3repo.resticEnv(changed);
  const left = JSON.parse((await ok(restic(['-r', s3repo.repository, '--no-cache', 'snapshots', '--json'], { env }))).stdout) as { short_id: string }[];
  expect(left.map((s) => s.short_id)).toEqual([third.snapshotShortId]);
  await ok(restic(['-r', s3repo.repository, '--no-cache', 'check', '--read-data'], { env }));
  const again = (await ok(restic(['-r', s3repo.repository, '--no-cache', 'prune', '--dry-run'], { env }))).stdout;
  expect(again).toMatch(/this removes:\s+0 blobs \/ 0 B/);

  // Offline: the new password unlocks the cached copy (bucket keys were sealed again with it),
  // the one snapshot left is listed and browses.
  await page.evaluate(() => navigator.serviceWorker.ready);
  await context.setOffline(true);
  await page.reload();
  await unlock(page, changed);
  await expectUnlocked(page);
  await gotoTab(page, 'Snapshots');
  const rows = page.getByTestId('snapshot-list').locator('tbody tr');
  await expect(rows).toHaveCount(1);
  await rows.getByRole('link', { name: /Open snapshot/ }).click();
  await page.getByTestId('tree-list').getByRole('link', { name: 'Documents/' }).click();
  await expect(page.getByTestId('tree-list').locator('tr[data-name="readme.txt"]')).toBeVisible();
  await context.setOffline(false);
});
