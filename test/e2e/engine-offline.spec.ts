// Offline: a bucket repository is opened once online (which fills the IndexedDB cache with
// ciphertext), then the browser goes offline and the page reloads from the service worker's
// precache. Unlocking, listing, browsing, search and diff still work; reading file contents
// says it needs the network. A remembered repository lists its snapshots well under 300 ms.

import { sampleTree } from './helpers/data';
import { writeOpfsTree } from './helpers/opfs';
import { expect, test } from './harness/s3';
import { openHarness } from './harness/open';
import { cachedTrees } from './helpers/tools';
import { timeLimit } from '../helpers/time-limit';

const PASSWORD = 'offline please';

test('unlock, list, browse, search and diff a bucket repository offline', async ({ page, context, s3 }) => {
  await openHarness(page);
  await page.evaluate(() => window.harness.swReady());
  await writeOpfsTree(page, ['src', 'Work'], sampleTree(8));
  const online = await page.evaluate(
    async ({ loc, pw }) => {
      const h = window.harness;
      await h.engine.createRepository(loc, pw, { remember: true });
      const a = await h.engine.backup({ source: { kind: 'handle', handle: await h.opfsDir(['src', 'Work']) } });
      const f = await (await (await h.opfsDir(['src', 'Work', 'notes'])).getFileHandle('todo.md')).createWritable();
      await f.write('changed\n');
      await f.close();
      const b = await h.engine.backup({ source: { kind: 'handle', handle: await h.opfsDir(['src', 'Work']) } });
      const warmed = await h.engine.prepareOffline();
      return {
        warmed,
        snapshots: await h.engine.listSnapshots(),
        dir: await h.engine.listDir(b.snapshotId, ['Work', 'notes']),
        search: await h.engine.search('leaf'),
        diff: await h.engine.diff(a.snapshotId, b.snapshotId),
      };
    },
    { loc: s3.location, pw: PASSWORD },
  );
  expect(online.warmed).toMatchObject({ phase: 'done', snapshots: 2, snapshotsDone: 2 });
  expect(await cachedTrees(page)).toBeGreaterThanOrEqual(5);
  expect(online.snapshots).toHaveLength(2);
  expect(online.diff.map((d) => [d.change, d.path.join('/')])).toEqual([['modified', 'Work/notes/todo.md']]);

  await context.setOffline(true);
  await page.reload();
  await expect(page.locator('#status')).toHaveText('ready');

  const offline = await page.evaluate(
    async ({ loc, pw, ids }) => {
      const h = window.harness;
      const info = await h.engine.openRepository(loc, pw);
      const err = (p: Promise<unknown>) =>
        p.then(
          () => 'no error',
          (e: { code: string }) => e.code,
        );
      return {
        onLine: navigator.onLine,
        info,
        snapshots: await h.engine.listSnapshots(),
        dir: await h.engine.listDir(ids[1]!, ['Work', 'notes']),
        search: await h.engine.search('leaf'),
        diff: await h.engine.diff(ids[0]!, ids[1]!),
        restore: await err(h.engine.restoreToFolder(ids[1]!, [], await h.opfsDir(['nope']))),
        download: await err(h.engine.download(ids[1]!, ['Work', 'readme.txt'], 'file')),
        backup: await err(h.opfsDir(['src', 'Work']).then((handle) => h.engine.backup({ source: { kind: 'handle', handle } }))),
      };
    },
    { loc: s3.location, pw: PASSWORD, ids: online.snapshots.map((s) => s.id) },
  );
  expect(offline.onLine).toBe(false);
  expect(offline.info.offline).toBe(true);
  expect(offline.snapshots).toEqual(online.snapshots);
  expect(offline.dir).toEqual(online.dir);
  expect(offline.search).toEqual(online.search);
  expect(offline.diff).toEqual(online.diff);
  expect(offline).toMatchObject({ restore: 'NEEDS_NETWORK', download: 'NEEDS_NETWORK', backup: 'NEEDS_NETWORK' });

  // A wrong password is still told apart offline (the key files are cached).
  const wrong = await page.evaluate(
    (loc) =>
      window.harness.engine.openRepository(loc, 'not it').then(
        () => 'opened',
        (e: { code: string }) => e.code,
      ),
    s3.location,
  );
  expect(wrong).toBe('WRONG_PASSWORD');

  // Remembered on this device: from a fresh page to a listed snapshot without the password.
  await page.reload();
  await expect(page.locator('#status')).toHaveText('ready');
  const fast = await page.evaluate(async (loc) => {
    const h = window.harness;
    const t0 = performance.now();
    await h.engine.unlockRemembered({ ...loc, auth: { type: 'remembered' } });
    const list = await h.engine.listSnapshots();
    return { ms: performance.now() - t0, n: list.length, sinceLoad: performance.now() };
  }, s3.location);
  expect(fast.n).toBe(2);
  console.log(`offline remembered unlock + snapshot list: ${fast.ms.toFixed(0)} ms (${fast.sinceLoad.toFixed(0)} ms after navigation start)`);
  // The budget is 300 ms on an idle machine (CAIRN_TEST_TIME_SCALE=0.15 checks it); the default
  // limit only catches a stray network wait or KDF run.
  expect(fast.ms).toBeLessThan(timeLimit(2000));
});

test('a backup leaves its snapshot in the offline cache: warming reads nothing back, and offline right away it browses', async ({ page, context, s3 }) => {
  await openHarness(page);
  await page.evaluate(() => window.harness.swReady());
  await writeOpfsTree(page, ['src', 'Right'], sampleTree(9));
  const online = await page.evaluate(
    async ({ loc, pw }) => {
      const h = window.harness;
      await h.engine.createRepository(loc, pw, { remember: true });
      const before = await h.engine.stats();
      const b = await h.engine.backup({ source: { kind: 'handle', handle: await h.opfsDir(['src', 'Right']) } });
      const warmed = await h.engine.prepareOffline();
      const after = await h.engine.stats();
      return { id: b.snapshotId, warmed, misses: after.cacheMisses - before.cacheMisses, dir: await h.engine.listDir(b.snapshotId, ['Right', 'notes']) };
    },
    { loc: s3.location, pw: PASSWORD },
  );
  expect(online.warmed).toMatchObject({ phase: 'done', snapshots: 1, snapshotsDone: 1 });
  expect(await cachedTrees(page)).toBeGreaterThanOrEqual(4);
  expect(online.misses).toBe(0); // every tree (and the snapshot file) came from the cache

  await context.setOffline(true);
  await page.reload();
  await expect(page.locator('#status')).toHaveText('ready');
  const offline = await page.evaluate(
    async ({ loc, id }) => {
      const h = window.harness;
      await h.engine.unlockRemembered({ ...loc, auth: { type: 'remembered' } });
      return { snapshots: (await h.engine.listSnapshots()).map((s) => s.id), dir: await h.engine.listDir(id, ['Right', 'notes']) };
    },
    { loc: s3.location, id: online.id },
  );
  expect(offline.snapshots).toEqual([online.id]);
  expect(offline.dir).toEqual(online.dir);
});
