// Other ways in: files from an <input webkitdirectory> (the path without File System Access),
// a wrong password, a missing repository, and a cancelled backup that leaves the repository
// valid for restic and lets the next backup reuse what was already uploaded.

import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { digestDir, digests, materialize, sampleTree, type FileSpec } from './helpers/data';
import { expect, test } from './harness/s3';
import { openHarness } from './harness/open';

const PASSWORD = 'sources';

test('backs up the files of an <input webkitdirectory> and skips unchanged ones next time', async ({ page }) => {
  const tree = sampleTree(9);
  const dir = mkdtempSync(join(tmpdir(), 'cairn-e2e-wkd-'));
  try {
    await materialize(tree, join(dir, 'Pics'));
    await openHarness(page);
    await page.locator('#pick').setInputFiles(join(dir, 'Pics'));
    const run = () =>
      page.evaluate(async () => {
        const h = window.harness;
        const files = [...(document.getElementById('pick') as HTMLInputElement).files!];
        return h.engine.backup({ source: { kind: 'files', files, relativePaths: files.map((f) => f.webkitRelativePath) } });
      });
    const r = await page.evaluate((pw) => window.harness.engine.createRepository({ kind: 'opfs', name: 'wkd' }, pw), PASSWORD).then(run);
    expect(r.filesRead).toBe(tree.length);
    const again = await run();
    expect(again.parent).toBe(r.snapshotId);
    expect(again.filesRead).toBe(0);
    expect(again.summary.filesUnmodified).toBe(tree.length);
    const got = await page.evaluate(async (id) => {
      const h = window.harness;
      const snaps = await h.engine.listSnapshots();
      await h.engine.restoreToFolder(id, [], await h.opfsDir(['out']));
      return { paths: snaps.map((s) => s.paths), files: await h.digestOpfs(['out', 'Pics']) };
    }, again.snapshotId);
    expect(got.paths).toEqual([['/Pics'], ['/Pics']]);
    expect(got.files).toEqual(digests(tree));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a picked folder is listed with getFile() once per file: the progress scan and the walk share it', async ({ page }) => {
  // The scan (totals for the ETA) and the walk both list every directory; getFile() is a
  // request to the browser process, so the second listing takes the first one's sizes and
  // times and hands the savers the file's handle.
  const files = [
    ...Array.from({ length: 23 }, (_, i) => ({ path: `f${String(i).padStart(2, '0')}.bin`, size: 1000 + 37 * i, seed: 50 + i })),
    { path: 'sub/inner.txt', size: 300_000, seed: 99 },
  ];
  await openHarness(page);
  await page.evaluate((f) => window.harness.writeSeeded(['src', 'Shared'], f), files);
  const seq = await page.evaluate(() => window.harness.listTwice(['src', 'Shared'], false));
  expect(seq.calls).toBe(23);
  expect(seq.errors).toEqual([]);
  const [a, b] = seq.lists as [
    Array<{ name: string; type: string; size: number; mtime?: string; ref: string }>,
    Array<{ name: string; type: string; size: number; mtime?: string; ref: string }>,
  ];
  expect(a).toHaveLength(24);
  expect(a.filter((e) => e.type === 'file').map((e) => e.ref)).toEqual(Array(23).fill('file'));
  expect(b.filter((e) => e.type === 'file').map((e) => e.ref)).toEqual(Array(23).fill('handle'));
  expect(b.map(({ ref: _, ...e }) => e)).toEqual(a.map(({ ref: _, ...e }) => e));
  expect(a.find((e) => e.name === 'f05.bin')?.size).toBe(1000 + 37 * 5);
  // Listed at the same moment: still once per file.
  const together = await page.evaluate(() => window.harness.listTwice(['src', 'Shared'], true));
  expect(together.calls).toBe(23);
  expect(together.lists[1]).toEqual(together.lists[0].map((e) => (e.type === 'file' ? { ...e, ref: 'handle' } : e)));
  // Nothing shared past the limit: each listing asks for itself.
  const unshared = await page.evaluate(() => window.harness.listTwice(['src', 'Shared'], false, 0));
  expect(unshared.calls).toBe(46);
  expect(unshared.lists[1]).toEqual(unshared.lists[0]);
  // A backup reads the files through whichever ref it got, and restores them byte for byte.
  const got = await page.evaluate(async (pw) => {
    const h = window.harness;
    await h.engine.createRepository({ kind: 'opfs', name: 'shared-listing' }, pw);
    const src = async () => ({ source: { kind: 'handle' as const, handle: await h.opfsDir(['src', 'Shared']) } });
    const first = await h.engine.backup(
      await src(),
      h.proxy(() => {}),
    );
    const again = await h.engine.backup(
      await src(),
      h.proxy(() => {}),
    );
    await h.engine.restoreToFolder(first.snapshotId, [], await h.opfsDir(['out-shared']));
    return {
      read: first.filesRead,
      again: again.filesRead,
      unmodified: again.summary.filesUnmodified,
      src: await h.digestOpfs(['src', 'Shared']),
      out: await h.digestOpfs(['out-shared', 'Shared']),
    };
  }, PASSWORD);
  expect(got.read).toBe(24);
  expect(got.again).toBe(0);
  expect(got.unmodified).toBe(24);
  expect(Object.keys(got.out)).toHaveLength(24);
  expect(got.out).toEqual(got.src);
});

test('a wrong password and a missing repository have their own codes', async ({ page }) => {
  await openHarness(page);
  const codes = await page.evaluate(async (pw) => {
    const e = window.harness.engine;
    const code = (p: Promise<unknown>) =>
      p.then(
        () => 'ok',
        (x: { code: string }) => x.code,
      );
    await e.createRepository({ kind: 'opfs', name: 'locked' }, pw);
    await e.closeRepository();
    return {
      wrong: await code(e.openRepository({ kind: 'opfs', name: 'locked' }, 'guess')),
      missing: await code(e.openRepository({ kind: 'opfs', name: 'nothing-here' }, pw)),
      noRepo: await code(e.listSnapshots()),
      right: await code(e.openRepository({ kind: 'opfs', name: 'locked' }, pw)),
      twice: await code(e.createRepository({ kind: 'opfs', name: 'locked' }, pw)),
    };
  }, PASSWORD);
  expect(codes).toEqual({ wrong: 'WRONG_PASSWORD', missing: 'NOT_A_REPOSITORY', noRepo: 'NO_REPOSITORY', right: 'ok', twice: 'REPO_EXISTS' });
});

test('a cancelled backup leaves a valid repository and the next one reuses the uploaded data', async ({ page, s3 }) => {
  // 96 MiB of incompressible data in 96 files, cancelled at 26 MiB read: the packs stored,
  // uploading or half full at that moment are stored and indexed before the backup gives up.
  // (With 40 MiB, a backup at this stop's speed could pass 26 MiB and finish between two
  // progress reports.)
  const tree: FileSpec[] = Array.from({ length: 96 }, (_, i) => ({ path: `v/part-${String(i).padStart(2, '0')}.bin`, size: 1 << 20, seed: 1000 + i }));
  await openHarness(page);
  await page.evaluate((files) => window.harness.writeSeeded(['src', 'Big'], files), tree as { path: string; size: number; seed: number }[]);
  const cancelled = await page.evaluate(
    async ({ loc, pw }) => {
      const h = window.harness;
      await h.engine.createRepository(loc, pw);
      await h.engine.tune({ workers: 1 });
      let asked = false;
      const onProgress = h.proxy((p: { done: { bytes: number } }) => {
        if (!asked && p.done.bytes >= 26 << 20) {
          asked = true;
          void h.engine.cancel();
        }
      });
      return h.engine.backup({ source: { kind: 'handle', handle: await h.opfsDir(['src', 'Big']) } }, onProgress).then(
        () => 'finished',
        (e: { code: string }) => e.code,
      );
    },
    { loc: s3.location, pw: PASSWORD },
  );
  expect(cancelled).toBe('ABORTED');

  const env = s3.resticEnv(PASSWORD);
  const restic = (args: string[]) => execFileSync('restic', ['--no-cache', '-r', s3.repository, ...args], { env, encoding: 'utf8' });
  expect(restic(['check'])).toContain('no errors were found');
  expect(restic(['list', 'locks']).trim()).toBe('');
  const indexedBefore = restic(['list', 'blobs']).trim().split('\n').filter(Boolean).length;
  expect(indexedBefore).toBeGreaterThan(0);

  const second = await page.evaluate(async () => {
    const h = window.harness;
    await h.engine.tune({ workers: undefined });
    return h.engine.backup({ source: { kind: 'handle', handle: await h.opfsDir(['src', 'Big']) } });
  });
  expect(second.filesRead).toBe(tree.length);
  // ≥ 15 MiB stored before the cancel was reused: those blobs were not uploaded again.
  expect(second.summary.dataAdded).toBeLessThan(tree.length * (1 << 20) - (15 << 20));
  expect(restic(['check', '--read-data'])).toContain('no errors were found');
  const target = mkdtempSync(join(tmpdir(), 'cairn-e2e-cancel-'));
  try {
    restic(['restore', 'latest', '--target', target]);
    expect(await digestDir(join(target, 'Big'))).toEqual(digests(tree));
  } finally {
    rmSync(target, { recursive: true, force: true });
  }
});

test('a picked folder works as a repository in restic layout', async ({ page }) => {
  // An OPFS directory handle stands in for showDirectoryPicker's (headless Chromium cannot pick).
  await openHarness(page);
  const tree = sampleTree(11);
  await page.evaluate(
    (files) => window.harness.writeSeeded(['src', 'Folder'], files),
    tree.filter((f) => f.size).map((f) => ({ path: f.path, size: f.size!, seed: f.seed! })),
  );
  const got = await page.evaluate(async (pw) => {
    const h = window.harness;
    const loc = { kind: 'folder' as const, handle: await h.opfsDir(['External', 'restic-repo']), name: 'restic-repo' };
    await h.engine.createRepository(loc, pw);
    const r = await h.engine.backup({ source: { kind: 'handle', handle: await h.opfsDir(['src', 'Folder']) } });
    await h.engine.closeRepository();
    const info = await h.engine.openRepository({ ...loc, handle: await h.opfsDir(['External', 'restic-repo']) }, pw);
    const restored = await h.engine.restoreToFolder(r.snapshotId, ['Folder', 'photos'], await h.opfsDir(['back']));
    const layout = Object.keys(await h.digestOpfs(['External', 'restic-repo'])).map((p) =>
      p.replace(/[0-9a-f]{64}/g, 'ID').replace(/^data\/[0-9a-f]{2}\//, 'data/XX/'),
    );
    return { info, restored, files: await h.digestOpfs(['back', 'photos']), layout: [...new Set(layout)].sort() };
  }, PASSWORD);
  expect(got.info.location).toBe('folder:restic-repo');
  expect(got.info.snapshots).toBe(1);
  expect(got.restored.errors).toEqual([]);
  expect(got.files).toEqual(
    Object.fromEntries(
      Object.entries(digests(tree.filter((f) => f.size)))
        .filter(([p]) => p.startsWith('photos/'))
        .map(([p, d]) => [p.slice('photos/'.length), d]),
    ),
  );
  expect(got.layout).toEqual(['config', 'data/XX/ID', 'index/ID', 'keys/ID', 'snapshots/ID']);
});

// The folder-picker path hands the saver workers the File taken while listing (one round trip
// to the browser process less per file) and relies on this: once the file changes, that File
// refuses to be read (NotReadableError) rather than give old or mixed bytes, and the archiver
// reads the file afresh through its handle (core/archiver/archiver.ts, SourceEntry.reopen).
test('a File taken while listing refuses to be read once its file changed; a fresh one reads the new bytes', async ({ page }) => {
  await openHarness(page);
  const r = await page.evaluate(async () => {
    const dir = await (await navigator.storage.getDirectory()).getDirectoryHandle('stale-file-check', { create: true });
    const h = await dir.getFileHandle('a.txt', { create: true });
    const write = async (s: string) => {
      const w = await h.createWritable();
      await w.write(s);
      await w.close();
    };
    await write('first version');
    const listed = await h.getFile();
    await new Promise((res) => setTimeout(res, 20));
    await write('second, longer version');
    const stale = await listed.arrayBuffer().then(
      () => 'read',
      (e: Error) => e.name,
    );
    const fresh = await (await h.getFile()).text();
    return { stale, fresh };
  });
  expect(r).toEqual({ stale: 'NotReadableError', fresh: 'second, longer version' });
});

// The saver workers read small files opened together as one Blob of them all (one request to
// the browser process instead of one per file) and large ones through a BYOB reader
// (workers/source/file-reader.ts). If one of a batch changed since it was listed, the joint
// read fails: each file is then read alone, so only that one reports NotReadableError (and
// the archiver reads it afresh), while the others still get their own bytes.
test('files read together: a changed one fails alone, the others and a large one read right', async ({ page }) => {
  await openHarness(page);
  const r = await page.evaluate(async () => {
    const dir = await (await navigator.storage.getDirectory()).getDirectoryHandle('batch-read-check', { create: true });
    const hex = (b: ArrayBuffer) => Array.from(new Uint8Array(b), (x) => x.toString(16).padStart(2, '0')).join('');
    const put = async (name: string, data: Uint8Array) => {
      const h = await dir.getFileHandle(name, { create: true });
      const w = await h.createWritable();
      await w.write(data as Uint8Array<ArrayBuffer>);
      await w.close();
      return h;
    };
    const bytes = (n: number, seed: number) => {
      const out = new Uint8Array(n);
      let x = seed;
      for (let i = 0; i < n; i++) out[i] = x = ((x * 1103515245 + 12345) >>> 0) >>> 24;
      return out;
    };
    const datas = Array.from({ length: 30 }, (_, i) => bytes(500 + 311 * i, i + 1));
    datas.push(bytes((5 << 20) + 77, 99)); // a large file: streamed, not batched
    const handles = await Promise.all(datas.map((d, i) => put(`f${i}`, d)));
    const files = await Promise.all(handles.map((h) => h.getFile()));
    const want = await Promise.all(datas.map(async (d) => hex(await crypto.subtle.digest('SHA-256', d as Uint8Array<ArrayBuffer>))));
    const clean = await window.harness.readThroughSaverReader(files);
    await new Promise((res) => setTimeout(res, 20));
    await put('f7', new TextEncoder().encode('changed after listing'));
    const dirty = await window.harness.readThroughSaverReader(files);
    return { want, clean, dirty };
  });
  expect(r.clean).toEqual(r.want.map((sha) => ({ sha })));
  expect(r.dirty[7]).toEqual({ code: 'SOURCE_READ', domError: 'NotReadableError' });
  expect(r.dirty.filter((_, i) => i !== 7)).toEqual(r.want.filter((_, i) => i !== 7).map((sha) => ({ sha })));
});
