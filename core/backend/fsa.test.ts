// FsaBackend against a small in-memory model of the File System Access API (the real one is
// exercised by the app's Playwright tests). The model follows the spec where it matters to
// us: getFileHandle({create}) makes an empty file at once, createWritable() writes to a swap
// buffer committed on close(), move() renames, and errors are DOMExceptions by name.

import { describe, expect, it } from 'vitest';
import { backendConformanceSuite, expectBytes, expectCode, listAll, testObject } from '../../test/helpers/backend-conformance';
import { FsaBackend } from './fsa';

const dom = (name: string) => new DOMException(name, name);

interface ModelOptions {
  /** `undefined`: no move(); otherwise the DOMException name move() throws, or '' to work. */
  move?: string;
  /**
   * `undefined`: no createSyncAccessHandle (the page's thread); '' works (OPFS in a worker);
   * otherwise the DOMException name it throws (InvalidStateError: a picked folder).
   */
  sync?: string;
  /** Read-only sync handles are refused as locked (a browser without that mode, a writer open). */
  readLocked?: boolean;
  /**
   * Sync writes report every byte written but the file keeps only this many: Chromium's OPFS
   * when the origin's quota runs out mid-write (seen in test/e2e/engine-interrupted.spec.ts).
   */
  keepsOnly?: number;
}

/** How often each way of writing was asked for. */
const calls = { sync: 0, writable: 0 };
/** How often a read-only sync access handle was asked for. */
let syncReads = 0;
/** Read-only sync access handles open now, per file (Chromium refuses to remove a file one holds). */
const openReaders = new Map<object, number>();

class ModelFile {
  readonly kind = 'file';
  data = new Uint8Array(0);
  constructor(
    public name: string,
    public parent: ModelDir,
  ) {}

  #check(): void {
    if (this.parent.entries.get(this.name) !== this) throw dom('NotFoundError');
  }

  async getFile(): Promise<Blob> {
    this.#check();
    return new Blob([this.data]);
  }

  async createWritable() {
    this.#check();
    calls.writable++;
    const chunks: Uint8Array[] = [];
    return {
      write: async (d: Uint8Array) => void chunks.push(d.slice()),
      close: async () => {
        const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
        let at = 0;
        for (const c of chunks) out.set(c, (at += c.length) - c.length);
        this.data = out;
      },
      abort: async () => {},
    };
  }
}

/** How many directory lookups the backend made. */
let dirLookups = 0;

class ModelDir {
  readonly kind = 'directory';
  readonly entries = new Map<string, ModelDir | ModelFile>();
  /** Removed from its parent: a stale handle, which fails like the real API's. */
  removed = false;
  constructor(
    public name: string,
    readonly opts: ModelOptions,
  ) {}

  async getDirectoryHandle(name: string, o: { create?: boolean } = {}): Promise<ModelDir> {
    dirLookups++;
    if (this.removed) throw dom('NotFoundError');
    const e = this.entries.get(name);
    if (e instanceof ModelFile) throw dom('TypeMismatchError');
    if (e) return e;
    if (!o.create) throw dom('NotFoundError');
    const d = new ModelDir(name, this.opts);
    this.entries.set(name, d);
    return d;
  }

  async getFileHandle(name: string, o: { create?: boolean } = {}): Promise<ModelFile> {
    if (this.removed) throw dom('NotFoundError');
    const e = this.entries.get(name);
    if (e instanceof ModelDir) throw dom('TypeMismatchError');
    if (e) return e;
    if (!o.create) throw dom('NotFoundError');
    const f = this.#file(name);
    this.entries.set(name, f);
    return f;
  }

  #file(name: string): ModelFile {
    const f = new ModelFile(name, this);
    const sync = this.opts.sync;
    if (sync !== undefined) {
      Object.assign(f, {
        createSyncAccessHandle: async (o: { mode?: string } = {}) => {
          if (o.mode === 'read-only') {
            syncReads++;
            if (sync) throw dom(sync);
            if (this.opts.readLocked) throw dom('NoModificationAllowedError');
            if (f.parent.entries.get(f.name) !== f) throw dom('NotFoundError'); // removed meanwhile
            openReaders.set(f, (openReaders.get(f) ?? 0) + 1);
            await new Promise((r) => setTimeout(r, 1)); // the file is locked at once, the handle comes later
            let open = true;
            return {
              getSize: () => f.data.length,
              read: (b: Uint8Array, r: { at?: number } = {}) => {
                if (!open) throw dom('InvalidStateError');
                const part = f.data.subarray(r.at ?? 0, (r.at ?? 0) + b.length);
                b.set(part);
                return part.length;
              },
              close: () => {
                if (open) openReaders.set(f, (openReaders.get(f) ?? 1) - 1); // (cleared by a test meanwhile: 0)
                open = false;
              },
            };
          }
          calls.sync++;
          if (sync) throw dom(sync);
          let data = f.data;
          return {
            truncate: (n: number) => void (data = data.slice(0, n)),
            write: (b: Uint8Array, o: { at?: number } = {}) => {
              const at = o.at ?? 0;
              const next = new Uint8Array(Math.max(data.length, at + b.length));
              next.set(data);
              next.set(b, at);
              data = this.opts.keepsOnly === undefined ? next : next.slice(0, this.opts.keepsOnly);
              return b.length;
            },
            getSize: () => data.length,
            flush: () => void (f.data = data),
            close: () => {},
          };
        },
      });
    }
    const how = this.opts.move;
    if (how !== undefined) {
      Object.assign(f, {
        move: async (dir: ModelDir, newName: string) => {
          if (how) throw dom(how);
          f.parent.entries.delete(f.name);
          dir.entries.set(newName, f);
          f.name = newName;
          f.parent = dir;
        },
      });
    }
    return f;
  }

  async removeEntry(name: string, o: { recursive?: boolean } = {}): Promise<void> {
    const e = this.entries.get(name);
    if (!e) throw dom('NotFoundError');
    if (e instanceof ModelDir) {
      if (e.entries.size > 0 && !o.recursive) throw dom('InvalidModificationError');
      e.removed = true;
    } else if (openReaders.get(e)) throw dom('NoModificationAllowedError');
    this.entries.delete(name);
  }

  async *values() {
    yield* [...this.entries.values()];
  }
}

function model(opts: ModelOptions = { move: '' }) {
  const root = new ModelDir('picked', opts);
  return { root, handle: root as unknown as FileSystemDirectoryHandle };
}

backendConformanceSuite('FsaBackend (API model with move)', async () => ({
  backend: await FsaBackend.create(model().handle),
  cleanup: async () => {},
}));

backendConformanceSuite('FsaBackend (API model of OPFS in a worker: sync access handles)', async () => ({
  backend: await FsaBackend.create(model({ move: '', sync: '' }).handle),
  cleanup: async () => {},
}));

describe('FsaBackend', () => {
  it("creates restic's layout and refuses to create over a config", async () => {
    const { root, handle } = model();
    const be = await FsaBackend.create(handle);
    expect([...root.entries.keys()].sort()).toEqual(['data', 'index', 'keys', 'locks', 'snapshots']);
    expect((root.entries.get('data') as ModelDir).entries.size).toBe(256);
    expect(be.location).toBe('fsa:picked');
    await be.save({ type: 'config', name: '' }, new Uint8Array([1]));
    await expectCode(FsaBackend.create(handle), 'REPO_EXISTS');
  });

  it('stores a pack at data/<2 hex>/<id> and leaves no temp file', async () => {
    const { root, handle } = model();
    const be = await FsaBackend.create(handle);
    const { h, data } = await testObject('data', 1, 100);
    await be.save(h, data);
    const sub = (root.entries.get('data') as ModelDir).entries.get(h.name.slice(0, 2)) as ModelDir;
    expect([...sub.entries.keys()]).toEqual([h.name]);
  });

  it.each([
    ['without move()', undefined],
    ['when move() is not supported', 'NotSupportedError'],
  ])('saves in place %s', async (_, move) => {
    const { root, handle } = model({ move });
    const be = await FsaBackend.create(handle);
    for (const seed of [2, 3]) {
      const { h, data } = await testObject('keys', seed, 100);
      await be.save(h, data);
      expectBytes(await be.load(h), data);
    }
    expect([...(root.entries.get('keys') as ModelDir).entries.keys()].every((n) => !n.includes('-tmp-'))).toBe(true);
    expect(await listAll(be, 'keys')).toHaveLength(2);
  });

  it('writes through sync access handles where they work, else createWritable() (asked once)', async () => {
    for (const [sync, want] of [
      ['', { sync: 3, writable: 0 }], // OPFS in a worker
      ['InvalidStateError', { sync: 1, writable: 3 }], // a picked folder refuses, once
      [undefined, { sync: 0, writable: 3 }], // no sync handles on this thread
    ] as const) {
      const be = await FsaBackend.create(model({ move: '', sync }).handle);
      calls.sync = calls.writable = 0;
      for (const seed of [5, 6, 7]) {
        const { h, data } = await testObject('data', seed, 1000);
        await be.save(h, data);
        expectBytes(await be.load(h), data);
      }
      expect(calls).toEqual(want);
    }
  });

  it('reads long ranges through a read-only sync access handle, into the buffer given', async () => {
    const be = await FsaBackend.create(model({ move: '', sync: '' }).handle);
    const { h, data } = await testObject('data', 10, 600 << 10);
    await be.save(h, data);
    syncReads = 0;
    const into = new Uint8Array(1 << 20);
    const got = await be.load(h, { offset: 1000, length: 300 << 10, into });
    expectBytes(got, data.subarray(1000, 1000 + (300 << 10)));
    expect(got.buffer === into.buffer).toBe(true);
    expect(got.byteOffset).toBe(0);
    expectBytes(await be.load(h, { offset: 5, length: 300 << 10 }), data.subarray(5, 5 + (300 << 10)));
    expectBytes(await be.load(h, { into }), data); // the whole object, named by the buffer alone
    expect(syncReads).toBe(1); // one handle, kept open for the next range
    expectBytes(await be.load(h, { offset: 7, length: 100 }), data.subarray(7, 107)); // short: a File read
    expect(syncReads).toBe(1);
    await expectCode(be.load(h, { offset: 400 << 10, length: 300 << 10 }), 'BACKEND_IO'); // past the end
  });

  it('keeps a read-only handle open between ranges: closed when idle, before the file is removed or saved again, and by close()', async () => {
    const m = model({ move: '', sync: '' });
    const be = await FsaBackend.create(m.handle);
    const objs = await Promise.all([21, 22, 23].map((seed) => testObject('data', seed, 400 << 10)));
    for (const o of objs) await be.save(o.h, o.data);
    const open = () => [...openReaders.values()].reduce((a, b) => a + b, 0);
    openReaders.clear();
    syncReads = 0;
    // Ranges of three files, at once and one after another: one handle each.
    await Promise.all(
      objs.flatMap((o) =>
        [0, 1, 2].map((i) =>
          be.load(o.h, { offset: i * 1000, length: 300 << 10 }).then((b) => expectBytes(b, o.data.subarray(i * 1000, i * 1000 + (300 << 10)))),
        ),
      ),
    );
    expect(syncReads).toBe(3);
    expect(open()).toBe(3);
    // Removing one closes its handle first (the browser would refuse otherwise).
    await be.remove(objs[0]!.h);
    expect(open()).toBe(2);
    await expectCode(be.load(objs[0]!.h, { length: 300 << 10 }), 'NOT_FOUND');
    // Saving one again (a repair writing the same pack) does too, and the next read sees the new bytes.
    const again = await testObject('data', 22, 400 << 10);
    await be.save(objs[1]!.h, again.data);
    expectBytes(await be.load(objs[1]!.h, { length: 300 << 10 }), again.data.subarray(0, 300 << 10));
    // Idle ones close by themselves (waited for, not timed: a loaded machine runs timers late).
    await expect.poll(open, { timeout: 10_000 }).toBe(0);
    await be.load(objs[2]!.h, { length: 300 << 10 });
    expect(open()).toBe(1);
    await be.close();
    expect(open()).toBe(0);
  });

  it('a remove while a read of the same file is under way waits for its handle to close', async () => {
    const be = await FsaBackend.create(model({ move: '', sync: '' }).handle);
    openReaders.clear();
    for (let i = 0; i < 3; i++) {
      const { h: hi, data: di } = await testObject('data', 31 + i, 400 << 10);
      await be.save(hi, di);
      const [got] = await Promise.all([be.load(hi, { length: 300 << 10 }), be.remove(hi)]);
      expectBytes(got, di.subarray(0, 300 << 10));
      await expectCode(be.load(hi, { length: 300 << 10 }), 'NOT_FOUND');
    }
    expect([...openReaders.values()].reduce((a, b) => a + b, 0)).toBe(0);
  });

  it('keeps at most 16 read-only handles open', async () => {
    const be = await FsaBackend.create(model({ move: '', sync: '' }).handle);
    const objs = await Promise.all(Array.from({ length: 20 }, (_, i) => testObject('data', 40 + i, 300 << 10)));
    for (const o of objs) await be.save(o.h, o.data);
    openReaders.clear();
    for (const o of objs) expectBytes(await be.load(o.h, { length: 300 << 10 }), o.data);
    expect([...openReaders.values()].reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(16);
    await be.close();
    expect([...openReaders.values()].reduce((a, b) => a + b, 0)).toBe(0);
  });

  it('falls back to File reads where read-only sync handles are refused', async () => {
    for (const [opts, tries] of [
      [{ move: '', sync: 'InvalidStateError' }, 1], // a picked folder: asked once
      [{ move: '', sync: '', readLocked: true }, 3], // locked now: asked again next time
    ] as const) {
      const be = await FsaBackend.create(model(opts).handle);
      const { h, data } = await testObject('data', 11, 400 << 10);
      await be.save(h, data);
      syncReads = 0;
      for (let i = 0; i < 3; i++) expectBytes(await be.load(h, { offset: i, length: 300 << 10 }), data.subarray(i, i + (300 << 10)));
      expect(syncReads).toBe(tries);
    }
  });

  it('a sync access handle refused for another reason fails the save, coded', async () => {
    const be = await FsaBackend.create(model({ move: '', sync: 'NoModificationAllowedError' }).handle);
    const { h, data } = await testObject('data', 8, 100);
    await expectCode(be.save(h, data), 'BACKEND_IO');
    expect(await listAll(be, 'data')).toEqual([]);
  });

  it('a sync write the file did not keep whole (quota ran out) fails the save: QUOTA_EXCEEDED, nothing under the name', async () => {
    const { root, handle } = model({ move: '', sync: '', keepsOnly: 60 });
    const be = await FsaBackend.create(handle);
    const { h, data } = await testObject('data', 9, 100);
    await expectCode(be.save(h, data), 'QUOTA_EXCEEDED');
    expect(await listAll(be, 'data')).toEqual([]);
    expect([...((root.entries.get('data') as ModelDir).entries.get(h.name.slice(0, 2)) as ModelDir).entries.keys()]).toEqual([]);
  });

  it('remembers directory handles, and looks again when one went stale', async () => {
    const { root, handle } = model();
    const be = await FsaBackend.create(handle);
    const { h, data } = await testObject('data', 9, 300);
    await be.save(h, data);
    dirLookups = 0;
    for (let i = 0; i < 5; i++) expectBytes(await be.load(h, { offset: 10, length: 20 }), data.subarray(10, 30));
    expect(dirLookups).toBe(0); // data/ and data/<xx>/ were found while saving
    // Another program removes data/<xx>/ and makes it again with the same pack in it.
    const dataDir = root.entries.get('data') as ModelDir;
    await dataDir.removeEntry(h.name.slice(0, 2), { recursive: true });
    await be.save(h, data);
    expectBytes(await be.load(h), data);
    expect(await listAll(be, 'data')).toEqual([{ name: h.name, size: 300 }]);
  });

  it('removes the temp files an unfinished save of a pack left, and nothing else', async () => {
    const { root, handle } = model();
    const be = await FsaBackend.create(handle);
    const { h, data } = await testObject('data', 5, 100);
    const sub = (root.entries.get('data') as ModelDir).entries.get(h.name.slice(0, 2)) as ModelDir;
    await sub.getFileHandle(`${h.name}-tmp-aa11`, { create: true }); // a tab closed mid-write, twice
    await sub.getFileHandle(`${h.name}-tmp-bb22`, { create: true });
    await sub.getFileHandle(`${h.name}x-tmp-cc33`, { create: true }); // another name's
    await be.save(h, data);
    expect(await be.removeTemps({ type: 'data', name: h.name })).toBe(2);
    expect([...sub.entries.keys()].sort()).toEqual([h.name, `${h.name}x-tmp-cc33`].sort());
    expectBytes(await be.load(h), data);
    expect(await be.removeTemps({ type: 'data', name: h.name })).toBe(0);
    (root.entries.get('data') as ModelDir).entries.delete(h.name.slice(0, 2));
    expect(await be.removeTemps(h)).toBe(0); // its folder is gone: nothing to remove
  });

  it('lists only objects and treats a missing directory as empty', async () => {
    const { root, handle } = model();
    const be = await FsaBackend.create(handle);
    const { h, data } = await testObject('index', 4, 10);
    await be.save(h, data);
    const index = root.entries.get('index') as ModelDir;
    await index.getFileHandle(`${h.name}-tmp-0011`, { create: true });
    await index.getFileHandle(`${h.name}.crswap`, { create: true });
    await index.getFileHandle('.DS_Store', { create: true });
    await index.getDirectoryHandle('nested', { create: true });
    expect(await listAll(be, 'index')).toEqual([{ name: h.name, size: 10 }]);
    root.entries.delete('locks');
    expect(await listAll(be, 'locks')).toEqual([]);
  });

  it('maps lost permission to ACCESS_DENIED', async () => {
    const { root, handle } = model();
    const be = await FsaBackend.create(handle);
    root.getDirectoryHandle = async () => {
      throw dom('NotAllowedError');
    };
    await expectCode(be.stat({ type: 'keys', name: 'aa' }), 'ACCESS_DENIED');
  });
});
