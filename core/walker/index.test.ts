import { beforeAll, describe, expect, it } from 'vitest';
import { initEngine, memRepo } from '../../test/helpers/mem-repo';
import { isCairnError } from '../errors';
import { encodeTree, GoTime, type Node } from '../data';
import { hashID } from '../id';
import type { IndexPack } from '../index/index-file';
import { encodeBlob } from '../repository/blob-codec';
import { PackerManager } from '../repository/packer-manager';
import type { Repository } from '../repository/repository';
import { loadTree, lookupPath, splitPath, walk } from '.';
import { writeHostileSnapshot } from '../../test/helpers/hostile-repo';
import { loadSnapshot } from '../repository/snapshots';

const T = GoTime.parse('2024-01-01T00:00:00Z');
const file = (name: string): Node => ({ name, type: 'file', mtime: T, atime: T, ctime: T, uid: 0, gid: 0, size: 0, content: [] });
const dir = (name: string, subtree: string): Node => ({ name, type: 'dir', mtime: T, atime: T, ctime: T, uid: 0, gid: 0, content: null, subtree });

/** Stores tree blobs (raw bytes) in one pack and indexes them. */
async function storeTrees(repo: Repository, trees: Uint8Array[]): Promise<string[]> {
  const saved: IndexPack[] = [];
  const pm = new PackerManager({ key: repo.key, saver: repo.backend, onPackSaved: (p) => void saved.push({ id: p.id, blobs: p.entries.blobs() }) });
  const ids: string[] = [];
  for (const t of trees) {
    const id = await hashID(t);
    const b = await encodeBlob(repo.key, 'tree', t, 2, 'auto');
    await pm.add('tree', id, b.sealed, b.uncompressedLength);
    ids.push(id);
  }
  await pm.flush();
  for (const p of saved) repo.index.addPack(p.id, p.blobs);
  return ids;
}

/** root: [b/ (y, x), a, c/ (z)], given out of order; b's subtree listed in the tree. */
async function sample(repo: Repository) {
  const [bTree, cTree] = await storeTrees(repo, [encodeTree([file('y'), file('x')]), encodeTree([file('z')])]);
  const [root] = await storeTrees(repo, [encodeTree([dir('c', cTree!), file('a'), dir('b', bTree!)])]);
  return { root: root!, bTree: bTree!, cTree: cTree! };
}

async function paths(it: AsyncIterable<{ path: string[] }>): Promise<string[]> {
  const out: string[] = [];
  for await (const x of it) out.push(x.path.join('/'));
  return out;
}

describe('walker', () => {
  beforeAll(initEngine);

  it('walks depth-first in name order, yielding each directory before its contents', async () => {
    const { repo } = await memRepo();
    const { root } = await sample(repo);
    expect(await paths(walk(repo, root))).toEqual(['a', 'b', 'b/x', 'b/y', 'c', 'c/z']);
  });

  it("enter() = false skips a directory's contents but still yields it", async () => {
    const { repo } = await memRepo();
    const { root } = await sample(repo);
    expect(await paths(walk(repo, root, { enter: (item) => item.node.name !== 'b' }))).toEqual(['a', 'b', 'c', 'c/z']);
  });

  it('a missing sub-tree goes to onTreeError with its path, or fails the walk', async () => {
    const { repo } = await memRepo();
    const [root] = await storeTrees(repo, [encodeTree([dir('gone', 'ab'.repeat(32)), file('f')])]);
    const errors: string[] = [];
    const got = await paths(
      walk(repo, root!, { onTreeError: (p, id, e) => errors.push(`${p.join('/')} ${id.slice(0, 4)} ${isCairnError(e) ? e.code : '?'}`) }),
    );
    expect(got).toEqual(['f', 'gone']);
    expect(errors).toEqual(['gone abab BLOB_NOT_FOUND']);
    const e = await paths(walk(repo, root!)).catch((x: unknown) => x);
    expect(isCairnError(e, 'BLOB_NOT_FOUND')).toBe(true);
  });

  it('a tree blob that is not a tree is BAD_TREE naming it', async () => {
    const { repo } = await memRepo();
    const [bad] = await storeTrees(repo, [new TextEncoder().encode('{"nodes":[{"name":"x"}]}')]);
    const e = await loadTree(repo, bad!).catch((x: unknown) => x);
    expect(isCairnError(e, 'BAD_TREE')).toBe(true);
    expect((e as Error).message).toMatch(new RegExp(`^tree ${bad!.slice(0, 8)}: `));
    expect((e as { detail: unknown }).detail).toEqual({ tree: bad });
  });

  it('cancellation is not swallowed by onTreeError', async () => {
    const { repo } = await memRepo();
    const { root } = await sample(repo);
    const ctl = new AbortController();
    ctl.abort();
    const e = await paths(walk(repo, root, { signal: ctl.signal, onTreeError: () => {} })).catch((x: unknown) => x);
    expect(isCairnError(e, 'ABORTED')).toBe(true);
  });

  describe('names that cannot be one path component', () => {
    const hostile = async () => {
      const { repo } = await memRepo();
      const id = await writeHostileSnapshot(repo, [
        {
          name: 'd',
          type: 'dir',
          children: [
            { name: '..', type: 'file', data: 'x' },
            { name: 'ok', type: 'file', data: 'ok' },
          ],
        },
        { name: 'lnk', type: 'symlink', target: '/etc' },
        { name: 'lnk', type: 'dir', children: [{ name: 'planted', type: 'file', data: 'p' }] },
        { name: '', type: 'file', data: 'e' },
        { name: 'a/b', type: 'file', data: 's' },
        { name: 'n\0ul', type: 'file', data: 'n' },
        { name: '.', type: 'dir', children: [] },
      ]);
      return { repo, root: (await loadSnapshot(repo, id)).tree };
    };

    it('go to onInvalidName with their folder and are neither yielded nor entered; the rest is walked', async () => {
      const { repo, root } = await hostile();
      const refused: string[] = [];
      const got = await paths(
        walk(repo, root, { onInvalidName: (dir, node, problem) => refused.push(`${dir.join('/')}|${JSON.stringify(node.name)}|${problem}`) }),
      );
      expect(got).toEqual(['d', 'd/ok', 'lnk']);
      expect(refused.sort()).toEqual(['d|".."|dot-dot', '|""|empty', '|"."|dot', '|"a/b"|slash', '|"lnk"|repeated', '|"n\\u0000ul"|nul'].sort());
    });

    it('end the walk with INVALID_NAME when nobody takes them, even past onTreeError', async () => {
      const { repo, root } = await hostile();
      const e = await paths(walk(repo, root, { onTreeError: () => {} })).catch((x: unknown) => x);
      expect(isCairnError(e, 'INVALID_NAME')).toBe(true);
    });

    it('are yielded as they are with anyName (listings)', async () => {
      const { repo, root } = await hostile();
      expect(await paths(walk(repo, root, { anyName: true, enter: () => false }))).toHaveLength(7);
    });

    it('never match in lookupPath', async () => {
      const { repo, root } = await hostile();
      expect(await lookupPath(repo, root, ['d', '..'])).toBeUndefined();
      expect(await lookupPath(repo, root, ['a/b'])).toBeUndefined();
      expect((await lookupPath(repo, root, ['lnk']))!.type).toBe('symlink');
    });
  });

  it('lookupPath finds nodes by components', async () => {
    const { repo } = await memRepo();
    const { root, bTree } = await sample(repo);
    expect((await lookupPath(repo, root, ['b']))!.subtree).toBe(bTree);
    expect((await lookupPath(repo, root, ['b', 'x']))!.name).toBe('x');
    expect(await lookupPath(repo, root, ['b', 'nope'])).toBeUndefined();
    expect(await lookupPath(repo, root, ['a', 'below-a-file'])).toBeUndefined();
    expect(await lookupPath(repo, root, [])).toBeUndefined();
  });

  it('splitPath drops empty and "." components', () => {
    expect(splitPath('/a//b/./c/')).toEqual(['a', 'b', 'c']);
    expect(splitPath('')).toEqual([]);
    expect(splitPath('/')).toEqual([]);
  });
});
