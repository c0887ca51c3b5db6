// The app's snapshot comparison on an in-memory repository (Node): `cairn diff`'s walk
// (core/diff) over the session's trees, as added / removed / modified entries.

import { beforeAll, describe, expect, it } from 'vitest';
import { initEngine, memRepo, TEST_PASSWORD } from '../../test/helpers/mem-repo';
import { Repository } from '../../core/repository/repository';
import { MemSource, type MemDir } from '../../test/helpers/mem-source';
import { backup } from '../../core/archiver/archiver';
import { inProcessPool } from '../../core/archiver/pool';
import { diffTrees } from '../../core/diff';
import type { ID } from '../../core/id';
import { diff, search } from './browse';
import { snapshotSizes } from './stats';
import { open, seal } from '../../core/crypto';
import { Session } from './session';
import { memoryOutlineStore, type OutlineStore } from './name-index';
import { fillOfflineCache, type FillRecords } from './offline-fill';

const text = (s: string) => ({ data: new TextEncoder().encode(s) });
// The second backup reads a file again only when its metadata changed (as restic's does): the new versions get another mtime.
const big = (seed: number) => ({ data: Uint8Array.from({ length: 3000 }, (_, i) => (i * seed) & 0xff), mtime: seed });

async function twoSnapshots(before: MemDir, after: MemDir) {
  return snapshotsOf([before, after]);
}

async function snapshotsOf(roots: MemDir[], outlines?: OutlineStore) {
  const { repo, backend } = await memRepo();
  const ids: string[] = [];
  const add = async (root: MemDir) => {
    const src = new MemSource({ d: root });
    ids.push((await backup(repo, src, inProcessPool({ saver: backend, reader: src }), { hostname: 'h', targets: ['/d'] })).id);
  };
  for (const root of roots) await add(root);
  const s = new Session({ loc: { kind: 'opfs', name: 'test' }, locationKey: 'opfs:test', repo, offline: false, remembered: false, outlines });
  return { s, a: ids[0]!, b: ids[1]!, add };
}

describe('diff of two snapshots (the app)', () => {
  beforeAll(initEngine);

  it("lists what `cairn diff` lists, in its order, with each node's type", async () => {
    const same = { 'a.txt': text('a'), deep: { 'b.txt': text('b') } };
    const { s, a, b } = await twoSnapshots(
      { same, gone: { 'x.txt': text('x'), sub: { 'y.txt': text('y') } }, 'edit.bin': big(3), 'was-file': text('f'), 'touched.txt': { ...text('t'), mtime: 1 } },
      { same, 'new.txt': text('n'), 'edit.bin': big(5), 'was-file': { 'in.txt': text('i') }, 'touched.txt': { ...text('t'), mtime: 2 } },
    );
    const entries = await diff(s, a, b);
    expect(entries.map((e) => [e.change, e.path.join('/'), e.type])).toEqual([
      ['modified', 'd/edit.bin', 'file'],
      ['removed', 'd/gone', 'dir'],
      ['removed', 'd/gone/sub', 'dir'],
      ['removed', 'd/gone/sub/y.txt', 'file'],
      ['removed', 'd/gone/x.txt', 'file'],
      ['added', 'd/new.txt', 'file'],
      ['modified', 'd/was-file', 'dir'],
    ]);

    // The same changes as the CLI's engine reports them (its paths end folders in '/').
    const cli: string[] = [];
    const [sa, sb] = [await s.snapshot(a), await s.snapshot(b)];
    await diffTrees(s.repo, sa.snapshot.tree, sb.snapshot.tree, { onChange: (c) => cli.push(`${c.modifier} ${c.path}`) });
    expect(cli).toEqual(['M /d/edit.bin', '- /d/gone/', '- /d/gone/sub/', '- /d/gone/sub/y.txt', '- /d/gone/x.txt', '+ /d/new.txt', 'T /d/was-file/']);
  });

  it('does not walk a subtree both snapshots share', async () => {
    const shared = { one: { two: { 'leaf.txt': text('leaf') } } };
    const { s, a, b } = await twoSnapshots({ shared, 'x.txt': { ...text('1'), mtime: 1 } }, { shared, 'x.txt': { ...text('2'), mtime: 2 } });
    const loaded: ID[] = [];
    const tree = s.tree.bind(s);
    s.tree = (id, signal) => (loaded.push(id), tree(id, signal));
    expect((await diff(s, a, b)).map((e) => [e.change, e.path.join('/')])).toEqual([['modified', 'd/x.txt']]);
    // The two roots and the two /d trees; not /d/shared and below.
    expect(loaded).toHaveLength(4);
  });
});

describe('name search across snapshots (the app)', () => {
  beforeAll(initEngine);

  /** Folders three deep, four wide, with a file in each; `v` changes one file's content. */
  const tree = (v: number): MemDir => {
    const dir = (depth: number, at: string): MemDir => {
      const d: MemDir = { [`note-${at}.txt`]: { ...text(at === '0-1-2' ? `v${v}` : at), mtime: at === '0-1-2' ? v : 0 } };
      if (depth < 3) for (let i = 0; i < 4; i++) d[`sub${i}`] = dir(depth + 1, `${at}-${i}`);
      return d;
    };
    return dir(0, '0');
  };

  /** The walk before trees were loaded ahead: one at a time, depth-first (what search must still find, in order). */
  async function oneByOne(s: Session, q: string, limit: number) {
    const hits: string[] = [];
    const seen = new Set<string>();
    const visit = async (snap: string, id: ID, path: string[]): Promise<void> => {
      const key = `${id}\0${path.join('/')}`;
      if (seen.has(key) || hits.length >= limit) return;
      seen.add(key);
      for (const n of (await s.tree(id)).nodes) {
        if (hits.length >= limit) return;
        const p = [...path, n.name];
        if (n.name.toLowerCase().includes(q)) hits.push(`${snap} ${p.join('/')}`);
        if (n.type === 'dir' && n.subtree) await visit(snap, n.subtree, p);
      }
    };
    const all = await s.snapshots();
    for (let i = all.length - 1; i >= 0 && hits.length < limit; i--) await visit(all[i]!.id, all[i]!.snapshot.tree, []);
    return hits;
  }

  it('finds what a one-at-a-time walk finds, in its order, up to the limit', async () => {
    const { s } = await snapshotsOf([tree(1), tree(2), tree(3)]);
    for (const [q, limit] of [
      ['note', 200],
      ['NOTE-0-1', 200],
      ['sub2', 7],
      ['nothing', 200],
    ] as const) {
      const got = (await search(s, q, limit)).map((h) => `${h.snapshotId} ${h.node.path.join('/')}`);
      expect(got).toEqual(await oneByOne(s, q.toLowerCase(), limit));
    }
    // Each version once: the changed file in all three snapshots, the rest only in the newest.
    const notes = await search(s, 'note', 1000);
    expect(notes.filter((h) => h.node.name === 'note-0-1-2.txt')).toHaveLength(3);
    expect(notes.filter((h) => h.node.name === 'note-0-3-3.txt')).toHaveLength(1);
  });

  /** A gate the test holds shut: `pass()` waits at it (`reached` says something got there), `open()` lets all through. */
  function heldGate() {
    let open!: () => void;
    let reach!: () => void;
    const shut = new Promise<void>((r) => (open = r));
    const reached = new Promise<void>((r) => (reach = r));
    return { pass: async () => (reach(), await shut), reached, open };
  }

  /** The same repository opened afresh (its index not loaded), in a session over `outlines`. */
  async function reopened(s: Session, outlines: OutlineStore) {
    const again = await Repository.open(s.repo.backend, TEST_PASSWORD);
    return {
      again,
      s2: new Session({ loc: { kind: 'opfs', name: 'test' }, locationKey: 'opfs:test', repo: again, offline: false, remembered: false, outlines }),
    };
  }

  /** Makes each tree read of `s` take a moment and counts how many run at once at most. */
  function readsAtOnce(s: Session): { most: number } {
    const load = s.tree.bind(s);
    const reads = { most: 0 };
    let running = 0;
    s.tree = async (id, signal) => {
      reads.most = Math.max(reads.most, ++running);
      await new Promise((r) => setTimeout(r, 1));
      try {
        return await load(id, signal);
      } finally {
        running--;
      }
    };
    return reads;
  }

  it('loads several trees at once while it walks', async () => {
    const { s } = await snapshotsOf([tree(1)]);
    const reads = readsAtOnce(s);
    expect(await search(s, 'nothing')).toEqual([]);
    expect(reads.most).toBeGreaterThanOrEqual(4);
  });

  /** The offline fill as the app runs it, with the session's outline writer. */
  async function fill(s: Session) {
    const done = new Set<ID>();
    const records: FillRecords = { complete: async () => new Set(done), markComplete: async (_r, id) => void done.add(id) };
    const host = {
      repo: s.repo,
      snapshots: (sig?: AbortSignal) => s.snapshots(sig),
      backgroundTree: (id: ID, sig?: AbortSignal) => s.tree(id, sig),
      foregroundIdle: async () => {},
      settled: async () => {},
      outlines: s.outlineWriter(),
    };
    await fillOfflineCache(host, records, async () => {}, new AbortController().signal);
  }

  /** Counts the trees search reads while `f` runs. */
  async function treesRead<T>(s: Session, f: () => Promise<T>): Promise<{ value: T; read: ID[] }> {
    const read: ID[] = [];
    const load = s.tree.bind(s);
    s.tree = (id, signal) => (read.push(id), load(id, signal));
    try {
      return { value: await f(), read };
    } finally {
      s.tree = load;
    }
  }

  const queries = [
    ['note', 200],
    ['NOTE-0-1', 200],
    ['sub2', 7],
    ['nothing', 200],
    ['note-0-1-2', 200],
  ] as const;

  it("from the offline cache's outlines: the same hits, reading only the trees that hold one", async () => {
    const store = memoryOutlineStore();
    const { s } = await snapshotsOf([tree(1), tree(2), tree(3)], store);
    await fill(s);
    for (const [q, limit] of queries) {
      const expected = await oneByOne(s, q.toLowerCase(), limit);
      const { value, read } = await treesRead(s, () => search(s, q, limit));
      expect(value.map((h) => `${h.snapshotId} ${h.node.path.join('/')}`)).toEqual(expected);
      // Only folders that hold a hit are read (ahead of the walk, some past where a limit stops it).
      for (const id of new Set(read)) expect((await s.tree(id)).nodes.some((n) => n.name.toLowerCase().includes(q.toLowerCase()))).toBe(true);
      const folders = new Set(value.map((h) => `${h.snapshotId} ${h.node.path.slice(0, -1).join('/')}`));
      if (value.length < limit) expect(new Set(read).size).toBeLessThanOrEqual(folders.size);
      if (q === 'nothing') expect(read).toEqual([]);
    }
    // The changed file in all three snapshots, each with its own size; the others once.
    const changed = (await search(s, 'note-0-1-2.txt', 200)).map((h) => h.node.size);
    expect(changed).toEqual([2, 2, 2]);
  });

  it('reads the folders that hold a hit several at once when it searches the outlines', async () => {
    const store = memoryOutlineStore();
    const { s } = await snapshotsOf([tree(1)], store);
    await fill(s);
    const reads = readsAtOnce(s);
    expect(await search(s, 'note', 1000)).toHaveLength(85); // a note in each of the 85 folders
    expect(reads.most).toBeGreaterThanOrEqual(4);
  });

  it('holds a background index load while it searches, and still ends when a folder it reads needs the index', async () => {
    const store = memoryOutlineStore();
    const { s } = await snapshotsOf([tree(1), tree(2)], store);
    await fill(s);
    const { again, s2 } = await reopened(s, store);
    const gate = heldGate();
    const load = s2.tree.bind(s2);
    s2.tree = async (id, signal) => (await gate.pass(), load(id, signal)); // this repository has no cache: the read needs the index

    const found = search(s2, 'note-0-1-2.txt', 200);
    await gate.reached; // the walk reached a folder with a hit
    const index = again.loadIndex({ background: true });
    await new Promise((r) => setTimeout(r, 20));
    expect(again.index.packCount).toBe(0);
    gate.open();
    expect((await found).map((h) => h.node.path.join('/'))).toEqual(['d/sub1/sub2/note-0-1-2.txt', 'd/sub1/sub2/note-0-1-2.txt']);
    await index;
    expect(again.indexLoaded).toBe(true);
  });

  it('warms up a fresh session with the outlines, then the index', async () => {
    const store = memoryOutlineStore();
    const { s } = await snapshotsOf([tree(1), tree(2)], store);
    await fill(s);
    const gate = heldGate();
    const { again, s2 } = await reopened(s, { ...store, all: async (kind) => (await gate.pass(), store.all(kind)) });
    const warm = s2.warmUpIndex();
    await gate.reached;
    await new Promise((r) => setTimeout(r, 20));
    expect(again.index.packCount).toBe(0);
    gate.open();
    await warm;
    expect(again.indexLoaded).toBe(true);
    const outlines = await s2.outlines();
    expect(outlines.size).toBeGreaterThan(0);
    expect(await treesRead(s2, () => search(s2, 'nothing'))).toEqual({ value: [], read: [] });
  });

  it('loads the outlines before the index when both are asked for together', async () => {
    const store = memoryOutlineStore();
    const { s } = await snapshotsOf([tree(1), tree(2)], store);
    await fill(s);
    // A fresh open of the same repository: the index not loaded, the outlines' read held.
    const gate = heldGate();
    const events: string[] = [];
    const held: OutlineStore = {
      ...store,
      all: async (kind) => {
        await gate.pass();
        const got = await store.all(kind);
        events.push(`${kind} read`);
        return got;
      },
    };
    const { again, s2 } = await reopened(s, held);
    const pace = again.indexPace!;
    let paced!: () => void;
    const reachedPace = new Promise<void>((r) => (paced = r));
    again.indexPace = () => (paced(), pace());

    const outlines = s2.outlines();
    await gate.reached;
    const index = again.loadIndex({ background: true, onFile: () => events.push('index file') });
    await reachedPace;
    await new Promise((r) => setTimeout(r, 20));
    expect(again.index.packCount).toBe(0);
    gate.open();
    expect((await outlines).size).toBeGreaterThan(0);
    await index;
    expect(events.at(-1)).toBe('index file');
    expect(events.indexOf('index file')).toBeGreaterThan(events.lastIndexOf('outlines read'));
  });

  it('keeps each list of names once, sealed', async () => {
    const store = memoryOutlineStore();
    const { s } = await snapshotsOf([tree(1), tree(2), tree(3)], store);
    await fill(s);
    const newest = (await s.snapshots()).at(-1)!;
    // Every folder of the newest snapshot has names of its own; the older versions of the
    // changed folders have the same names, so add no list.
    const folders: ID[] = [];
    const walk = async (id: ID): Promise<void> => {
      folders.push(id);
      for (const n of (await s.tree(id)).nodes) if (n.subtree) await walk(n.subtree);
    };
    await walk(newest.snapshot.tree);
    const kinds = [...store.records.keys()].map((k) => k.split('/')[0]);
    expect(kinds.filter((k) => k === 'lists')).toHaveLength(folders.length);
    expect(kinds.filter((k) => k === 'outlines')).toHaveLength(3);
    const plain = new TextEncoder().encode('note-0-1');
    const holds = (b: Uint8Array) => b.some((_, i) => plain.every((c, j) => b[i + j] === c));
    for (const bytes of store.records.values()) expect(holds(bytes)).toBe(false);
  });

  /** What `restic stats --mode restore-size` counts for a tree as written: every file's size. */
  const restoreSize = (d: MemDir): number =>
    Object.values(d).reduce<number>(
      (sum, n) => sum + ('data' in n && n.data instanceof Uint8Array ? n.data.length : 'link' in n ? 0 : restoreSize(n as MemDir)),
      0,
    );

  it("adds up the snapshots' sizes from the fill's outlines, reading no tree; from the trees without them", async () => {
    const store = memoryOutlineStore();
    const roots = [tree(1), tree(12), tree(123)];
    const { s } = await snapshotsOf(roots, store);
    const ids = (await s.snapshots()).map((e) => e.id);
    const expected = Object.fromEntries(ids.map((id, i) => [id, restoreSize({ d: roots[i]! })]));
    expect(new Set(Object.values(expected)).size).toBe(3);
    const fresh = () => new Session({ loc: s.loc, locationKey: s.locationKey, repo: s.repo, offline: false, remembered: false, outlines: store });

    const before = fresh();
    const fromTrees = await treesRead(before, () => snapshotSizes(before, ids));
    expect(fromTrees.value).toEqual(expected);
    expect(fromTrees.read.length).toBeGreaterThan(0);

    await fill(s);
    const after = fresh();
    const fromOutlines = await treesRead(after, () => snapshotSizes(after, ids));
    expect(fromOutlines.value).toEqual(expected);
    expect(fromOutlines.read).toEqual([]);

    // Records an older app kept, without the files' totals: the same sizes, from the trees.
    for (const [name, bytes] of store.records) {
      if (!name.startsWith('outlines/')) continue;
      const rec = JSON.parse(new TextDecoder().decode(await open(s.repo.key, bytes))) as unknown[][];
      store.records.set(name, await seal(s.repo.key, new TextEncoder().encode(JSON.stringify(rec.map((e) => e.slice(0, 3))))));
    }
    const older = fresh();
    const fromOlder = await treesRead(older, () => snapshotSizes(older, ids));
    expect(fromOlder.value).toEqual(expected);
    expect(fromOlder.read.length).toBe(fromTrees.read.length);
  });

  it('reads the trees of a snapshot made after the fill, and of a record that does not open', async () => {
    const store = memoryOutlineStore();
    const { s, add } = await snapshotsOf([tree(1), tree(2)], store);
    await fill(s);
    await add(tree(4));
    s.forgetSnapshots();
    // A record altered in storage fails its MAC: its trees are read instead of trusted.
    const [name, bytes] = [...store.records].find(([k]) => k.startsWith('outlines/'))!;
    const bad = bytes.slice();
    bad[bad.length - 1]! ^= 1;
    store.records.set(name, bad);
    for (const [q, limit] of queries) {
      const got = (await search(s, q, limit)).map((h) => `${h.snapshotId} ${h.node.path.join('/')}`);
      expect(got).toEqual(await oneByOne(s, q.toLowerCase(), limit));
    }
    expect((await search(s, 'note-0-1-2.txt', 200)).map((h) => h.node.size)).toEqual([2, 2, 2]);
  });
});
