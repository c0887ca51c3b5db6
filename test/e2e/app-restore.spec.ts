// Getting data back out of the browser: a single file and a folder as ZIP, streamed through the
// service worker into real downloads, and a restore into a picked folder — every byte compared
// with what was backed up.

import { expect, test, type Page } from '@playwright/test';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { backupOpfsFolder, createOpfsRepo, gotoTab, openApp } from './helpers/app';
import { bytesOf, digestDir, digests, sampleTree, sha256 } from './helpers/data';
import { opfsDigests, setPick, writeOpfsTree } from './helpers/opfs';

const SRC = ['e2e-src', 'Documents'];
const tree = sampleTree(2);

async function backedUpSnapshot(page: Page): Promise<void> {
  await openApp(page);
  await writeOpfsTree(page, SRC, tree);
  await createOpfsRepo(page);
  await backupOpfsFolder(page, SRC);
  await page.evaluate(() => navigator.serviceWorker.ready); // downloads are served by it
  await gotoTab(page, 'Snapshots');
  await page
    .getByTestId('snapshot-list')
    .getByRole('link', { name: /Open snapshot/ })
    .click();
  await page.getByRole('link', { name: 'Documents/' }).click();
}

test('download one file (multi-chunk) and a folder as ZIP: the bytes match', async ({ page }) => {
  await backedUpSnapshot(page);
  const dir = await mkdtemp(join(tmpdir(), 'cairn-e2e-dl-'));
  try {
    // A file of several chunks, from a subfolder.
    await page.getByTestId('tree-list').getByRole('link', { name: 'photos/' }).click();
    const [file] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download big.bin' }).click()]);
    expect(file.suggestedFilename()).toBe('big.bin');
    const got = await readFile((await file.path())!);
    const want = bytesOf(tree.find((f) => f.path === 'photos/big.bin')!);
    expect(got.length).toBe(want.length);
    expect(sha256(got)).toBe(sha256(want));
    await expect(page.getByTestId('restore-result')).toContainText('Downloaded');

    // The whole folder as a streamed ZIP.
    await page.getByRole('navigation', { name: 'Folder path' }).getByRole('link', { name: 'Documents' }).click();
    const [zip] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download folder as ZIP' }).click()]);
    expect(zip.suggestedFilename()).toBe('Documents.zip');
    const zipPath = join(dir, 'Documents.zip');
    await zip.saveAs(zipPath);
    await promisify(execFile)('unzip', ['-q', zipPath, '-d', join(dir, 'unzipped')]);
    expect(await digestDir(join(dir, 'unzipped', 'Documents'))).toEqual(digests(tree));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('restore a folder into a picked folder: every file, byte for byte', async ({ page }) => {
  await backedUpSnapshot(page);
  await setPick(page, 'restore', ['e2e-restore']);
  await page.getByRole('button', { name: 'Restore into a folder…' }).click();
  await expect(page.getByTestId('restore-result')).toContainText(`Restored “Documents”: ${tree.length} files`, { timeout: 60_000 });
  await expect(page.getByTestId('restore-errors')).toHaveCount(0);
  expect(await opfsDigests(page, ['e2e-restore', 'Documents'])).toEqual(digests(tree));
});
