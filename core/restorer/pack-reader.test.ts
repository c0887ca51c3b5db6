// The pack reader alone: what it hands on for each blob of a pack, however damaged the pack
// or its index entries are.

import { beforeAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { seededBytes } from '../../test/fixtures/chunker/generate';
import { initEngine, memRepo } from '../../test/helpers/mem-repo';
import type { Backend } from '../backend/backend';
import { encodeBlob } from '../repository/blob-codec';
import { PackerManager } from '../repository/packer-manager';
import type { IndexPack } from '../index/index-file';
import type { Repository } from '../repository/repository';
import type { Got } from './file-writers';
import { PackReader, type PackReaderOptions } from './pack-reader';
import { DECODE_GROUP_BLOBS } from './pack-groups';
import type { PackBlob, PlannedFile } from './restore-plan';

const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
const plains = Array.from({ length: 12 }, (_, i) => seededBytes(40 + i, 100_000)); // 1.2 MB: decoded elsewhere when a decoder is given

/** One pack holding `blobs`, in order. */
async function onePack(repo: Repository, blobs = plains): Promise<IndexPack> {
  const saved: IndexPack[] = [];
  const pm = new PackerManager({ key: repo.key, saver: repo.backend, onPackSaved: (p) => void saved.push({ id: p.id, blobs: p.entries.blobs() }) });
  for (const p of blobs) {
    const enc = await encodeBlob(repo.key, 'data', p, 2, 'off');
    await pm.add('data', sha(p), enc.sealed, enc.uncompressedLength);
  }
  await pm.flush();
  for (const p of saved) repo.index.addPack(p.id, p.blobs);
  return saved[0]!;
}

/** Reads `blobs` and returns what was handed on for each, by blob ID. */
async function readAll(repo: Repository, packID: string, blobs: PackBlob[], opts: Partial<PackReaderOptions> = {}) {
  const got = new Map<string, Got>();
  await new PackReader(repo, { concurrency: 1, ...opts }).read(
    packID,
    blobs,
    async (use, g) => void got.set(use.file.path[0]!, 'plain' in g ? { plain: g.plain.slice() } : g),
  );
  return got;
}

const file = (name: string): PlannedFile => ({ path: [name], node: {} as never, remaining: 1, keep: false });
const packBlobs = (pack: IndexPack) => pack.blobs.map((b) => ({ loc: { ...b, packID: pack.id }, file: file(b.id), offset: 0 }));

async function replace(backend: Backend, packID: string, edit: (b: Uint8Array) => Uint8Array) {
  const h = { type: 'data' as const, name: packID };
  const bytes = edit(await backend.load(h));
  await backend.remove(h);
  await backend.save(h, bytes);
}

describe('PackReader', () => {
  beforeAll(initEngine);

  it.each([false, true])('a pack cut in the middle yields every blob before the cut (decoded elsewhere: %s)', async (elsewhere) => {
    const { repo, backend } = await memRepo();
    const pack = await onePack(repo);
    const cut = pack.blobs[4]!.offset + 10;
    await replace(backend, pack.id, (b) => b.slice(0, cut));
    const decodePack: PackReaderOptions['decodePack'] = async (key, bytes, blobs) => {
      const { decodeBlob } = await import('../repository/blob-codec');
      const results = [];
      for (const b of blobs)
        results.push(
          await decodeBlob(key, bytes.subarray(b.offset, b.offset + b.length), b).then(
            (plain) => ({ plain }),
            (error: unknown) => ({ error }),
          ),
        );
      return { bytes, results };
    };
    const got = await readAll(repo, pack.id, packBlobs(pack), elsewhere ? { decodePack } : {});
    for (const [i, p] of plains.entries()) {
      const g = got.get(sha(p))!;
      if (i < 4) expect('plain' in g && sha(g.plain), `blob ${i}`).toBe(sha(p));
      else expect('error' in g && (g.error as { code: string }).code, `blob ${i}`).toBe('BAD_PACK');
    }
  });

  it.each([
    [false, 12, 100_000], // read whole, decoded in place
    [true, 50, 30_000], // small blobs: read and decoded a group at a time
  ])('a decoder thread that takes the buffer (transfer) gets every blob (readGroups %s, %i blobs of %i bytes)', async (readGroups, count, size) => {
    const { repo } = await memRepo();
    const many = Array.from({ length: count }, (_, i) => seededBytes(900 + i, size));
    const pack = await onePack(repo, many);
    const { decodeBlob } = await import('../repository/blob-codec');
    // As a worker pool does: the buffer moves to the decoder (the caller's view is detached) and comes back.
    const decodePack: PackReaderOptions['decodePack'] = async (key, bytes, blobs) => {
      const { byteOffset, byteLength } = bytes;
      const moved = new Uint8Array(structuredClone(bytes.buffer, { transfer: [bytes.buffer as ArrayBuffer] }), byteOffset, byteLength);
      expect(bytes.length).toBe(0);
      const results = [];
      for (const b of blobs) results.push({ plain: (await decodeBlob(key, moved.subarray(b.offset, b.offset + b.length), b)).slice() });
      return { bytes: moved, results };
    };
    const got = await readAll(repo, pack.id, packBlobs(pack), { decodePack, readGroups });
    for (const p of many) expect(sha((got.get(sha(p)) as { plain: Uint8Array }).plain)).toBe(sha(p));
  });

  it('a blob whose copy fails is read from another copy the index knows', async () => {
    const { repo, backend } = await memRepo();
    const first = await onePack(repo);
    const second = await onePack(repo); // the same blobs again, in a pack of their own
    expect(second.id).not.toBe(first.id);
    const victim = first.blobs[2]!;
    await replace(backend, first.id, (b) => {
      b[victim.offset + 50]! ^= 1;
      return b;
    });
    const got = await readAll(repo, first.id, packBlobs(first));
    const g = got.get(victim.id)!;
    expect('plain' in g && sha(g.plain)).toBe(victim.id);
  });

  it("an entry pointing at another blob's bytes fails alone: nothing is decrypted in place over its neighbour", async () => {
    const { repo } = await memRepo();
    const pack = await onePack(repo);
    const blobs = packBlobs(pack);
    // The index says blob 3 lies where blob 2 does.
    blobs[3]!.loc = { ...blobs[3]!.loc, offset: blobs[2]!.loc.offset, length: blobs[2]!.loc.length };
    const got = await readAll(repo, pack.id, blobs);
    expect((got.get(sha(plains[3]!))! as { error: { code: string } }).error.code).toBe('HASH_MISMATCH');
    const honest = got.get(sha(plains[2]!))!;
    expect('plain' in honest && sha(honest.plain)).toBe(sha(plains[2]!));
  });

  it('sends each group of a pack decoded elsewhere in a buffer of its range alone, never the whole pack', async () => {
    // Every buffer that comes back from a decoder thread counts as new external memory until a
    // full collection: a pack's worth per group made V8 mark the whole restore plan every few seconds.
    const { repo } = await memRepo();
    const tiny = Array.from({ length: 2 * DECODE_GROUP_BLOBS + 10 }, (_, i) => new TextEncoder().encode(`tiny ${i}`));
    const pack = await onePack(repo, [...plains.slice(0, 6), ...tiny, ...plains.slice(6)]); // 1.2 MB: elsewhere; tiny blobs: not in place
    const sent: { length: number; from: number; to: number }[] = [];
    const decodePack: PackReaderOptions['decodePack'] = async (key, bytes, locs) => {
      sent.push({ length: bytes.length, from: Math.min(...locs.map((b) => b.offset)), to: Math.max(...locs.map((b) => b.offset + b.length)) });
      const { decodeBlob } = await import('../repository/blob-codec');
      return { bytes, results: await Promise.all(locs.map(async (b) => ({ plain: await decodeBlob(key, bytes.subarray(b.offset, b.offset + b.length), b) }))) };
    };
    const got = await readAll(repo, pack.id, packBlobs(pack), { decodePack });
    expect(got.size).toBe(tiny.length + plains.length);
    for (const p of [...tiny, ...plains]) {
      const g = got.get(sha(p))!;
      expect('plain' in g && sha(g.plain)).toBe(sha(p));
    }
    expect(sent.length).toBeGreaterThanOrEqual(3);
    for (const s of sent) expect(s).toEqual({ length: s.to, from: 0, to: s.to });
  });

  it('gives the event loop a turn while it hands blobs to thousands of files, however fast they are decoded', async () => {
    // A decoder that answers at once stands for one whose next group is always waiting: then
    // nothing but the reader itself can let timers and signal handlers (Ctrl-C) run.
    const { repo } = await memRepo();
    const pack = await onePack(repo); // 1.2 MB: decoded elsewhere
    const usesEach = 400;
    const blobs: PackBlob[] = packBlobs(pack).map((b) => ({ ...b, more: Array.from({ length: usesEach - 1 }, () => ({ file: file('more'), offset: 0 })) }));
    const decodePack: PackReaderOptions['decodePack'] = async (_key, bytes, locs) => ({ bytes, results: locs.map(() => ({ plain: new Uint8Array(1) })) });
    let handed = 0;
    let atFirstTurn: number | undefined;
    await new PackReader(repo, { concurrency: 1, decodePack }).read(pack.id, blobs, async () => {
      if (handed++ === 0) setImmediate(() => (atFirstTurn = handed));
    });
    expect(handed).toBe(plains.length * usesEach);
    expect(atFirstTurn).toBeLessThan(handed);
  });
});
