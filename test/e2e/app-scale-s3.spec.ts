// A home folder's scale in the page: 50 000 small files picked through <input webkitdirectory>
// (every browser has it) are backed up into a bucket (radosgw), browsed, searched and one of them
// downloaded byte-identical; the unchanged re-backup reads no file anew; restic 0.14 lists every
// file and checks the repository clean. Sizes, names and bytes are seeded, so a failure reproduces.

import { mkdtemp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ok, restic } from '../helpers/cli';
import { mulberry32, seededStream } from '../helpers/seeded';
import { expectUnlocked, fillPasswords, gotoTab, openApp, PASSWORD, readSummary } from './helpers/app';
import { sha256 } from './helpers/data';
import { expect, fillBucket, test } from './helpers/s3';

const FOLDERS = 125;
const PER_FOLDER = 400;
const FILES = FOLDERS * PER_FOLDER;
const folderName = (i: number) => (i % 25 === 7 ? `dossier ü ${i}` : `d${String(i).padStart(3, '0')}`);
const fileName = (i: number, j: number) => `f${j}-${i}.txt`;

/** Writes the tree; returns the bytes of one file to fetch back later. */
async function makeTree(root: string): Promise<Map<string, Buffer>> {
  const bytes = seededStream('app-scale');
  const size = mulberry32(42);
  const kept = new Map<string, Buffer>();
  for (let i = 0; i < FOLDERS; i++) {
    const dir = join(root, folderName(i));
    await mkdir(dir, { recursive: true });
    for (let j = 0; j < PER_FOLDER; j++) {
      const b = bytes(1 + Math.floor(size() * 200));
      await writeFile(join(dir, fileName(i, j)), b);
      if (i === 32 && j === 199) kept.set(`${folderName(i)}/${fileName(i, j)}`, b);
    }
  }
  return kept;
}

test('50 000 picked files: backed up, browsed, searched, one downloaded; unchanged again reads nothing new; restic lists and checks them', async ({
  page,
  s3repo,
}) => {
  test.setTimeout(900_000); // a hang guard for a loaded 2-core machine; the work is ~2 min here
  const dir = await mkdtemp(join(tmpdir(), 'cairn-e2e-scale-'));
  const home = join(dir, 'Home');
  try {
    const kept = await makeTree(home);
    // Without File System Access's picker, as in Firefox and Safari: the folder comes from <input webkitdirectory>.
    await page.addInitScript(() => delete (window as { showDirectoryPicker?: unknown }).showDirectoryPicker);
    await openApp(page);
    await fillBucket(page, s3repo);
    await fillPasswords(page, PASSWORD, true);
    await page.getByRole('button', { name: 'Create repository' }).click();
    await expectUnlocked(page);

    const backUp = async () => {
      await gotoTab(page, 'Back up');
      await page.getByLabel('Choose a folder to back up').setInputFiles(home);
      await expect(page.getByTestId('pending-folder')).toContainText(`“Home”: ${FILES} files`);
      await page.getByRole('button', { name: 'Back up “Home”' }).click();
    };
    await backUp();
    await expect(page.getByTestId('progress')).toBeVisible(); // progress shows while it runs
    await expect(page.getByTestId('backup-summary').or(page.getByRole('alert')).first()).toBeVisible({ timeout: 600_000 });
    const first = await readSummary(page);
    expect(first).toMatchObject({ filesNew: FILES, filesChanged: 0, filesUnmodified: 0 });

    // Browse: the snapshot, then one folder of 400.
    await gotoTab(page, 'Snapshots');
    await page
      .getByTestId('snapshot-list')
      .getByRole('link', { name: /Open snapshot/ })
      .click();
    await page.getByRole('link', { name: 'Home/' }).click();
    await expect(page.getByTestId('tree-list').locator('tbody tr')).toHaveCount(FOLDERS);
    const [[path, want]] = [...kept];
    await page.getByRole('link', { name: `${path.split('/')[0]}/` }).click();
    await expect(page.getByTestId('tree-list').locator('tbody tr')).toHaveCount(PER_FOLDER);
    await page.evaluate(() => navigator.serviceWorker.ready);
    const name = path.split('/')[1]!;
    const [dl] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: `Download ${name}`, exact: true }).click()]);
    expect(sha256(await readFile((await dl.path())!))).toBe(sha256(want));

    // Search by name across the snapshot: one hit, at its path.
    await gotoTab(page, 'Search');
    await page.getByLabel('File or folder name').fill(name);
    await page.getByRole('button', { name: 'Search' }).click();
    const hits = page.getByTestId('search-results').locator('tbody tr');
    await expect(hits).toHaveCount(1);
    await expect(hits.first()).toContainText(`/Home/${path}`);

    // The same folder again: every file is found unmodified through the parent snapshot.
    await backUp();
    await expect(page.getByTestId('backup-summary').getByTestId('snapshot-id')).not.toHaveText(first.snapshotShortId, { timeout: 600_000 });
    const again = await readSummary(page, first.snapshotShortId);
    expect(again).toMatchObject({ filesNew: 0, filesChanged: 0, filesUnmodified: FILES });

    // restic 0.14 sees every file of the newest snapshot and a clean repository.
    const env = s3repo.resticEnv(PASSWORD);
    const ls = await ok(restic(['-r', s3repo.repository, '--no-cache', 'ls', '--json', 'latest'], { env }));
    const nodes = ls.stdout
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { struct_type?: string; type?: string });
    expect(nodes.filter((n) => n.struct_type === 'node' && n.type === 'file')).toHaveLength(FILES);
    await ok(restic(['-r', s3repo.repository, '--no-cache', 'check'], { env }));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
