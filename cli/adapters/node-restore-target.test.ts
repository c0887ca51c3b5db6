import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
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

  it('a name or a path too long for the file system is NAME_NOT_ALLOWED, not an internal error', async () => {
    const t = nodeRestoreTarget(path.join(dir, 'root'));
    const long = 'n'.repeat(300); // NAME_MAX is 255
    const deep = Array<string>(2100).fill('d'); // 4200 characters: past PATH_MAX
    const refused = expect.objectContaining({ code: 'NAME_NOT_ALLOWED', message: expect.stringContaining('ENAMETOOLONG') });
    await expect(t.mkdir([long])).rejects.toEqual(refused);
    await expect(t.createFile([long], 1)).rejects.toEqual(refused);
    await expect(t.symlink([long], 'x')).rejects.toEqual(refused);
    await expect(t.mkdir(deep)).rejects.toEqual(refused);
    expect(await fs.readdir(dir)).toEqual(['root']);
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

  it('replaces a hard-linked file instead of writing into the inode its other names share', async () => {
    await fs.writeFile(path.join(dir, 'other-name'), 'theirs');
    await fs.link(path.join(dir, 'other-name'), path.join(dir, 'f'));
    const t = nodeRestoreTarget(dir);
    const w = await t.createFile(['f'], 4);
    await w.write(0, new TextEncoder().encode('mine'));
    await w.close();
    expect(await fs.readFile(path.join(dir, 'f'), 'utf8')).toBe('mine');
    expect(await fs.readFile(path.join(dir, 'other-name'), 'utf8')).toBe('theirs');
  });

  it('replaces a fifo where a file goes without blocking on it', async () => {
    execFileSync('mkfifo', [path.join(dir, 'pipe')]);
    const t = nodeRestoreTarget(dir);
    const w = await t.createFile(['pipe'], 2);
    await w.write(0, new TextEncoder().encode('ok'));
    await w.close();
    expect((await fs.lstat(path.join(dir, 'pipe'))).isFile()).toBe(true);
  }, 5000);

  it('with keep, sizes an existing file without cutting what it holds; a read-only one is made writable', async () => {
    await fs.writeFile(path.join(dir, 'f'), 'abcdefgh');
    await fs.chmod(path.join(dir, 'f'), 0o444);
    const t = nodeRestoreTarget(dir);
    const w = await t.createFile(['f'], 6, { keep: true });
    await w.write(2, new TextEncoder().encode('XY'));
    await w.close();
    expect(await fs.readFile(path.join(dir, 'f'), 'utf8')).toBe('abXYef');
  });

  it('stat, read, list and remove never go through a symlink', async () => {
    const outside = await fs.mkdtemp(path.join(os.tmpdir(), 'cairn-outside-'));
    try {
      await fs.writeFile(path.join(outside, 'precious'), 'keep');
      await fs.mkdir(path.join(dir, 'root'));
      await fs.symlink(outside, path.join(dir, 'root', 'lnk'));
      const t = nodeRestoreTarget(path.join(dir, 'root'));
      expect(await t.stat!(['lnk'])).toMatchObject({ type: 'symlink' });
      expect(await t.stat!(['lnk', 'precious'])).toBeUndefined();
      expect(await t.list!(['lnk'])).toEqual([]);
      await expect(t.openRead!(['lnk'])).rejects.toThrow();
      await t.remove!(['lnk', 'precious']);
      await t.remove!(['lnk'], { recursive: true });
      expect(await fs.readdir(path.join(dir, 'root'))).toEqual([]);
      expect(await fs.readFile(path.join(outside, 'precious'), 'utf8')).toBe('keep');
    } finally {
      await fs.rm(outside, { recursive: true, force: true });
    }
  });
});
