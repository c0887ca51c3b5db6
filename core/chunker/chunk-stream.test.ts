import { describe, expect, it } from 'vitest';
import { generate, prng } from '../../test/fixtures/chunker/generate';
import { CairnError } from '../errors';
import { Chunker } from './chunker';
import { chunkStream } from './chunk-stream';
import { referenceChunks } from '../../test/helpers/reference-chunker';

const POL = 0x3da3358b4dc173n;
const MiB = 1 << 20;

async function* piecesOf(data: Uint8Array, seed: number): AsyncGenerator<Uint8Array> {
  const next = prng(seed);
  for (let at = 0; at < data.length;) {
    const n = 1 + (next() % (2 * MiB));
    yield data.subarray(at, at + n);
    at += n;
  }
}

async function collect(gen: AsyncIterable<Uint8Array>): Promise<Uint8Array[]> {
  const out: Uint8Array[] = [];
  for await (const c of gen) out.push(c);
  return out;
}

describe('chunkStream', () => {
  it("yields restic's chunks as fresh contiguous arrays", async () => {
    const data = generate({ kind: 'random', seed: 21, size: 9 * MiB + 77 });
    const chunker = new Chunker(POL);
    chunker.scan(data.subarray(0, 300_000)); // leftovers from a previous file must not matter
    const chunks = await collect(chunkStream(chunker, piecesOf(data, 1)));
    expect(chunks.map((c) => c.length)).toEqual(referenceChunks(POL, data).map((c) => c.length));
    let at = 0;
    for (const c of chunks) {
      expect(c.buffer).not.toBe(data.buffer);
      expect(c.byteOffset).toBe(0);
      expect(c.byteLength).toBe(c.buffer.byteLength);
      expect(Buffer.compare(c, data.subarray(at, at + c.length))).toBe(0);
      at += c.length;
    }
    expect(at).toBe(data.length);
  });

  it('yields nothing for an empty file and one chunk for a small one', async () => {
    const chunker = new Chunker(POL);
    expect(await collect(chunkStream(chunker, []))).toEqual([]);
    expect(await collect(chunkStream(chunker, [new Uint8Array(0)]))).toEqual([]);
    const small = generate({ kind: 'text', seed: 3, size: 1000 });
    expect(await collect(chunkStream(chunker, [small.subarray(0, 10), small.subarray(10)]))).toEqual([small]);
  });

  it('stops with ABORTED when the signal fires', async () => {
    const data = generate({ kind: 'zeros', size: 4 * MiB });
    const controller = new AbortController();
    const seen: number[] = [];
    const run = async () => {
      for await (const c of chunkStream(new Chunker(POL), piecesOf(data, 2), { signal: controller.signal })) {
        seen.push(c.length);
        controller.abort();
      }
    };
    await expect(run()).rejects.toSatisfy((e: unknown) => e instanceof CairnError && e.code === 'ABORTED');
    expect(seen).toEqual([512 * 1024]);
  });
});
