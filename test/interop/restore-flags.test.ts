// `cairn restore`'s restic 0.18 flags, judged by restic 0.14 where it has them (the pattern
// flags: the same files restored) and by the result on disk where it does not (--dry-run,
// --overwrite, --delete, --verify, snapshot:subfolder, --*-file patterns, JSON messages).

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdir, readFile, readdir, symlink, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { cairn, describeTree, jsonMessage, ok, removeDir, restic, tempDir, type TreeEntry } from '../helpers/cli';

/** Files and symlinks (folders aside: restic 0.14 leaves intermediate folders at 0700). */
async function entries(root: string): Promise<Map<string, TreeEntry>> {
  const all = await describeTree(root).catch(() => new Map<string, TreeEntry>());
  return new Map([...all].filter(([, e]) => e.type !== 'dir'));
}

describe('cairn restore flags', () => {
  let dir: string, src: string, repo: string, snap: string;
  let n = 0;
  const out = () => join(dir, `out${n++}`);

  beforeAll(async () => {
    dir = await tempDir('restore-flags');
    src = join(dir, 'src');
    repo = join(dir, 'repo');
    await mkdir(join(src, 'docs', 'Old'), { recursive: true });
    await mkdir(join(src, 'photos'), { recursive: true });
    await writeFile(join(src, 'docs', 'a.txt'), 'a\n');
    await writeFile(join(src, 'docs', 'B.TXT'), 'b\n');
    await writeFile(join(src, 'docs', 'Old', 'c.md'), 'c\n');
    await writeFile(join(src, 'photos', 'x.JPG'), 'x'.repeat(5000));
    await writeFile(join(src, 'photos', 'y.png'), 'y'.repeat(7000));
    await symlink('docs/a.txt', join(src, 'link'));
    await ok(cairn(['-r', repo, 'init']));
    snap = jsonMessage((await ok(cairn(['-r', repo, 'backup', '--json', src]))).stdout, 'summary').snapshot_id as string;
  }, 60_000);
  afterAll(() => removeDir(dir));

  it.each([
    [['--include', '/**/docs/*.txt']],
    [['--exclude', '*.md', '--exclude', 'photos']],
    [['--iinclude', '*.jpg']],
    [['--iexclude', '*.TXT']],
    [['--include', `${'/'}**/docs`, '--include', '!**/Old']],
  ])('%j restores what restic 0.14 restores', async (flags) => {
    const c = out(),
      r = out();
    await ok(cairn(['-r', repo, 'restore', snap, '--target', c, ...flags]));
    await ok(restic(['-r', repo, 'restore', snap, '--target', r, ...flags]));
    const got = await entries(c);
    expect(got.size).toBeGreaterThan(0);
    expect(got).toEqual(await entries(r));
  });

  it('--include-file and --iexclude-file read restic pattern files (comments, blank lines, $VARS)', async () => {
    const inc = join(dir, 'inc.txt');
    await writeFile(inc, '# documents only\n\n  /**/$KIND/*.txt  \n');
    const c = out();
    await ok(cairn(['-r', repo, 'restore', snap, '--target', c, '--include-file', inc], { env: { KIND: 'docs' } }));
    expect([...(await entries(c)).keys()].map((p) => p.slice(p.lastIndexOf('/') + 1))).toEqual(['a.txt']);
    const exc = join(dir, 'exc.txt');
    await writeFile(exc, '*.JPG\n*.txt\n');
    const e = out();
    await ok(cairn(['-r', repo, 'restore', snap, '--target', e, '--iexclude-file', exc]));
    expect([...(await entries(e)).keys()].map((p) => p.slice(p.lastIndexOf('/') + 1)).sort()).toEqual(['c.md', 'link', 'y.png']);
  });

  it.each([
    [['--include', 'a', '--exclude', 'b'], 'exclude and include patterns are mutually exclusive'],
    [['--dry-run', '--verify'], '--dry-run and --verify are mutually exclusive'],
    [['--include', '[x'], '--include: invalid pattern(s) provided: [x'], // (one coded line: errorLine folds the list)
    [['--overwrite', 'sometimes'], 'invalid overwrite behavior "sometimes", must be one of (always|if-changed|if-newer|never)'],
  ])('%j is refused', async (flags, message) => {
    const r = await cairn(['-r', repo, 'restore', snap, '--target', out(), ...flags]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(message);
  });

  it('needs --target, and refuses --target / --delete without a filter', async () => {
    expect((await cairn(['-r', repo, 'restore', snap])).stderr).toContain('please specify a directory to restore to (--target)');
    const r = await cairn(['-r', repo, 'restore', snap, '--target', '/', '--delete']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("'--target / --delete' must be combined with an include or exclude filter");
  });

  it('snapshot:subfolder restores into a target that does not exist yet, patterns relative to the subfolder', async () => {
    const t = join(out(), 'not', 'yet');
    await ok(cairn(['-r', repo, 'restore', `${snap}:${src}/docs`, '--target', t, '--exclude', '/Old']));
    const r = out();
    await ok(restic(['-r', repo, 'restore', snap, '--target', r]));
    const want = await describeTree(join(r, src, 'docs'));
    want.delete('Old');
    want.delete('Old/c.md');
    expect(await describeTree(t)).toEqual(want);
  });

  it('--dry-run -v lists what it would do and writes nothing; --json -v as verbose_status messages', async () => {
    const t = out();
    const r = await ok(cairn(['-r', repo, 'restore', snap, '--target', t, '--dry-run', '-v']));
    expect(r.stdout).toMatch(new RegExp(`^restored  ${src}/photos/y\\.png with size 6\\.836 KiB$`, 'm'));
    expect(r.stdout).toMatch(new RegExp(`^restored  ${src}/docs$`, 'm'));
    expect(r.stdout).toMatch(/^Summary: Restored \d+ files\/dirs \(\d+\.\d{3} KiB\) in \d+:\d\d$/m);
    await expect(readdir(t)).rejects.toThrow();
    const j = await ok(cairn(['-r', repo, 'restore', snap, '--target', t, '--dry-run', '-v', '--json']));
    const items = j.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((m) => m.message_type === 'verbose_status');
    expect(items).toContainEqual({ message_type: 'verbose_status', action: 'restored', item: `${src}/photos/y.png`, size: 7000 });
  });

  it('--overwrite: never keeps what is there, if-newer keeps what is newer, always (default) replaces only what differs', async () => {
    const t = out();
    await ok(cairn(['-r', repo, 'restore', snap, '--target', t]));
    const a = join(t, src, 'docs', 'a.txt'),
      b = join(t, src, 'docs', 'B.TXT');
    await writeFile(a, 'mine\n');
    await writeFile(b, 'also mine\n');
    await utimes(b, new Date(2000, 0, 1), new Date(2000, 0, 1)); // older than the snapshot
    await ok(cairn(['-r', repo, 'restore', snap, '--target', t, '--overwrite', 'never']));
    expect([await readFile(a, 'utf8'), await readFile(b, 'utf8')]).toEqual(['mine\n', 'also mine\n']);
    await ok(cairn(['-r', repo, 'restore', snap, '--target', t, '--overwrite', 'if-newer']));
    expect([await readFile(a, 'utf8'), await readFile(b, 'utf8')]).toEqual(['mine\n', 'b\n']);
    const s = jsonMessage((await ok(cairn(['-r', repo, 'restore', snap, '--target', t, '--json']))).stdout, 'summary');
    expect(await readFile(a, 'utf8')).toBe('a\n');
    // restic 0.18's summary: only a.txt written again, the other four files skipped as intact.
    expect(s).toEqual({
      message_type: 'summary',
      total_files: expect.any(Number),
      files_restored: expect.any(Number),
      files_skipped: 4,
      total_bytes: 2,
      bytes_restored: 2,
      bytes_skipped: 12_004,
    });
  });

  it('--delete removes what the snapshot does not hold, a symlink itself and not what it points to', async () => {
    const t = out();
    await ok(cairn(['-r', repo, 'restore', snap, '--target', t]));
    const outside = join(dir, 'outside');
    await mkdir(outside);
    await writeFile(join(outside, 'precious'), 'keep');
    await writeFile(join(t, src, 'docs', 'stray.txt'), 'x');
    await mkdir(join(t, src, 'photos', 'extra', 'deeper'), { recursive: true });
    await symlink(outside, join(t, src, 'photos', 'to-outside'));
    const r = await ok(cairn(['-r', repo, 'restore', snap, '--target', t, '--delete', '--dry-run', '-v']));
    expect(r.stdout).toContain(`deleted   ${src}/photos/to-outside`);
    expect(r.stdout).toMatch(/, deleted 4 files\/dirs$/m);
    await ok(cairn(['-r', repo, 'restore', snap, '--target', t, '--delete']));
    const rt = out();
    await ok(restic(['-r', repo, 'restore', snap, '--target', rt]));
    expect(await describeTree(join(t, src))).toEqual(await describeTree(join(rt, src)));
    expect(await readFile(join(outside, 'precious'), 'utf8')).toBe('keep');
  });

  it('--verify reads the files back and says so', async () => {
    const t = out();
    const r = await ok(cairn(['-r', repo, 'restore', snap, '--target', t, '--verify']));
    expect(r.stdout).toContain(`verifying files in ${t}\n`);
    expect(r.stdout).toMatch(new RegExp(`^finished verifying 5 files in ${t} \\(took \\d+(\\.\\d+)?m?s\\)$`, 'm'));
  });
});
