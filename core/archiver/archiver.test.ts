import { beforeAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { generate, seededBytes } from '../../test/fixtures/chunker/generate';
import { initEngine, memRepo, TEST_PASSWORD } from '../../test/helpers/mem-repo';
import { MemSource, T0, type MemDir } from '../../test/helpers/mem-source';
import type { Backend, Handle } from '../backend/backend';
import { MemoryBackend } from '../backend/mem';
import { CairnError, isCairnError } from '../errors';
import type { Node } from '../data';
import { Repository } from '../repository/repository';
import { walk } from '../walker';
import { check } from '../check';
import { backup, type BackupOptions } from './archiver';
import { inProcessPool, type PoolFactory } from './pool';
import type { SourceEntry } from './source';

const text = (s: string) => new TextEncoder().encode(s);
const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

/** path → node for everything in a snapshot tree. */
async function listing(repo: Repository, tree: string): Promise<Map<string, Node>> {
  const out = new Map<string, Node>();
  for await (const { path, node } of walk(repo, tree)) out.set('/' + path.join('/'), node);
  return out;
}

async function contentOf(repo: Repository, node: Node): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  for (const id of node.content ?? []) parts.push(await repo.loadBlob('data', id));
  return Buffer.concat(parts);
}

function run(repo: Repository, src: MemSource, opts: Partial<BackupOptions> & { targets: string[] }) {
  return backup(repo, src, inProcessPool({ saver: repo.backend, reader: src }), { hostname: 'host', ...opts });
}

/** Logs every save by file type, in order. */
function loggingBackend(inner: Backend, log: string[]): Backend {
  return {
    location: inner.location,
    connections: inner.connections,
    close: () => inner.close(),
    load: (h, o) => inner.load(h, o),
    list: (t, o) => inner.list(t, o),
    stat: (h, o) => inner.stat(h, o),
    remove: (h, o) => inner.remove(h, o),
    save: async (h: Handle, d, o) => {
      await inner.save(h, d, o);
      log.push(`${h.type}:${h.name}`);
    },
  };
}

/** Rewrites the file entries `src` lists (as a source with other refs would list them). */
function mapListedFiles(src: MemSource, fn: (e: SourceEntry) => SourceEntry): void {
  const readDir = src.readDir.bind(src);
  src.readDir = async (dir, onError) => (await readDir(dir, onError)).map((e) => (e.node.type === 'file' ? fn(e) : e));
}

const home = (): MemDir => ({
  a: {
    b: {
      'notes.txt': { data: text('some notes\n') },
      'empty.txt': { data: new Uint8Array(0) },
      'big.bin': { data: new Uint8Array(1_500_000) }, // zeros: cut at exactly 512 KiB
      sub: { 'deep.txt': { data: text('deep\n') }, link: { link: '../notes.txt' } },
    },
    c: { 'c.txt': { data: text('c\n') } },
    other: { 'x.txt': { data: text('x\n') } },
  },
});

describe('archiver', () => {
  beforeAll(initEngine);

  it('records one target under its full path, with contents, symlinks and empty files', async () => {
    const { repo } = await memRepo();
    const src = new MemSource(home());
    const r = await run(repo, src, { targets: ['/a/b'] });
    expect(r.snapshot.paths).toEqual(['/a/b']);
    const l = await listing(repo, r.snapshot.tree);
    expect([...l.keys()]).toEqual(['/a', '/a/b', '/a/b/big.bin', '/a/b/empty.txt', '/a/b/notes.txt', '/a/b/sub', '/a/b/sub/deep.txt', '/a/b/sub/link']);
    expect(l.get('/a')!.type).toBe('dir');
    expect(new TextDecoder().decode(await contentOf(repo, l.get('/a/b/notes.txt')!))).toBe('some notes\n');
    expect(sha(await contentOf(repo, l.get('/a/b/big.bin')!))).toBe(sha(new Uint8Array(1_500_000)));
    // Two 512 KiB chunks of zeros (the same blob, twice) and the rest.
    const big = l.get('/a/b/big.bin')!.content!;
    expect(big).toHaveLength(3);
    expect(big[0]).toBe(big[1]);
    expect(big[2]).not.toBe(big[0]);
    expect(r.summary.dataBlobs).toBe(2 + 2); // zero chunk, tail, notes.txt, deep.txt
    expect(l.get('/a/b/big.bin')!.size).toBe(1_500_000);
    const empty = l.get('/a/b/empty.txt')!;
    expect(empty.content).toEqual([]); // [] not null: restic check requires it
    expect(empty.size ?? 0).toBe(0);
    const link = l.get('/a/b/sub/link')!;
    expect(link).toMatchObject({ type: 'symlink', linkTarget: '../notes.txt', content: null });
    expect(r.warnings).toEqual([]);
    expect((await check(repo)).ok).toBe(true);
  });

  it('starts no saver pool for a backup that reads no file, and one for a backup that does', async () => {
    const { repo } = await memRepo();
    const src = new MemSource(home());
    let started = 0;
    const pool: PoolFactory = (settings, hooks, signal) => {
      started++;
      return inProcessPool({ saver: repo.backend, reader: src })(settings, hooks, signal);
    };
    const first = await backup(repo, src, pool, { hostname: 'host', targets: ['/a/b'] });
    expect(started).toBe(1);
    const again = await backup(repo, src, pool, { hostname: 'host', targets: ['/a/b'] });
    expect(started).toBe(1);
    expect(again.filesRead).toBe(0);
    expect(again.snapshot.tree).toBe(first.snapshot.tree);
    expect(again.summary.filesUnmodified).toBe(first.summary.filesNew);
  });

  it('walks depth-first with a bounded queue: a wide, deep folder is not listed whole before its files are saved', async () => {
    const { repo } = await memRepo();
    // 10 × 10 directories of 60 files each: 6000 files.
    const root: MemDir = {};
    for (let a = 0; a < 10; a++) {
      const top: MemDir = {};
      for (let b = 0; b < 10; b++) {
        const leaf: MemDir = {};
        for (let f = 0; f < 60; f++) leaf[`f${f}.txt`] = { data: text(`${a}/${b}/${f}\n`) };
        top[`d${b}`] = leaf;
      }
      root[`t${a}`] = top;
    }
    const src = new MemSource({ big: root });
    let listedFiles = 0;
    let finished = 0;
    let maxWaiting = 0;
    const readDir = src.readDir.bind(src);
    src.readDir = async (dir, onError) => {
      const children = await readDir(dir, onError);
      listedFiles += children.filter((c) => c.node.type === 'file').length;
      maxWaiting = Math.max(maxWaiting, listedFiles - finished);
      return children;
    };
    const pool: PoolFactory = async (settings, hooks, signal) => {
      const inner = await inProcessPool({ saver: repo.backend, reader: src, concurrency: 8 })(settings, hooks, signal);
      return {
        ...inner,
        save: async (job, onBytes, sig) => {
          await new Promise((r) => setTimeout(r, 0)); // saving is slower than listing
          const saved = await inner.save(job, onBytes, sig);
          finished++;
          return saved;
        },
      };
    };
    const r = await backup(repo, src, pool, { hostname: 'host', targets: ['/big'] });
    expect(r.summary.filesNew).toBe(6000);
    expect(finished).toBe(6000);
    // Listed but not yet saved: the walk's queue (256) plus 16 listings' worth, never all 6000.
    expect(maxWaiting).toBeLessThan(1500);
    const l = await listing(repo, r.snapshot.tree);
    expect(l.get('/big/t9/d9/f59.txt')?.size).toBe(text('9/9/59\n').length);
    expect([...l.keys()].filter((k) => k.endsWith('.txt')).length).toBe(6000);
  });

  it('a ref gone stale since the listing (the file changed) is read afresh through reopen', async () => {
    const { repo } = await memRepo();
    const src = new MemSource(home());
    const stale = (path: string) => `stale:${path}`;
    // Listed refs refuse to be read, as a browser File does once its file changed; reopen
    // gives a fresh one, except for c.txt, which is gone by then.
    mapListedFiles(src, (e) => ({
      ...e,
      ref: stale(e.path),
      reopen: async () => {
        if (e.path.endsWith('/c.txt')) throw new CairnError('SOURCE_READ', `${e.path}: vanished before it could be read`);
        return e.ref;
      },
    }));
    const reader = {
      read: (ref: unknown, size: number) => {
        if (typeof ref === 'string' && ref.startsWith('stale:')) {
          // eslint-disable-next-line require-yield -- a read that fails before its first piece
          return (async function* () {
            throw new CairnError('SOURCE_READ', `${ref}: cannot be read (changed or locked since it was picked)`, { detail: { domError: 'NotReadableError' } });
          })();
        }
        return src.read(ref, size);
      },
    };
    const warnings: string[] = [];
    const r = await backup(repo, src, inProcessPool({ saver: repo.backend, reader }), {
      hostname: 'host',
      targets: ['/a'],
      onWarning: (w) => warnings.push(`${w.code} ${w.path}`),
    });
    const l = await listing(repo, r.snapshot.tree);
    expect(new TextDecoder().decode(await contentOf(repo, l.get('/a/b/notes.txt')!))).toBe('some notes\n');
    expect(l.has('/a/c/c.txt')).toBe(false);
    expect(warnings).toEqual(['SOURCE_READ /a/c/c.txt']);
    expect(r.summary.filesNew).toBe(5);
  });

  it('an entry with open() is opened only when it is read: not when unchanged; one that fails to open is left out', async () => {
    const { repo } = await memRepo();
    const src = new MemSource(home());
    const opened: string[] = [];
    // Listed refs are pointers nothing can read; open() resolves them (as a browser file
    // handle listed with sizes from elsewhere), except for c.txt, gone by then.
    mapListedFiles(src, (e) => ({
      ...e,
      ref: `pointer:${e.path}`,
      open: async () => {
        opened.push(e.path);
        if (e.path.endsWith('/c.txt') && gone) throw new CairnError('SOURCE_READ', `${e.path}: vanished before it could be read`);
        return e.ref;
      },
    }));
    let gone = false;
    const reader = {
      read: (ref: unknown, size: number) => {
        if (typeof ref === 'string' && ref.startsWith('pointer:')) throw new Error(`a saver was handed the unopened ${ref}`);
        return src.read(ref, size);
      },
    };
    const pool = () => inProcessPool({ saver: repo.backend, reader });
    const first = await backup(repo, src, pool(), { hostname: 'host', targets: ['/a'] });
    expect(first.summary.filesNew).toBe(6);
    expect(opened.sort()).toEqual(['/a/b/big.bin', '/a/b/empty.txt', '/a/b/notes.txt', '/a/b/sub/deep.txt', '/a/c/c.txt', '/a/other/x.txt']);
    opened.length = 0;
    const again = await backup(repo, src, pool(), { hostname: 'host', targets: ['/a'], parent: first.id });
    expect(again.summary.filesUnmodified).toBe(6);
    expect(opened).toEqual([]); // unchanged: never opened
    gone = true;
    const warnings: string[] = [];
    const forced = await backup(repo, src, pool(), { hostname: 'host', targets: ['/a'], force: true, onWarning: (w) => warnings.push(`${w.code} ${w.path}`) });
    expect(opened).toHaveLength(6);
    expect(warnings).toEqual(['SOURCE_READ /a/c/c.txt']);
    expect((await listing(repo, forced.snapshot.tree)).has('/a/c/c.txt')).toBe(false);
  });

  it('shares common path components between targets: /a/b and /a/c both live under one "a"', async () => {
    const { repo } = await memRepo();
    const src = new MemSource(home());
    const r = await run(repo, src, { targets: ['/a/c', '/a/b/sub'] });
    expect(r.snapshot.paths).toEqual(['/a/c', '/a/b/sub']);
    const l = await listing(repo, r.snapshot.tree);
    expect([...l.keys()]).toEqual(['/a', '/a/b', '/a/b/sub', '/a/b/sub/deep.txt', '/a/b/sub/link', '/a/c', '/a/c/c.txt']);
    // "/a/b" is only an intermediate component here: notes.txt is not part of the backup.
    expect(l.has('/a/b/notes.txt')).toBe(false);
    expect(src.listed.has('/a/b')).toBe(false);
  });

  it('absorbs a target that lies inside another target', async () => {
    const { repo } = await memRepo();
    const src = new MemSource(home());
    const r = await run(repo, src, { targets: ['/a/b/sub', '/a/b', '/a/b'] });
    const l = await listing(repo, r.snapshot.tree);
    expect([...l.keys()].filter((p) => p.startsWith('/a/b/sub'))).toEqual(['/a/b/sub', '/a/b/sub/deep.txt', '/a/b/sub/link']);
    expect(src.reads.get('/a/b/sub/deep.txt')).toBe(1); // read once, not once per target
    expect(l.has('/a/b/notes.txt')).toBe(true);
  });

  it('refuses a backup none of whose targets exist, saving no snapshot; one missing target of two is left out', async () => {
    const { repo } = await memRepo();
    const err = await run(repo, new MemSource(home()), { targets: ['/gone', '/also/gone'] }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'SOURCE_READ', message: 'all source directories/files do not exist' });
    expect(await repo.listIDs('snapshots')).toEqual([]);
    const r = await run(repo, new MemSource(home()), { targets: ['/gone', '/a/c/c.txt'] });
    expect([...(await listing(repo, r.snapshot.tree)).keys()]).toEqual(['/a', '/a/c', '/a/c/c.txt']);
  });

  it('a single file can be a target', async () => {
    const { repo } = await memRepo();
    const r = await run(repo, new MemSource(home()), { targets: ['/a/c/c.txt'] });
    expect([...(await listing(repo, r.snapshot.tree)).keys()]).toEqual(['/a', '/a/c', '/a/c/c.txt']);
  });

  it('leaves out excluded entries without reading or listing them, and records the patterns', async () => {
    const { repo } = await memRepo();
    const src = new MemSource(home());
    const r = await run(repo, src, {
      targets: ['/a'],
      excludes: ['*.bin', 'sub'],
      exclude: (path) => path.endsWith('.bin') || path.endsWith('/sub'),
    });
    const l = await listing(repo, r.snapshot.tree);
    expect([...l.keys()].some((p) => p.endsWith('.bin') || p.includes('/sub'))).toBe(false);
    expect(l.has('/a/b/notes.txt')).toBe(true);
    expect(src.reads.has('/a/b/big.bin')).toBe(false);
    expect(src.listed.has('/a/b/sub')).toBe(false);
    expect(r.snapshot.excludes).toEqual(['*.bin', 'sub']);
  });

  it('summary counters and snapshot metadata', async () => {
    const { repo } = await memRepo();
    const tree: MemDir = {
      d: {
        'one.txt': { data: text('same content\n') },
        'two.txt': { data: text('same content\n') },
        'three.txt': { data: text('other\n') },
        e: { 'z.txt': { data: new Uint8Array(0) } },
        link: { link: 'one.txt' },
      },
    };
    const r = await run(repo, new MemSource(tree), { targets: ['/d'], tags: ['t1', 't2'], username: 'u', uid: 5, gid: 6, programVersion: 'test 1.0' });
    expect(r.summary).toMatchObject({
      filesNew: 4,
      filesChanged: 0,
      filesUnmodified: 0,
      dirsNew: 2, // d, e: as in restic, the snapshot's root is no directory of its own
      dirsChanged: 0,
      dirsUnmodified: 0,
      dataBlobs: 2, // identical files share one blob; the empty file has none
      treeBlobs: 3, // root, d, e
      totalFilesProcessed: 4, // regular files only (restic: Files.New + Changed + Unchanged), not the symlink
      totalBytesProcessed: 13 + 13 + 6,
    });
    expect(r.summary.dataAdded).toBeGreaterThanOrEqual(13 + 6);
    expect(r.summary.dataAddedPacked).toBeGreaterThan(0);
    expect(r.filesRead).toBe(4);
    expect(r.snapshot).toMatchObject({ hostname: 'host', username: 'u', uid: 5, gid: 6, tags: ['t1', 't2'], programVersion: 'test 1.0', paths: ['/d'] });
    expect(r.snapshot.summary).toEqual(r.summary);
    // Stored as restic reads it.
    const stored = (await repo.loadJSON('snapshots', r.id!)) as Record<string, unknown>;
    expect(stored).toMatchObject({ hostname: 'host', tags: ['t1', 't2'], paths: ['/d'], tree: r.snapshot.tree });
    expect((stored.summary as Record<string, number>).files_new).toBe(4);
  });

  describe('incremental', () => {
    it('reuses unchanged files without reading them, re-reads changed ones, and names the parent', async () => {
      const { repo } = await memRepo();
      const tree = home();
      const src = new MemSource(tree);
      const first = await run(repo, src, { targets: ['/a/b'] });
      expect(first.parent).toBeUndefined();
      src.resetCounters();

      // Change one file's content (and mtime), touch another's mtime only, add a new one.
      const b = (tree.a as MemDir).b as MemDir;
      b['notes.txt'] = { data: text('changed notes\n'), mtime: T0 + 1000 };
      (b['sub'] as MemDir)['deep.txt'] = { data: text('deep\n'), mtime: T0 + 5000 };
      b['new.txt'] = { data: text('new\n') };
      const second = await run(repo, src, { targets: ['/a/b'] });
      expect(second.parent).toBe(first.id);
      expect(second.snapshot.parent).toBe(first.id);
      expect([...src.reads.keys()].sort()).toEqual(['/a/b/new.txt', '/a/b/notes.txt', '/a/b/sub/deep.txt']);
      expect(src.reads.has('/a/b/big.bin')).toBe(false);
      expect(second.summary).toMatchObject({ filesNew: 1, filesChanged: 2, filesUnmodified: 2 });
      expect(second.filesRead).toBe(3);
      const l = await listing(repo, second.snapshot.tree);
      expect(new TextDecoder().decode(await contentOf(repo, l.get('/a/b/notes.txt')!))).toBe('changed notes\n');
      expect(l.get('/a/b/big.bin')!.content).toEqual((await listing(repo, first.snapshot.tree)).get('/a/b/big.bin')!.content);

      // Nothing changed: nothing read, every directory unmodified, same root tree.
      src.resetCounters();
      const third = await run(repo, src, { targets: ['/a/b'] });
      expect(src.totalReads).toBe(0);
      expect(third.summary).toMatchObject({ filesNew: 0, filesChanged: 0, filesUnmodified: 5, dirsNew: 0, dirsChanged: 0, dataBlobs: 0, treeBlobs: 0 });
      expect(third.snapshot.tree).toBe(second.snapshot.tree);
      expect(third.parent).toBe(second.id);
    });

    it('a parent from another host is used only when named explicitly', async () => {
      const { repo } = await memRepo();
      const src = new MemSource(home());
      const first = await run(repo, src, { targets: ['/a/c'], hostname: 'elsewhere' });
      src.resetCounters();
      const implicit = await run(repo, src, { targets: ['/a/c'] });
      expect(implicit.parent).toBeUndefined();
      expect(src.reads.get('/a/c/c.txt')).toBe(1);
      src.resetCounters();
      const explicit = await run(repo, src, { targets: ['/a/c'], parent: first.id!.slice(0, 10) });
      expect(explicit.parent).toBe(first.id);
      expect(src.totalReads).toBe(0);
      const bad = await run(repo, src, { targets: ['/a/c'], parent: 'ffffffffff' }).catch((e: unknown) => e);
      expect(isCairnError(bad, 'SNAPSHOT_NOT_FOUND')).toBe(true);
    });

    it('--force reads everything and records no parent', async () => {
      const { repo } = await memRepo();
      const src = new MemSource(home());
      await run(repo, src, { targets: ['/a/c'] });
      src.resetCounters();
      const r = await run(repo, src, { targets: ['/a/c'], force: true });
      expect(r.parent).toBeUndefined();
      expect(src.reads.get('/a/c/c.txt')).toBe(1);
    });

    it('a changed inode or ctime counts only with strict change detection', async () => {
      const { repo } = await memRepo();
      const tree: MemDir = { d: { 'f.txt': { data: text('f\n'), inode: 10, ctime: T0 } } };
      const src = new MemSource(tree);
      const first = await run(repo, src, { targets: ['/d'] });
      (tree.d as MemDir)['f.txt'] = { data: text('f\n'), inode: 11, ctime: T0 + 1 };
      src.resetCounters();
      await run(repo, src, { targets: ['/d'], parent: first.id });
      expect(src.totalReads).toBe(0);
      await run(repo, src, { targets: ['/d'], parent: first.id, strictChangeDetection: true });
      expect(src.totalReads).toBe(1);
    });

    it('a parent whose trees cannot be read (index files lost) only costs re-reading the files', async () => {
      const { repo, backend } = await memRepo();
      const src = new MemSource({ d: { 'f.txt': { data: text('payload\n') } } });
      const first = await run(repo, src, { targets: ['/d'] });
      for (const id of await repo.listIDs('index')) await backend.remove({ type: 'index', name: id });
      const fresh = await Repository.open(backend, TEST_PASSWORD);
      src.resetCounters();
      const r = await backup(fresh, src, inProcessPool({ saver: backend, reader: src }), { hostname: 'host', targets: ['/d'] });
      expect(r.parent).toBe(first.id);
      expect(src.reads.get('/d/f.txt')).toBe(1);
      expect(r.summary.filesUnmodified).toBe(0);
      expect(new TextDecoder().decode(await contentOf(fresh, (await listing(fresh, r.snapshot.tree)).get('/d/f.txt')!))).toBe('payload\n');
    });
  });

  describe('source problems', () => {
    it('an unreadable file is left out with a SOURCE_READ warning; the backup completes', async () => {
      const { repo } = await memRepo();
      const src = new MemSource({ d: { 'ok.txt': { data: text('ok\n') }, 'secret.txt': { data: text('s\n'), unreadable: true } } });
      const warnings: string[] = [];
      const r = await run(repo, src, { targets: ['/d'], onWarning: (w) => warnings.push(`${w.code} ${w.path}`) });
      expect(warnings).toEqual(['SOURCE_READ /d/secret.txt']);
      expect(r.warnings.map((w) => w.code)).toEqual(['SOURCE_READ']);
      const l = await listing(repo, r.snapshot.tree);
      expect(l.has('/d/ok.txt')).toBe(true);
      expect(l.has('/d/secret.txt')).toBe(false);
    });

    it('a missing target is a warning, the others are saved', async () => {
      const { repo } = await memRepo();
      const r = await run(repo, new MemSource(home()), { targets: ['/a/c', '/a/nope'] });
      expect(r.warnings.map((w) => [w.code, w.path])).toEqual([['SOURCE_READ', '/a/nope']]);
      expect([...(await listing(repo, r.snapshot.tree)).keys()]).toEqual(['/a', '/a/c', '/a/c/c.txt']);
    });

    it('a file that grows while read is saved as read, with a SOURCE_CHANGED warning and its real size', async () => {
      const { repo } = await memRepo();
      const src = new MemSource({ d: { 'log.txt': { data: text('line\n'), growsBy: 7 } } });
      const r = await run(repo, src, { targets: ['/d'] });
      expect(r.warnings.map((w) => w.code)).toEqual(['SOURCE_CHANGED']);
      const node = (await listing(repo, r.snapshot.tree)).get('/d/log.txt')!;
      expect(node.size).toBe(12);
      expect((await contentOf(repo, node)).length).toBe(12);
    });

    it('backing up "/" itself is a usage error', async () => {
      const { repo } = await memRepo();
      expect(isCairnError(await run(repo, new MemSource(home()), { targets: ['/'] }).catch((e: unknown) => e), 'USAGE')).toBe(true);
    });
  });

  it('writes packs, then the index listing them, then the snapshot', async () => {
    const log: string[] = [];
    const inner = new MemoryBackend();
    const { repo } = await memRepo({ backend: loggingBackend(inner, log) });
    log.length = 0;
    const src = new MemSource({ d: { f: { data: generate({ kind: 'text', seed: 2, size: 3_000_000 }) }, g: { data: seededBytes(3, 700_000) } } });
    repo.packSize = 1 << 20; // several data packs
    const r = await run(repo, src, { targets: ['/d'], indexBlobs: 2 }); // and an index file along the way
    const types = log.map((l) => l.split(':')[0]);
    expect(types[types.length - 1]).toBe('snapshots');
    expect(log[log.length - 1]).toBe(`snapshots:${r.id}`);
    const indexIDs = log.filter((l) => l.startsWith('index:')).map((l) => l.slice(6));
    expect(indexIDs.length).toBeGreaterThanOrEqual(2);
    for (const id of indexIDs) {
      const at = log.indexOf(`index:${id}`);
      const packs = ((await repo.loadJSON('index', id)) as { packs: { id: string }[] }).packs.map((p) => p.id);
      for (const p of packs) expect(log.indexOf(`data:${p}`), `pack ${p} saved before index ${id}`).toBeLessThan(at);
    }
    const allPacks = log.filter((l) => l.startsWith('data:')).length;
    expect(allPacks).toBeGreaterThanOrEqual(3);
    // Everything it wrote is consistent.
    const fresh = await Repository.open(inner, TEST_PASSWORD);
    const result = await check(fresh, { readData: true });
    expect(result.problems).toEqual([]);
  });

  it('puts each new tree into the blob cache as stored, and reports done only once the cache has them', async () => {
    const { repo } = await memRepo();
    const cache = new Map<string, Uint8Array>();
    const pending = new Set<string>();
    repo.blobCache = {
      wants: (type) => type === 'tree',
      get: async (_t, id) => cache.get(id),
      put: async (_t, id, sealed) => {
        pending.add(id);
        await new Promise((r) => setTimeout(r, 20)); // a slow cache (IndexedDB commits)
        cache.set(id, sealed.slice());
        pending.delete(id);
      },
      drop: async (_t, id) => void cache.delete(id),
    };
    const r = await run(repo, new MemSource(home()), { targets: ['/a'] });
    expect(pending.size).toBe(0);
    expect(cache.size).toBe(r.summary.treeBlobs);
    // Every tree of the snapshot is served from the cache: with the packs gone, it still walks.
    for (const [id, sealed] of cache) {
      const loc = repo.lookupBlob('tree', id)!;
      const stored = await repo.backend.load({ type: 'data', name: loc.packID }, { offset: loc.offset, length: loc.length });
      expect(Buffer.from(sealed).equals(Buffer.from(stored))).toBe(true);
    }
    // An unchanged backup seals no tree and puts none.
    const again = await run(repo, new MemSource(home()), { targets: ['/a'] });
    expect(again.summary.treeBlobs).toBe(0);
    expect(cache.size).toBe(r.summary.treeBlobs);
    // With every pack gone, the snapshot still walks: its trees come from the cache.
    const l = await listing(repo, r.snapshot.tree);
    for await (const { name } of repo.backend.list('data')) await repo.backend.remove({ type: 'data', name });
    const fresh = await Repository.open(repo.backend, TEST_PASSWORD);
    fresh.blobCache = repo.blobCache;
    await fresh.loadIndex();
    expect([...(await listing(fresh, r.snapshot.tree)).keys()]).toEqual([...l.keys()]);
  });

  it('tree blobs are compressed in v2 and stored as is in v1', async () => {
    for (const version of [1, 2]) {
      const { repo } = await memRepo({ version });
      const r = await run(repo, new MemSource(home()), { targets: ['/a'] });
      await repo.loadIndex();
      const loc = repo.lookupBlob('tree', r.snapshot.tree)!;
      expect(loc.uncompressedLength > 0, `v${version}`).toBe(version === 2);
    }
  });
});
