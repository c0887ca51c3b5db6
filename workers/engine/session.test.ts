// The session: its snapshot listings (the open's listing serves the page's first list, and
// nothing after that is answered from it) and its trees (the offline cache's before the index).

import { describe, expect, it } from 'vitest';
import { memRepo, TEST_PASSWORD } from '../../test/helpers/mem-repo';
import { MemSource } from '../../test/helpers/mem-source';
import { MemoryBackend } from '../../core/backend/mem';
import type { FileType } from '../../core/backend/backend';
import { backup } from '../../core/archiver/archiver';
import { inProcessPool } from '../../core/archiver/pool';
import { Session } from './session';
import { Repository } from '../../core/repository/repository';
import type { ID } from '../../core/id';

/** A memory backend that counts its snapshot listings. */
class CountingBackend extends MemoryBackend {
  snapshotLists = 0;
  override list(t: FileType, o?: Parameters<MemoryBackend['list']>[1]) {
    if (t === 'snapshots') this.snapshotLists++;
    return super.list(t, o);
  }
}

async function sessionWithOneSnapshot() {
  const backend = new CountingBackend();
  const { repo } = await memRepo({ backend });
  const src = new MemSource({ d: { 'a.txt': { data: new TextEncoder().encode('a') } } });
  const snap = await backup(repo, src, inProcessPool({ saver: backend, reader: src }), { hostname: 'h', targets: ['/d'] });
  const s = new Session({ loc: { kind: 'opfs', name: 'test' }, locationKey: 'opfs:test', repo, offline: false, remembered: false });
  return { s, backend, repo, snap };
}

describe('the session’s snapshot listings', () => {
  it('answers the page’s first list with the open’s listing, then lists afresh', async () => {
    const { s, backend } = await sessionWithOneSnapshot();
    const before = backend.snapshotLists;
    expect((await s.openInfo()).snapshots).toBe(1);
    expect(backend.snapshotLists).toBe(before + 1);
    const [a, b] = await Promise.all([s.pageSnapshots(), s.pageSnapshots()]);
    expect(a.map((e) => e.id)).toEqual(b.map((e) => e.id));
    expect(backend.snapshotLists).toBe(before + 1); // the page's first lists took none of their own
    s.listed();
    await s.pageSnapshots();
    expect(backend.snapshotLists).toBe(before + 2);
  });

  it('lists afresh once the snapshots changed or the page browsed', async () => {
    const { s, backend, snap } = await sessionWithOneSnapshot();
    await s.openInfo();
    const n = backend.snapshotLists;
    s.forgetSnapshots(); // what a backup or a forget does
    await s.pageSnapshots();
    expect(backend.snapshotLists).toBe(n + 1);

    await s.openInfo();
    await s.tree(snap.snapshot.tree);
    await s.pageSnapshots();
    expect(backend.snapshotLists).toBe(n + 3);
  });

  it('does not keep a failed listing for the page', async () => {
    const { s, backend } = await sessionWithOneSnapshot();
    const list = backend.list.bind(backend);
    backend.list = (t, o) => {
      if (t === 'snapshots') throw new Error('unreachable');
      return list(t, o);
    };
    await expect(s.openInfo()).rejects.toThrow('unreachable');
    backend.list = list;
    expect(await s.pageSnapshots()).toHaveLength(1);
  });
});

/** A memory backend whose index listing, once `hold()` is called, waits until `release()`: an index load that takes long. */
class SlowIndexBackend extends MemoryBackend {
  #gate: Promise<void> | undefined;
  release = () => {};
  hold(): void {
    this.#gate = new Promise<void>((r) => (this.release = r));
  }
  override async *list(t: FileType, o?: Parameters<MemoryBackend['list']>[1]) {
    if (t === 'index') await this.#gate;
    yield* super.list(t, o);
  }
}

describe('the session’s trees', () => {
  it('opens a folder the offline cache holds without waiting for the index; others wait for it', async () => {
    const backend = new SlowIndexBackend();
    const { repo } = await memRepo({ backend });
    const src = new MemSource({ d: { 'a.txt': { data: new TextEncoder().encode('a') }, e: { 'b.txt': { data: new TextEncoder().encode('b') } } } });
    const snap = await backup(repo, src, inProcessPool({ saver: backend, reader: src }), { hostname: 'h', targets: ['/d'] });
    // What the offline cache holds: the root tree's stored bytes, read by the index of the writer.
    const root = snap.snapshot.tree;
    const at = repo.lookupBlob('tree', root)!;
    const held = new Map<ID, Uint8Array>([[root, await backend.load({ type: 'data', name: at.packID }, { offset: at.offset, length: at.length })]]);

    backend.hold();
    const again = await Repository.open(backend, TEST_PASSWORD);
    again.blobCache = { wants: (t) => t === 'tree', get: async (_t, id) => held.get(id), put: async () => {}, drop: async () => {} };
    const s = new Session({ loc: { kind: 'opfs', name: 'test' }, locationKey: 'opfs:test', repo: again, offline: false, remembered: false });
    const top = await s.tree(root); // the index listing is held: only the cache can answer
    expect(again.indexLoaded).toBe(false);
    const d = top.nodes.find((n) => n.name === 'd')!;
    const waiting = s.tree(d.subtree!);
    let settled = false;
    void waiting.finally(() => (settled = true));
    await new Promise((r) => setTimeout(r, 50));
    expect(settled).toBe(false); // not cached: it needs the index to find the blob
    backend.release();
    expect((await waiting).nodes.map((n) => n.name)).toEqual(['a.txt', 'e']);
  }, 20_000);
});

describe('the index load beside the offline cache', () => {
  it('waits while a folder is read from the cache, then loads', async () => {
    const { repo, snap } = await sessionWithOneSnapshot();
    const root = snap.snapshot.tree;
    const at = repo.lookupBlob('tree', root)!;
    const sealed = await repo.backend.load({ type: 'data', name: at.packID }, { offset: at.offset, length: at.length });
    const again = await Repository.open(repo.backend, TEST_PASSWORD);
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let asked!: () => void;
    const getAsked = new Promise<void>((r) => (asked = r));
    again.blobCache = {
      wants: (t) => t === 'tree',
      get: async () => (asked(), await gate, sealed),
      put: async () => {},
      drop: async () => {},
    };
    const s = new Session({ loc: { kind: 'opfs', name: 'test' }, locationKey: 'opfs:test', repo: again, offline: false, remembered: false });
    const events: string[] = [];
    const read = again.cachedBlob.bind(again);
    again.cachedBlob = async (t, id) => {
      const got = await read(t, id);
      events.push('folder read');
      return got;
    };
    const pace = again.indexPace!;
    let paced!: () => void;
    const reachedPace = new Promise<void>((r) => (paced = r));
    again.indexPace = () => (paced(), pace());

    const tree = s.tree(root);
    await getAsked; // the folder's read is open
    const index = again.loadIndex({ background: true, onFile: () => events.push('index file') });
    await reachedPace;
    await new Promise((r) => setTimeout(r, 20));
    expect(again.index.packCount).toBe(0);
    release();
    expect((await tree).nodes.map((n) => n.name)).toEqual(['d']);
    await index;
    expect(events).toEqual(['folder read', 'index file']);
    expect(again.lookupBlob('tree', root)).toBeDefined();
  });
});
