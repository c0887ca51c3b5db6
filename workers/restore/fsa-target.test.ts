// fsaRestoreTarget against a small model of OPFS in a worker (sync access handles) and of a
// picked folder (createWritable only); the real API is exercised by the restore e2e specs.

import { describe, expect, it } from 'vitest';
import { fsaRestoreTarget } from './fsa-target';

const dom = (name: string) => new DOMException(name, name);

class ModelFile {
  readonly kind = 'file';
  data = new Uint8Array(0);
  calls: string[] = [];
  constructor(
    readonly sync: boolean,
    public parent: ModelDir,
    public name: string,
  ) {}

  async move(name: string) {
    this.calls.push(`move ${name}`);
    this.parent.entries.delete(this.name);
    this.parent.entries.set(name, this);
    this.name = name;
  }

  async createSyncAccessHandle() {
    this.calls.push('open');
    if (!this.sync) throw dom('InvalidStateError');
    return {
      getSize: () => this.data.length,
      truncate: (n: number) => {
        this.calls.push(`truncate ${n}`);
        const next = new Uint8Array(n);
        next.set(this.data.subarray(0, n));
        this.data = next;
      },
      write: (b: Uint8Array, o: { at: number }) => {
        const next = new Uint8Array(Math.max(this.data.length, o.at + b.length));
        next.set(this.data);
        next.set(b, o.at);
        this.data = next;
        return b.length;
      },
      flush: () => void this.calls.push('flush'),
      close: () => void this.calls.push('close'),
    };
  }

  async createWritable(o: { keepExistingData?: boolean } = {}) {
    let data = o.keepExistingData ? this.data.slice() : new Uint8Array(0);
    return {
      truncate: async (n: number) => {
        const next = new Uint8Array(n);
        next.set(data.subarray(0, n));
        data = next;
      },
      write: async (w: { position: number; data: Uint8Array }) => {
        const next = new Uint8Array(Math.max(data.length, w.position + w.data.length));
        next.set(data);
        next.set(w.data, w.position);
        data = next;
      },
      close: async () => void (this.data = data),
      abort: async () => void this.calls.push('abort'),
    };
  }
}

class ModelDir {
  readonly kind = 'directory';
  readonly entries = new Map<string, ModelDir | ModelFile>();
  constructor(readonly sync: boolean) {}
  async getDirectoryHandle(name: string, o: { create?: boolean } = {}) {
    let d = this.entries.get(name);
    if (!d && o.create) this.entries.set(name, (d = new ModelDir(this.sync)));
    if (!(d instanceof ModelDir)) throw dom('NotFoundError');
    return d;
  }
  async getFileHandle(name: string, o: { create?: boolean } = {}) {
    let f = this.entries.get(name);
    if (!f && o.create) this.entries.set(name, (f = new ModelFile(this.sync, this, name)));
    if (!(f instanceof ModelFile)) throw dom('NotFoundError');
    return f;
  }
  async removeEntry(name: string) {
    if (!this.entries.delete(name)) throw dom('NotFoundError');
  }
}

const bytes = (...b: number[]) => new Uint8Array(b);

describe('fsaRestoreTarget', () => {
  for (const sync of [true, false]) {
    it(`${sync ? 'OPFS (sync access handles)' : 'a picked folder (createWritable)'}: blobs land out of order, and an older, longer file is replaced whole`, async () => {
      const root = new ModelDir(sync);
      const target = fsaRestoreTarget(root as unknown as FileSystemDirectoryHandle);
      const old = await root.getDirectoryHandle('docs', { create: true }).then((d) => d.getFileHandle('a.txt', { create: true }));
      old.data = new Uint8Array(100).fill(7); // left from an earlier restore
      const w = await target.createFile(['docs', 'a.txt'], 5);
      await w.write(3, bytes(4, 5)); // the restorer writes in pack order, not file order
      await w.write(0, bytes(1, 2, 3));
      await w.close();
      expect([...old.data]).toEqual([1, 2, 3, 4, 5]);
      const fresh = await target.createFile(['docs', 'b.txt'], 2);
      await fresh.write(0, bytes(9, 9));
      await fresh.close();
      const b = (await root.getDirectoryHandle('docs')).entries.get('b.txt') as ModelFile;
      expect([...b.data]).toEqual([9, 9]);
      if (sync) {
        // Neither sized up front nor fsynced: only the old content is cut, once.
        expect(old.calls).toEqual(['open', 'truncate 0', 'close']);
        expect(b.calls).toEqual(['open', 'close']);
      }
    });

    it(`${sync ? 'OPFS' : 'a picked folder'}: a file written in several writes never appears part-written, and a failed one is discarded`, async () => {
      const root = new ModelDir(sync);
      const target = fsaRestoreTarget(root as unknown as FileSystemDirectoryHandle);
      await (await target.createFile(['first'], 1)).close(); // (the target learns what the folder allows)
      const w = await target.createFile(['docs', 'big.bin'], 4, { writes: 2 });
      await w.write(2, bytes(3, 4));
      const docs = await root.getDirectoryHandle('docs');
      const visible = () => docs.entries.get('big.bin') as ModelFile | undefined;
      if (sync) expect(visible()).toBeUndefined(); // written as big.bin.cairn-partial
      await w.write(0, bytes(1, 2));
      await w.close();
      expect([...visible()!.data]).toEqual([1, 2, 3, 4]);
      expect([...docs.entries.keys()]).toEqual(['big.bin']);

      const failed = await target.createFile(['docs', 'bad.bin'], 4, { writes: 2 });
      await failed.write(0, bytes(1, 2));
      await failed.abort!();
      await target.remove!(['docs', 'bad.bin']);
      expect([...docs.entries.keys()]).toEqual(['big.bin']);
    });
  }
  it('removing a path whose folders are not there creates none of them, and removes what is there', async () => {
    const root = new ModelDir(true);
    const target = fsaRestoreTarget(root as unknown as FileSystemDirectoryHandle);
    await target.remove!(['gone', 'deeper', 'x.txt']);
    expect([...root.entries.keys()]).toEqual([]);
    await (await root.getDirectoryHandle('kept', { create: true })).getFileHandle('old.txt', { create: true });
    await target.remove!(['kept', 'old.txt']);
    expect([...(await root.getDirectoryHandle('kept')).entries.keys()]).toEqual([]);
    await expect(target.remove!(['..', 'x'])).rejects.toMatchObject({ code: 'INVALID_NAME' });
  });
});
