// The saver workers' file reader: small files opened in one task share one read request,
// large files stream through a BYOB reader into the caller's buffer. Node 20 has the same
// Blob, File and byte streams; Chromium's own behaviour (a changed file refuses to be read,
// and the batch then falls back to one read per file) is checked in
// test/e2e/engine-sources.spec.ts.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { browserFileReader } from './file-reader';
import type { OpenedFile } from '../../core/archiver/source';
import { CairnError } from '../../core/errors';
import { seededBytes } from '../../test/helpers/fault-backend';

const seeded = (n: number, seed: number) => seededBytes(seed, n);

/** Reads an opened file to its end through `piece`-byte buffers, as the FileSaver does. */
async function drain(f: OpenedFile, piece: number): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  const buf = new Uint8Array(piece);
  for (;;) {
    const n = await f.readInto(buf);
    if (n === 0) break;
    expect(n).toBeLessThanOrEqual(piece);
    parts.push(buf.slice(0, n));
  }
  await f.close();
  const out = new Uint8Array(parts.reduce((s, p) => s + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** Byte equality (vitest's deep equality walks megabytes element by element). */
const same = (a: Uint8Array, b: Uint8Array) =>
  expect(Buffer.from(a.buffer, a.byteOffset, a.length).equals(Buffer.from(b.buffer, b.byteOffset, b.length))).toBe(true);

const open = (ref: unknown, size: number) => Promise.resolve(browserFileReader.open!(ref, size));

describe('browserFileReader', () => {
  afterEach(() => vi.restoreAllMocks());

  it('reads small files opened in the same task with one request, each getting its own bytes', async () => {
    const datas = Array.from({ length: 40 }, (_, i) => seeded(100 + i * 997, i + 1));
    const files = datas.map((d, i) => new File([d], `f${i}`));
    const reads = vi.spyOn(Blob.prototype, 'arrayBuffer');
    const got = await Promise.all(files.map(async (f) => drain(await open(f, f.size), 64 << 10)));
    got.forEach((g, i) => same(g, datas[i]!));
    expect(reads).toHaveBeenCalledTimes(1);
    expect((reads.mock.contexts[0] as Blob).size).toBe(datas.reduce((s, d) => s + d.length, 0));
  });

  it('hands a small file over whole (readAll) from the shared request, without copying; a large one has no readAll', async () => {
    const datas = [seeded(3000, 41), seeded(200 << 10, 42), new Uint8Array(0)];
    const reads = vi.spyOn(Blob.prototype, 'arrayBuffer');
    const opened = await Promise.all(datas.map((d, i) => open(new File([d], `w${i}`), d.length)));
    const got = await Promise.all(opened.map((f) => f.readAll!()));
    got.forEach((g, i) => same(g, datas[i]!));
    expect(got[0]!.buffer).toBe(got[1]!.buffer); // views of the one read
    expect(reads).toHaveBeenCalledTimes(1);
    expect(await opened[0]!.readInto(new Uint8Array(10))).toBe(0); // taken: nothing left
    const large = await open(new File([seeded(300 << 10, 43)], 'large'), 300 << 10);
    expect(large.readAll).toBeUndefined();
    await large.close();
  });

  it('a small file that cannot be read fails readAll with SOURCE_READ naming it', async () => {
    const f = new File([seeded(500, 44)], 'gone.txt');
    vi.spyOn(Blob.prototype, 'arrayBuffer').mockRejectedValue(Object.assign(new Error('x'), { name: 'NotReadableError' }));
    const e = await (await open(f, f.size)).readAll!().catch((x: unknown) => x);
    expect(e).toBeInstanceOf(CairnError);
    expect((e as CairnError).code).toBe('SOURCE_READ');
    expect((e as CairnError).message).toContain('gone.txt');
  });

  it('caps a shared request at 64 files', async () => {
    const datas = Array.from({ length: 150 }, (_, i) => seeded(50 + i, i + 7));
    const reads = vi.spyOn(Blob.prototype, 'arrayBuffer');
    const got = await Promise.all(datas.map(async (d, i) => drain(await open(new File([d], `g${i}`), d.length), 1000)));
    got.forEach((g, i) => same(g, datas[i]!));
    expect(reads).toHaveBeenCalledTimes(3);
  });

  it('a small file opened alone is read alone; an empty file reads as empty without a request', async () => {
    const d = seeded(5000, 3);
    const reads = vi.spyOn(Blob.prototype, 'arrayBuffer');
    same(await drain(await open(new File([d], 'a'), d.length), 1 << 20), d);
    expect(await drain(await open(new File([], 'e'), 0), 1 << 20)).toEqual(new Uint8Array(0));
    expect(reads).toHaveBeenCalledTimes(1);
  });

  it('streams a large file into the caller’s buffer, whatever its size, with the bytes in order', async () => {
    const d = seeded((3 << 20) + 12345, 9);
    for (const piece of [1 << 20, 300_000, 4 << 20]) {
      same(await drain(await open(new File([d], 'big'), d.length), piece), d);
    }
    // Two large files read at once, interleaved, share the bounce buffers without mixing bytes.
    const e = seeded(2 << 20, 10);
    const [a, b] = await Promise.all([open(new File([d], 'x'), d.length), open(new File([e], 'y'), e.length)]);
    const [ga, gb] = await Promise.all([drain(a, 256 << 10), drain(b, 100_000)]);
    same(ga, d);
    same(gb, e);
  });

  it('reads through a file handle’s current File', async () => {
    const d = seeded(400_000, 11);
    const handle = { name: 'h.bin', getFile: async () => new File([d], 'h.bin') };
    same(await drain(await open(handle, d.length), 1 << 20), d);
  });

  it('turns a handle that cannot give its file into SOURCE_READ naming the file', async () => {
    const gone = { name: 'gone.txt', getFile: async () => Promise.reject(new DOMException('gone', 'NotFoundError')) };
    const e = await open(gone, 10).then(
      () => undefined,
      (x: unknown) => x,
    );
    expect(e).toBeInstanceOf(CairnError);
    expect((e as CairnError).code).toBe('SOURCE_READ');
    expect((e as CairnError).message).toMatch(/gone\.txt: vanished/);
  });
});

describe('browserFileReader.read', () => {
  it('streams the same bytes as open(), small and large, in pieces the caller may keep', async () => {
    for (const n of [0, 700, 200_000, (2 << 20) + 5]) {
      const d = seeded(n, n + 1);
      const pieces: Uint8Array[] = [];
      for await (const p of browserFileReader.read(new File([d], 'r'), n)) pieces.push(p);
      const got = new Uint8Array(pieces.reduce((s, p) => s + p.length, 0));
      let at = 0;
      for (const p of pieces) {
        got.set(p, at);
        at += p.length;
      }
      same(got, d);
      if (pieces.length > 1) expect(pieces[0]!.buffer).not.toBe(pieces[1]!.buffer);
    }
  });
});
