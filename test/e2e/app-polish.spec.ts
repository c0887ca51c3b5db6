// Small things a user sees: a deep folder's path wraps instead of widening the page (a 44-level
// path made it 2426 px wide), a folder of one entry says "1 entry", and folders — whose time no
// browser gives — show the date of the backup that saved them, never 1970-01-01.

import { expect, test } from '@playwright/test';
import { backupOpfsFolder, createOpfsRepo, gotoTab, openApp } from './helpers/app';
import { writeOpfsTree } from './helpers/opfs';

test('a 44-level folder’s path wraps at 360 px; one entry is “1 entry”; folders carry the backup’s date', async ({ page }) => {
  await page.setViewportSize({ width: 360, height: 740 });
  const levels = Array.from({ length: 44 }, (_, i) => `Level${String(i + 1).padStart(2, '0')}Folder`);
  await openApp(page);
  await writeOpfsTree(page, ['e2e-src', 'Deep'], [{ path: [...levels, 'leaf.txt'].join('/'), text: 'deep\n' }]);
  await createOpfsRepo(page);
  const snap = await backupOpfsFolder(page, ['e2e-src', 'Deep']);
  await gotoTab(page, 'Snapshots');
  const year = new Date().getFullYear();
  await page
    .getByTestId('snapshot-list')
    .getByRole('link', { name: /Open snapshot/ })
    .click();
  await expect(page.getByTestId('tree-list').locator('tr[data-name="Deep"] td[data-label="Modified"]')).toContainText(`${year}-`);

  const id = new URL(page.url()).hash.split('/')[2]!;
  await page.goto(`/#/snapshot/${id}/Deep/${levels.join('/')}`);
  await expect(page.getByTestId('tree-list').locator('tr[data-name="leaf.txt"]')).toBeVisible();
  await expect(page.locator('.path-line')).toHaveText(`/Deep/${levels.join('/')} · 1 entry`);
  // Names without a hyphen or a space: nothing in the path itself lets a line break (4702 px wide without the fix).
  const widths = await page.evaluate(() => ({ page: document.documentElement.scrollWidth, view: window.innerWidth }));
  expect(widths.page, `the page is ${widths.page} px wide in a ${widths.view} px window`).toBeLessThanOrEqual(widths.view);
  expect(snap.filesNew).toBe(1);
});
