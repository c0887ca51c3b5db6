// restic interop on awkward trees, in the browser: restic's backup of the weird tree (names that
// stress escaping, one that is not UTF-8, sizes at the chunker's limits, empty files and
// folders, a symlink) restores into a picked folder with every name the browser's file system
// can hold, the others reported by name, and its ZIP holds every file byte-identical; the same
// tree picked through <input webkitdirectory> and backed up by the browser, restic restores
// under the files' names; and what the browser backs up, restic deduplicates against: its
// backup of the same bytes from disk adds no data blob.

import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeWeirdTree, WEIRD_NAMES } from '../helpers/weird-tree';
import { digestDir, digests, materialize, sha256, type FileSpec } from './helpers/data';
import { expect, test } from './harness/s3';
import { openHarness, restic } from './harness/open';

const PASSWORD = 'weird interop';
const KiB = 1024;
const MiB = 1024 * KiB;

/** Every entry of a ZIP (path → SHA-256, symlinks → their target), read by Python's zipfile. */
function zipDigests(bytes: Uint8Array): Record<string, string> {
  const dir = mkdtempSync(join(tmpdir(), 'cairn-e2e-weird-zip-'));
  try {
    writeFileSync(join(dir, 'a.zip'), bytes);
    const py = [
      'import sys,zipfile,hashlib,json,stat',
      'z=zipfile.ZipFile(sys.argv[1]);out={}',
      'for i in z.infolist():',
      '  if i.is_dir(): continue',
      '  d=z.read(i)',
      "  out[i.filename]=('-> '+d.decode()) if stat.S_ISLNK(i.external_attr>>16) else hashlib.sha256(d).hexdigest()",
      'print(json.dumps(out))',
    ].join('\n');
    return JSON.parse(execFileSync('/usr/bin/python3', ['-c', py, join(dir, 'a.zip')], { encoding: 'utf8', maxBuffer: 16 * MiB }));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('restic’s backup of the weird tree: the browser restores what its file system can name, and the ZIP holds every file', async ({ page, s3 }) => {
  const work = mkdtempSync(join(tmpdir(), 'cairn-e2e-weird-'));
  try {
    const src = join(work, 'Weird');
    const tree = await makeWeirdTree(src, { scale: 1 / 4, invalidUtf8: true });
    // Regular files by their exact paths (digestDir would read a backslash as a separator); a
    // name that is not UTF-8 is stored by restic with U+FFFD for each bad byte (Go's JSON).
    const want = Object.fromEntries(await Promise.all(tree.files.map(async (f) => [f.path, sha256(await readFile(join(src, f.path)))] as const)));
    for (const f of tree.rawFiles) want[new TextDecoder().decode(f.path)] = sha256(await readFile(Buffer.concat([Buffer.from(src + '/'), f.path])));
    const env = s3.resticEnv(PASSWORD);
    restic(['-r', s3.repository, 'init'], env);
    restic(['-r', s3.repository, 'backup', src], env);

    await openHarness(page);
    const comps = src.split('/').filter(Boolean);
    const got = await page.evaluate(
      async ({ loc, pw, comps }) => {
        const h = window.harness;
        await h.engine.openRepository(loc, pw);
        const [snap] = await h.engine.listSnapshots();
        const r = await h.engine.restoreToFolder(snap!.id, comps, await h.opfsDir(['weird-restore']));
        return { id: snap!.id, r, files: await h.digestOpfs(['weird-restore', 'Weird']) };
      },
      { loc: s3.location, pw: PASSWORD, comps },
    );
    // What failed: the symlink (browsers cannot make one), and the names with a backslash, which
    // Chromium refuses (a folder of that name once, the file in it not attempted).
    const failed = Object.fromEntries(got.r.errors.map((e) => [e.path.slice('/Weird/'.length), e.code]));
    expect(failed).toEqual({ [tree.symlinks[0]!.path]: 'USAGE', 'names/back\\slash': 'NAME_NOT_ALLOWED', 'names/dir "quoted" \\ <&>': 'NAME_NOT_ALLOWED' });
    const restorable = Object.fromEntries(Object.entries(want).filter(([p]) => !p.includes('\\')));
    expect(Object.keys(restorable).length).toBe(tree.files.length + tree.rawFiles.length - 2);
    expect(got.files).toEqual(restorable);
    expect(got.r.files).toBe(tree.files.length + tree.rawFiles.length - 2);

    // The ZIP has no such limits: every file, and the symlink as one.
    await page.evaluate(() => window.harness.swReady());
    const [dl] = await Promise.all([
      page.waitForEvent('download'),
      page.evaluate(({ id, comps }) => window.harness.startDownload(id, comps, 'zip').then((d) => d.result), { id: got.id, comps }),
    ]);
    const entries = zipDigests(await readFile((await dl.path())!));
    const expected: Record<string, string> = Object.fromEntries(Object.entries(want).map(([p, d]) => [`Weird/${p}`, d]));
    for (const l of tree.symlinks) expected[`Weird/${l.path}`] = `-> ${l.target}`;
    expect(entries).toEqual(expected);
    expect(WEIRD_NAMES.every((n) => `Weird/names/${n}` in entries)).toBe(true);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});

test('restic deduplicates against what the browser backed up: the same bytes from disk add no data blob', async ({ page, s3 }) => {
  // Sizes at the chunker's limits (512 KiB minimum, 8 MiB maximum chunk), several chunks, empty.
  const files: FileSpec[] = [
    { path: 'sizes/0-bytes', size: 0, seed: 1 },
    { path: 'sizes/1-byte', size: 1, seed: 2 },
    { path: 'sizes/511-KiB', size: 511 * KiB, seed: 3 },
    { path: 'sizes/512-KiB', size: 512 * KiB, seed: 4 },
    { path: 'sizes/8-MiB-plus-1', size: 8 * MiB + 1, seed: 5 },
    { path: 'sizes/13-MiB', size: 13 * MiB + 777, seed: 6 },
    { path: 'names/with space ünïcode 日本語 🧋', size: 3000, seed: 7 },
    { path: 'names/new\nline & "quote"', size: 4000, seed: 8 },
  ];
  await openHarness(page);
  const r = await page.evaluate(
    async ({ loc, pw, files }) => {
      const h = window.harness;
      await h.writeSeeded(
        ['dedup-src', 'Same'],
        files.map((f) => ({ path: f.path, size: f.size!, seed: f.seed! })),
      );
      await h.engine.createRepository(loc, pw);
      return h.engine.backup({ source: { kind: 'handle', handle: await h.opfsDir(['dedup-src', 'Same']) } });
    },
    { loc: s3.location, pw: PASSWORD, files },
  );
  expect(r.filesRead).toBe(files.length);

  const env = s3.resticEnv(PASSWORD);
  const work = mkdtempSync(join(tmpdir(), 'cairn-e2e-dedup-'));
  try {
    await materialize(files, join(work, 'Same'));
    const out = restic(['-r', s3.repository, 'backup', '--json', join(work, 'Same')], env);
    const summary = out
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { message_type: string; data_blobs?: number; files_new?: number })
      .find((m) => m.message_type === 'summary')!;
    expect(summary.files_new).toBe(files.length);
    expect(summary.data_blobs).toBe(0);
    expect(restic(['-r', s3.repository, 'check', '--read-data'], env)).toContain('no errors were found');
    const target = join(work, 'restored');
    restic(['-r', s3.repository, 'restore', r.snapshotId, '--target', target], env);
    expect(await digestDir(join(target, 'Same'))).toEqual(digests(files));
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});

test('the weird tree picked with <input webkitdirectory> into the bucket: restic restores its files under their names', async ({ page, s3 }) => {
  const work = mkdtempSync(join(tmpdir(), 'cairn-e2e-weird-pick-'));
  try {
    const src = join(work, 'Picked');
    const tree = await makeWeirdTree(src, { scale: 1 / 8 });
    await openHarness(page);
    await page.locator('#pick').setInputFiles(src);
    const r = await page.evaluate(
      async ({ loc, pw }) => {
        const h = window.harness;
        await h.engine.createRepository(loc, pw);
        const files = [...(document.getElementById('pick') as HTMLInputElement).files!];
        return h.engine.backup({ source: { kind: 'files', files, relativePaths: files.map((f) => f.webkitRelativePath) } });
      },
      { loc: s3.location, pw: PASSWORD },
    );
    const env = s3.resticEnv(PASSWORD);
    expect(restic(['-r', s3.repository, 'check', '--read-data'], env)).toContain('no errors were found');
    const target = join(work, 'restored');
    restic(['-r', s3.repository, 'restore', r.snapshotId, '--target', target], env);
    // Chromium writes a backslash in webkitRelativePath as "/": a file's own name is taken whole
    // from File.name, but a folder named with one ('dir "quoted" \ <&>') comes split in two.
    const exact = tree.files.filter((f) => !f.path.slice(0, f.path.lastIndexOf('/')).includes('\\'));
    expect(exact.length).toBe(tree.files.length - 1);
    for (const f of exact) expect(sha256(await readFile(join(target, 'Picked', f.path))), f.path).toBe(sha256(await readFile(join(src, f.path))));
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});
