// A bucket repository opens to its snapshot list before the offline cache is filled: the fill
// starts after the list is shown, runs in the background with its progress on screen, lets
// the user browse while it runs, and resumes after a reload where it stopped. Asserted by the
// order of the app's own events (performance marks, progress steps), never by time: the test
// holds the fill at a step through the e2e build's hook (window.__cairnTestOfflineFillGate).

import { join } from 'node:path';
import { ok, removeDir, restic, tempDir } from '../helpers/cli';
import { expectUnlocked, fillPasswords, openApp, PASSWORD, unlock } from './helpers/app';
import { materialize, sampleTree } from './helpers/data';
import { expect, fillBucket, test } from './helpers/s3';
import type { OfflineCacheProgress } from '../../workers/api';

declare global {
  interface Window {
    fillLog: OfflineCacheProgress[];
    releaseFill?: () => void;
  }
}

test('the list shows before the offline cache fills; browsing works while it runs; a reload resumes it', async ({ page, s3repo }) => {
  const env = s3repo.resticEnv(PASSWORD);
  const work = await tempDir('cairn-e2e-fill-src');
  try {
    const src = join(work, 'src');
    await materialize(sampleTree(21), src);
    await ok(restic(['-r', s3repo.repository, '--no-cache', 'init'], { env }));
    await ok(restic(['-r', s3repo.repository, '--no-cache', 'backup', src], { env }));
    await materialize([{ path: 'later/added.txt', text: 'second snapshot\n' }], src);
    await ok(restic(['-r', s3repo.repository, '--no-cache', 'backup', src], { env }));

    // Every progress step is logged; once the newest snapshot is complete the fill is held
    // there (on the first page load only: localStorage remembers that it was held once).
    await page.addInitScript(() => {
      window.fillLog = [];
      window.__cairnTestOfflineFillGate = (p) => {
        window.fillLog.push(p);
        if (p.snapshotsDone === 1 && p.phase === 'trees' && !localStorage.getItem('e2e-fill-held')) {
          localStorage.setItem('e2e-fill-held', '1');
          return new Promise<void>((r) => (window.releaseFill = r));
        }
      };
    });
    await openApp(page, '#/snapshots');
    await page.getByLabel('Open an existing one').check();
    await fillBucket(page, s3repo, { rememberKeys: true });
    await fillPasswords(page, PASSWORD, false);
    await page.getByRole('button', { name: 'Open repository' }).click();
    await expectUnlocked(page);
    const rows = page.getByTestId('snapshot-list').locator('tbody tr');
    await expect(rows).toHaveCount(2);

    // Held halfway: one snapshot of two complete, shown as such.
    await expect(page.getByTestId('offline-cache')).toContainText('1 of 2 snapshots complete');
    const marks = () =>
      page.evaluate(() =>
        Object.fromEntries(
          ['cairn:snapshots-listed', 'cairn:offline-cache-started', 'cairn:offline-cache-done', 'cairn:snapshot-shown'].map((n) => [
            n,
            performance.getEntriesByName(n)[0]?.startTime ?? null,
          ]),
        ),
      );
    const held = await marks();
    expect(held['cairn:offline-cache-started']).toBeGreaterThan(held['cairn:snapshots-listed']!); // the fill began after the list came
    expect(held['cairn:offline-cache-done']).toBeNull();

    // Browsing the older snapshot (not cached yet) while the fill is held mid-way.
    await rows
      .nth(1)
      .getByRole('link', { name: /Open snapshot/ })
      .click();
    for (const part of src.split('/').filter(Boolean))
      await page
        .getByTestId('tree-list')
        .getByRole('link', { name: `${part}/`, exact: true })
        .click();
    await page.getByTestId('tree-list').getByRole('link', { name: 'notes/' }).click();
    await expect(page.getByTestId('tree-list').locator('tr[data-name="todo.md"]')).toBeVisible();
    expect((await marks())['cairn:offline-cache-done']).toBeNull();
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Snapshots' }).click();
    await expect(page.getByTestId('offline-cache')).toContainText('1 of 2 snapshots complete');

    // A reload while held: the next fill starts from the snapshot the first one completed.
    await page.reload();
    await unlock(page, PASSWORD);
    await expect(rows).toHaveCount(2);
    await expect(page.getByTestId('offline-cache-done')).toBeVisible();
    const resumed = await page.evaluate(() => window.fillLog);
    expect(resumed[0]).toMatchObject({ snapshots: 2, snapshotsDone: 1 });
    expect(resumed.at(-1)).toMatchObject({ snapshotsDone: 2 });

    // Once complete, an open reads nothing for it (no index, no tree): its one step is "done".
    await page.reload();
    await unlock(page, PASSWORD);
    await expect(page.getByTestId('offline-cache-done')).toBeVisible();
    expect(await page.evaluate(() => window.fillLog)).toEqual([{ phase: 'done', indexFiles: 0, indexTotal: 0, snapshots: 2, snapshotsDone: 2, folders: 0 }]);
  } finally {
    await removeDir(work);
  }
});
