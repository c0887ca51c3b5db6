// lookahead() over a real repository in memory: what comes out is every file's verified bytes
// in order; what goes on underneath is few range reads, within the budget.

import { describe, expect, it } from 'vitest';
import { seededBytes } from '../../test/fixtures/chunker/generate';
import { memRepo } from '../../test/helpers/mem-repo';
import { MemSource, type MemDir } from '../../test/helpers/mem-source';
import type { Backend, Handle, LoadOptions } from '../backend/backend';
import type { Node } from '../data';
import { backup } from '../archiver/archiver';
import { inProcessPool } from '../archiver/pool';
import { walk } from '../walker';
import { decodeBlob } from '../repository/blob-codec';
import { Repository } from '../repository/repository';
import { knownCrc, lookahead, type LookaheadOptions } from './lookahead';
import type { PackDecoder } from './restorer';
import { crc32 } from './crc32';
import { decodePool, decodeRequest, decoderKey, type FromDecoder } from './decode-pool';
import { zipTree } from './zip-tree';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const text = (s: string) => new TextEncoder().encode(s);

/** `inner` with another load(). */
function withLoad(inner: Backend, load: Backend['load']): Backend {
  return {
    location: inner.location,
    connections: inner.connections,
    save: (h, d, o) => inner.save(h, d, o),
    load,
    stat: (h, o) => inner.stat(h, o),
    list: (t, o) => inner.list(t, o),
    remove: (h, o) => inner.remove(h, o),
    close: () => inner.close(),
  };
}

/** Counts the data reads a repository makes, and how many run at once. */
function counting(inner: Backend) {
  const stats = { loads: 0, inFlight: 0, maxInFlight: 0 };
  const be = withLoad(inner, async (h: Handle, o?: LoadOptions) => {
    if (h.type !== 'data') return inner.load(h, o);
    stats.loads++;
    stats.maxInFlight = Math.max(stats.maxInFlight, ++stats.inFlight);
    try {
      await new Promise((r) => setTimeout(r, 1));
      return await inner.load(h, o);
    } finally {
      stats.inFlight--;
    }
  });
  return { be, stats };
}

const small = Array.from({ length: 40 }, (_, i) => [`f${String(i).padStart(2, '0')}.txt`, text(`file ${i}\n`.repeat(i * 50 + 1))] as const);
const big = seededBytes(7, 5 << 20); // several chunks

async function fixture() {
  const { repo, backend } = await memRepo();
  const dir: MemDir = { 'big.bin': { data: big }, 'dup.txt': { data: small[5]![1] } };
  for (const [n, d] of small) dir[n] = { data: d };
  const src = new MemSource({ top: dir });
  const r = await backup(repo, src, inProcessPool({ saver: repo.backend, reader: src }), { hostname: 'h', targets: ['/top'] });
  const { be, stats } = counting(backend);
  const fresh = await Repository.open(be, 'unit-test-password');
  await fresh.loadIndex();
  return { repo: fresh, tree: r.snapshot.tree, stats, backend };
}

const want = new Map<string, Uint8Array>([
  ['top/big.bin', big],
  ['top/dup.txt', small[5]![1]],
  ...small.map(([n, d]) => [`top/${n}`, d] as [string, Uint8Array]),
]);

/** Every file's bytes (or its error), and each buffer handed over (none twice). */
async function zipLike(repo: Repository, tree: string, opts: LookaheadOptions) {
  const got = new Map<string, Uint8Array | string>();
  const handed = new Set<Uint8Array>();
  for await (const { path, node, content } of lookahead(repo, walk(repo, tree), opts)) {
    if (node.type !== 'file') continue;
    const parts: Uint8Array[] = [];
    try {
      for await (const b of content) {
        if (handed.has(b)) throw new Error(`the same array handed over twice (${path.join('/')})`);
        handed.add(b);
        parts.push(b.slice());
      }
      got.set(path.join('/'), Buffer.concat(parts));
    } catch (e) {
      got.set(path.join('/'), `${(e as { code: string }).code} after ${parts.length}`);
    }
  }
  return got;
}

/** A PackDecoder in this thread, as the worker pool would answer. */
function localDecoder(): { decode: PackDecoder; calls: number[] } {
  const calls: number[] = [];
  const decode: PackDecoder = async (key, bytes, blobs) => {
    calls.push(blobs.length);
    const results = await Promise.all(
      blobs.map((b) =>
        decodeBlob(key, bytes.subarray(b.offset, b.offset + b.length), b, true).then(
          (plain) => ({ plain }),
          (error: unknown) => ({ error }),
        ),
      ),
    );
    return { bytes, results };
  };
  return { decode, calls };
}

describe('lookahead', () => {
  it('hands over every file in order, verified, reading neighbouring blobs as one range', async () => {
    const { repo, tree, stats } = await fixture();
    const blobs = [...want.values()].length - 1 + 5; // at least one blob per small file, several for big.bin
    const got = await zipLike(repo, tree, { ranges: 3 });
    expect([...got.keys()]).toEqual([...want.keys()].sort());
    for (const [k, v] of want) expect(Buffer.compare(got.get(k) as Uint8Array, v), k).toBe(0);
    expect(stats.loads).toBeLessThan(blobs / 3); // the 40 small files sit side by side in a pack
    expect(stats.maxInFlight).toBeLessThanOrEqual(3);
  });

  it('reads many small files whose blobs alternate between packs in a few ranges, not one read per file', async () => {
    // Three backups store a third of the files each, in packs of their own; a fourth of all
    // of them stores no data, so in file order the blobs alternate between the three packs.
    const { repo, backend } = await memRepo();
    const files = Array.from({ length: 3000 }, (_, i) => [`f${String(i).padStart(4, '0')}.txt`, text(`small file ${i} `.repeat(1 + (i % 7)))] as const);
    // Listed out of name order, as savers finish files out of order: each pack holds its
    // files' blobs shuffled against the order a walk meets them.
    const order = files.map((_, i) => i).sort((a, b) => ((a * 7919) % 3001) - ((b * 7919) % 3001));
    const of = (keep: (i: number) => boolean) => {
      const dir: MemDir = {};
      for (const i of order) if (keep(i)) dir[files[i]![0]] = { data: files[i]![1] };
      return new MemSource({ top: dir });
    };
    // Runs of 1–64 files go to one of three packs, as two savers taking queued jobs store them.
    const packOf: number[] = [];
    for (let x = 12345; packOf.length < files.length;) {
      x = (x * 1103515245 + 12345) >>> 0;
      const run = 1 + ((x >>> 8) % 64),
        p = (x >>> 20) % 3;
      for (let j = 0; j < run; j++) packOf.push(p);
    }
    for (const keep of [0, 1, 2].map((p) => (i: number) => packOf[i] === p)) {
      const src = of(keep);
      await backup(repo, src, inProcessPool({ saver: repo.backend, reader: src }), { hostname: 'h', targets: ['/top'] });
    }
    const all = of(() => true);
    const r = await backup(repo, all, inProcessPool({ saver: repo.backend, reader: all }), { hostname: 'h', targets: ['/top'] });
    const { be, stats } = counting(backend);
    const fresh = await Repository.open(be, 'unit-test-password');
    await fresh.loadIndex();
    const got = await zipLike(fresh, r.snapshot.tree, { ranges: 2 });
    for (const [n, d] of files) expect(Buffer.from(got.get(`top/${n}`) as Uint8Array).equals(Buffer.from(d)), n).toBe(true);
    expect(stats.maxInFlight).toBeLessThanOrEqual(2);
    // Each range takes up to 1024 of the loads ahead: about 3000 / 1024 * 2 packs of them.
    expect(stats.loads).toBeLessThanOrEqual(12);
  });

  it('starts no reads once the consumer has stopped, though reads it started finish later', async () => {
    const { repo, tree, stats } = await fixture();
    for await (const { node, content } of lookahead(repo, walk(repo, tree), { ranges: 1, rangeBytes: 4096 })) {
      if (node.type !== 'file') continue;
      for await (const _ of content) break;
      break;
    }
    const after = stats.loads;
    await expect.poll(() => stats.inFlight, { timeout: 10_000 }).toBe(0); // the read in flight finishes meanwhile
    for (let i = 0; i < 10; i++) await new Promise((r) => setImmediate(r)); // and nothing starts after it
    expect(stats.loads).toBe(after);
  });

  it('decodes ranges of 64 KiB or more through the given PackDecoder', async () => {
    const { repo, tree } = await fixture();
    const { decode, calls } = localDecoder();
    const got = await zipLike(repo, tree, { decodePack: decode, rangeBytes: 1 << 20 });
    for (const [k, v] of want) expect(Buffer.compare(got.get(k) as Uint8Array, v), k).toBe(0);
    expect(calls.length).toBeGreaterThan(0);
    expect(knownCrc(new Uint8Array(1))).toBeUndefined();
  });

  it('zips through a decode pool whose threads checksum the blobs: the archive checks out', async () => {
    const { repo, tree } = await fixture();
    // The pool's own protocol, its "threads" answering in this one.
    const pool = decodePool((init, events) => {
      const key = decoderKey(init);
      queueMicrotask(() => events.message({ type: 'ready' }));
      return {
        post: (m) => void decodeRequest(key, m).then(({ reply }) => events.message(reply as FromDecoder)),
        terminate: () => {},
      };
    }, 2);
    let joined = 0;
    const seen = new Set<string>();
    const chunks: Uint8Array[] = [];
    const r = await zipTree(repo, { kind: 'tree', tree, name: '' }, (c) => void chunks.push(c.slice()), {
      decodePack: async (...a) => {
        const out = await pool.decodePack(...a);
        for (const x of out.results)
          if ('crc' in x && x.crc !== undefined) {
            joined++;
            seen.add(String(x.crc === crc32(x.plain)));
          }
        return out;
      },
    });
    await pool.close();
    expect(r.errors).toEqual([]);
    expect(joined).toBeGreaterThan(10);
    expect([...seen]).toEqual(['true']);
    const dir = mkdtempSync(join(tmpdir(), 'cairn-zip-'));
    try {
      writeFileSync(join(dir, 'a.zip'), Buffer.concat(chunks));
      const py =
        'import sys,zipfile,hashlib,json;z=zipfile.ZipFile(sys.argv[1]);assert z.testzip() is None;print(json.dumps({i.filename:hashlib.sha256(z.read(i)).hexdigest() for i in z.infolist() if not i.is_dir()}))';
      const got = JSON.parse(execFileSync('python3', ['-c', py, join(dir, 'a.zip')], { encoding: 'utf8' }));
      const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
      expect(got).toEqual(Object.fromEntries([...want].map(([k, v]) => [k, sha(v)])));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('hands each blob over in an ArrayBuffer of its own, decoded here or by a decode pool (a transfer, not a copy)', async () => {
    const { repo, tree } = await fixture();
    const pool = decodePool((init, events) => {
      const key = decoderKey(init);
      queueMicrotask(() => events.message({ type: 'ready' }));
      return { post: (m) => void decodeRequest(key, m).then(({ reply }) => events.message(reply as FromDecoder)), terminate: () => {} };
    }, 1);
    for (const decodePack of [undefined, pool.decodePack]) {
      const shared: string[] = [];
      let blobs = 0;
      for await (const { path, node, content } of lookahead(repo, walk(repo, tree), { decodePack })) {
        if (node.type !== 'file') continue;
        for await (const b of content) {
          blobs++;
          if (b.byteOffset !== 0 || b.byteLength !== b.buffer.byteLength) shared.push(path.join('/'));
        }
      }
      expect(blobs).toBeGreaterThan(40);
      expect(shared, decodePack ? 'decode pool' : 'here').toEqual([]);
    }
    await pool.close();
  });

  it('keeps what it reads ahead within the byte budget (one blob larger than it still loads)', async () => {
    const { tree, backend } = await fixture();
    let ahead = 0;
    let most = 0;
    const be = withLoad(backend, async (h, o) => {
      const bytes = await backend.load(h, o);
      if (h.type === 'data') most = Math.max(most, (ahead += bytes.length));
      return bytes;
    });
    const r2 = await Repository.open(be, 'unit-test-password');
    await r2.loadIndex();
    for await (const { node, content } of lookahead(r2, walk(r2, tree), { bytes: 256 << 10, rangeBytes: 128 << 10 })) {
      if (node.type !== 'file') continue;
      for await (const b of content) ahead -= b.length + 32; // sealed size, near enough
    }
    expect(most).toBeLessThan((256 << 10) + (8 << 20) + (128 << 10));
  });

  it('a damaged blob fails its own file only, after a retry alone; an unknown one fails as missing', async () => {
    const { repo, tree, backend } = await fixture();
    // Damage the first small file's blob in its pack.
    const node = (await collect(repo, tree)).find((n) => n.name === 'f03.txt')!;
    const loc = repo.lookupBlob('data', node.content![0]!)!;
    const pack = await backend.load({ type: 'data', name: loc.packID });
    pack[loc.offset + 20]! ^= 0xff;
    await backend.remove({ type: 'data', name: loc.packID });
    await backend.save({ type: 'data', name: loc.packID }, pack);
    const got = await zipLike(repo, tree, {});
    expect(got.get('top/f03.txt')).toBe('MAC_MISMATCH after 0');
    for (const [k, v] of want) if (k !== 'top/f03.txt') expect(Buffer.compare(got.get(k) as Uint8Array, v), k).toBe(0);

    async function* items() {
      yield { node: { name: 'x', type: 'file', content: ['00'.repeat(32)] } as unknown as Node };
      yield { node: { name: 'y', type: 'file', content: node.content } as unknown as Node };
    }
    const out: string[] = [];
    for await (const { content } of lookahead(repo, items(), {})) {
      try {
        for await (const _ of content) out.push('bytes');
      } catch (e) {
        out.push((e as { code: string }).code);
      }
    }
    expect(out).toEqual(['BLOB_NOT_FOUND', 'MAC_MISMATCH']);
  });

  it('files whose content is left unread do not stall the ones after them', async () => {
    const { repo, tree } = await fixture();
    for (const opts of [
      { ranges: 1, rangeBytes: 4096 },
      { ranges: 2, bytes: 8192 },
    ]) {
      const names: string[] = [];
      for await (const { path, node, content } of lookahead(repo, walk(repo, tree), opts)) {
        names.push(path.join('/'));
        if (node.type === 'file' && names.length % 2 === 0) await content.next(); // one blob of every other file
      }
      expect(
        names.filter((n) => n.startsWith('top/')),
        JSON.stringify(opts),
      ).toHaveLength(42);
    }
  });
});

async function collect(repo: Repository, tree: string): Promise<Node[]> {
  const out: Node[] = [];
  for await (const { node } of walk(repo, tree)) out.push(node);
  return out;
}
