// A repository damaged in the bucket (one blob's bytes changed, as bit rot or a bad disk would):
// the app restores every other file and names the one it hit, a download of that file fails in
// plain words, and the snapshot's ZIP carries the others byte-identical.

import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { join } from 'node:path';
import { ok, removeDir, restic, tempDir } from '../helpers/cli';
import { expectUnlocked, fillPasswords, openApp, PASSWORD } from './helpers/app';
import { bytesOf, digestDir, digests, materialize, sampleTree, sha256 } from './helpers/data';
import { opfsDigests, setPick } from './helpers/opfs';
import { expect, fillBucket, test } from './helpers/s3';
import { damageBlob } from './helpers/tools';

test('a damaged blob in the bucket: restore names the file and restores the rest, its download fails plainly, the ZIP keeps the others', async ({
  page,
  s3repo,
}) => {
  const tree = sampleTree(31);
  const victim = tree.find((f) => f.path === 'photos/small.bin')!; // under 512 KiB: one blob, its ID the file's SHA-256
  const env = s3repo.resticEnv(PASSWORD);
  const work = await tempDir('cairn-e2e-damaged');
  try {
    const src = join(work, 'src');
    await materialize(tree, src);
    await ok(restic(['-r', s3repo.repository, '--no-cache', 'init'], { env }));
    await ok(restic(['-r', s3repo.repository, '--no-cache', 'backup', src], { env }));
    await damageBlob(s3repo, PASSWORD, sha256(bytesOf(victim)));

    await openApp(page);
    await page.getByLabel('Open an existing one').check();
    await fillBucket(page, s3repo);
    await fillPasswords(page, PASSWORD, false);
    await page.getByRole('button', { name: 'Open repository' }).click();
    await expectUnlocked(page);
    await page
      .getByTestId('snapshot-list')
      .locator('tbody tr')
      .first()
      .getByRole('link', { name: /Open snapshot/ })
      .click();
    for (const part of src.split('/').filter(Boolean))
      await page
        .getByTestId('tree-list')
        .getByRole('link', { name: `${part}/`, exact: true })
        .click();

    await setPick(page, 'restore', ['e2e-restore']);
    await page.getByRole('button', { name: 'Restore into a folder…' }).click();
    const result = page.getByTestId('restore-result');
    await expect(result).toContainText(`${tree.length - 1} files`, { timeout: 60_000 });
    await expect(result.getByTestId('restore-errors').locator('li')).toHaveCount(1);
    await expect(result.getByTestId('restore-errors')).toContainText('photos/small.bin');
    const restored = await opfsDigests(page, ['e2e-restore', 'src']);
    const expected = digests(tree.filter((f) => f !== victim));
    for (const [path, digest] of Object.entries(expected)) expect(restored[path], path).toBe(digest);
    await result.getByRole('button', { name: 'Dismiss' }).click();

    // The folder as a ZIP: the others byte-identical, and the app names the one left out.
    await page.evaluate(() => navigator.serviceWorker.ready);
    const [zip] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download folder as ZIP' }).click()]);
    const zipPath = join(work, 'src.zip');
    await zip.saveAs(zipPath);
    await expect(result).toContainText(`Downloaded “src”: ${tree.length - 1} files`);
    await expect(result.getByTestId('restore-errors')).toHaveText(/photos\/small\.bin: Data failed its integrity check/);
    await promisify(execFile)('unzip', ['-q', zipPath, '-d', join(work, 'unzipped')]);
    expect(await digestDir(join(work, 'unzipped', 'src'))).toEqual(expected);
    await result.getByRole('button', { name: 'Dismiss' }).click();

    // The damaged file alone: the browser's download is cancelled (no wrong file saved) and the
    // app says what happened.
    await page.getByTestId('tree-list').getByRole('link', { name: 'photos/' }).click();
    const [file] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download small.bin' }).click()]);
    expect(await file.failure()).toBe('canceled');
    const alert = page.getByRole('alert');
    await expect(alert).toHaveAttribute('data-code', 'MAC_MISMATCH');
    await expect(alert).toContainText('it is damaged or was changed');
  } finally {
    await removeDir(work);
  }
});
