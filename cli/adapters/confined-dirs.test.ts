import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import fs from 'node:fs/promises';
import fsSync from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ConfinedDirs } from './confined-dirs';
import { nodeRestoreTarget } from './node-restore-target';

let dir: string, root: string, outside: string;
beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'cairn-confined-'));
  root = path.join(dir, 'root');
  outside = path.join(dir, 'outside');
  await fs.mkdir(outside);
});
afterEach(async () => {
  vi.restoreAllMocks();
  await fs.rm(dir, { recursive: true, force: true });
});

describe('ConfinedDirs', () => {
  it('makes the root and every folder, once', async () => {
    const d = new ConfinedDirs(path.join(root, 'not', 'yet'));
    d.ensure(['a', 'b']);
    expect((await fs.lstat(path.join(root, 'not', 'yet', 'a', 'b'))).isDirectory()).toBe(true);
    expect(d.isReal(['a'])).toBe(true);
    expect(d.isReal(['a', 'b', 'c'])).toBe(false);
  });

  it('replaces a symlink or a file where a folder goes, and never follows it', async () => {
    await fs.mkdir(root);
    await fs.symlink(outside, path.join(root, 'lnk'));
    await fs.writeFile(path.join(root, 'file'), 'x');
    const d = new ConfinedDirs(root);
    d.ensure(['lnk', 'sub']);
    d.ensure(['file']);
    expect((await fs.lstat(path.join(root, 'lnk'))).isDirectory()).toBe(true);
    expect((await fs.lstat(path.join(root, 'file'))).isDirectory()).toBe(true);
    expect(await fs.readdir(outside)).toEqual([]);
  });

  it('checks again below a path that became a symlink', async () => {
    const d = new ConfinedDirs(root);
    d.ensure(['a', 'b']);
    await fs.rm(path.join(root, 'a'), { recursive: true });
    await fs.symlink(outside, path.join(root, 'a'));
    d.replaced(['a']);
    expect(d.isReal(['a', 'b'])).toBe(false);
    d.ensure(['a', 'b']);
    expect(await fs.readdir(outside)).toEqual([]);
  });

  // 1000 levels of 'd': 2000 characters, well inside PATH_MAX.
  const DEEP = 1000;
  const chain = (n: number) => Array<string>(n).fill('d');

  it('makes a chain 1000 deep folder by folder with one mkdir each, nothing looked at in folders it made, a few lookups per folder', () => {
    const d = new ConfinedDirs(root);
    const mkdir = vi.spyOn(fsSync, 'mkdirSync');
    const lstat = vi.spyOn(fsSync, 'lstatSync');
    const has = vi.spyOn(Set.prototype, 'has');
    for (let n = 1; n <= DEEP; n++) d.ensure(chain(n));
    const lookups = has.mock.calls.length;
    has.mockRestore();
    expect(mkdir).toHaveBeenCalledTimes(DEEP + 1); // and the root
    expect(lstat).toHaveBeenCalledTimes(1); // the root: was it there?
    expect(lookups).toBeLessThan(10 * DEEP);
    expect(d.isNew(chain(DEEP))).toBe(true);
  });

  it('checks a chain 1000 deep that is already there with one lstat per folder and a few lookups per folder (was every ancestor each time)', async () => {
    await fs.mkdir(path.join(root, ...chain(DEEP)), { recursive: true });
    const d = new ConfinedDirs(root);
    const lstat = vi.spyOn(fsSync, 'lstatSync');
    const has = vi.spyOn(Set.prototype, 'has');
    for (let n = 1; n <= DEEP; n++) expect(d.check(chain(n))).toBe(true);
    const lookups = has.mock.calls.length;
    has.mockRestore();
    expect(lstat).toHaveBeenCalledTimes(DEEP);
    expect(lookups).toBeLessThan(10 * DEEP);
    expect(d.check([...chain(DEEP), 'missing'])).toBe(false);
    expect(d.isNew(chain(DEEP))).toBe(false);
  });

  it.each([[['..']], [['a', '..', 'b']], [['x/y']], [['']], [['.']]])('refuses %j with INVALID_NAME', (p) => {
    const d = new ConfinedDirs(root);
    expect(() => d.ensure(p)).toThrow(expect.objectContaining({ code: 'INVALID_NAME' }));
    expect(() => d.abs(p)).toThrow(expect.objectContaining({ code: 'INVALID_NAME' }));
  });
});

describe('nodeRestoreTarget confined to its root', () => {
  it('a symlink it restored is never written through, whatever is asked next', async () => {
    const t = nodeRestoreTarget(root);
    await t.symlink(['lnk'], outside);
    const w = await t.createFile(['lnk', 'planted'], 1);
    await w.write(0, new Uint8Array([1]));
    await w.close();
    expect(await fs.readdir(outside)).toEqual([]);
    expect((await fs.lstat(path.join(root, 'lnk'))).isDirectory()).toBe(true);
  });

  it('sets no metadata on a folder it did not make or check', async () => {
    await fs.mkdir(root);
    await fs.symlink(outside, path.join(root, 'lnk'));
    await fs.chmod(outside, 0o750);
    const t = nodeRestoreTarget(root);
    const T = { unixMillis: () => 0 } as never;
    await expect(
      t.setMetadata(['lnk'], { name: 'lnk', type: 'dir', mode: 0o777, mtime: T, atime: T, ctime: T, uid: 0, gid: 0, content: null }),
    ).rejects.toMatchObject({ code: 'INVALID_NAME' });
    expect((await fs.stat(outside)).mode & 0o777).toBe(0o750);
  });

  it('refuses names that are not one component before touching the disk', async () => {
    const t = nodeRestoreTarget(root);
    await expect(t.createFile(['..', 'x'], 1)).rejects.toMatchObject({ code: 'INVALID_NAME' });
    await expect(t.symlink(['../x'], '/etc')).rejects.toMatchObject({ code: 'INVALID_NAME' });
    await expect(t.mkdir(['a', '..'])).rejects.toMatchObject({ code: 'INVALID_NAME' });
    expect((await fs.readdir(dir)).sort()).toEqual(['outside', 'root']);
  });
});
