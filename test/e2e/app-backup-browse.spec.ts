// The zero-setup path: a repository in this browser's storage (OPFS), a folder backed up from
// the (injected) picker, a repeat backup that reads nothing, then browsing, search, a file's
// versions and the difference between snapshots — all through the real UI.

import { expect, test } from '@playwright/test';
import { backupOpfsFolder, createOpfsRepo, gotoTab, openApp, readSummary } from './helpers/app';
import { sampleTree } from './helpers/data';
import { writeOpfsTree } from './helpers/opfs';

const SRC = ['e2e-src', 'Documents'];

test('back up a folder into this browser, again without reading, then browse, search, versions and diff', async ({ page }) => {
  const tree = sampleTree(1);
  await openApp(page);
  await writeOpfsTree(page, SRC, tree);
  await createOpfsRepo(page);

  const first = await backupOpfsFolder(page, SRC, { tags: 'e2e, first' });
  expect(first).toMatchObject({ filesNew: tree.length, filesChanged: 0, filesUnmodified: 0 });

  // The folder is remembered: a repeat backup is one click and reads no file.
  await page.getByRole('button', { name: 'Back up “Documents” now' }).click();
  const second = await readSummary(page, first.snapshotShortId);
  expect(second).toMatchObject({ filesNew: 0, filesChanged: 0, filesUnmodified: tree.length });
  await expect(page.getByTestId('backup-summary')).toContainText(`0 read, ${tree.length} unchanged`);

  // One file changes: only it is read.
  await writeOpfsTree(page, SRC, [{ path: 'readme.txt', text: 'changed contents, longer than before\n' }]);
  await page.getByRole('button', { name: 'Back up “Documents” now' }).click();
  const third = await readSummary(page, second.snapshotShortId);
  expect(third).toMatchObject({ filesNew: 0, filesChanged: 1, filesUnmodified: tree.length - 1 });

  // The list, like `restic snapshots`: newest first, with tags and paths.
  await gotoTab(page, 'Snapshots');
  const rows = page.getByTestId('snapshot-list').locator('tbody tr');
  await expect(rows).toHaveCount(3);
  await expect(rows.nth(0)).toContainText(third.snapshotShortId);
  await expect(rows.nth(2)).toContainText('e2e, first');
  await expect(rows.nth(0)).toContainText('Documents');

  // Walk the newest snapshot's tree down to a leaf.
  await rows
    .nth(0)
    .getByRole('link', { name: /Open snapshot/ })
    .click();
  await page.getByRole('link', { name: 'Documents/' }).click();
  const list = page.getByTestId('tree-list');
  await expect(list.locator('tbody tr')).toHaveCount(4); // notes/, photos/, readme.txt, ünïcode name.txt
  await expect(list.locator('tr[data-name="photos"]')).toBeVisible();
  await list.getByRole('link', { name: 'notes/' }).click();
  await page.getByTestId('tree-list').getByRole('link', { name: 'deep/' }).click();
  await expect(page.getByTestId('tree-list').locator('tr[data-name="leaf.txt"]')).toBeVisible();
  await expect(page.getByRole('navigation', { name: 'Folder path' })).toContainText('deep');

  // Search: each distinct version once, in the newest snapshot that has it — leaf.txt never
  // changed (one hit, in the newest), readme.txt has two versions.
  await gotoTab(page, 'Search');
  await page.getByLabel('File or folder name').fill('leaf');
  await page.getByRole('button', { name: 'Search' }).click();
  const hits = page.getByTestId('search-results').locator('tbody tr');
  await expect(hits).toHaveCount(1);
  await expect(hits.first()).toContainText(third.snapshotShortId);
  await expect(hits.first()).toContainText('/Documents/notes/deep/leaf.txt');
  await page.getByLabel('File or folder name').fill('README');
  await page.getByRole('button', { name: 'Search' }).click();
  await expect(hits).toHaveCount(2);
  await expect(hits.nth(0)).toContainText(third.snapshotShortId);
  await expect(hits.nth(1)).toContainText(second.snapshotShortId);
  await page.getByLabel('File or folder name').fill('no-such-name');
  await page.getByRole('button', { name: 'Search' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Nothing named like' })).toBeVisible();

  // Versions of the file that changed: three snapshots, two distinct versions.
  await gotoTab(page, 'Snapshots');
  await page
    .getByTestId('snapshot-list')
    .locator('tbody tr')
    .nth(0)
    .getByRole('link', { name: /Open snapshot/ })
    .click();
  await page.getByRole('link', { name: 'Documents/' }).click();
  await page.getByRole('link', { name: 'Versions of readme.txt' }).click();
  await expect(page.getByTestId('versions-list').locator('tbody tr')).toHaveCount(3);
  await expect(page.getByTestId('versions-list')).toContainText('(unchanged)');

  // Diff of the newest against the one before: just readme.txt modified.
  await gotoTab(page, 'Snapshots');
  await page.getByTestId('snapshot-list').locator('tbody tr').nth(0).getByRole('link', { name: 'Changes' }).click();
  await expect(page.getByTestId('diff-counts')).toHaveText('0 added, 0 removed, 1 modified');
  await expect(page.getByTestId('diff-list')).toContainText('readme.txt');
});
