// Browsers without File System Access (Firefox, Safari): the folder comes from
// <input webkitdirectory>, the rest works the same. Simulated here by deleting
// showDirectoryPicker before the app loads.

import { expect, test, type Page } from '@playwright/test';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createOpfsRepo, gotoTab, openApp } from './helpers/app';
import { bytesOf, materialize, sampleTree, sha256, type FileSpec } from './helpers/data';

/** The app in a browser without File System Access's folder picker. */
async function openWithoutDirectoryPicker(page: Page): Promise<void> {
  await page.addInitScript(() => {
    delete (window as { showDirectoryPicker?: unknown }).showDirectoryPicker;
  });
  await openApp(page);
}

test('back up through <input webkitdirectory> and get a file back', async ({ page }) => {
  const tree = sampleTree(5);
  const dir = await mkdtemp(join(tmpdir(), 'cairn-e2e-wkd-'));
  try {
    await materialize(tree, join(dir, 'Documents'));
    await openWithoutDirectoryPicker(page);
    await expect(page.getByLabel(/A folder on this computer/)).toHaveCount(0); // needs File System Access
    await createOpfsRepo(page);

    await gotoTab(page, 'Back up');
    await expect(page.getByRole('button', { name: 'Choose folder…' })).toHaveCount(0);
    await page.getByLabel('Choose a folder to back up').setInputFiles(join(dir, 'Documents'));
    await expect(page.getByTestId('pending-folder')).toContainText(`“Documents”: ${tree.length} files`);
    await page.getByRole('button', { name: 'Back up “Documents”' }).click();
    const summary = page.getByTestId('backup-summary');
    await expect(summary).toBeVisible({ timeout: 90_000 });
    await expect(summary.getByTestId('files-new')).toHaveText(String(tree.length));

    await gotoTab(page, 'Snapshots');
    await page
      .getByTestId('snapshot-list')
      .getByRole('link', { name: /Open snapshot/ })
      .click();
    await page.getByRole('link', { name: 'Documents/' }).click();
    await expect(page.getByRole('button', { name: 'Restore into a folder…' })).toHaveCount(0);
    await page.evaluate(() => navigator.serviceWorker.ready);
    const [dl] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download ünïcode name.txt' }).click()]);
    const want = bytesOf(tree.find((f) => f.path === 'ünïcode name.txt')!);
    expect(sha256(await readFile((await dl.path())!))).toBe(sha256(want));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('loose files without their folder are refused in plain words, and the folder then works', async ({ page }) => {
  const dir = await mkdtemp(join(tmpdir(), 'cairn-e2e-wkd-'));
  const tree = sampleTree(2);
  try {
    await materialize(tree, join(dir, 'Docs'));
    await openWithoutDirectoryPicker(page);
    await createOpfsRepo(page);
    await gotoTab(page, 'Back up');
    const input = page.getByLabel('Choose a folder to back up');
    // What a browser that ignores webkitdirectory hands over: Files with no webkitRelativePath.
    await input.evaluate((el: HTMLInputElement) => {
      const dt = new DataTransfer();
      dt.items.add(new File(['one'], 'a.txt'));
      dt.items.add(new File(['two'], 'b.txt'));
      el.files = dt.files;
      el.dispatchEvent(new Event('change', { bubbles: true }));
    });
    await expect(page.getByRole('alert').filter({ hasText: 'Choose a folder, not files' })).toBeVisible();
    await expect(page.getByTestId('pending-folder')).toHaveCount(0);
    await expect(page.getByRole('button', { name: /^Back up “/ })).toHaveCount(0);

    await input.setInputFiles(join(dir, 'Docs'));
    await expect(page.getByTestId('pending-folder')).toContainText(`“Docs”: ${tree.length} files`);
    await expect(page.getByText('Choose a folder, not files')).toHaveCount(0);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('a cancelled backup of a picked list asks for a new pick, and the new pick backs up', async ({ page }) => {
  // The list is used up by its backup (its Files are dropped as the savers take them, for
  // their memory), so after a cancel the panel asks for the folder again instead of reusing it.
  const tree: FileSpec[] = Array.from({ length: 96 }, (_, i) => ({ path: `part-${String(i).padStart(2, '0')}.bin`, size: 1 << 20, seed: 500 + i }));
  const dir = await mkdtemp(join(tmpdir(), 'cairn-e2e-wkd-'));
  try {
    await materialize(tree, join(dir, 'Big'));
    await openWithoutDirectoryPicker(page);
    await createOpfsRepo(page);
    await gotoTab(page, 'Back up');
    const input = page.getByLabel('Choose a folder to back up');
    await input.setInputFiles(join(dir, 'Big'));
    await page.getByRole('button', { name: 'Back up “Big”' }).click();
    await page.getByRole('button', { name: 'Cancel' }).click();
    await expect(page.getByTestId('pick-again')).toBeVisible({ timeout: 60_000 });
    await expect(page.getByTestId('pending-folder')).toHaveCount(0);
    await expect(page.getByRole('button', { name: /^Back up “/ })).toHaveCount(0);

    await input.setInputFiles(join(dir, 'Big'));
    await expect(page.getByTestId('pick-again')).toHaveCount(0);
    await page.getByRole('button', { name: 'Back up “Big”' }).click();
    const summary = page.getByTestId('backup-summary');
    await expect(summary).toBeVisible({ timeout: 90_000 });
    await expect(summary.getByTestId('files-new')).toHaveText(String(tree.length));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
