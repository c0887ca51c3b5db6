// With the network gone: the service worker serves the app, the repository unlocks, and
// snapshots, folders, search and diff come from cached metadata. (The warm-cache start is
// timed in app-warm-start.spec.ts.)

import { expect, test } from '@playwright/test';
import { backupOpfsFolder, createOpfsRepo, expectUnlocked, gotoTab, openApp, PASSWORD, unlock } from './helpers/app';
import { sampleTree } from './helpers/data';
import { writeOpfsTree } from './helpers/opfs';

const SRC = ['e2e-src', 'Documents'];

test('reload with the network off: unlock, list, browse and search from the cache', async ({ page, context }) => {
  const tree = sampleTree(3);
  await openApp(page);
  await writeOpfsTree(page, SRC, tree);
  await createOpfsRepo(page);
  const snap = await backupOpfsFolder(page, SRC);
  await page.evaluate(() => navigator.serviceWorker.ready);

  await context.setOffline(true);
  await page.reload();
  await expect(page.getByTestId('offline-banner')).toBeVisible();
  await expect(page.getByRole('heading', { name: 'Unlock “This browser”' })).toBeVisible();
  await unlock(page, PASSWORD);
  await expectUnlocked(page);
  await gotoTab(page, 'Snapshots'); // the reload kept the URL of the backup view

  const rows = page.getByTestId('snapshot-list').locator('tbody tr');
  await expect(rows).toHaveCount(1);
  await expect(rows.first()).toContainText(snap.snapshotShortId);
  await rows
    .first()
    .getByRole('link', { name: /Open snapshot/ })
    .click();
  await page.getByRole('link', { name: 'Documents/' }).click();
  await page.getByTestId('tree-list').getByRole('link', { name: 'notes/' }).click();
  await expect(page.getByTestId('tree-list').locator('tr[data-name="todo.md"]')).toBeVisible();

  await gotoTab(page, 'Search');
  await page.getByLabel('File or folder name').fill('small');
  await page.getByRole('button', { name: 'Search' }).click();
  await expect(page.getByTestId('search-results').locator('tbody tr')).toHaveCount(1);
  await context.setOffline(false);
});
