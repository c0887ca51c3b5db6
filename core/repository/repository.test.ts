import { beforeAll, describe, expect, it } from 'vitest';
import { generate, seededBytes } from '../../test/fixtures/chunker/generate';
import { initEngine, memRepo, OWNER, resticFixture, resticFixtureBackend, sameBytes, TEST_PASSWORD, TEST_POL } from '../../test/helpers/mem-repo';
import { MemoryBackend } from '../backend/mem';
import type { Backend, FileType, Handle, LoadOptions } from '../backend/backend';
import { CairnError, isCairnError } from '../errors';
import { Key } from '../crypto/keys';
import { open, seal } from '../crypto/seal';
import { hashID } from '../id';
import type { IndexPack } from '../index/index-file';
import type { BlobType } from '../pack/header';
import { parsePol } from '../chunker/polynomial';
import { encodeBlob } from './blob-codec';
import { TEST_KDF } from '../../test/helpers/test-kdf';
import { PackerManager } from './packer-manager';
import { Repository } from './repository';

async function rejection(p: Promise<unknown>): Promise<unknown> {
  return p.then(
    () => undefined,
    (e: unknown) => e,
  );
}

/** Stores blobs in packs of their own (one pack per call), returns the index entries. */
async function storePack(repo: Repository, blobs: { type: BlobType; plain: Uint8Array }[]): Promise<IndexPack> {
  const saved: IndexPack[] = [];
  const pm = new PackerManager({ key: repo.key, saver: repo.backend, onPackSaved: (p) => void saved.push({ id: p.id, blobs: p.entries.blobs() }) });
  for (const b of blobs) {
    const enc = await encodeBlob(repo.key, b.type, b.plain, repo.version, 'auto');
    await pm.add(b.type, await hashID(b.plain), enc.sealed, enc.uncompressedLength);
  }
  await pm.flush();
  expect(saved).toHaveLength(1);
  return saved[0]!;
}

/** Replaces a stored object's bytes in place (a damaged disk, a tampering server). */
async function mutate(be: Backend, h: Handle, f: (b: Uint8Array) => Uint8Array | void): Promise<void> {
  const b = await be.load(h);
  const out = f(b) ?? b;
  await be.remove(h);
  await be.save(h, out);
}

function countingBackend(inner: Backend): Backend & { lists: FileType[]; loads: Handle[] } {
  const lists: FileType[] = [];
  const loads: Handle[] = [];
  return {
    lists,
    loads,
    location: inner.location,
    connections: inner.connections,
    close: () => inner.close(),
    list: (t, o) => {
      lists.push(t);
      return inner.list(t, o);
    },
    load: (h: Handle, o?: LoadOptions) => {
      loads.push(h);
      return inner.load(h, o);
    },
    save: (h, d, o) => inner.save(h, d, o),
    stat: (h, o) => inner.stat(h, o),
    remove: (h, o) => inner.remove(h, o),
  };
}

describe('Repository', () => {
  beforeAll(initEngine);

  describe('init and open', () => {
    it('init writes a sealed config and one key file; open finds both', async () => {
      const { repo, backend } = await memRepo();
      expect(repo.version).toBe(2);
      expect(repo.config.chunkerPolynomial).toBe(TEST_POL);
      const keys: string[] = [];
      for await (const fi of backend.list('keys')) keys.push(fi.name);
      expect(keys).toEqual([repo.keyID]);
      // The config is sealed JSON, never compressed.
      const plain = await open(repo.key, await backend.load({ type: 'config', name: '' }));
      expect(JSON.parse(new TextDecoder().decode(plain))).toEqual({ version: 2, id: repo.config.id, chunker_polynomial: '3da3358b4dc173' });
      const again = await Repository.open(backend, TEST_PASSWORD);
      expect(again.config).toEqual(repo.config);
      expect(again.keyID).toBe(repo.keyID);
      expect(JSON.stringify(again.key.toJSON())).toBe(JSON.stringify(repo.key.toJSON()));
    });

    it('init can make a version 1 repository', async () => {
      const { repo, backend } = await memRepo({ version: 1 });
      expect((await Repository.open(backend, TEST_PASSWORD)).version).toBe(1);
      expect(repo.version).toBe(1);
    });

    it('init refuses to overwrite a repository (REPO_EXISTS) and changes nothing', async () => {
      const { backend } = await memRepo();
      const before = await backend.load({ type: 'config', name: '' });
      const e = await rejection(Repository.init(backend, 'other', { owner: OWNER, kdf: TEST_KDF }));
      expect(isCairnError(e, 'REPO_EXISTS')).toBe(true);
      expect(sameBytes(await backend.load({ type: 'config', name: '' }), before)).toBe(true);
      let keys = 0;
      for await (const _ of backend.list('keys')) keys++;
      expect(keys).toBe(1);
    });

    it('open without a config is NOT_A_REPOSITORY, even when key files exist', async () => {
      expect(isCairnError(await rejection(Repository.open(new MemoryBackend({ location: 'mem:empty' }), 'pw')), 'NOT_A_REPOSITORY')).toBe(true);
      const { backend } = await memRepo();
      await backend.remove({ type: 'config', name: '' });
      expect(isCairnError(await rejection(Repository.open(backend, TEST_PASSWORD)), 'NOT_A_REPOSITORY')).toBe(true);
    });

    it('open without a config is NOT_A_REPOSITORY with a wrong password too', async () => {
      const { backend } = await memRepo();
      await backend.remove({ type: 'config', name: '' });
      expect(isCairnError(await rejection(Repository.open(backend, 'nope')), 'NOT_A_REPOSITORY')).toBe(true);
    });

    it('open fetches the config while the key is searched for', async () => {
      const { backend } = await memRepo();
      const order: string[] = [];
      let release!: () => void;
      const held = new Promise<void>((r) => (release = r));
      const watched: Backend = {
        location: backend.location,
        connections: backend.connections,
        close: () => backend.close(),
        stat: (h, o) => backend.stat(h, o),
        save: (h, d, o) => backend.save(h, d, o),
        remove: (h, o) => backend.remove(h, o),
        list: (t, o) => backend.list(t, o),
        load: async (h: Handle, o?: LoadOptions) => {
          order.push(`load ${h.type}`);
          if (h.type === 'config') await held; // answered only once the key file has been asked for
          return backend.load(h, o);
        },
      };
      const opening = Repository.open(watched, TEST_PASSWORD);
      while (!order.includes('load keys')) await new Promise((r) => setTimeout(r, 0));
      release();
      await opening;
      expect(order.indexOf('load config')).toBeLessThan(order.indexOf('load keys'));
    });

    it("the caller's signal stops the key search after the config has come", async () => {
      const { backend } = await memRepo();
      const asked: string[] = [];
      const hanging: Backend = {
        location: backend.location,
        connections: backend.connections,
        close: () => backend.close(),
        stat: (h, o) => backend.stat(h, o),
        save: (h, d, o) => backend.save(h, d, o),
        remove: (h, o) => backend.remove(h, o),
        list: (t, o) => backend.list(t, o),
        load: async (h: Handle, o?: LoadOptions) => {
          asked.push(h.type);
          if (h.type !== 'keys') return backend.load(h, o);
          // A key file that never comes: only its signal ends the wait.
          return new Promise<Uint8Array>((_, reject) => o?.signal?.addEventListener('abort', () => reject(o.signal!.reason), { once: true }));
        },
      };
      const stop = new AbortController();
      const opening = rejection(Repository.open(hanging, TEST_PASSWORD, { signal: stop.signal }));
      while (!(asked.includes('keys') && asked.includes('config'))) await new Promise((r) => setTimeout(r, 0));
      await new Promise((r) => setTimeout(r, 0)); // the config's answer is in
      stop.abort(new CairnError('ABORTED', 'stopped'));
      expect(await opening).toMatchObject({ code: 'ABORTED' });
    });

    it('a wrong password is WRONG_PASSWORD', async () => {
      const { backend } = await memRepo();
      expect(isCairnError(await rejection(Repository.open(backend, 'nope')), 'WRONG_PASSWORD')).toBe(true);
    });

    it('a config that does not authenticate, does not parse or has a bad version is BAD_CONFIG', async () => {
      const cases: ((k: Key) => Promise<Uint8Array>)[] = [
        async () => seededBytes(1, 100),
        async (k) => seal(k, new TextEncoder().encode('{"version":')),
        async (k) => seal(k, new TextEncoder().encode(`{"version":3,"id":"${'a'.repeat(64)}","chunker_polynomial":"3da3358b4dc173"}`)),
        async (k) => seal(k, new TextEncoder().encode('\x01junk')),
      ];
      for (const make of cases) {
        const { repo, backend } = await memRepo();
        await backend.remove({ type: 'config', name: '' });
        await backend.save({ type: 'config', name: '' }, await make(repo.key));
        expect(isCairnError(await rejection(Repository.open(backend, TEST_PASSWORD)), 'BAD_CONFIG')).toBe(true);
      }
    });

    it('opens the repository restic 0.14 made and reads its blobs', async () => {
      const fx = resticFixture();
      const be = await resticFixtureBackend();
      const repo = await Repository.open(be, fx.password);
      expect(repo.config).toEqual({ version: 2, id: fx.config.id, chunkerPolynomial: parsePol(fx.config.chunker_polynomial) });
      expect(repo.key.toJSON()).toEqual(fx.masterkey);
      expect(await repo.listIDs('snapshots')).toEqual([fx.snapshotID]);
      expect(await repo.loadJSON('snapshots', fx.snapshotID)).toEqual(fx.snapshot);
      expect(await repo.loadJSON('index', fx.indexID)).toEqual(fx.index);
      await repo.loadIndex();
      const dataBlob = fx.index.packs.flatMap((p) => p.blobs).find((b) => b.type === 'data')!;
      expect(new TextDecoder().decode(await repo.loadBlob('data', dataBlob.id))).toBe(fx.file.content);
      const tree = await repo.loadBlob('tree', fx.snapshot.tree as string);
      expect(JSON.parse(new TextDecoder().decode(tree)).nodes[0].name).toBe('tmp');
    }, 30_000);

    it('reads a cached tree of restic’s before the index is loaded, and nothing the cache does not hold', async () => {
      const fx = resticFixture();
      const be = await resticFixtureBackend();
      const repo = await Repository.open(be, fx.password);
      const treeID = fx.snapshot.tree as string;
      const pack = fx.index.packs.find((p) => p.blobs.some((b) => b.id === treeID))!;
      const at = pack.blobs.find((b) => b.id === treeID)!;
      expect(at.uncompressed_length).toBeGreaterThan(0); // restic stored it as a zstd frame
      const held = new Map([[treeID, await be.load({ type: 'data', name: pack.id }, { offset: at.offset, length: at.length })]]);
      repo.blobCache = { wants: (t) => t === 'tree', get: async (_t, id) => held.get(id), put: async () => {}, drop: async () => {} };
      const early = await repo.cachedBlob('tree', treeID);
      expect(repo.indexLoaded).toBe(false);
      await repo.loadIndex();
      expect(sameBytes(early!, await repo.loadBlob('tree', treeID))).toBe(true);
      expect(await repo.cachedBlob('tree', pack.id)).toBeUndefined();
      expect(await repo.cachedBlob('data', treeID)).toBeUndefined(); // a type the cache does not want
    }, 30_000);
  });

  describe('unpacked files', () => {
    it('v2 stores 0x02 || zstd, v1 raw JSON; the name is the SHA-256 of the stored bytes', async () => {
      for (const version of [1, 2]) {
        const { repo, backend } = await memRepo({ version });
        const json = JSON.stringify({ hello: 'world', n: version });
        const id = await repo.saveJSON('snapshots', json);
        const stored = await backend.load({ type: 'snapshots', name: id });
        expect(await hashID(stored)).toBe(id);
        const plain = await open(repo.key, stored);
        expect(plain[0]).toBe(version === 2 ? 2 : 0x7b);
        expect(await repo.loadJSON('snapshots', id)).toEqual({ hello: 'world', n: version });
        expect(new TextDecoder().decode(await repo.loadUnpacked('snapshots', id))).toBe(json);
      }
    });

    it('content stored under the wrong name is HASH_MISMATCH', async () => {
      const { repo, backend } = await memRepo();
      const a = await repo.saveJSON('index', '{"packs":[]}');
      const b = await repo.saveJSON('index', '{"packs":[] }');
      const bytesB = await backend.load({ type: 'index', name: b });
      await backend.remove({ type: 'index', name: a });
      await backend.save({ type: 'index', name: a }, bytesB);
      const e = await rejection(repo.loadJSON('index', a));
      expect(isCairnError(e, 'HASH_MISMATCH')).toBe(true);
      expect((e as { detail: unknown }).detail).toEqual({ type: 'index', id: a });
    });

    it('a file sealed with another key (name matching) is MAC_MISMATCH', async () => {
      const { repo, backend } = await memRepo();
      const { repo: other } = await memRepo();
      const id = await other.saveJSON('snapshots', '{"x":1}');
      await backend.save({ type: 'snapshots', name: id }, await other.backend.load({ type: 'snapshots', name: id }));
      expect(isCairnError(await rejection(repo.loadJSON('snapshots', id)), 'MAC_MISMATCH')).toBe(true);
    });

    it('malformed JSON is BAD_SNAPSHOT for snapshots and BAD_INDEX otherwise', async () => {
      const { repo } = await memRepo();
      const s = await repo.saveJSON('snapshots', '{"broken":');
      const i = await repo.saveJSON('index', '{"broken":');
      const l = await repo.saveJSON('locks', '[1,');
      expect(isCairnError(await rejection(repo.loadJSON('snapshots', s)), 'BAD_SNAPSHOT')).toBe(true);
      expect(isCairnError(await rejection(repo.loadJSON('index', i)), 'BAD_INDEX')).toBe(true);
      expect(isCairnError(await rejection(repo.loadJSON('locks', l)), 'BAD_INDEX')).toBe(true);
    });

    it("a missing file is the backend's NOT_FOUND", async () => {
      const { repo } = await memRepo();
      expect(isCairnError(await rejection(repo.loadJSON('index', 'ab'.repeat(32))), 'NOT_FOUND')).toBe(true);
    });

    it('listIDs skips names that are not IDs', async () => {
      const { repo, backend } = await memRepo();
      const id = await repo.saveJSON('snapshots', '{}');
      await backend.save({ type: 'snapshots', name: 'tmp-123' }, new Uint8Array(1));
      await backend.save({ type: 'snapshots', name: id.toUpperCase() }, new Uint8Array(1));
      expect(await repo.listIDs('snapshots')).toEqual([id]);
    });
  });

  describe('index and blobs', () => {
    it('saveIndex + loadIndex: a freshly opened repository finds every blob; the index loads once', async () => {
      const { repo, backend } = await memRepo();
      const plains = [seededBytes(1, 1000), generate({ kind: 'text', seed: 2, size: 50_000 }), new Uint8Array(0)];
      const pack = await storePack(
        repo,
        plains.map((plain) => ({ type: 'data' as const, plain })),
      );
      const treePlain = new TextEncoder().encode('{"nodes":[]}\n');
      const treePack = await storePack(repo, [{ type: 'tree', plain: treePlain }]);
      await repo.saveIndex([pack, treePack]);

      const counting = countingBackend(backend);
      const fresh = await Repository.open(counting, TEST_PASSWORD);
      await fresh.loadIndex();
      await fresh.loadIndex();
      expect(counting.lists.filter((t) => t === 'index')).toHaveLength(1);
      expect(fresh.index.size).toBe(4);
      for (const plain of plains) expect(sameBytes(await fresh.loadBlob('data', await hashID(plain)), plain)).toBe(true);
      expect(sameBytes(await fresh.loadBlob('tree', await hashID(treePlain)), treePlain)).toBe(true);
      expect(fresh.lookupBlob('data', await hashID(plains[1]!))).toMatchObject({ packID: pack.id, uncompressedLength: 50_000 });
      // Types are apart: the tree is not a data blob.
      expect(isCairnError(await rejection(fresh.loadBlob('data', await hashID(treePlain))), 'BLOB_NOT_FOUND')).toBe(true);
    });

    it('loadIndex records what each index file lists, a pack listed twice once; dropIndex forgets it all', async () => {
      const { repo, backend } = await memRepo();
      const a = await storePack(repo, [{ type: 'data', plain: seededBytes(1, 100) }]);
      const b = await storePack(repo, [
        { type: 'data', plain: seededBytes(2, 100) },
        { type: 'data', plain: seededBytes(3, 100) },
      ]);
      const f1 = await repo.saveIndex([a, b]);
      const f2 = await repo.saveIndex([b]);
      const fresh = await Repository.open(backend, TEST_PASSWORD);
      await fresh.loadIndex();
      expect(fresh.index.size).toBe(3);
      const na = fresh.index.packNumber(a.id)!,
        nb = fresh.index.packNumber(b.id)!;
      expect(new Map(fresh.indexFiles)).toEqual(
        new Map([
          [f1, { packs: [na, nb], blobs: 3 }],
          [f2, { packs: [nb], blobs: 2 }],
        ]),
      );
      fresh.dropIndex();
      expect([fresh.index.size, fresh.indexFiles.size]).toEqual([0, 0]);
      await fresh.loadIndex();
      expect([fresh.index.size, fresh.indexFiles.size]).toEqual([3, 2]);
    });

    it('loadIndex callers at the same time share one load; one caller giving up does not fail the other', async () => {
      const { repo, backend } = await memRepo();
      await repo.saveIndex([await storePack(repo, [{ type: 'data', plain: seededBytes(3, 500) }])]);
      const counting = countingBackend(backend);
      const fresh = await Repository.open(counting, TEST_PASSWORD);
      await Promise.all([fresh.loadIndex(), fresh.loadIndex(), fresh.loadIndex()]);
      expect(counting.lists.filter((t) => t === 'index')).toHaveLength(1);
      expect(fresh.index.size).toBe(1);

      const other = await Repository.open(countingBackend(backend), TEST_PASSWORD);
      const abort = new AbortController();
      const first = other.loadIndex({ signal: abort.signal });
      const second = other.loadIndex();
      abort.abort();
      expect(isCairnError(await rejection(first), 'ABORTED')).toBe(true);
      await second;
      expect(other.index.size).toBe(1);
    });

    it('a background index load waits for its pace until a caller that needs the index joins; other loads are not paced', async () => {
      const { repo, backend } = await memRepo();
      await repo.saveIndex([await storePack(repo, [{ type: 'data', plain: seededBytes(4, 500) }])]);
      const held = new Promise<void>(() => {}); // a holder that never lets go
      const paced = async (r: Repository) => ((r.indexPace = () => held), r);

      const background = await paced(await Repository.open(backend, TEST_PASSWORD));
      const waiting = background.loadIndex({ background: true });
      await new Promise((r) => setTimeout(r, 20));
      expect(background.indexLoaded).toBe(false);
      await background.loadIndex(); // needs it: ends the wait (hung before)
      await waiting;
      expect(background.index.size).toBe(1);

      const foreground = await paced(await Repository.open(backend, TEST_PASSWORD));
      await foreground.loadIndex();
      expect(foreground.index.size).toBe(1);
    });

    it('a tree miss reads all trees of its pack in one request; a damaged one still fails alone', async () => {
      const { repo, backend } = await memRepo();
      const trees = Array.from({ length: 40 }, (_, i) => new TextEncoder().encode(`{"nodes":[{"name":"f${i}","type":"file","content":[]}]}\n`));
      const pack = await storePack(
        repo,
        trees.map((plain) => ({ type: 'tree' as const, plain })),
      );
      await repo.saveIndex([pack]);
      const ids = await Promise.all(trees.map((t) => hashID(t)));

      const counting = countingBackend(backend);
      const fresh = await Repository.open(counting, TEST_PASSWORD);
      await fresh.loadIndex();
      const before = counting.loads.length;
      // Concurrent misses share the one read.
      const got = await Promise.all(ids.map((id) => fresh.loadBlob('tree', id)));
      got.forEach((g, i) => expect(sameBytes(g, trees[i]!)).toBe(true));
      expect(counting.loads.slice(before).filter((h) => h.type === 'data')).toHaveLength(1);

      // One tree damaged in the pack: the others load, that one reports the corruption.
      const bad = pack.blobs.find((b) => b.id === ids[7])!;
      await mutate(backend, { type: 'data', name: pack.id }, (b) => void (b[bad.offset + 20]! ^= 1));
      const again = await Repository.open(backend, TEST_PASSWORD);
      await again.loadIndex();
      expect(sameBytes(await again.loadBlob('tree', ids[8]!), trees[8]!)).toBe(true);
      expect(isCairnError(await rejection(again.loadBlob('tree', ids[7]!)), 'MAC_MISMATCH')).toBe(true);
    });

    it('loadIndex reports progress per file and surfaces a bad index file', async () => {
      const { repo, backend } = await memRepo();
      await repo.saveIndex([]);
      await repo.saveIndex([]);
      const seen: [number, number][] = [];
      const fresh = await Repository.open(backend, TEST_PASSWORD);
      await fresh.loadIndex({ onFile: (d, t) => seen.push([d, t]) });
      expect(seen.map((s) => s[1])).toEqual([2, 2]);
      expect(seen.map((s) => s[0]).sort()).toEqual([1, 2]);
      await repo.saveJSON('index', '{"packs":"nope"}');
      const broken = await Repository.open(backend, TEST_PASSWORD);
      expect(isCairnError(await rejection(broken.loadIndex()), 'BAD_INDEX')).toBe(true);
    });

    it('loadBlob falls back to the second copy when the first is corrupt, missing or short', async () => {
      const plain = generate({ kind: 'text', seed: 3, size: 20_000 });
      const id = await hashID(plain);
      const damages: ((be: Backend, packID: string) => Promise<void>)[] = [
        (be, p) => mutate(be, { type: 'data', name: p }, (b) => void (b[40]! ^= 1)), // flipped bit: MAC fails
        (be, p) => be.remove({ type: 'data', name: p }), // pack gone
        (be, p) => mutate(be, { type: 'data', name: p }, (b) => b.subarray(0, 100)), // truncated pack
      ];
      for (const damage of damages) {
        const { repo } = await memRepo();
        const p1 = await storePack(repo, [
          { type: 'data', plain: seededBytes(9, 10) },
          { type: 'data', plain },
        ]);
        const p2 = await storePack(repo, [{ type: 'data', plain }]);
        repo.index.addPack(p1.id, p1.blobs);
        repo.index.addPack(p2.id, p2.blobs);
        const first = repo.lookupBlob('data', id)!;
        expect(repo.index.lookupAll('data', id)).toHaveLength(2);
        await damage(repo.backend, first.packID);
        expect(sameBytes(await repo.loadBlob('data', id), plain)).toBe(true);
      }
    });

    it('when every copy is bad, loadBlob throws the last error', async () => {
      const { repo } = await memRepo();
      const plain = seededBytes(4, 3000);
      const id = await hashID(plain);
      const p1 = await storePack(repo, [{ type: 'data', plain }]);
      const p2 = await storePack(repo, [
        { type: 'data', plain: seededBytes(5, 8) },
        { type: 'data', plain },
      ]);
      repo.index.addPack(p1.id, p1.blobs);
      repo.index.addPack(p2.id, p2.blobs);
      await repo.backend.remove({ type: 'data', name: p1.id });
      await mutate(repo.backend, { type: 'data', name: p2.id }, (b) => void (b[100]! ^= 0x10));
      const e = await rejection(repo.loadBlob('data', id));
      const codes = new Set(['NOT_FOUND', 'MAC_MISMATCH']);
      expect(isCairnError(e) && codes.has(e.code)).toBe(true);
      expect(isCairnError(await rejection(repo.loadBlob('data', 'ab'.repeat(32))), 'BLOB_NOT_FOUND')).toBe(true);
    });

    it('a blob whose index entry lies about its content is HASH_MISMATCH, not silently wrong data', async () => {
      const { repo } = await memRepo();
      const a = seededBytes(6, 500),
        b = seededBytes(7, 500);
      const pack = await storePack(repo, [
        { type: 'data', plain: a },
        { type: 'data', plain: b },
      ]);
      // An index that swaps the IDs of the two blobs.
      const [ea, eb] = pack.blobs as [IndexPack['blobs'][0], IndexPack['blobs'][0]];
      repo.index.addPack(pack.id, [
        { ...ea, id: eb.id },
        { ...eb, id: ea.id },
      ]);
      expect(isCairnError(await rejection(repo.loadBlob('data', ea.id)), 'HASH_MISMATCH')).toBe(true);
    });

    it('a cancelled load is not retried on another copy', async () => {
      const { repo } = await memRepo();
      const plain = seededBytes(8, 100);
      const id = await hashID(plain);
      for (let i = 0; i < 2; i++) {
        const p = await storePack(repo, [
          { type: 'data', plain: seededBytes(20 + i, 5) },
          { type: 'data', plain },
        ]);
        repo.index.addPack(p.id, p.blobs);
      }
      const counting = countingBackend(repo.backend);
      const r2 = new Repository(counting, repo.key, repo.keyID, repo.config);
      for (const loc of repo.index.entries()) r2.index.addPack(loc.packID, [loc]);
      const ctl = new AbortController();
      ctl.abort();
      expect(isCairnError(await rejection(r2.loadBlob('data', id, ctl.signal)), 'ABORTED')).toBe(true);
      expect(counting.loads).toHaveLength(1);
    });
  });
});
