// The rest of "back up": exclude patterns and tags, cancelling a running backup (nothing half
// written shows up, the next backup works), and a repository in a picked local folder laid out
// the way restic lays out a local repository.

import { expect, test } from '@playwright/test';
import { backupOpfsFolder, createOpfsRepo, expectUnlocked, fillPasswords, gotoTab, openApp, PASSWORD, unlock } from './helpers/app';
import { sampleTree } from './helpers/data';
import { setPick, writeOpfsTree, writeRandomFiles } from './helpers/opfs';

const SRC = ['e2e-src', 'Documents'];

test('exclude patterns leave files out; tags show in the list', async ({ page }) => {
  await openApp(page);
  await writeOpfsTree(page, SRC, sampleTree(21));
  await createOpfsRepo(page);
  // sampleTree: 6 files; *.bin drops photos/big.bin and photos/small.bin, "deep" drops notes/deep/leaf.txt.
  const counts = await backupOpfsFolder(page, SRC, { tags: 'work, nightly', excludes: '*.bin\ndeep' });
  expect(counts.filesNew).toBe(3);

  await gotoTab(page, 'Snapshots');
  const row = page.getByTestId('snapshot-list').locator('tbody tr').first();
  await expect(row).toContainText('work, nightly');
  await row.getByRole('link', { name: /Open snapshot/ }).click();
  await page.getByRole('link', { name: 'Documents/' }).click();
  await page.getByTestId('tree-list').getByRole('link', { name: 'photos/' }).click();
  await expect(page.getByText('This folder is empty.')).toBeVisible();
});

test('cancel a running backup: it stops, no snapshot appears, the next backup works', async ({ page }) => {
  await openApp(page);
  // Enough to take seconds: 48 MiB once took long enough, but with WebCrypto's AES in pieces
  // a backup of it could end between the progress showing and the click (seen in CI).
  await writeRandomFiles(page, ['e2e-src', 'Big'], 256, 1 << 20);
  await writeOpfsTree(page, SRC, sampleTree(22));
  await createOpfsRepo(page);

  await gotoTab(page, 'Back up');
  await setPick(page, 'source', ['e2e-src', 'Big']);
  await page.getByRole('button', { name: 'Choose folder…' }).click();
  await page.getByRole('button', { name: 'Back up “Big”', exact: true }).click();
  const progress = page.getByTestId('progress');
  await expect(progress).toBeVisible();
  await expect(progress.getByTestId('progress-files')).toContainText('/ 256'); // scanning done, reading under way
  await progress.getByRole('button', { name: 'Cancel' }).click();
  await expect(page.getByRole('alert')).toHaveAttribute('data-code', 'ABORTED', { timeout: 60_000 });
  await expect(page.getByRole('alert')).toContainText('Cancelled');

  await gotoTab(page, 'Snapshots');
  await expect(page.getByText('No snapshots yet.')).toBeVisible();

  const counts = await backupOpfsFolder(page, SRC);
  expect(counts.filesNew).toBe(sampleTree(22).length);
  await gotoTab(page, 'Snapshots');
  await expect(page.getByTestId('snapshot-list').locator('tbody tr')).toHaveCount(1);
});

test('a repository in a picked folder: restic’s local layout, remembered and reopened', async ({ page }) => {
  await openApp(page);
  await writeOpfsTree(page, SRC, sampleTree(23));
  await setPick(page, 'repository', ['e2e-disk', 'backups']);
  await expect(page.getByRole('heading', { name: 'Create a repository' })).toBeVisible();
  await page.getByLabel(/A folder on this computer/).check();
  await page.getByRole('button', { name: 'Choose folder…' }).click();
  await expect(page.getByTestId('repo-folder-name')).toHaveText('“backups”');
  await fillPasswords(page, PASSWORD, true);
  await page.getByRole('button', { name: 'Create repository' }).click();
  await expectUnlocked(page);
  await expect(page.getByTestId('repo-label')).toHaveText('backups');
  await backupOpfsFolder(page, SRC);

  const layout = await page.evaluate(async () => {
    const root = await (await (await navigator.storage.getDirectory()).getDirectoryHandle('e2e-disk')).getDirectoryHandle('backups');
    const names: string[] = [];
    for await (const name of (root as unknown as { keys(): AsyncIterable<string> }).keys()) names.push(name);
    return names.sort();
  });
  expect(layout).toEqual(expect.arrayContaining(['config', 'data', 'index', 'keys', 'snapshots']));

  await page.getByRole('button', { name: 'Lock' }).click();
  await expect(page.getByRole('heading', { name: 'Unlock “backups”' })).toBeVisible();
  await expect(page.getByRole('form', { name: 'Unlock “backups”' })).toContainText('Folder “backups”');
  await unlock(page, PASSWORD);
  await expectUnlocked(page);
  await gotoTab(page, 'Snapshots');
  await expect(page.getByTestId('snapshot-list').locator('tbody tr')).toHaveCount(1);
});
