// Interop (e): after touching 1 % of the files, a second cairn backup reads only those files
// (asserted by count), records the first snapshot as its parent, and restic agrees.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdir, writeFile, utimes } from 'node:fs/promises';
import { join } from 'node:path';
import { cairn, diffTrees, jsonMessage, ok, removeDir, restic, tempDir } from '../helpers/cli';

describe('incremental backup', () => {
  let dir: string, src: string, repo: string;
  const files: string[] = [];

  beforeAll(async () => {
    dir = await tempDir('interop-e');
    src = join(dir, 'src');
    repo = join(dir, 'repo');
    for (let d = 0; d < 10; d++) {
      await mkdir(join(src, `d${d}`), { recursive: true });
      for (let f = 0; f < 30; f++) {
        const p = join(src, `d${d}`, `f${f}.txt`);
        await writeFile(p, `file ${d}/${f}\n`.repeat(50 + f));
        await utimes(p, 1_600_000_000, 1_600_000_000);
        files.push(p);
      }
    }
    await ok(cairn(['-r', repo, 'init']));
  }, 60_000);
  afterAll(() => removeDir(dir));

  it('reads only the changed files and records the parent', async () => {
    const first = jsonMessage((await ok(cairn(['-r', repo, 'backup', '--json', src]))).stdout, 'summary');
    expect(first.files_read).toBe(300);
    expect(first.parent).toBeUndefined();

    // Touch 1 % of the files: 3 of 300 (new content and mtime).
    for (const p of [files[7]!, files[150]!, files[299]!]) {
      await writeFile(p, 'changed\n');
      await utimes(p, 1_700_000_000, 1_700_000_000);
    }
    const second = jsonMessage((await ok(cairn(['-r', repo, 'backup', '--json', src]))).stdout, 'summary');
    expect(second.files_read).toBe(3);
    expect(second.files_changed).toBe(3);
    expect(second.files_unmodified).toBe(297);
    expect(second.parent).toBe(first.snapshot_id);

    const sn = JSON.parse((await ok(restic(['-r', repo, 'cat', 'snapshot', second.snapshot_id as string]))).stdout) as { parent?: string };
    expect(sn.parent).toBe(first.snapshot_id);

    // An unchanged third run reads nothing; the result still restores completely.
    const third = jsonMessage((await ok(cairn(['-r', repo, 'backup', '--json', src]))).stdout, 'summary');
    expect(third.files_read).toBe(0);
    const target = join(dir, 'restore');
    await ok(restic(['-r', repo, 'restore', 'latest', '--target', target]));
    expect(await diffTrees(src, join(target, src))).toEqual([]);
  });

  it('re-reads everything with --force', async () => {
    const s = jsonMessage((await ok(cairn(['-r', repo, 'backup', '--json', '--force', src]))).stdout, 'summary');
    expect(s.files_read).toBe(300);
    expect(s.data_blobs).toBe(0);
  });
});
