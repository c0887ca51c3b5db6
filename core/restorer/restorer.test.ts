import { beforeAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { generate, seededBytes } from '../../test/fixtures/chunker/generate';
import { initEngine, memRepo } from '../../test/helpers/mem-repo';
import { MemSource, type MemDir } from '../../test/helpers/mem-source';
import type { Backend, Handle, LoadOptions } from '../backend/backend';
import { CairnError, isCairnError } from '../errors';
import type { Node } from '../data';
import { Repository } from '../repository/repository';
import { backup } from '../archiver/archiver';
import { inProcessPool } from '../archiver/pool';
import { lookupPath } from '../walker';
import { parsePattern } from '../filter/pattern';
import { DECODE_GROUP_BYTES, restore, type PackDecoder, type RestoreOptions } from './restorer';
import { decodeBlob as decodeOne } from '../repository/blob-codec';
import { PackerManager } from '../repository/packer-manager';
import { encodeBlob } from '../repository/blob-codec';
import { hashID } from '../id';
import type { IndexPack } from '../index/index-file';
import type { FileWriter, RestoreTarget } from './target';
import { writeHostileSnapshot } from '../../test/helpers/hostile-repo';
import { loadSnapshot } from '../repository/snapshots';
import { nameProblem } from '../data/node-name';

const text = (s: string) => new TextEncoder().encode(s);
const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

/** A RestoreTarget in memory that logs every call in order. */
class MemTarget implements RestoreTarget {
  readonly files = new Map<string, { data: Uint8Array; closed: boolean }>();
  readonly dirs = new Set<string>();
  readonly links = new Map<string, string>();
  readonly meta = new Map<string, Node>();
  readonly events: string[] = [];
  failCreate?: (path: string) => boolean;
  failMkdir?: (path: string) => boolean;
  /** Each write copies its bytes this many ms after it is called (as a slow disk would). */
  writeDelay?: number;

  async mkdir(path: string[]): Promise<void> {
    const p = path.join('/');
    if (this.dirs.has(p)) throw new Error(`mkdir twice: ${p}`);
    if (this.failMkdir?.(p)) throw new CairnError('NAME_NOT_ALLOWED', `${p}: name not allowed`);
    this.dirs.add(p);
    this.events.push(`mkdir ${p}`);
  }

  async createFile(path: string[], size: number): Promise<FileWriter> {
    const p = path.join('/');
    this.events.push(`create ${p}`);
    if (this.failCreate?.(p)) throw new CairnError('SOURCE_READ', `${p}: permission denied`);
    const f = { data: new Uint8Array(size), closed: false };
    this.files.set(p, f);
    return {
      write: async (offset, data) => {
        if (f.closed) throw new Error(`write after close: ${p}`);
        if (offset + data.length > size) throw new Error(`write past the end of ${p}`);
        if (this.writeDelay) await new Promise((r) => setTimeout(r, this.writeDelay));
        f.data.set(data, offset);
        this.events.push(`write ${p}`);
      },
      close: async () => {
        f.closed = true;
        this.events.push(`close ${p}`);
      },
    };
  }

  async symlink(path: string[], target: string): Promise<void> {
    this.links.set(path.join('/'), target);
    this.events.push(`symlink ${path.join('/')}`);
  }

  async setMetadata(path: string[], node: Node): Promise<void> {
    this.meta.set(path.join('/'), node);
    this.events.push(`meta ${path.join('/')}`);
  }

  text(p: string): string {
    return new TextDecoder().decode(this.files.get(p)!.data);
  }
}

function countingBackend(inner: Backend): Backend & { dataLoads: string[] } {
  const dataLoads: string[] = [];
  return {
    dataLoads,
    location: inner.location,
    connections: inner.connections,
    close: () => inner.close(),
    load: (h: Handle, o?: LoadOptions) => {
      if (h.type === 'data') dataLoads.push(h.name);
      return inner.load(h, o);
    },
    list: (t, o) => inner.list(t, o),
    save: (h, d, o) => inner.save(h, d, o),
    stat: (h, o) => inner.stat(h, o),
    remove: (h, o) => inner.remove(h, o),
  };
}

const zeros = new Uint8Array(1_300_000); // chunks: 512 KiB, 512 KiB (the same blob), rest
const big = generate({ kind: 'text', seed: 4, size: 700_000 });

const sourceTree = (): MemDir => ({
  a: {
    b: {
      'notes.txt': { data: text('some notes\n') },
      'copy-of-notes.txt': { data: text('some notes\n') },
      'empty.txt': { data: new Uint8Array(0) },
      'zeros.bin': { data: zeros },
      'big.txt': { data: big },
      sub: { 'deep.txt': { data: text('deep\n') }, 'more-zeros.bin': { data: zeros.subarray(0, 600_000) }, link: { link: '../notes.txt' } },
    },
    'top.txt': { data: text('top\n') },
  },
});

async function fixture() {
  const { repo, backend } = await memRepo();
  const src = new MemSource(sourceTree());
  const r = await backup(repo, src, inProcessPool({ saver: repo.backend, reader: src }), { hostname: 'h', targets: ['/a'] });
  return { repo, backend, tree: r.snapshot.tree };
}

/** The restic path-prefix view of a sub-tree: the tree of /a/b and its path components. */
async function subtree(repo: Repository, tree: string, path: string[]): Promise<string> {
  return (await lookupPath(repo, tree, path))!.subtree!;
}

async function runRestore(repo: Repository, tree: string, opts: RestoreOptions = {}) {
  const target = new MemTarget();
  const result = await restore(repo, tree, target, opts);
  return { target, result };
}

describe('restorer', () => {
  beforeAll(initEngine);

  it('restores every file byte for byte, with dirs, symlinks and empty files', async () => {
    const { repo, tree } = await fixture();
    const { target, result } = await runRestore(repo, tree);
    expect([...target.dirs].sort()).toEqual(['a', 'a/b', 'a/b/sub']);
    expect(target.text('a/b/notes.txt')).toBe('some notes\n');
    expect(target.text('a/b/copy-of-notes.txt')).toBe('some notes\n');
    expect(target.files.get('a/b/empty.txt')!.data.length).toBe(0);
    expect(target.files.get('a/b/empty.txt')!.closed).toBe(true);
    expect(sha(target.files.get('a/b/zeros.bin')!.data)).toBe(sha(zeros));
    expect(sha(target.files.get('a/b/sub/more-zeros.bin')!.data)).toBe(sha(zeros.subarray(0, 600_000)));
    expect(sha(target.files.get('a/b/big.txt')!.data)).toBe(sha(big));
    expect(target.links.get('a/b/sub/link')).toBe('../notes.txt');
    expect([...target.files.values()].every((f) => f.closed)).toBe(true);
    expect(result).toEqual({
      files: 8,
      dirs: 3,
      bytes: 11 + 11 + zeros.length + big.length + 5 + 600_000 + 4,
      errors: [],
      others: 1,
      skippedFiles: 0,
      skippedBytes: 0,
      deleted: 0,
      items: {
        total: 12,
        done: 12,
        bytes: 11 + 11 + zeros.length + big.length + 5 + 600_000 + 4,
        bytesDone: 11 + 11 + zeros.length + big.length + 5 + 600_000 + 4,
      },
    });
  });

  it('reads each pack once, even for blobs shared by several files and repeated within one', async () => {
    const { repo, backend, tree } = await fixture();
    const counting = countingBackend(backend);
    const r2 = new Repository(counting, repo.key, repo.keyID, repo.config);
    const { target } = await runRestore(r2, tree);
    expect(sha(target.files.get('a/b/zeros.bin')!.data)).toBe(sha(zeros));
    // Tree packs are read through loadBlob (one load per tree); data packs once each.
    await r2.loadIndex();
    const dataPacks = new Set([...r2.index.entries()].filter((e) => e.type === 'data').map((e) => e.packID));
    for (const p of dataPacks) expect(counting.dataLoads.filter((x) => x === p)).toHaveLength(1);
  });

  it("metadata comes after a file's content; directory metadata last, deepest first", async () => {
    const { repo, tree } = await fixture();
    const { target } = await runRestore(repo, tree);
    const at = (e: string) => target.events.indexOf(e);
    for (const p of target.files.keys()) {
      expect(at(`meta ${p}`), p).toBeGreaterThan(at(`close ${p}`));
      expect(at(`meta ${p}`)).toBeGreaterThan(target.events.lastIndexOf(`write ${p}`));
    }
    const dirMeta = target.events.filter((e) => e.startsWith('meta ') && target.dirs.has(e.slice(5)));
    expect(dirMeta).toEqual(['meta a/b/sub', 'meta a/b', 'meta a']);
    const firstDirMeta = at('meta a/b/sub');
    expect(target.events.slice(firstDirMeta).every((e) => e.startsWith('meta ') && target.dirs.has(e.slice(5)))).toBe(true);
    expect(target.meta.get('a/b/notes.txt')!.name).toBe('notes.txt');
  });

  describe('selecting', () => {
    it('include with a path prefix: a sub-tree restored as if from the snapshot root', async () => {
      const { repo, tree } = await fixture();
      const bTree = await subtree(repo, tree, ['a', 'b']);
      const { target, result } = await runRestore(repo, bTree, { pathPrefix: ['a', 'b'], include: [parsePattern('/a/b/sub')] });
      expect([...target.dirs]).toEqual(['sub']);
      expect([...target.files.keys()].sort()).toEqual(['sub/deep.txt', 'sub/more-zeros.bin']);
      expect([...target.links.keys()]).toEqual(['sub/link']);
      expect(result.errors).toEqual([]);
    });

    it('include of single files creates only the directories leading to them', async () => {
      const { repo, tree } = await fixture();
      const { target } = await runRestore(repo, tree, { include: [parsePattern('deep.txt'), parsePattern('/a/top.txt')] });
      expect([...target.files.keys()].sort()).toEqual(['a/b/sub/deep.txt', 'a/top.txt']);
      expect([...target.dirs].sort()).toEqual(['a', 'a/b', 'a/b/sub']);
      // Leading directories get their metadata too (restic >= 0.17: a folder holding something restored is restored).
      expect([...target.meta.keys()].sort()).toEqual(['a', 'a/b', 'a/b/sub', 'a/b/sub/deep.txt', 'a/top.txt']);
    });

    it('exclude leaves out matching files and whole directories', async () => {
      const { repo, tree } = await fixture();
      const { target, result } = await runRestore(repo, tree, { exclude: [parsePattern('*.bin'), parsePattern('/a/b/sub')] });
      expect([...target.files.keys()].sort()).toEqual(['a/b/big.txt', 'a/b/copy-of-notes.txt', 'a/b/empty.txt', 'a/b/notes.txt', 'a/top.txt']);
      expect(target.dirs.has('a/b/sub')).toBe(false);
      expect(result.files).toBe(5);
    });

    it('exclude is matched against the prefixed path', async () => {
      const { repo, tree } = await fixture();
      const bTree = await subtree(repo, tree, ['a', 'b']);
      const { target } = await runRestore(repo, bTree, { pathPrefix: ['a', 'b'], exclude: [parsePattern('/a/b/sub'), parsePattern('/a/b/*.txt')] });
      expect([...target.files.keys()]).toEqual(['zeros.bin']);
    });

    it('a negated include takes a directory back out', async () => {
      const { repo, tree } = await fixture();
      const { target } = await runRestore(repo, tree, { include: [parsePattern('/a/b'), parsePattern('!/a/b/sub')] });
      expect([...target.files.keys()].some((p) => p.startsWith('a/b/sub'))).toBe(false);
      expect(target.files.has('a/b/notes.txt')).toBe(true);
    });
  });

  describe('damage', () => {
    /** Flips a byte inside the stored copy of the blob that holds `plain`. */
    async function corruptBlob(repo: Repository, backend: Backend, plain: Uint8Array): Promise<void> {
      await repo.loadIndex();
      const loc = repo.lookupBlob('data', sha(plain))!;
      const h = { type: 'data' as const, name: loc.packID };
      const bytes = await backend.load(h);
      bytes[loc.offset + 20]! ^= 0x40;
      await backend.remove(h);
      await backend.save(h, bytes);
    }

    it('a corrupt blob fails only the files that contain it (blob shared by two files)', async () => {
      const { repo, backend, tree } = await fixture();
      await corruptBlob(repo, backend, text('some notes\n'));
      const { target, result } = await runRestore(repo, tree);
      expect(result.errors.map((e) => [e.path, e.code]).sort()).toEqual([
        ['/a/b/copy-of-notes.txt', 'MAC_MISMATCH'],
        ['/a/b/notes.txt', 'MAC_MISMATCH'],
      ]);
      expect(result.files).toBe(6);
      // Everything else, in the same pack or not, is intact.
      expect(target.text('a/b/sub/deep.txt')).toBe('deep\n');
      expect(target.text('a/top.txt')).toBe('top\n');
      expect(sha(target.files.get('a/b/zeros.bin')!.data)).toBe(sha(zeros));
      // Failed files are not left looking restored: one whose only blob failed is never made.
      expect(target.meta.has('a/b/notes.txt')).toBe(false);
      expect(target.files.has('a/b/notes.txt')).toBe(false);
    });

    it('a corrupt blob repeated within a file fails that file once', async () => {
      const { repo, backend, tree } = await fixture();
      await corruptBlob(repo, backend, zeros.subarray(0, 512 * 1024));
      const { target, result } = await runRestore(repo, tree);
      expect(result.errors.map((e) => e.path).sort()).toEqual(['/a/b/sub/more-zeros.bin', '/a/b/zeros.bin']);
      expect(target.text('a/b/notes.txt')).toBe('some notes\n');
    });

    it('a missing pack fails its files; a blob missing from the index fails its file', async () => {
      const { repo, backend, tree } = await fixture();
      await repo.loadIndex();
      const loc = repo.lookupBlob('data', sha(text('top\n')))!;
      await backend.remove({ type: 'data', name: loc.packID });
      const { result } = await runRestore(repo, tree);
      expect(result.errors.length).toBeGreaterThan(0);
      expect(result.errors.every((e) => e.code === 'NOT_FOUND')).toBe(true);
      expect(result.errors.map((e) => e.path)).toContain('/a/top.txt');

      const { repo: r2, tree: t2 } = await fixture();
      const fresh = new Repository(r2.backend, r2.key, r2.keyID, r2.config);
      await fresh.loadIndex();
      // An index without the "deep" blob's pack entry: drop that one blob from a copy.
      const stripped = new Repository(r2.backend, r2.key, r2.keyID, r2.config);
      const gone = sha(text('deep\n'));
      for (const e of fresh.index.entries()) if (!(e.type === 'data' && e.id === gone)) stripped.index.addPack(e.packID, [e]);
      Object.defineProperty(stripped, 'loadIndex', { value: async () => {} });
      const { target, result: res2 } = await runRestore(stripped, t2);
      expect(res2.errors).toEqual([{ path: '/a/b/sub/deep.txt', code: 'BLOB_NOT_FOUND', message: expect.stringMatching(/not in any index/) }]);
      expect(target.files.has('a/b/sub/deep.txt')).toBe(false);
      expect(target.text('a/top.txt')).toBe('top\n');
    });

    it('an unreadable sub-tree is reported and the rest restored', async () => {
      const { repo, tree } = await fixture();
      const subID = await subtree(repo, tree, ['a', 'b', 'sub']);
      const stripped = new Repository(repo.backend, repo.key, repo.keyID, repo.config);
      await repo.loadIndex();
      for (const e of repo.index.entries()) if (!(e.type === 'tree' && e.id === subID)) stripped.index.addPack(e.packID, [e]);
      Object.defineProperty(stripped, 'loadIndex', { value: async () => {} });
      const { target, result } = await runRestore(stripped, tree);
      expect(result.errors).toEqual([{ path: '/a/b/sub', code: 'BLOB_NOT_FOUND', message: expect.any(String) }]);
      expect(target.text('a/b/notes.txt')).toBe('some notes\n');
    });

    it('a file the target cannot create fails alone', async () => {
      const { repo, tree } = await fixture();
      const target = new MemTarget();
      target.failCreate = (p) => p === 'a/b/notes.txt';
      const result = await restore(repo, tree, target);
      expect(result.errors.map((e) => [e.path, e.code])).toEqual([['/a/b/notes.txt', 'SOURCE_READ']]);
      expect(target.text('a/b/copy-of-notes.txt')).toBe('some notes\n');
      expect(result.files).toBe(7);
    });

    it('a directory the target cannot make fails once, its contents are not attempted, the rest restores', async () => {
      const { repo, tree } = await fixture();
      const target = new MemTarget();
      target.failMkdir = (p) => p === 'a/b/sub';
      const result = await restore(repo, tree, target);
      expect(result.errors.map((e) => [e.path, e.code])).toEqual([['/a/b/sub', 'NAME_NOT_ALLOWED']]);
      expect(target.events.filter((e) => e.includes('a/b/sub'))).toEqual([]);
      expect(target.text('a/b/notes.txt')).toBe('some notes\n');
      expect(result.files).toBe(6);
    });

    it('a file without content list and a dir without subtree fail alone (restic reads such trees)', async () => {
      const { repo } = await fixture();
      const T = '"mtime":"2020-09-13T12:26:40Z","atime":"2020-09-13T12:26:40Z","ctime":"2020-09-13T12:26:40Z","uid":0,"gid":0';
      const ok = text('fine\n');
      const tree = text(
        `{"nodes":[{"name":"broken","type":"file",${T},"content":null},{"name":"fine.txt","type":"file",${T},"size":5,"content":["${await hashID(ok)}"]},{"name":"hollow","type":"dir",${T},"content":null}]}\n`,
      );
      const saved: IndexPack[] = [];
      const pm = new PackerManager({ key: repo.key, saver: repo.backend, onPackSaved: (p) => void saved.push({ id: p.id, blobs: p.entries.blobs() }) });
      for (const [type, plain] of [
        ['data', ok],
        ['tree', tree],
      ] as const) {
        const enc = await encodeBlob(repo.key, type, plain, 2, 'auto');
        await pm.add(type, await hashID(plain), enc.sealed, enc.uncompressedLength);
      }
      await pm.flush();
      for (const p of saved) repo.index.addPack(p.id, p.blobs);
      const { target, result } = await runRestore(repo, await hashID(tree));
      expect(result.errors.map((e) => [e.path, e.code]).sort()).toEqual([
        ['/broken', 'BAD_TREE'],
        ['/hollow', 'BAD_TREE'],
      ]);
      expect(target.text('fine.txt')).toBe('fine\n');
      expect(target.files.has('broken')).toBe(false);
    });

    it('refuses nodes whose names are not one path component, and restores the rest', async () => {
      const { repo } = await memRepo();
      const id = await writeHostileSnapshot(repo, [
        { name: '..', type: 'dir', children: [{ name: 'up.txt', type: 'file', data: 'up' }] },
        { name: '../../escape.txt', type: 'file', data: 'esc' },
        { name: 'good.txt', type: 'file', data: 'good' },
        { name: 'lnk', type: 'symlink', target: '/tmp' },
        { name: 'lnk', type: 'dir', children: [{ name: 'planted.txt', type: 'file', data: 'p' }] },
        {
          name: 'sub',
          type: 'dir',
          children: [
            { name: '', type: 'file', data: 'e' },
            { name: '.', type: 'dir', children: [] },
            { name: 'x\0', type: 'file', data: 'n' },
            { name: 'deep.txt', type: 'file', data: 'deep' },
          ],
        },
      ]);
      const { target, result } = await runRestore(repo, (await loadSnapshot(repo, id)).tree);
      const touched = target.events.map((e) => e.slice(e.indexOf(' ') + 1)).filter((p) => p !== '');
      expect(touched.filter((p) => p.split('/').some((c) => nameProblem(c)))).toEqual([]);
      expect(target.text('good.txt')).toBe('good');
      expect(target.text('sub/deep.txt')).toBe('deep');
      expect(target.links.get('lnk')).toBe('/tmp');
      expect([...target.files.keys()].sort()).toEqual(['good.txt', 'sub/deep.txt']);
      expect(result.errors.map((e) => [e.path, e.code]).sort()).toEqual(
        [
          ['/".."', 'INVALID_NAME'],
          ['/"../../escape.txt"', 'INVALID_NAME'],
          ['/"lnk"', 'INVALID_NAME'],
          ['/sub/""', 'INVALID_NAME'],
          ['/sub/"."', 'INVALID_NAME'],
          ['/sub/"x\\u0000"', 'INVALID_NAME'],
        ].sort(),
      );
      expect(result.errors.find((e) => e.path === '/"lnk"')!.message).toMatch(/appears twice/);
    });

    it('cancelling stops the restore with ABORTED', async () => {
      const { repo, tree } = await fixture();
      const ctl = new AbortController();
      ctl.abort();
      const e = await restore(repo, tree, new MemTarget(), { signal: ctl.signal }).catch((x: unknown) => x);
      expect(isCairnError(e, 'ABORTED')).toBe(true);
    });
  });

  it('decodes a pack of small or compressed blobs in groups of a few MiB of plaintext into buffers of their own; one of big stored blobs whole, in place', async () => {
    const calls: { pack: string; blobs: number; plain: number; own: boolean }[] = [];
    const decodePack: PackDecoder = async (key, bytes, blobs, _signal, o) => {
      calls.push({
        pack: blobs[0]!.packID,
        blobs: blobs.length,
        plain: blobs.reduce((n, b) => n + (b.uncompressedLength || b.length - 32), 0),
        own: Boolean(o?.own),
      });
      const results = [];
      for (const b of blobs) results.push({ plain: await decodeOne(key, bytes.subarray(b.offset, b.offset + b.length), b, !o?.own) });
      return { bytes, results };
    };
    /** Backs `files` up, restores them through decodePack (byte-identical) and returns its calls. */
    const restoredThrough = async (files: MemDir) => {
      const { repo } = await memRepo();
      const src = new MemSource({ d: files });
      const r = await backup(repo, src, inProcessPool({ saver: repo.backend, reader: src }), { hostname: 'h', targets: ['/d'] });
      calls.length = 0;
      const { target, result } = await runRestore(repo, r.snapshot.tree, { decodePack });
      expect(result.errors).toEqual([]);
      for (const [name, f] of Object.entries(files)) expect(sha(target.files.get(`d/${name}`)!.data), name).toBe(sha((f as { data: Uint8Array }).data));
      return { calls: [...calls], packs: new Set(calls.map((c) => c.pack)) };
    };

    // 48 compressible files of 256 KiB and a few random ones: one pack, ~14 MiB of plaintext.
    const files: MemDir = {};
    for (let i = 0; i < 48; i++) files[`t${i}.txt`] = { data: generate({ kind: 'text', seed: 100 + i, size: 256 << 10 }) };
    for (let i = 0; i < 3; i++) files[`r${i}.bin`] = { data: seededBytes(200 + i, 300_000) };
    const mixed = await restoredThrough(files);
    expect(mixed.calls.length).toBeGreaterThanOrEqual(mixed.packs.size + 2); // a pack went in three groups or more
    expect(mixed.calls.every((c) => c.own)).toBe(true);
    for (const c of mixed.calls) if (c.blobs > 1) expect(c.plain).toBeLessThanOrEqual(DECODE_GROUP_BYTES);

    // Incompressible data in big blobs is stored as is: its packs go whole, in place, one request each.
    const random: MemDir = {};
    for (let i = 0; i < 20; i++) random[`r${i}.bin`] = { data: seededBytes(300 + i, 600_000) };
    const stored = await restoredThrough(random);
    expect(stored.calls.length).toBeGreaterThan(0);
    expect(stored.calls.length).toBe(stored.packs.size);
    expect(stored.calls.every((c) => !c.own)).toBe(true);

    // Many small stored blobs (D2's random half) go in groups too: written one file at a
    // time, they would hold the pack's buffer long.
    const small: MemDir = {};
    for (let i = 0; i < 1500; i++) small[`s${i}.bin`] = { data: seededBytes(1000 + i, 4000) };
    const smallStored = await restoredThrough(small);
    expect(smallStored.calls.length).toBeGreaterThan(smallStored.packs.size);
    expect(smallStored.calls.every((c) => c.own)).toBe(true);
  });

  it('with readGroups, reads a pack decoded in groups a group at a time into reused buffers; a failed group read fails only its files', async () => {
    const { repo, backend } = await memRepo();
    // 48 compressible files of 256 KiB and a few random ones: one pack, ~14 MiB of plaintext.
    const files: MemDir = {};
    for (let i = 0; i < 48; i++) files[`t${i}.txt`] = { data: generate({ kind: 'text', seed: 700 + i, size: 256 << 10 }) };
    for (let i = 0; i < 3; i++) files[`r${i}.bin`] = { data: seededBytes(800 + i, 300_000) };
    const src = new MemSource({ d: files });
    const { snapshot } = await backup(repo, src, inProcessPool({ saver: repo.backend, reader: src }), { hostname: 'h', targets: ['/d'] });
    const loads: { name: string; offset: number; length: number; into?: ArrayBufferLike }[] = [];

    let recordingFail = '';
    let packReads = 0;
    const recording: Backend = {
      ...countingBackend(backend),
      load: async (h: Handle, o?: LoadOptions) => {
        if (h.type === 'data') {
          loads.push({ name: h.name, offset: o!.offset!, length: o!.length!, into: o?.into?.buffer });
          if (h.name === recordingFail && packReads++ === 1) throw new CairnError('NETWORK', 'the read failed');
        }
        return backend.load(h, o);
      },
    };
    const r2 = new Repository(recording, repo.key, repo.keyID, repo.config);
    // A decoder that honours `own`: every blob in a new buffer, the given one handed back.
    const decodePack: PackDecoder = async (key, bytes, blobs) => {
      const results = [];
      for (const b of blobs) results.push({ plain: (await decodeOne(key, bytes.subarray(b.offset, b.offset + b.length), b, true)).slice() });
      return { bytes, results };
    };
    const { target, result } = await runRestore(r2, snapshot.tree, { decodePack, readGroups: true, concurrency: 1 });
    expect(result.errors).toEqual([]);
    for (const [name, f] of Object.entries(files)) expect(sha(target.files.get(`d/${name}`)!.data), name).toBe(sha((f as { data: Uint8Array }).data));
    // One pack of a few MiB, read in several consecutive ranges, each at most a group's.
    await r2.loadIndex();
    const packs = new Set([...r2.index.entries()].filter((e) => e.type === 'data').map((e) => e.packID));
    expect(packs.size).toBe(1);
    const pack = [...packs][0]!;
    const reads = loads.filter((l) => l.name === pack); // not the tree pack's
    expect(reads.length).toBeGreaterThanOrEqual(3);
    for (const [i, l] of reads.entries()) {
      expect(l.length).toBeLessThanOrEqual(DECODE_GROUP_BYTES + (1 << 20));
      if (i > 0) expect(l.offset).toBe(reads[i - 1]!.offset + reads[i - 1]!.length);
    }
    // After the first two (the next group is read while this one is written), buffers come back.
    expect(reads.slice(2).every((l) => l.into === reads[0]!.into || l.into === reads[1]!.into)).toBe(true);

    // The second group's read fails: its files fail, named; every other file restores whole.
    loads.length = 0;

    recordingFail = pack;
    const failed = await runRestore(r2, snapshot.tree, { decodePack, readGroups: true, concurrency: 1 });
    const bad = new Set(failed.result.errors.map((e) => e.path));
    expect(bad.size).toBeGreaterThan(0);
    expect(bad.size).toBeLessThan(Object.keys(files).length);
    expect(failed.result.errors.every((e) => e.code === 'NETWORK')).toBe(true);
    for (const [name, f] of Object.entries(files))
      if (!bad.has(`/d/${name}`)) expect(sha(failed.target.files.get(`d/${name}`)!.data), name).toBe(sha((f as { data: Uint8Array }).data));
    expect(failed.result.files).toBe(Object.keys(files).length - bad.size);
  });

  it('reuses a pack buffer early only when no decoded blob lies in it', async () => {
    // Three packs of small random files, one read at a time, slow writes, and a decoder that
    // ignores `own` (decodes in place): the buffer must wait for the writes, or the next pack
    // is read over blobs not yet written.
    const { repo } = await memRepo();
    const files: MemDir = {};
    for (let i = 0; i < 6000; i++) files[`s${i}.bin`] = { data: seededBytes(5000 + i, 6000) };
    const src = new MemSource({ d: files });
    const { snapshot } = await backup(repo, src, inProcessPool({ saver: repo.backend, reader: src }), { hostname: 'h', targets: ['/d'] });
    const packs = new Set<string>();
    const decodePack: PackDecoder = async (key, bytes, blobs) => {
      const results = [];
      for (const b of blobs) {
        packs.add(b.packID);
        results.push({ plain: await decodeOne(key, bytes.subarray(b.offset, b.offset + b.length), b, true) });
      }
      return { bytes, results };
    };
    const target = new MemTarget();
    target.writeDelay = 1;
    const result = await restore(repo, snapshot.tree, target, { decodePack, concurrency: 1 });
    expect(result.errors).toEqual([]);
    expect(packs.size).toBeGreaterThanOrEqual(2);
    for (const [name, f] of Object.entries(files)) expect(sha(target.files.get(`d/${name}`)!.data), name).toBe(sha((f as { data: Uint8Array }).data));
  });

  it('reports progress with final totals', async () => {
    const { repo, tree } = await fixture();
    const seen: { phase: string; done: number; total: number; final: boolean }[] = [];
    await runRestore(repo, tree, { onProgress: (p) => seen.push({ phase: p.phase, done: p.done.bytes, total: p.total.bytes, final: p.totalsFinal }) });
    const last = seen[seen.length - 1]!;
    expect(last.phase).toBe('done');
    expect(last.final).toBe(true);
    expect(last.done).toBe(last.total);
    expect(last.total).toBe(11 + 11 + zeros.length + big.length + 5 + 600_000 + 4);
    void seededBytes;
  });
});
