// A folder dropped onto the app, the way a user drags one from the file manager: Chromium's own
// drag and drop, driven through the DevTools protocol (Input.dispatchDragEvent with the folder's
// path), so the page gets what a real drop gives — a folder handle (getAsFileSystemHandle), or,
// where that is missing (Firefox, Safari: simulated by deleting it), entries to read
// (webkitGetAsEntry), whose empty folders the summary names as not backed up.

import { expect, test } from '@playwright/test';
import { mkdir, mkdtemp, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createOpfsRepo, dropFolder, gotoTab, openApp, readSummary } from './helpers/app';
import { materialize, sampleTree } from './helpers/data';

test('a dropped folder is backed up: by handle in Chromium, else by entries with its empty folders named', async ({ page }) => {
  const dir = await mkdtemp(join(tmpdir(), 'cairn-e2e-drop-'));
  try {
    const tree = sampleTree(34);
    const docs = join(dir, 'Documents');
    await materialize(tree, docs);
    await mkdir(join(docs, 'empty', 'nested-empty'), { recursive: true });
    await symlink('readme.txt', join(docs, 'link-to-readme'));

    await openApp(page);
    await createOpfsRepo(page);
    await gotoTab(page, 'Snapshots');
    await dropFolder(page, docs);
    await expect(page.getByRole('heading', { name: 'Back up a folder' })).toBeVisible();
    await expect(page.getByTestId('pending-folder')).toHaveText('“Documents”'); // a handle, not a list of files
    await page.getByRole('button', { name: 'Back up “Documents”', exact: true }).click();
    const first = await readSummary(page);
    expect(first.filesNew).toBe(tree.length);
    // The link is not handed over by the browser: said so, not skipped silently.
    await expect(page.getByTestId('backup-notes')).toContainText('Symbolic links');

    await gotoTab(page, 'Snapshots');
    await page
      .getByTestId('snapshot-list')
      .getByRole('link', { name: /Open snapshot/ })
      .click();
    await page.getByRole('link', { name: 'Documents/' }).click();
    // Folders from a handle come with their empty ones, and every folder with a date.
    await expect(page.getByTestId('tree-list').locator('tr[data-name="empty"]')).toBeVisible();
    await expect(page.getByTestId('tree-list').locator('tr[data-name="link-to-readme"]')).toHaveCount(0);
    await expect(page.getByTestId('tree-list').locator('tr[data-name="notes"] td[data-label="Modified"]')).toHaveText(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('without getAsFileSystemHandle a dropped folder is read through its entries; a drop of a file is refused', async ({ page }) => {
  const dir = await mkdtemp(join(tmpdir(), 'cairn-e2e-drop-'));
  try {
    const tree = sampleTree(35);
    const docs = join(dir, 'Documents');
    await materialize(tree, docs);
    await mkdir(join(docs, 'empty'), { recursive: true });
    await page.addInitScript(() => {
      delete (DataTransferItem.prototype as { getAsFileSystemHandle?: unknown }).getAsFileSystemHandle;
    });
    await openApp(page);
    await createOpfsRepo(page);

    await dropFolder(page, join(docs, 'readme.txt'));
    await expect(page.getByRole('alert')).toContainText('Choose a folder, not files');

    await dropFolder(page, docs);
    await expect(page.getByTestId('pending-folder')).toHaveText(`“Documents”: ${tree.length} files`);
    await page.getByRole('button', { name: 'Back up “Documents”', exact: true }).click();
    expect((await readSummary(page)).filesNew).toBe(tree.length);
    await expect(page.getByTestId('backup-notes')).toContainText('Documents/empty/ — an empty folder');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
