// The repository tools in this browser's storage: keys (add, change the password, unlock with
// the new one), the recovery sheet (its QR code decodes to the master key shown) and recovering
// access from it with a new password; several ticked items as one ZIP (bytes compared) and
// restored with an exclude pattern; retention (rules in words, preview, forget and prune, the rest browsed)
// and one snapshot deleted from its page.

import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { removeDir, tempDir } from '../helpers/cli';
import { backupOpfsFolder, createOpfsRepo, expectUnlocked, gotoTab, openApp, PASSWORD, readSummary, unlock } from './helpers/app';
import { digestDir, digests, sampleTree } from './helpers/data';
import { opfsDigests, setPick, writeOpfsTree } from './helpers/opfs';
import { gotoRepository, keepLast, readSheetQr } from './helpers/tools';

const SRC = ['e2e-src', 'Documents'];
const SECOND = 'a second password for keys';
const CHANGED = 'the changed password 2';
const RECOVERED = 'recovered from the sheet';

test('keys: add one, change the password; the recovery sheet recovers access with a new password', async ({ page }) => {
  await openApp(page);
  await createOpfsRepo(page);
  await gotoRepository(page, 'Keys');
  const rows = page.getByTestId('key-list').locator('tbody tr');
  await expect(rows).toHaveCount(1);
  await expect(page.getByRole('button', { name: /^Remove key/ })).toBeDisabled(); // never the last key

  await page.getByLabel('Whose password').fill('recovery');
  await page.getByLabel('New password', { exact: true }).fill(SECOND);
  await page.getByLabel('Confirm new password', { exact: true }).fill(SECOND);
  await page.getByRole('button', { name: 'Add password' }).click();
  await expect(page.getByTestId('keys-notice')).toContainText('for recovery');
  await expect(rows).toHaveCount(2);

  await page.getByLabel('Current password').fill(PASSWORD);
  await page.getByLabel('New password for this key').fill(CHANGED);
  await page.getByLabel('Confirm the new password').fill(CHANGED);
  await page.getByRole('button', { name: 'Change password' }).click();
  await expect(page.getByTestId('keys-notice')).toContainText('Password changed');
  await expect(rows).toHaveCount(2);
  await expect(page.locator('tr[data-current="true"]')).toHaveCount(1);

  // The recovery sheet needs the password again (the old one no longer opens it).
  await gotoRepository(page, 'Recovery sheet');
  await page.getByLabel('Type the repository password again').fill(PASSWORD);
  await page.getByRole('button', { name: 'Show the recovery sheet' }).click();
  await expect(page.getByRole('alert')).toHaveAttribute('data-code', 'WRONG_PASSWORD');
  await page.getByLabel('Type the repository password again').fill(CHANGED);
  await page.getByRole('button', { name: 'Show the recovery sheet' }).click();
  const shown = JSON.parse((await page.getByTestId('sheet-masterkey').textContent())!) as { mac: { k: string; r: string }; encrypt: string };
  expect(Object.keys(shown).sort()).toEqual(['encrypt', 'mac']);
  const scanned = await readSheetQr(page);
  expect(JSON.parse(scanned)).toEqual(shown);
  await expect(page.getByTestId('recovery-sheet')).toContainText('Anyone who has it can open and read every backup');
  // Nothing of the key was stored by the page.
  const stored = await page.evaluate(async () => JSON.stringify({ ls: { ...localStorage }, dbs: await indexedDB.databases() }));
  expect(stored).not.toContain(shown.encrypt);

  // Every password lost: recover from the sheet on the first screen.
  await page.getByRole('button', { name: 'Lock' }).click();
  await page.getByRole('button', { name: /Lost the password\? Recover access/ }).click();
  await page.getByLabel('Master key (from the recovery sheet)').fill('{"mac":{"k":"AAAA"}}');
  await page.getByLabel('New password', { exact: true }).fill(RECOVERED);
  await page.getByLabel('Confirm new password', { exact: true }).fill(RECOVERED);
  await page.getByRole('button', { name: 'Recover access' }).click();
  await expect(page.getByRole('alert')).toContainText('That is not a master key');
  await page.getByLabel('Master key (from the recovery sheet)').fill(scanned);
  await page.getByLabel('New password', { exact: true }).fill(RECOVERED);
  await page.getByLabel('Confirm new password', { exact: true }).fill(RECOVERED);
  await page.getByRole('button', { name: 'Recover access' }).click();
  await expectUnlocked(page);
  await gotoRepository(page, 'Keys');
  await expect(rows).toHaveCount(3);

  // The new password opens it from now on.
  await page.getByRole('button', { name: 'Lock' }).click();
  await unlock(page, RECOVERED);
  await expectUnlocked(page);
});

test('ticked items: one ZIP of two items byte for byte, and a restore of them with an exclude pattern', async ({ page }) => {
  const tree = sampleTree(41);
  await openApp(page);
  await writeOpfsTree(page, SRC, tree);
  await createOpfsRepo(page);
  await backupOpfsFolder(page, SRC);
  await gotoTab(page, 'Snapshots');
  await page
    .getByTestId('snapshot-list')
    .getByRole('link', { name: /Open snapshot/ })
    .click();
  await page.getByTestId('tree-list').getByRole('link', { name: 'Documents/' }).click();
  await page.getByLabel('Tick readme.txt').check();
  await page.getByLabel('Tick photos').check();
  await expect(page.getByTestId('selection-bar')).toContainText('2 ticked');

  await page.evaluate(() => navigator.serviceWorker.ready);
  const work = await tempDir('cairn-e2e-ticked');
  try {
    const [zip] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download 2 items as one ZIP' }).click()]);
    await zip.saveAs(join(work, 'items.zip'));
    await expect(page.getByTestId('restore-result')).toContainText('Downloaded 2 items: 3 files');
    await promisify(execFile)('unzip', ['-q', join(work, 'items.zip'), '-d', join(work, 'out')]);
    const chosen = tree.filter((f) => f.path === 'readme.txt' || f.path.startsWith('photos/'));
    expect(await digestDir(join(work, 'out'))).toEqual(digests(chosen));
  } finally {
    await removeDir(work);
  }
  await page.getByTestId('restore-result').getByRole('button', { name: 'Dismiss' }).click();

  // The same two, restored into a folder leaving out *.bin: only readme.txt arrives.
  await setPick(page, 'restore', ['e2e-ticked']);
  await page.getByText('Restore with include / exclude patterns…').click();
  await page.getByLabel('Leave out').fill('*.bin');
  await page.getByRole('button', { name: 'Restore 2 items into a folder…' }).last().click();
  await expect(page.getByTestId('restore-result')).toContainText('1 file');
  expect(Object.keys(await opfsDigests(page, ['e2e-ticked']))).toEqual(['readme.txt']);

  // Both are in the history, with what they restored.
  await gotoTab(page, 'History');
  const restores = page.getByTestId('history-list').locator('tbody tr[data-kind="restore"]');
  await expect(restores).toHaveCount(2);
  await expect(restores.first()).toHaveAttribute('data-result', 'success');
  await expect(restores.first()).toContainText('/Documents into a folder (2 items)');
  await expect(restores.nth(1)).toContainText('/Documents as a ZIP (2 items)');
});

test('retention in this browser: rules in words, a preview, forget; the rest still browses', async ({ page }) => {
  const tree = sampleTree(42);
  await openApp(page);
  await writeOpfsTree(page, SRC, tree);
  await createOpfsRepo(page);
  const first = await backupOpfsFolder(page, SRC);
  await page.getByRole('button', { name: 'Back up “Documents” now' }).click();
  const second = await readSummary(page, first.snapshotShortId);
  await writeOpfsTree(page, SRC, [{ path: 'readme.txt', text: 'the newest version\n' }]);
  await page.getByRole('button', { name: 'Back up “Documents” now' }).click();
  const third = await readSummary(page, second.snapshotShortId);

  await gotoRepository(page, 'Retention');
  await expect(page.getByTestId('preview-counts')).toHaveCount(0); // no rule: nothing to preview
  await keepLast(page, 1, 1, 2);
  await expect(page.getByTestId('rules-in-words')).toContainText('the newest snapshot');
  const timeline = page.getByTestId('timeline').locator('li');
  await expect(timeline).toHaveCount(3);
  await expect(timeline.first()).toHaveAttribute('data-fate', 'keep');
  await expect(timeline.first()).toContainText(`${third.snapshotShortId}`);
  await expect(timeline.first()).toContainText('kept: last snapshot');
  await expect(page.locator('li[data-fate="remove"]')).toHaveCount(2);
  await keepLast(page, 2, 2, 1);
  await keepLast(page, 1, 1, 2);
  await expect(page.getByTestId('storage-room')).toBeVisible();

  await expect(page.getByTestId('preview-space')).toContainText('Forget and free space frees');
  page.once('dialog', (d) => void d.accept());
  await page.getByRole('button', { name: 'Forget and free space' }).click();
  await expect(page.getByTestId('forget-result')).toContainText('Removed 2 snapshots');
  await expect(page.getByTestId('forget-result')).toContainText('Freed');
  await expect(page.getByTestId('preview-counts')).toHaveText('Keeps 1, removes 0');

  // The rules were kept with the repository: they are there after a reload.
  await page.reload();
  await unlock(page);
  await expectUnlocked(page);
  await gotoTab(page, 'Snapshots');
  const rows = page.getByTestId('snapshot-list').locator('tbody tr');
  await expect(rows).toHaveCount(1);
  await rows.getByRole('link', { name: /Open snapshot/ }).click();
  await page.getByTestId('tree-list').getByRole('link', { name: 'Documents/' }).click();
  await expect(page.getByTestId('tree-list').locator('tr[data-name="readme.txt"]')).toBeVisible();
  await gotoRepository(page, 'Retention');
  await expect(page.getByLabel('Keep the last')).toHaveValue('1');

  // One snapshot deleted from its own page.
  await gotoTab(page, 'Snapshots');
  await rows.getByRole('link', { name: /Open snapshot/ }).click();
  page.once('dialog', (d) => void d.accept());
  await page.getByRole('button', { name: 'Delete this snapshot…' }).click();
  await expect(page.getByRole('heading', { name: 'Snapshots' })).toBeVisible();
  await expect(page.getByText('No snapshots yet.')).toBeVisible();

  // Each removal is in the history: the one snapshot, then the rules' forget with its prune.
  await gotoTab(page, 'History');
  const ops = page.getByTestId('history-list').locator('tbody tr');
  expect(await ops.evaluateAll((trs) => trs.slice(0, 3).map((tr) => tr.getAttribute('data-kind')))).toEqual(['forget', 'prune', 'forget']);
  await expect(ops.nth(0)).toContainText(`snapshot ${third.snapshotShortId.slice(0, 8)}`);
  await expect(ops.nth(0).getByTestId('history-removed')).toHaveText('1 snapshot removed');
  await expect(ops.nth(1)).toHaveAttribute('data-result', 'success');
  await expect(ops.nth(1).getByTestId('history-freed')).toContainText('freed');
  await expect(ops.nth(2).getByTestId('history-removed')).toHaveText('2 snapshots removed');
  await expect(ops.nth(2)).toContainText('keep 1 latest snapshot');
});
