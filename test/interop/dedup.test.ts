// Interop (c): one repository, the same large files backed up by restic and then by cairn —
// cairn adds no new data blob (same Rabin chunker, same polynomial, same blob IDs); and the
// other way round, restic adds nothing after cairn.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cp, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { makeWeirdTree } from '../helpers/weird-tree';
import { cairn, jsonMessage, ok, removeDir, restic, tempDir } from '../helpers/cli';

async function dataBlobCount(repo: string): Promise<number> {
  const out = (await ok(restic(['-r', repo, 'list', 'blobs']))).stdout;
  return out.split('\n').filter((l) => l.startsWith('data ')).length;
}

describe('cross-tool deduplication', () => {
  let dir: string, big: string;

  beforeAll(async () => {
    dir = await tempDir('interop-c');
    const tree = join(dir, 'tree');
    await makeWeirdTree(tree);
    // The large files only: 8 MiB + 1, 20 MiB random, 20 MiB compressible, the 511/512 KiB ones.
    big = join(dir, 'big');
    await mkdir(big);
    await cp(join(tree, 'sizes'), join(big, 'sizes'), { recursive: true });
  }, 120_000);
  afterAll(() => removeDir(dir));

  it('cairn adds no data blob after restic backed up the same files', async () => {
    const repo = join(dir, 'restic-first');
    await ok(restic(['-r', repo, 'init']));
    await ok(restic(['-r', repo, 'backup', big]));
    const before = await dataBlobCount(repo);
    expect(before).toBeGreaterThan(8);
    // A copy elsewhere, so cairn has no parent snapshot and must read and chunk every byte.
    const copy = join(dir, 'copy1');
    await cp(big, copy, { recursive: true });
    const s = jsonMessage((await ok(cairn(['-r', repo, 'backup', '--json', copy]))).stdout, 'summary');
    expect(s.files_read).toBeGreaterThan(0);
    expect(s.data_blobs).toBe(0);
    expect(await dataBlobCount(repo)).toBe(before);
    expect((await restic(['-r', repo, 'check', '--read-data'])).code).toBe(0);
  });

  it('restic adds no data blob after cairn backed up the same files', async () => {
    const repo = join(dir, 'cairn-first');
    await ok(cairn(['-r', repo, 'init']));
    await ok(cairn(['-r', repo, 'backup', big]));
    const before = await dataBlobCount(repo);
    const copy = join(dir, 'copy2');
    await cp(big, copy, { recursive: true });
    const s = jsonMessage((await ok(restic(['-r', repo, 'backup', '--json', copy]))).stdout, 'summary');
    expect(s.data_blobs).toBe(0);
    expect(await dataBlobCount(repo)).toBe(before);
  });
});
