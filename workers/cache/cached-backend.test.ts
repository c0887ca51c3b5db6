import { describe, expect, it } from 'vitest';
import { MemoryBackend } from '../../core/backend/mem';
import { backendConformanceSuite, expectBytes, listAll, testObject } from '../../test/helpers/backend-conformance';
import type { Backend, FileInfo, FileType, Handle } from '../../core/backend/backend';
import { CairnError, isCairnError } from '../../core/errors';
import { CachedBackend } from './cached-backend';
import { memoryStore } from './metadata-store';

// Online, the decorator is a backend like any other: with a repository known, before one is
// known (objects held for adoption), and over a store that fails every call (a full or
// broken cache never fails an operation).
backendConformanceSuite('CachedBackend over a MemoryBackend', async () => ({
  backend: new CachedBackend(new MemoryBackend(), { locationKey: 'loc', knownRepoId: 'repo', offline: () => false, store: memoryStore() }),
  cleanup: async () => {},
}));
backendConformanceSuite('CachedBackend before the repository is known', async () => ({
  backend: new CachedBackend(new MemoryBackend(), { locationKey: 'loc', offline: () => false, store: memoryStore() }),
  cleanup: async () => {},
}));
backendConformanceSuite('CachedBackend over a failing store', async () => ({
  backend: new CachedBackend(new MemoryBackend(), {
    locationKey: 'loc',
    knownRepoId: 'repo',
    offline: () => false,
    store: memoryStore({ failing: () => true }),
  }),
  cleanup: async () => {},
}));

const networkDown = (): never => {
  throw new CairnError('NETWORK', 'connection refused', { retryable: true });
};

/** A backend whose every call can be switched to fail as an unreachable network does. */
function switchable(inner: Backend): Backend & { down: boolean; calls: string[] } {
  const b = {
    down: false,
    calls: [] as string[],
    location: inner.location,
    connections: inner.connections,
    close: () => inner.close(),
    load: (h: Handle, o?: Parameters<Backend['load']>[1]) => (b.calls.push(`load ${h.type}`), b.down ? Promise.reject(networkDown()) : inner.load(h, o)),
    stat: (h: Handle, o?: Parameters<Backend['stat']>[1]) => (b.calls.push(`stat ${h.type}`), b.down ? Promise.reject(networkDown()) : inner.stat(h, o)),
    save: (h: Handle, d: Parameters<Backend['save']>[1], o?: Parameters<Backend['save']>[2]) => (b.down ? Promise.reject(networkDown()) : inner.save(h, d, o)),
    remove: (h: Handle, o?: Parameters<Backend['remove']>[1]) => (b.down ? Promise.reject(networkDown()) : inner.remove(h, o)),
    list: (t: FileType, o?: Parameters<Backend['list']>[1]): AsyncIterable<FileInfo> => {
      b.calls.push(`list ${t}`);
      if (b.down)
        return (async function* (): AsyncGenerator<FileInfo> {
          networkDown();
          yield* [];
        })();
      return inner.list(t, o);
    },
  };
  return b;
}

async function cachedRepo(opts: { offline?: () => boolean } = {}) {
  const mem = new MemoryBackend();
  const inner = switchable(mem);
  const store = memoryStore();
  let offline = false;
  const be = new CachedBackend(inner, { locationKey: 'loc', offline: opts.offline ?? (() => offline), store });
  const snap = await testObject('snapshots', 1, 300);
  const idx = await testObject('index', 2, 500);
  const pack = await testObject('data', 3, 2000);
  await mem.save({ type: 'config', name: '' }, new Uint8Array([7, 7, 7]));
  for (const o of [snap, idx, pack]) await mem.save(o.h, o.data);
  return { mem, inner, store, be, snap, idx, pack, setOffline: (v: boolean) => (offline = v) };
}

describe('CachedBackend offline', () => {
  it('keeps what was fetched during open and files it under the repository once adopted', async () => {
    const { be, store, snap } = await cachedRepo();
    expectBytes(await be.load(snap.h), snap.data);
    expect(store.objects.size).toBe(0); // no repository ID yet: held in memory
    await be.adoptRepository('repo');
    expect(store.locations.get('loc')).toBe('repo');
    expect([...store.objects.keys()].some((k) => k.includes(snap.h.name))).toBe(true);
    expect(store.listings.has('repo\0keys')).toBe(true); // unlisted types are listed on adoption
  });

  it('does not look up a repository new to the cache for what it has not stored since; a known one it does', async () => {
    const counted = (store: ReturnType<typeof memoryStore>) => {
      const reads: string[] = [];
      const getObject = store.getObject.bind(store);
      const getListing = store.getListing.bind(store);
      store.getObject = (r, t, n) => (reads.push(`${t}/${n}`), getObject(r, t, n));
      store.getListing = (r, t) => (reads.push(`listing ${t}`), getListing(r, t));
      return reads;
    };
    const { be, mem, store, snap, idx } = await cachedRepo();
    const reads = counted(store);
    await be.adoptRepository('repo'); // new to this cache
    await be.settled();
    reads.length = 0;
    expectBytes(await be.load(snap.h), snap.data);
    await listAll(be, 'snapshots');
    expect(reads).toEqual([]);
    await be.settled();
    expectBytes(await be.load(snap.h), snap.data); // stored by this open: from the cache
    expect(reads).toEqual([`snapshots/${snap.h.name}`]);
    expect(be.stats.hits).toBe(1);

    // The next open knows it: the cache is asked first.
    const known = new CachedBackend(mem, { locationKey: 'loc', knownRepoId: 'repo', offline: () => false, store });
    await known.adoptRepository('repo');
    await known.settled();
    reads.length = 0;
    expectBytes(await known.load(snap.h), snap.data);
    expectBytes(await known.load(idx.h), idx.data);
    expect(reads).toEqual([`snapshots/${snap.h.name}`, `index/${idx.h.name}`]);
    expect(known.stats.hits).toBe(1);
  });

  it('opens a repository new to the cache even when the cache refuses every write', async () => {
    const mem = new MemoryBackend();
    const be = new CachedBackend(mem, { locationKey: 'loc', offline: () => false, store: memoryStore({ failing: () => true }) });
    await expect(be.adoptRepository('repo')).resolves.toBeUndefined();
    expect(be.repoId).toBe('repo');
  });

  it('notes the first write the browser refused for lack of room, and no other failure', async () => {
    let error: Error = new Error('disk on fire');
    const be = new CachedBackend(new MemoryBackend(), { locationKey: 'loc', offline: () => false, store: memoryStore({ failing: () => error }) });
    await be.adoptRepository('repo');
    expect(be.stats.refused).toBeUndefined();
    error = new DOMException('quota', 'QuotaExceededError');
    await be.save({ type: 'snapshots', name: 'a'.repeat(64) }, new Uint8Array([1]));
    await be.settled();
    expect(be.stats.refused).toBe(error);
  });

  it('files a new repository before adoption returns, and refreshes a known one behind it', async () => {
    const listings: Array<() => void> = [];
    const held = (inner: Backend): Backend => ({
      ...switchable(inner),
      // Each listing waits until the test lets it go.
      list: (t, o) =>
        (async function* () {
          await new Promise<void>((go) => listings.push(go));
          yield* inner.list(t, o);
        })(),
    });
    const store = memoryStore();
    const fresh = new CachedBackend(held(new MemoryBackend()), { locationKey: 'loc', offline: () => false, store });
    let adopted = false;
    const adopting = fresh.adoptRepository('repo').then(() => (adopted = true));
    while (listings.length === 0) await new Promise((r) => setTimeout(r, 0));
    expect(adopted).toBe(false); // a new repository: its listings are taken first
    while (!adopted) {
      listings.shift()?.();
      await new Promise((r) => setTimeout(r, 0));
    }
    await adopting;
    expect(store.listings.has('repo\0snapshots')).toBe(true);

    const warmStore = memoryStore();
    const warm = new CachedBackend(held(new MemoryBackend()), { locationKey: 'loc', knownRepoId: 'repo', offline: () => false, store: warmStore });
    await warm.adoptRepository('repo'); // a known repository: returns with its listings held
    expect(warmStore.listings.size).toBe(0);
    const settling = warm.settled();
    while (warmStore.listings.size < 3) {
      listings.shift()?.();
      await new Promise((r) => setTimeout(r, 0));
    }
    await settling;
  });

  it('files the key that opened the location with it, and keeps the last one when none is named', async () => {
    const store = memoryStore();
    const be = new CachedBackend(new MemoryBackend(), { locationKey: 'loc', offline: () => false, store });
    await be.adoptRepository('repo', 'k1');
    await be.settled();
    expect([store.locations.get('loc'), store.lastKeys.get('loc')]).toEqual(['repo', 'k1']);
    await be.adoptRepository('repo');
    await be.settled();
    expect(store.lastKeys.get('loc')).toBe('k1');
  });

  it('offline, serves cached metadata and listings, and refuses pack data with NEEDS_NETWORK', async () => {
    const { be, snap, idx, pack, setOffline, inner } = await cachedRepo();
    await be.adoptRepository('repo');
    await listAll(be, 'snapshots');
    await listAll(be, 'index');
    await be.load(snap.h);
    await be.load(idx.h);
    await be.load({ type: 'config', name: '' });
    setOffline(true);
    inner.calls.length = 0;
    expectBytes(await be.load(snap.h), snap.data);
    expectBytes(await be.load({ type: 'config', name: '' }), new Uint8Array([7, 7, 7]));
    expect((await listAll(be, 'snapshots')).map((f) => f.name)).toEqual([snap.h.name]);
    expect(await be.stat(idx.h)).toEqual({ name: idx.h.name, size: idx.data.length });
    await expect(be.load(pack.h)).rejects.toMatchObject({ code: 'NEEDS_NETWORK' });
    await expect(be.save(snap.h, snap.data)).rejects.toMatchObject({ code: 'NEEDS_NETWORK' });
    expect(inner.calls).toEqual([]); // offline means no request at all
  });

  it('online, falls back to the cache when the network fails, and says NEEDS_NETWORK for what it never saw', async () => {
    const { be, snap, inner } = await cachedRepo();
    await be.adoptRepository('repo');
    await listAll(be, 'snapshots');
    await be.load(snap.h);
    inner.down = true;
    expect((await listAll(be, 'snapshots')).map((f) => f.name)).toEqual([snap.h.name]);
    expectBytes(await be.load(snap.h), snap.data);
    const e = await listAll(be, 'locks').catch((x: unknown) => x);
    expect(isCairnError(e, 'NETWORK')).toBe(true);
  });

  it('uses the cached listing when the backend takes longer than listTimeoutMs', async () => {
    const mem = new MemoryBackend();
    const snap = await testObject('snapshots', 4, 100);
    await mem.save(snap.h, snap.data);
    const store = memoryStore();
    await store.putListing('repo', 'snapshots', [{ name: snap.h.name, size: 100 }]);
    const slow: Backend = {
      ...mem,
      location: mem.location,
      connections: mem.connections,
      close: () => mem.close(),
      load: (h, o) => mem.load(h, o),
      stat: (h, o) => mem.stat(h, o),
      save: (h, d, o) => mem.save(h, d, o),
      remove: (h, o) => mem.remove(h, o),
      list: (_t, o) =>
        (async function* (): AsyncGenerator<FileInfo> {
          await new Promise((_r, reject) => o?.signal?.addEventListener('abort', () => reject(o.signal!.reason)));
          yield* [];
        })(),
    };
    const be = new CachedBackend(slow, { locationKey: 'loc', knownRepoId: 'repo', offline: () => false, store, listTimeoutMs: 50 });
    expect((await listAll(be, 'snapshots')).map((f) => f.name)).toEqual([snap.h.name]);
  });

  it('remove drops the object and its listing entry, so a forgotten snapshot is gone offline too', async () => {
    const { be, snap, setOffline } = await cachedRepo();
    await be.adoptRepository('repo');
    await listAll(be, 'snapshots');
    await be.load(snap.h);
    await be.remove(snap.h);
    await be.settled();
    setOffline(true);
    expect(await listAll(be, 'snapshots')).toEqual([]);
    await expect(be.load(snap.h)).rejects.toMatchObject({ code: 'NEEDS_NETWORK' });
  });

  it('a failing store never fails an operation online', async () => {
    const mem = new MemoryBackend();
    const snap = await testObject('snapshots', 5, 100);
    const be = new CachedBackend(mem, { locationKey: 'loc', knownRepoId: 'repo', offline: () => false, store: memoryStore({ failing: () => true }) });
    await be.save(snap.h, snap.data);
    expectBytes(await be.load(snap.h), snap.data);
    expect((await listAll(be, 'snapshots')).length).toBe(1);
    await be.close();
  });
});
