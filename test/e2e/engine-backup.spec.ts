// The engine worker API in real Chromium: an OPFS repository, a backup of an injected OPFS
// folder through the Web Worker pool, a second backup that reads only what changed, browsing,
// restoring into a folder, and downloads (one file and a ZIP) through the service worker.

import { expect, test, type Page } from '@playwright/test';
import { readFile } from 'node:fs/promises';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { digests, sampleTree, sha256, bytesOf } from './helpers/data';
import { writeOpfsTree } from './helpers/opfs';

const PASSWORD = 'engine e2e password';

async function openHarness(page: Page): Promise<void> {
  await page.goto('/');
  await expect(page.locator('#status')).toHaveText('ready');
  await page.evaluate(() => window.harness.swReady());
}

test('backup to OPFS, incremental backup, browse, restore and download', async ({ page }) => {
  await openHarness(page);
  const tree = sampleTree(3);
  await writeOpfsTree(page, ['src', 'Docs'], tree);

  const info = await page.evaluate(async (pw) => {
    const h = window.harness;
    return h.engine.createRepository({ kind: 'opfs', name: 'e2e-backup' }, pw);
  }, PASSWORD);
  expect(info.location).toBe('opfs:e2e-backup');
  expect(info.snapshots).toBe(0);

  // First backup: every file is read by the file-saver workers.
  const first = await page.evaluate(async () => {
    const h = window.harness;
    const phases: string[] = [];
    const r = await h.engine.backup(
      { source: { kind: 'handle', handle: await h.opfsDir(['src', 'Docs']) }, tags: ['e2e'] },
      h.proxy((p: { phase: string }) => void phases.push(p.phase)),
    );
    return { r, phases };
  });
  expect(first.r.filesRead).toBe(tree.length);
  expect(first.r.summary.filesNew).toBe(tree.length);
  expect(first.r.warnings).toEqual([]);
  expect(first.phases).toContain('done');

  // Second backup: one file changed, one added; only those two are read.
  await writeOpfsTree(
    page,
    ['src', 'Docs'],
    [
      { path: 'notes/todo.md', text: '# To do\n\n- done\n' },
      { path: 'added.txt', text: 'new\n' },
    ],
  );
  const second = await page.evaluate(async () => {
    const h = window.harness;
    return h.engine.backup({ source: { kind: 'handle', handle: await h.opfsDir(['src', 'Docs']) } });
  });
  expect(second.parent).toBe(first.r.snapshotId);
  expect(second.filesRead).toBe(2);
  expect(second.summary.filesUnmodified).toBe(tree.length - 1);
  expect(second.summary.filesChanged).toBe(1);
  expect(second.summary.filesNew).toBe(1);

  // Browse.
  const browse = await page.evaluate(async (id) => {
    const e = window.harness.engine;
    return {
      snapshots: await e.listSnapshots(),
      root: await e.listDir(id, []),
      docs: await e.listDir(id, ['Docs']),
      search: await e.search('todo'),
      versions: await e.versions(['Docs', 'notes', 'todo.md']),
    };
  }, second.snapshotId);
  expect(browse.snapshots.map((s) => s.id)).toEqual([first.r.snapshotId, second.snapshotId]);
  expect(browse.snapshots[0]!.tags).toEqual(['e2e']);
  expect(browse.snapshots[1]!.paths).toEqual(['/Docs']);
  expect(browse.root.map((n) => n.name)).toEqual(['Docs']);
  expect(browse.docs.map((n) => n.name)).toEqual(['notes', 'photos', 'added.txt', 'readme.txt', 'ünïcode name.txt']);
  expect(browse.search.map((h) => [h.snapshotId, h.node.path.join('/')])).toEqual([
    [second.snapshotId, 'Docs/notes/todo.md'],
    [first.r.snapshotId, 'Docs/notes/todo.md'],
  ]);
  expect(browse.versions.map((v) => v.snapshotId)).toEqual([first.r.snapshotId, second.snapshotId]);
  const diff = await page.evaluate(([a, b]) => window.harness.engine.diff(a!, b!), [first.r.snapshotId, second.snapshotId]);
  expect(diff.map((d) => [d.change, d.path.join('/')])).toEqual([
    ['added', 'Docs/added.txt'],
    ['modified', 'Docs/notes/todo.md'],
  ]);

  // Restore the first snapshot into an OPFS folder: byte-identical.
  const restored = await page.evaluate(async (id) => {
    const h = window.harness;
    const r = await h.engine.restoreToFolder(id, [], await h.opfsDir(['restore-1']));
    return { r, files: await h.digestOpfs(['restore-1', 'Docs']) };
  }, first.r.snapshotId);
  expect(restored.r.errors).toEqual([]);
  expect(restored.files).toEqual(digests(tree));

  // Download one file through the service worker: streamed, byte-identical.
  const big = tree.find((f) => f.path === 'photos/big.bin')!;
  const [fileDl, fileRun] = await Promise.all([
    page.waitForEvent('download'),
    page.evaluate(async (id) => {
      const d = await window.harness.startDownload(id, ['Docs', 'photos', 'big.bin'], 'file');
      return { via: d.via, result: await d.result };
    }, second.snapshotId),
  ]);
  expect(fileDl.suggestedFilename()).toBe('big.bin');
  expect(fileRun).toEqual({ via: 'service-worker', result: { files: 1, dirs: 0, bytes: big.size, errors: [] } });
  const got = await readFile((await fileDl.path())!);
  expect(sha256(got)).toBe(sha256(bytesOf(big)));

  // showSaveFilePicker's handle (an OPFS file handle stands in): the file written by the worker.
  const saved = await page.evaluate(async (id) => {
    const h = window.harness;
    const dir = await h.opfsDir(['saved']);
    const r = await h.engine.saveToFile(id, ['Docs', 'photos', 'big.bin'], 'file', await dir.getFileHandle('big.bin', { create: true }));
    return { r, files: await h.digestOpfs(['saved']) };
  }, second.snapshotId);
  expect(saved.r.errors).toEqual([]);
  expect(saved.files).toEqual({ 'big.bin': sha256(bytesOf(big)) });

  // The whole second snapshot as a ZIP.
  const [zipDl] = await Promise.all([
    page.waitForEvent('download'),
    page.evaluate((id) => window.harness.startDownload(id, ['Docs'], 'zip').then((d) => d.via), second.snapshotId),
  ]);
  expect(zipDl.suggestedFilename()).toBe('Docs.zip');
  const dir = mkdtempSync(join(tmpdir(), 'cairn-e2e-zip-'));
  try {
    writeFileSync(join(dir, 'a.zip'), await readFile((await zipDl.path())!));
    const py =
      'import sys,zipfile,hashlib,json;z=zipfile.ZipFile(sys.argv[1]);print(json.dumps({i.filename:hashlib.sha256(z.read(i)).hexdigest() for i in z.infolist() if not i.is_dir()}))';
    const got = JSON.parse(execFileSync('/usr/bin/python3', ['-c', py, join(dir, 'a.zip')], { encoding: 'utf8' }));
    const expected = digests([
      ...tree.filter((f) => f.path !== 'notes/todo.md'),
      { path: 'notes/todo.md', text: '# To do\n\n- done\n' },
      { path: 'added.txt', text: 'new\n' },
    ]);
    expect(got).toEqual(Object.fromEntries(Object.entries(expected).map(([k, v]) => ['Docs/' + k, v])));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a file of 40 MiB downloads through the decode workers, streamed and byte-identical', async ({ page }) => {
  // From 32 MiB on, a single-file download reads pack ranges and decodes them in decode
  // workers (workers/engine/restore.ts, LARGE_FILE) instead of blob by blob in the engine.
  await openHarness(page);
  const tree = [{ path: 'huge.bin', size: 40 << 20, seed: 4242 }];
  await writeOpfsTree(page, ['src-huge', 'Big'], tree);
  const r = await page.evaluate(async (pw) => {
    const h = window.harness;
    await h.engine.createRepository({ kind: 'opfs', name: 'e2e-huge' }, pw);
    return h.engine.backup({ source: { kind: 'handle', handle: await h.opfsDir(['src-huge', 'Big']) } });
  }, PASSWORD);
  const [dl, run] = await Promise.all([
    page.waitForEvent('download'),
    page.evaluate(async (id) => {
      const d = await window.harness.startDownload(id, ['Big', 'huge.bin'], 'file');
      return { via: d.via, result: await d.result };
    }, r.snapshotId),
  ]);
  expect(run).toEqual({ via: 'service-worker', result: { files: 1, dirs: 0, bytes: 40 << 20, errors: [] } });
  expect(sha256(await readFile((await dl.path())!))).toBe(sha256(bytesOf(tree[0]!)));
});
