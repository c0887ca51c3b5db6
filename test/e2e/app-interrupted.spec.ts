// A backup into a bucket cut short by its tab: closed, or its renderer crashed. Nothing it
// did is lost: the packs it stored are taken up by the next backup (noted in IndexedDB before
// each upload, adopted by reading their headers) instead of being uploaded again, and the lock
// it left is removed as soon as the app opens the repository again, so restic's check sees
// neither a lock nor a pack outside the index.

import { join } from 'node:path';
import { listObjects } from '../helpers/s3-server';
import { ok, removeDir, restic, tempDir } from '../helpers/cli';
import { backupOpfsFolder, expectUnlocked, fillPasswords, gotoTab, openApp, PASSWORD, unlock } from './helpers/app';
import { digestDir } from './helpers/data';
import { opfsDigests, setPick, writeRandomFiles } from './helpers/opfs';
import { expect, fillBucket, test, type S3Repo } from './helpers/s3';

const SRC = ['e2e-src', 'Big'];
const FILES = 192;
const MiB = 1 << 20;

const stored = async (r: S3Repo, type: string) => listObjects(r.server, r.server.bucket, `${r.prefix}/${type}/`);

for (const how of ['closed', 'crashed'] as const) {
  test(`a backup whose tab was ${how}: the next one stores only what is missing, restic sees no lock and no stray pack`, async ({ context, page, s3repo }) => {
    await openApp(page);
    await writeRandomFiles(page, SRC, FILES, MiB);
    const source = await opfsDigests(page, SRC);
    await fillBucket(page, s3repo, { rememberKeys: true });
    await fillPasswords(page, PASSWORD, true);
    await page.getByRole('button', { name: 'Create repository' }).click();
    await expectUnlocked(page);

    await gotoTab(page, 'Back up');
    await setPick(page, 'source', SRC);
    await page.getByRole('button', { name: 'Choose folder…' }).click();
    await page.getByRole('button', { name: 'Back up “Big”', exact: true }).click();
    await expect(page.getByTestId('progress')).toBeVisible();
    // Cut it short once a pack is stored, long before the last.
    await expect.poll(async () => (await stored(s3repo, 'data')).length, { timeout: 60_000, intervals: [50] }).toBeGreaterThan(0);
    if (how === 'crashed') {
      const crash = page.waitForEvent('crash');
      void (await context.newCDPSession(page)).send('Page.crash').catch(() => {}); // answers never: the page is gone
      await crash;
    } else {
      await page.close();
    }
    // Uploads under way when the tab went are over (cut off or done) once the listing holds still.
    let last = '';
    await expect.poll(async () => last === (last = JSON.stringify(await stored(s3repo, 'data'))), { intervals: [500] }).toBe(true);
    const before = await stored(s3repo, 'data');
    expect(before.length).toBeLessThan(FILES / 16); // cut short indeed
    expect(await stored(s3repo, 'snapshots')).toEqual([]);
    expect(await stored(s3repo, 'index')).toEqual([]); // nothing indexed them: only the journal knows
    if (how === 'crashed') expect((await stored(s3repo, 'locks')).length).toBe(1);

    // The app again, in a new tab: opening the repository removes the dead tab's lock.
    const again = await context.newPage();
    await openApp(again);
    await unlock(again);
    await expectUnlocked(again);
    await expect.poll(async () => (await stored(s3repo, 'locks')).length).toBe(0);
    const env = s3repo.resticEnv(PASSWORD);
    await ok(restic(['-r', s3repo.repository, '--no-cache', 'check'], { env }));

    const counts = await backupOpfsFolder(again, SRC);
    expect(counts.filesNew).toBe(FILES);
    // Every pack stored before the cut is still there and now indexed; no data went up twice.
    const after = await stored(s3repo, 'data');
    for (const p of before) expect(after.map((o) => o.key)).toContain(p.key);
    const bytes = after.reduce((n, o) => n + o.size, 0);
    expect(bytes).toBeGreaterThan(FILES * MiB);
    expect(bytes).toBeLessThan(FILES * MiB + MiB);
    const check = await ok(restic(['-r', s3repo.repository, '--no-cache', 'check', '--read-data'], { env }));
    expect(check.stdout + check.stderr).not.toContain('not referenced in any index');
    expect(await stored(s3repo, 'locks')).toEqual([]);

    const target = await tempDir('cairn-e2e-interrupted');
    try {
      await ok(restic(['-r', s3repo.repository, '--no-cache', 'restore', 'latest', '--target', target], { env }));
      expect(await digestDir(join(target, 'Big'))).toEqual(source);
    } finally {
      await removeDir(target);
    }
  });
}
