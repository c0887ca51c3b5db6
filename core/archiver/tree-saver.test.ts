import { beforeAll, describe, expect, it } from 'vitest';
import { initEngine, memRepo } from '../../test/helpers/mem-repo';
import { decodeTree, type Node } from '../data';
import { GoTime } from '../data/go-time';
import type { BlobCache } from '../repository/blob-cache';
import type { SavedPack } from '../index/index-file';
import { BlobRegistry } from './blob-registry';
/** A stored pack, indexed at once (as if its index file were written). */
function indexNow(registry: BlobRegistry, pack: SavedPack, size: number): void {
  registry.packSaved(pack, size);
  registry.indexed(registry.takeUnindexed());
}
import { TreeSaver } from './tree-saver';

const file = (name: string): Node => ({
  name,
  type: 'file',
  mode: 0o644,
  mtime: GoTime.zero,
  atime: GoTime.zero,
  ctime: GoTime.zero,
  uid: 0,
  gid: 0,
  content: [],
  size: 0,
});

describe('TreeSaver', () => {
  beforeAll(initEngine);

  it('stores each tree once, counts what it added, and hands its pack to the index on flush', async () => {
    const { repo } = await memRepo();
    await repo.loadIndex();
    const registry = new BlobRegistry(repo.index);
    const packs: SavedPack[] = [];
    const trees = new TreeSaver({
      key: repo.key,
      version: repo.version,
      compression: repo.compression,
      saver: repo.backend,
      claim: (id) => registry.claim('tree', id),
      onPackSaved: (p, size) => (packs.push(p), indexNow(registry, p, size)),
    });
    const a = await trees.save([file('a'), file('b')]);
    const again = await trees.save([file('a'), file('b')]);
    const other = await trees.save([file('c')]);
    expect(again.id).toBe(a.id);
    expect(a.stats).toMatchObject({ treeBlobs: 1, dataBlobs: 0, dataSize: 0 });
    expect(a.stats.treeSize).toBeGreaterThan(0);
    expect(a.stats.treeSizeInRepo).toBeGreaterThan(0);
    expect(again.stats.treeBlobs).toBe(0);
    expect(other.id).not.toBe(a.id);
    expect(packs).toHaveLength(0); // nothing stored before the pack is full or flushed
    await trees.flush();
    expect(packs).toHaveLength(1);
    expect(
      packs[0]!.entries
        .blobs()
        .map((b) => b.id)
        .sort(),
    ).toEqual([a.id, other.id].sort());
    expect(decodeTree(await repo.loadBlob('tree', a.id)).nodes.map((n) => n.name)).toEqual(['a', 'b']);
  });

  it('puts new trees into a cache that wants them; a failing cache does not fail the save', async () => {
    const { repo } = await memRepo();
    await repo.loadIndex();
    const registry = new BlobRegistry(repo.index);
    const put: string[] = [];
    const cache: BlobCache = {
      wants: (t) => t === 'tree',
      get: async () => undefined,
      put: async (_t, id) => {
        put.push(id);
        if (put.length === 2) throw new Error('quota');
      },
      drop: async () => {},
    };
    const trees = new TreeSaver({
      key: repo.key,
      version: repo.version,
      compression: repo.compression,
      saver: repo.backend,
      claim: (id) => registry.claim('tree', id),
      onPackSaved: (p, s) => indexNow(registry, p, s),
      cache,
    });
    const a = await trees.save([file('a')]);
    const b = await trees.save([file('b')]);
    await trees.save([file('a')]); // known: not put again
    await trees.cached();
    expect(put).toEqual([a.id, b.id]);
  });
});
