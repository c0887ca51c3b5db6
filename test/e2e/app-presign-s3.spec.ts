// Devices without the bucket's keys: `cairn presign serve` (the endpoint Cairn ships) in front of
// radosgw, an append-only laptop and a maintenance device, each holding only its device token.
// In the app, a wrong token is refused in plain words and creates nothing; the laptop creates
// the repository, backs up twice, checks it and downloads a file byte-identical; the repository
// page names it and its role; forget, prune, key changes and "delete snapshot" are greyed with a
// one-line reason, and forced anyway (the disabled attribute removed) they fail with NOT_PERMITTED
// and the bucket loses nothing. The maintenance device then sees them enabled and deletes a
// snapshot; restic, with the real keys, finds the repository clean.

import { readFile } from 'node:fs/promises';
import { ok, restic } from '../helpers/cli';
import { listObjects } from '../helpers/s3-server';
import { expectUnlocked, fillPasswords, gotoTab, openApp, PASSWORD, readSummary, backupOpfsFolder, unlock } from './helpers/app';
import { bytesOf, sampleTree, sha256 } from './helpers/data';
import { writeOpfsTree } from './helpers/opfs';
import { fillPresignBucket, startPresign } from './helpers/presign';
import { expect, test, type S3Repo } from './helpers/s3';
import { gotoRepository, keepLast } from './helpers/tools';
import type { Page } from '@playwright/test';

const SRC = ['e2e-src', 'Documents'];

/** The repository's objects (key → size), lock files left out (a device may remove its own). */
async function objects(r: S3Repo): Promise<Map<string, number>> {
  const all = await listObjects(r.server, r.server.bucket, r.prefix + '/');
  return new Map(all.filter((o) => !o.key.includes('/locks/')).map((o) => [o.key, o.size]));
}

/** Clicks a button the page greyed out, as a script in the tab could: its handler still runs. */
async function forceClick(page: Page, name: string): Promise<void> {
  const button = page.getByRole('button', { name, exact: true });
  await expect(button).toBeDisabled();
  await button.evaluate((b) => b.removeAttribute('disabled'));
  await button.click();
}

async function openFirstSnapshot(page: Page): Promise<void> {
  await gotoTab(page, 'Snapshots');
  await page
    .getByTestId('snapshot-list')
    .getByRole('link', { name: /Open snapshot/ })
    .first()
    .click();
}

test('an append-only device backs up and restores but removes nothing; a maintenance device deletes a snapshot', async ({ page, s3repo }) => {
  test.setTimeout(300_000);
  const tree = sampleTree(61);
  const ep = await startPresign(s3repo, { laptop: 'append-only', admin: 'maintenance' });
  try {
    await openApp(page);
    await writeOpfsTree(page, SRC, tree);

    // A wrong token: refused in plain words, nothing written.
    await fillPresignBucket(page, s3repo, ep.url, 'cairn_not-a-token-of-this-endpoint');
    await fillPasswords(page, PASSWORD, true);
    await page.getByRole('button', { name: 'Create repository' }).click();
    await expect(page.getByRole('alert')).toHaveAttribute('data-code', 'ACCESS_DENIED');
    await expect(page.getByRole('alert')).toContainText('The presign endpoint refused this device');
    expect((await objects(s3repo)).size).toBe(0);

    // The laptop's token: it creates the repository and backs up twice.
    await page.getByLabel('Device token', { exact: true }).fill(ep.tokens['laptop']!);
    await fillPasswords(page, PASSWORD, true);
    await page.getByRole('button', { name: 'Create repository' }).click();
    await expectUnlocked(page);
    const first = await backupOpfsFolder(page, SRC);
    expect(first.filesNew).toBe(tree.length);
    await writeOpfsTree(page, SRC, [{ path: 'readme.txt', text: 'changed on the laptop\n' }]);
    await page.getByRole('button', { name: 'Back up “Documents” now' }).click();
    const second = await readSummary(page, first.snapshotShortId);
    expect(second.filesChanged).toBe(1);

    // The repository page names the device and its role; a check runs (it only takes a lock).
    await gotoRepository(page, 'Health');
    await expect(page.getByTestId('device-role')).toHaveText('This device: laptop · append-only');
    await page.getByRole('button', { name: 'Check now' }).click();
    await expect(page.getByTestId('health')).toHaveAttribute('data-status', 'healthy', { timeout: 90_000 });
    const kept = await objects(s3repo);

    // Keys: greyed with the reason; forced, the engine refuses before writing a key file.
    await gotoRepository(page, 'Keys');
    await expect(page.getByTestId('keys-not-allowed')).toContainText('This device is append-only');
    await expect(page.getByRole('button', { name: 'Change password' })).toBeDisabled();
    await page.getByLabel('New password', { exact: true }).fill('another password here');
    await page.getByLabel('Confirm new password', { exact: true }).fill('another password here');
    await forceClick(page, 'Add password');
    await expect(page.getByRole('alert')).toHaveAttribute('data-code', 'NOT_PERMITTED');

    // Retention: the preview works, forgetting (and freeing space) is greyed.
    await gotoRepository(page, 'Retention');
    await keepLast(page, 1, 1, 1);
    await expect(page.getByRole('button', { name: 'Forget 1 snapshot' })).toBeDisabled();
    const freeSpace = page.getByRole('button', { name: 'Forget and free space' });
    if (await freeSpace.count()) await expect(freeSpace).toBeDisabled();
    await expect(page.getByTestId('forget-not-allowed')).toContainText('cannot remove or change anything');

    // The snapshot page: a file downloads byte-identical; "delete" is greyed, and refused when forced.
    await openFirstSnapshot(page);
    await page.getByTestId('tree-list').getByRole('link', { name: 'Documents/' }).click();
    await page.getByTestId('tree-list').getByRole('link', { name: 'photos/' }).click();
    await page.evaluate(() => navigator.serviceWorker.ready);
    const [dl] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download big.bin' }).click()]);
    expect(sha256(await readFile((await dl.path())!))).toBe(sha256(bytesOf(tree.find((f) => f.path === 'photos/big.bin')!)));
    await openFirstSnapshot(page);
    await expect(page.getByText('This device is append-only')).toBeVisible();
    page.once('dialog', (d) => void d.accept());
    await forceClick(page, 'Delete this snapshot…');
    await expect(page.getByRole('alert')).toHaveAttribute('data-code', 'NOT_PERMITTED');

    // Nothing the laptop wrote is gone or changed in size.
    expect(await objects(s3repo)).toEqual(kept);
    const env = s3repo.resticEnv(PASSWORD);
    const snapshots = async () =>
      (JSON.parse((await ok(restic(['-r', s3repo.repository, '--no-cache', 'snapshots', '--json'], { env }))).stdout) as unknown[]).length;
    expect(await snapshots()).toBe(2);

    // The maintenance device (same remembered repository, its own token): everything enabled; it deletes a snapshot.
    await page.getByRole('button', { name: 'Lock' }).click();
    await expect(page.getByRole('heading', { name: /^Unlock/ })).toBeVisible();
    await expect(page.getByLabel('My presign endpoint')).toBeChecked();
    await page.getByLabel('Presign endpoint URL').fill(ep.url);
    await page.getByLabel('Device token', { exact: true }).fill(ep.tokens['admin']!);
    await unlock(page, PASSWORD);
    await expectUnlocked(page);
    await gotoRepository(page, 'Keys');
    await expect(page.getByTestId('device-role')).toHaveText('This device: admin · maintenance');
    await expect(page.getByRole('button', { name: 'Add password' })).toBeEnabled();
    await expect(page.getByTestId('keys-not-allowed')).toHaveCount(0);
    await openFirstSnapshot(page);
    page.once('dialog', (d) => void d.accept());
    await page.getByRole('button', { name: 'Delete this snapshot…' }).click();
    await expect(page.getByTestId('snapshot-list').locator('tbody tr')).toHaveCount(1);
    expect(await snapshots()).toBe(1);
    await ok(restic(['-r', s3repo.repository, '--no-cache', 'check', '--read-data'], { env }));
  } finally {
    await ep.stop();
  }
});
