import { beforeAll, describe, expect, it } from 'vitest';
import { initEngine, memRepo } from '../../test/helpers/mem-repo';
import { MemSource } from '../../test/helpers/mem-source';
import { CairnError } from '../errors';
import { decodeTree, sortByName } from '../data';
import { AHEAD_BATCH } from './entries-ahead';
import type { Repository } from '../repository/repository';
import { ProgressTracker } from '../progress';
import { BackupStats, type CompletedItem } from './backup-stats';
import { BlobRegistry } from './blob-registry';
import type { SavedPack } from '../index/index-file';

/** A stored pack, indexed at once (as if its index file were written). */
function indexNow(registry: BlobRegistry, pack: SavedPack, size: number): void {
  registry.packSaved(pack, size);
  registry.indexed(registry.takeUnindexed());
}
import { FileArchiver } from './file-archiver';
import { LazyPool } from './lazy-pool';
import { ListingScheduler } from './listing-scheduler';
import { loadParentTree } from './parent';
import { inProcessPool } from './pool';
import { SourceWalker } from './source-walker';
import { unlistable, type SourceFS } from './source';
import { buildTargetTree } from './targets';
import { TreeSaver } from './tree-saver';
import { WarningLog } from './warnings';

const text = (s: string) => new TextEncoder().encode(s);

function walker(repo: Repository, src: MemSource, exclude?: (p: string) => boolean, filesInFlight?: number) {
  const registry = new BlobRegistry(repo.index);
  const stats = new BackupStats();
  const progress = new ProgressTracker('x');
  const warnings = new WarningLog(progress);
  const items: CompletedItem[] = [];
  const pool = new LazyPool(
    inProcessPool({ saver: repo.backend, reader: src }),
    { key: repo.key, polynomial: repo.config.chunkerPolynomial, version: 2, compression: 'auto' },
    {
      claim: (id) => registry.claim('data', id),
      packSaved: (p, s) => indexNow(registry, p, s),
    },
  );
  const files = new FileArchiver({ hasData: (id) => repo.index.has('data', id), pool, stats, progress, warn: warnings.warn, onItem: (i) => items.push(i) });
  const trees = new TreeSaver({
    key: repo.key,
    version: 2,
    compression: 'auto',
    saver: repo.backend,
    claim: (id) => registry.claim('tree', id),
    onPackSaved: (p, s) => indexNow(registry, p, s),
  });
  const scheduler = new ListingScheduler({ parallel: 2, queue: 4 });
  const w = new SourceWalker({
    source: src,
    files,
    trees,
    scheduler,
    stats,
    parentTree: (id) => loadParentTree(repo, id),
    warn: warnings.warn,
    exclude,
    onItem: (i) => items.push(i),
    filesInFlight,
  });
  const finish = async () => (await pool.flush(), await trees.flush());
  return { w, stats, items, warnings, finish, scheduler };
}

async function names(repo: Repository, tree: string, path: string[] = []): Promise<string[]> {
  const out: string[] = [];
  for (const n of decodeTree(await repo.loadBlob('tree', tree)).nodes) {
    out.push([...path, n.name].join('/'));
    if (n.subtree) out.push(...(await names(repo, n.subtree, [...path, n.name])));
  }
  return out;
}

/** `/d` of `src` walked to its root node and every pack stored. */
async function walkD(repo: Repository, src: MemSource, exclude?: (p: string) => boolean) {
  const t = walker(repo, src, exclude);
  const root = await t.w.root(buildTargetTree(src, ['/d']), undefined);
  await t.finish();
  return { root, t };
}

/** `src` made to list names only (SourceFS.readNames); `entryOf` records each lstat and fails for the paths in `vanished`. */
function namesOnly(src: MemSource, vanished = new Set<string>()) {
  const lstats: string[] = [];
  let readDirs = 0;
  const readDir = src.readDir.bind(src);
  const lazy: Required<Pick<SourceFS, 'readNames' | 'entryOf'>> = {
    readNames: async (dir) => (await readDir(dir, () => {})).map((e) => e.node.name),
    entryOf: async (dir, name) => {
      const p = `${dir.path}/${name}`;
      lstats.push(p);
      if (vanished.has(p)) throw new CairnError('SOURCE_READ', `${p}: vanished before it could be read`, { detail: { path: p } });
      return src.stat(p);
    },
  };
  src.readDir = async (dir, onError) => (readDirs++, readDir(dir, onError));
  Object.assign(src, lazy);
  return { lstats, readDirs: () => readDirs };
}

/** `src` made to list names only and read entries in batches (SourceFS.entriesOf); each batch's names are recorded, `vanished` paths are errors in place. */
function batchesOnly(src: MemSource, vanished = new Set<string>()) {
  const batches: string[][] = [];
  const readDir = src.readDir.bind(src);
  const lazy: Required<Pick<SourceFS, 'readNames' | 'entriesOf'>> & { entryOf: SourceFS['entryOf'] } = {
    readNames: async (dir) => (await readDir(dir, () => {})).map((e) => e.node.name),
    entryOf: () => {
      throw new Error('entryOf used where entriesOf is given');
    },
    entriesOf: async (dir, names) => {
      batches.push(names.map((n) => `${dir.path}/${n}`));
      return Promise.all(
        names.map((name) => {
          const p = `${dir.path}/${name}`;
          return vanished.has(p) ? new CairnError('SOURCE_READ', `${p}: vanished before it could be read`, { detail: { path: p } }) : src.stat(p);
        }),
      );
    },
  };
  Object.assign(src, lazy);
  return batches;
}

describe('SourceWalker', () => {
  beforeAll(initEngine);

  it('walks a source that lists names only: each entry lstat-ed when its turn comes, the same trees as a full listing', async () => {
    const { repo } = await memRepo();
    await repo.loadIndex();
    const layout = () => ({
      d: { 'b.txt': { data: text('b') }, a: { 'x.txt': { data: text('x') } }, 'c.txt': { data: text('c') }, 'gone.txt': { data: text('g') } },
    });
    const { root: expected } = await walkD(repo, new MemSource(layout()), (p) => p.endsWith('gone.txt'));

    const src = new MemSource(layout());
    const seen = namesOnly(src, new Set(['/d/gone.txt']));
    const { root, t } = await walkD(repo, src);
    expect(root.subtree).toBe(expected.subtree);
    expect(seen.readDirs()).toBe(0);
    expect(seen.lstats.sort()).toEqual(['/d/a', '/d/a/x.txt', '/d/b.txt', '/d/c.txt', '/d/gone.txt']); // each once
    expect(t.warnings.list.map((w) => [w.path, w.code])).toEqual([['/d/gone.txt', 'SOURCE_READ']]);
    // Every name counted as a waiting file stopped waiting, whatever it turned out to be.
    expect(t.scheduler.filesWaiting).toBe(0);
  });

  it('walks a source that reads entries in batches ahead (entriesOf): the same trees, each name asked for once, in walk order', async () => {
    const { repo } = await memRepo();
    await repo.loadIndex();
    const many: Record<string, { data: Uint8Array }> = {};
    for (let i = 0; i < 3 * AHEAD_BATCH + 7; i++) many[`f${i}`] = { data: text(`file ${i}`) };
    const layout = () => ({ d: { ...many, sub: { 'x.txt': { data: text('x') } }, 'gone.txt': { data: text('g') } } });
    const { root: expected } = await walkD(repo, new MemSource(layout()), (p) => p.endsWith('gone.txt'));

    const src = new MemSource(layout());
    const batches = batchesOnly(src, new Set(['/d/gone.txt']));
    const { root, t } = await walkD(repo, src);
    expect(root.subtree).toBe(expected.subtree);
    expect(t.warnings.list.map((w) => [w.path, w.code])).toEqual([['/d/gone.txt', 'SOURCE_READ']]);
    expect(Math.max(...batches.map((b) => b.length))).toBe(AHEAD_BATCH);
    const inD = batches.filter((b) => b[0]!.startsWith('/d/') && !b[0]!.startsWith('/d/sub/')).flat();
    expect(inD).toEqual(sortByName(Object.keys(layout().d), (n) => ({ name: n })).map((n) => `/d/${n}`));
    expect(batches.flat().filter((p) => p.startsWith('/d/sub/'))).toEqual(['/d/sub/x.txt']);
    expect(t.scheduler.filesWaiting).toBe(0);
  });

  it('saves the skeleton of intermediate folders and each target whole, bottom-up, reporting each item', async () => {
    const { repo } = await memRepo();
    await repo.loadIndex();
    const src = new MemSource({ a: { b: { 'x.txt': { data: text('x') }, sub: { 'y.txt': { data: text('y') } } }, skip: { 'z.txt': { data: text('z') } } } });
    const t = walker(repo, src, (p) => p.endsWith('/y.txt'));
    const root = await t.w.root(buildTargetTree(src, ['/a/b']), undefined);
    await t.finish();
    expect(await names(repo, root.subtree!)).toEqual(['a', 'a/b', 'a/b/sub', 'a/b/x.txt']);
    expect(t.stats.dirs.new).toBe(3); // a, b, sub: the root is not counted
    expect(t.items.map((i) => `${i.action} ${i.path}`).sort()).toEqual(['new /a/', 'new /a/b/', 'new /a/b/sub/', 'new /a/b/x.txt']);
    // A folder is reported once all it holds is: after its files and subfolders.
    expect(t.items.map((i) => i.path).slice(-2)).toEqual(['/a/b/', '/a/']);
  });

  it('a second walk against the first as parent finds everything unmodified and reads nothing', async () => {
    const { repo } = await memRepo();
    await repo.loadIndex();
    const src = new MemSource({ d: { 'f.txt': { data: text('f') }, e: { 'g.txt': { data: text('g') } } } });
    const first = walker(repo, src);
    const root1 = await first.w.root(buildTargetTree(src, ['/d']), undefined);
    await first.finish();
    src.resetCounters();
    const second = walker(repo, src);
    const root2 = await second.w.root(buildTargetTree(src, ['/d']), root1.subtree);
    expect(root2.subtree).toBe(root1.subtree);
    expect(src.totalReads).toBe(0);
    expect(second.stats.dirs).toEqual({ new: 0, changed: 0, unmodified: 2 });
    expect(second.items.map((i) => i.action)).toEqual(['unchanged', 'unchanged', 'unchanged', 'unchanged']); // 2 files, e/, d/; nothing for the root
  });

  it('a target that cannot be read is a warning; a failure in one folder fails the walk with that error', async () => {
    const { repo } = await memRepo();
    await repo.loadIndex();
    const src = new MemSource({ ok: { 'f.txt': { data: text('f') } } });
    const t = walker(repo, src);
    const root = await t.w.root(buildTargetTree(src, ['/ok', '/missing']), undefined);
    await t.finish();
    expect(await names(repo, root.subtree!)).toEqual(['ok', 'ok/f.txt']);
    expect(t.warnings.list.map((w) => w.path)).toEqual(['/missing']);

    const broken = new MemSource({ d: { a: { 'f.txt': { data: text('f') } }, b: {} } });
    const readDir = broken.readDir.bind(broken);
    broken.readDir = async (dir, onError) => {
      if (dir.path === '/d/b') throw new CairnError('BACKEND_IO', 'listing broke');
      return readDir(dir, onError);
    };
    await expect(walker(repo, broken).w.root(buildTargetTree(broken, ['/d']), undefined)).rejects.toThrow('listing broke');
  });

  it('a folder that cannot be listed at all is left out with a warning, as restic leaves it out', async () => {
    const { repo } = await memRepo();
    await repo.loadIndex();
    const src = new MemSource({ d: { shut: { 'x.txt': { data: text('x') } }, 'f.txt': { data: text('f') } } });
    const readDir = src.readDir.bind(src);
    src.readDir = async (dir, onError) => {
      if (dir.path === '/d/shut') throw unlistable(dir.path, '/d/shut: permission denied');
      return readDir(dir, onError);
    };
    const t = walker(repo, src);
    const root = await t.w.root(buildTargetTree(src, ['/d']), undefined);
    await t.finish();
    expect(await names(repo, root.subtree!)).toEqual(['d', 'd/f.txt']);
    expect(t.warnings.list).toEqual([{ path: '/d/shut', code: 'SOURCE_READ', message: '/d/shut: permission denied' }]);
  });

  it('a walk that saved nothing at all is an error, not an empty snapshot (restic: "snapshot is empty")', async () => {
    const { repo } = await memRepo();
    await repo.loadIndex();
    const src = new MemSource({});
    await expect(walker(repo, src).w.root(buildTargetTree(src, ['/gone']), undefined)).rejects.toMatchObject({ code: 'SNAPSHOT_EMPTY' });
  });

  it('keeps at most filesInFlight files of a large folder started, and lists sibling folders one after the other', async () => {
    const { repo } = await memRepo();
    await repo.loadIndex();
    const many = (n: number, tag: string) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`${tag}${i}.txt`, { data: text(`${tag}${i}`) }]));
    const src = new MemSource({ d: { a: many(40, 'a'), b: many(40, 'b'), c: many(40, 'c') } });
    let listing = 0;
    let maxListing = 0;
    const readDir = src.readDir.bind(src);
    src.readDir = async (dir, onError) => {
      maxListing = Math.max(maxListing, ++listing);
      await new Promise((r) => setTimeout(r, 5));
      listing--;
      return readDir(dir, onError);
    };
    let started = 0;
    let maxStarted = 0;
    // exclude is asked as each entry starts; onItem reports each file once done.
    const exclude = (p: string) => {
      if (p.endsWith('.txt')) maxStarted = Math.max(maxStarted, ++started);
      return false;
    };
    const t = walker(repo, src, exclude, 4);
    const onItem = t.items.push.bind(t.items);
    t.items.push = (...xs: CompletedItem[]) => {
      for (const x of xs) if (x.type === 'file') started--;
      return onItem(...xs);
    };
    const root = await t.w.root(buildTargetTree(src, ['/d']), undefined);
    await t.finish();
    expect((await names(repo, root.subtree!)).filter((n) => n.endsWith('.txt'))).toHaveLength(120);
    expect(maxStarted).toBeLessThanOrEqual(4);
    expect(maxListing).toBe(1);
  });
});
