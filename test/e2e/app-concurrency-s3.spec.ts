// Five writers into one bucket repository at the same moment: a tab of the app, two cairn CLIs
// and two restic processes back up the same files. All five snapshots are there (the tab's
// with its host name), every one restores byte-identical with restic 0.14, `restic check
// --read-data` is clean, and the data is deduplicated wherever a writer could know of it:
// writers that start together cannot see each other's blobs (no index lists them yet), so each
// may store its own copy — at most one per writer — while a backup after them, by any of the
// three, adds no data blob at all. (test/bad-input/concurrency.test.ts runs the four processes
// into a local folder too; a tab cannot join there, see README "Several writers at once".)

import type { Page } from '@playwright/test';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { cairn, jsonMessage, ok, removeDir, restic, ROOT, tempDir } from '../helpers/cli';
import { expectUnlocked, fillPasswords, gotoTab, openApp, PASSWORD, readSummary } from './helpers/app';
import { digestDir, digests, materialize, type FileSpec } from './helpers/data';
import { setPick, writeOpfsTree } from './helpers/opfs';
import { expect, fillBucket, test, type S3Repo } from './helpers/s3';

const MiB = 1 << 20;
const SRC = ['e2e-src', 'Documents'];
const TAB_HOST = 'app-tab';

/** Four 2 MiB random files (one to four chunks each) and twenty small ones, the same bytes on disk and in OPFS. */
const TREE: FileSpec[] = [
  ...[0, 1, 2, 3].map((i) => ({ path: `f${i}.bin`, size: 2 * MiB, seed: 101 + i })),
  ...Array.from({ length: 20 }, (_, i) => ({ path: `sub/small${i}.txt`, text: `small file ${i}\n`.repeat(50 + i) })),
];

interface Listed {
  id: string;
  time: string;
  hostname: string;
  paths: string[];
}

/** Data blob entries in the index (duplicates counted) and distinct data blobs. */
async function dataBlobs(r: S3Repo): Promise<{ entries: number; unique: number }> {
  const out = await ok(restic(['--no-cache', '-r', r.repository, 'list', 'blobs'], { env: r.resticEnv(PASSWORD) }));
  const lines = out.stdout.split('\n').filter((l) => l.startsWith('data '));
  return { entries: lines.length, unique: new Set(lines).size };
}

/** Sets the host name new snapshots of this browser carry (from any view; returns to Back up). */
async function setHostName(page: Page, name: string): Promise<void> {
  await page.getByRole('link', { name: 'Settings' }).click();
  await page.getByLabel('Host name of this browser').fill(name);
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByRole('status').filter({ hasText: `New snapshots will carry “${name}”` })).toBeVisible();
}

/** Chooses the OPFS folder SRC on the Back up view, ready for its "Back up" button. */
async function chooseSource(page: Page): Promise<void> {
  await gotoTab(page, 'Back up');
  await setPick(page, 'source', SRC);
  await page.getByRole('button', { name: 'Choose folder…' }).click();
  await expect(page.getByTestId('pending-folder')).toContainText(SRC.at(-1)!);
}

test.beforeAll(() => {
  // The CLI under test is the bundle (a no-op when it is newer than its sources).
  execFileSync(process.execPath, [join(ROOT, 'scripts/build-cli.mjs'), '--quiet'], { cwd: ROOT, stdio: 'inherit' });
});

test('a tab, two cairn CLIs and two restic processes back up into one bucket at once: all valid, restic restores each, data deduplicated', async ({
  page,
  s3repo,
}) => {
  const env = s3repo.resticEnv(PASSWORD);
  const repo = s3repo.repository;
  const work = await tempDir('cairn-e2e-concurrency');
  try {
    const src = join(work, 'src');
    await materialize(TREE, src);
    await ok(cairn(['-r', repo, 'init'], { env }));

    await openApp(page);
    await writeOpfsTree(page, SRC, TREE);
    await setHostName(page, TAB_HOST);
    await page.goto('/');
    await page.getByLabel('Open an existing one').check();
    await fillBucket(page, s3repo);
    await fillPasswords(page, PASSWORD, false);
    await page.getByRole('button', { name: 'Open repository' }).click();
    await expectUnlocked(page);
    await chooseSource(page);

    // All five start now: the tab first (a click takes longer to reach its engine than a spawn
    // to start), the four processes the moment the click is delivered. restic's uploads are held
    // to 1 MiB/s, so its backups (each its own copy of the 8 MiB: nothing is indexed yet) last at
    // least 8 s, longer than the tab needs to start, and longer still on a busy machine.
    await page.getByRole('button', { name: `Back up “${SRC.at(-1)}”`, exact: true }).click();
    const t0 = Date.now();
    const ended: Record<string, number> = {};
    const timed = <T>(name: string, p: Promise<T>) => p.then((r) => ((ended[name] = Date.now() - t0), r));
    const runs = [
      timed('cairn-1', cairn(['-r', repo, 'backup', '--json', '--host', 'cairn-1', src], { env })),
      timed('cairn-2', cairn(['-r', repo, 'backup', '--json', '--host', 'cairn-2', src], { env })),
      timed('restic-1', restic(['--no-cache', '-r', repo, '--limit-upload', '1024', 'backup', '--json', '--host', 'restic-1', src], { env })),
      timed('restic-2', restic(['--no-cache', '-r', repo, '--limit-upload', '1024', 'backup', '--json', '--host', 'restic-2', src], { env })),
    ];
    const [tab, ...done] = await Promise.all([timed(TAB_HOST, readSummary(page)), ...runs]);
    for (const r of done) expect(r.code, r.stderr).toBe(0);
    expect(tab.filesNew).toBe(TREE.length);
    // Each writer removed its lock.
    expect((await ok(restic(['--no-cache', '-r', repo, '--no-lock', 'list', 'locks'], { env }))).stdout.trim()).toBe('');

    const list = JSON.parse((await ok(restic(['--no-cache', '-r', repo, 'snapshots', '--json'], { env }))).stdout) as Listed[];
    expect(list.map((s) => s.hostname).sort()).toEqual([TAB_HOST, 'cairn-1', 'cairn-2', 'restic-1', 'restic-2']);
    expect(list.find((s) => s.hostname === TAB_HOST)!.paths).toEqual(['/' + SRC.at(-1)]);
    expect(list.find((s) => s.hostname === TAB_HOST)!.id.slice(0, 8)).toBe(tab.snapshotShortId);
    // They ran at once: the tab (its snapshot's time: clicking only sends the request) started
    // before any of the five had finished; the processes started at t0. (The snapshot times of
    // the processes are annotated too: restic's is its start, cairn's that of its archiver.)
    const started = Object.fromEntries(list.map((s) => [s.hostname, Date.parse(s.time) - t0]));
    const timeline = JSON.stringify({ started, ended });
    test.info().annotations.push({ type: 'timeline (ms after the spawns)', description: timeline });
    // restic's two runs are held to 1 MiB/s of uploads (8 MiB each, ≥ 8 s): a load on the machine
    // can only make them longer, so the overlap does not rest on how fast the cairn processes are.
    expect(started[TAB_HOST], timeline).toBeLessThan(Math.min(ended['restic-1']!, ended['restic-2']!));

    const check = await restic(['--no-cache', '-r', repo, 'check', '--read-data'], { env });
    expect(check.stdout, check.stderr).toContain('no errors were found');
    expect(check.code).toBe(0);

    // restic 0.14 restores each of the five byte-identical.
    const expected = digests(TREE);
    for (const s of list) {
      const target = join(work, `restore-${s.hostname}`);
      await ok(restic(['--no-cache', '-r', repo, 'restore', s.id, '--target', target], { env }));
      expect(await digestDir(join(target, s.paths[0]!)), s.hostname).toEqual(expected);
    }

    const blobs = await dataBlobs(s3repo);
    // Every distinct blob is there (the 20 small files alone are 20), at most once per writer.
    expect(blobs.unique).toBeGreaterThanOrEqual(24);
    expect(blobs.entries).toBeLessThanOrEqual(5 * blobs.unique);
    test.info().annotations.push({ type: 'data blobs', description: JSON.stringify(blobs) });

    // Once the five are indexed, a backup by each kind of writer that reads every file adds no data blob.
    const again = jsonMessage((await ok(cairn(['-r', repo, 'backup', '--json', '--force', '--host', 'cairn-3', src], { env }))).stdout, 'summary');
    expect(again.data_blobs).toBe(0);
    const againRestic = jsonMessage(
      (await ok(restic(['--no-cache', '-r', repo, 'backup', '--json', '--force', '--host', 'restic-3', src], { env }))).stdout,
      'summary',
    );
    expect(againRestic.data_blobs).toBe(0);
    // The tab under a new host name has no parent snapshot, so it reads every file again.
    await setHostName(page, `${TAB_HOST}-2`);
    await chooseSource(page);
    await page.getByRole('button', { name: `Back up “${SRC.at(-1)}”`, exact: true }).click();
    const tabAgain = await readSummary(page, tab.snapshotShortId);
    expect(tabAgain.filesNew).toBe(TREE.length);
    expect(await dataBlobs(s3repo)).toEqual(blobs);
    await ok(restic(['--no-cache', '-r', repo, 'check'], { env }));
  } finally {
    await removeDir(work);
  }
});
