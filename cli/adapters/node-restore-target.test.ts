import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { nodeRestoreTarget } from './node-restore-target';

let dir: string;
beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'cairn-target-'));
});
afterEach(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

describe('nodeRestoreTarget', () => {
  it('replaces a symlink at a file path instead of writing through it', async () => {
    const outside = path.join(dir, 'outside.txt');
    await fs.writeFile(outside, 'keep me');
    await fs.mkdir(path.join(dir, 'root'));
    await fs.symlink(outside, path.join(dir, 'root', 'a'));
    await fs.symlink(path.join(dir, 'missing'), path.join(dir, 'root', 'b'));
    const t = nodeRestoreTarget(path.join(dir, 'root'));
    for (const name of ['a', 'b']) {
      const w = await t.createFile([name], 3);
      await w.write(0, new TextEncoder().encode('new'));
      await w.close();
      expect((await fs.lstat(path.join(dir, 'root', name))).isFile()).toBe(true);
      expect(await fs.readFile(path.join(dir, 'root', name), 'utf8')).toBe('new');
    }
    expect(await fs.readFile(outside, 'utf8')).toBe('keep me');
    await expect(fs.access(path.join(dir, 'missing'))).rejects.toThrow();
  });

  it('truncates an existing longer file', async () => {
    await fs.writeFile(path.join(dir, 'f'), 'a much longer old content');
    const t = nodeRestoreTarget(dir);
    const w = await t.createFile(['f'], 2);
    await w.write(0, new TextEncoder().encode('ok'));
    await w.close();
    expect(await fs.readFile(path.join(dir, 'f'), 'utf8')).toBe('ok');
  });

  it('writes blobs arriving out of order at their offsets, small and large files alike', async () => {
    const t = nodeRestoreTarget(dir);
    for (const size of [1000, 9 << 20]) {
      const data = new Uint8Array(size).map((_, i) => (i * 7) & 0xff);
      const half = Math.floor(size / 2);
      const w = await t.createFile(['f' + size], size);
      await w.write(half, data.subarray(half));
      await w.write(0, data.subarray(0, half));
      await w.close();
      const got = await fs.readFile(path.join(dir, 'f' + size));
      expect(got.length).toBe(size);
      expect(got.equals(data)).toBe(true);
    }
  });

  it('refuses to replace a directory with a file', async () => {
    await fs.mkdir(path.join(dir, 'd'));
    await fs.writeFile(path.join(dir, 'd', 'inner'), 'x');
    const t = nodeRestoreTarget(dir);
    await expect(t.createFile(['d'], 1)).rejects.toThrow();
    expect(await fs.readFile(path.join(dir, 'd', 'inner'), 'utf8')).toBe('x');
  });
});
