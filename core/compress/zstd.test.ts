import { beforeAll, describe, expect, it } from 'vitest';
import { readFile } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import { generate, prng, seededBytes } from '../../test/fixtures/chunker/generate';
import { isCairnError } from '../errors';
import { compress, decompress, initZstd, zstdMemoryBytes, zstdReady } from './zstd';
import { rleBomb } from '../../test/helpers/zstd-bomb';

// Count how far the wasm heap grows: corrupt input must not make it balloon (wasm memory is
// never given back). Installed before the module is instantiated.
let grownBytes = 0;
const realGrow = WebAssembly.Memory.prototype.grow;
WebAssembly.Memory.prototype.grow = function (this: WebAssembly.Memory, pages: number) {
  grownBytes += pages * 65536;
  return realGrow.call(this, pages);
};

const MiB = 1 << 20;
const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
const same = (a: Uint8Array, b: Uint8Array) => a.length === b.length && Buffer.compare(Buffer.from(a), Buffer.from(b)) === 0;

function errorOf(f: () => unknown): unknown {
  try {
    f();
  } catch (e) {
    return e;
  }
  return undefined;
}

/**
 * Rewrites a frame's header so it has no Frame_Content_Size (as klauspost writes small
 * frames, e.g. restic's snapshot files): FCS flag 0, not single-segment, and an explicit
 * Window_Descriptor big enough for the content. Blocks and checksum are copied verbatim.
 */
function withoutContentSize(frame: Uint8Array, contentSize: number): Uint8Array {
  const fhd = frame[4]!;
  const fcsFlag = fhd >> 6,
    single = (fhd >> 5) & 1,
    checksum = (fhd >> 2) & 1,
    dict = fhd & 3;
  expect(dict).toBe(0);
  const fcsBytes = [single ? 1 : 0, 2, 4, 8][fcsFlag]!;
  const headerEnd = 5 + (single ? 0 : 1) + fcsBytes;
  let windowDescriptor = single ? 0 : frame[5]!;
  if (single) {
    const exponent = Math.max(0, Math.ceil(Math.log2(Math.max(1, contentSize))) - 10);
    windowDescriptor = exponent << 3;
  }
  const out = new Uint8Array(6 + frame.length - headerEnd);
  out.set(frame.subarray(0, 4));
  out[4] = checksum << 2;
  out[5] = windowDescriptor;
  out.set(frame.subarray(headerEnd), 6);
  return out;
}

/** A frame header declaring `size` bytes in an 8-byte Frame_Content_Size, then one empty raw block. */
function frameDeclaring(size: bigint): Uint8Array {
  const out = new Uint8Array(4 + 1 + 8 + 3);
  out.set([0x28, 0xb5, 0x2f, 0xfd]);
  out[4] = (3 << 6) | (1 << 5); // FCS 8 bytes, single segment
  new DataView(out.buffer).setBigUint64(5, size, true);
  out.set([0x01, 0x00, 0x00], 13); // last block, raw, size 0
  return out;
}

describe('zstd binding', () => {
  it('refuses to run before initZstd, then loads once from the web build of zstd.wasm', async () => {
    expect(zstdReady()).toBe(false);
    expect(
      isCairnError(
        errorOf(() => compress(new Uint8Array(1))),
        'INTERNAL',
      ),
    ).toBe(true);
    let loads = 0;
    const wasm = async () => {
      loads++;
      return readFile('node_modules/@bokuweb/zstd-wasm/dist/web/zstd.wasm');
    };
    await Promise.all([initZstd(wasm), initZstd(wasm)]);
    await initZstd(wasm);
    expect(loads).toBe(1);
    expect(zstdReady()).toBe(true);
  });

  // 8 MiB (restic's largest chunk) of text, compressed once and shared by the tests below.
  let bigText: Uint8Array, bigTextFrame: Uint8Array;

  it('round-trips 8 MiB of text and 8 MiB of random bytes, with and without the expected size', () => {
    const before = zstdMemoryBytes();
    bigText = generate({ kind: 'text', seed: 1, size: 8 * MiB });
    bigTextFrame = compress(bigText);
    const random = seededBytes(2, 8 * MiB);
    for (const [plain, frame] of [
      [bigText, bigTextFrame],
      [random, compress(random)],
    ] as const) {
      expect([...frame.subarray(0, 4)]).toEqual([0x28, 0xb5, 0x2f, 0xfd]);
      expect(sha(decompress(frame))).toBe(sha(plain));
      expect(sha(decompress(frame, plain.length))).toBe(sha(plain));
    }
    expect(bigTextFrame.length).toBeLessThan(bigText.length / 2);
    // Inputs this large are worked on in an instance of their own: the shared one stays small.
    expect(zstdMemoryBytes()).toBe(before);
  });

  it('with view, a frame large enough for an instance of its own comes back uncopied; anything else in a buffer of its own', () => {
    const viewed = decompress(bigTextFrame, bigText.length, undefined, { view: true });
    expect(sha(viewed)).toBe(sha(bigText));
    expect(viewed.buffer.byteLength).toBeGreaterThan(viewed.length); // the instance's memory: no copy made
    // Each such frame has an instance of its own: a later one does not write over it.
    const random = seededBytes(5, 8 * MiB);
    expect(sha(decompress(compress(random), random.length, undefined, { view: true }))).toBe(sha(random));
    expect(sha(viewed)).toBe(sha(bigText));
    // The shared instance's memory is used again, so a small frame is always copied out; so is any frame without view.
    const small = generate({ kind: 'text', seed: 6, size: 64 << 10 });
    for (const out of [decompress(compress(small), small.length, undefined, { view: true }), decompress(bigTextFrame, bigText.length)]) {
      expect(out.byteOffset).toBe(0);
      expect(out.buffer.byteLength).toBe(out.length);
    }
  });

  it('with into, a result that fits is written into the given buffer; one that does not gets a buffer of its own', () => {
    const small = generate({ kind: 'text', seed: 7, size: 64 << 10 });
    const into = new Uint8Array(100 << 10);
    const got = decompress(compress(small), small.length, undefined, { into });
    expect(got.buffer).toBe(into.buffer);
    expect(got.byteOffset).toBe(0);
    expect(sha(got)).toBe(sha(small));
    const tooSmall = new Uint8Array(1024);
    const own = decompress(compress(small), small.length, undefined, { into: tooSmall });
    expect(own.buffer).not.toBe(tooSmall.buffer);
    expect(sha(own)).toBe(sha(small));
  });

  it('compresses text well, zeros extremely well, and random data not at all', () => {
    expect(compress(generate({ kind: 'text', seed: 3, size: MiB })).length).toBeLessThan(MiB / 2);
    expect(compress(new Uint8Array(8 * MiB)).length).toBeLessThan(2048);
    expect(compress(seededBytes(4, MiB)).length).toBeGreaterThanOrEqual(MiB);
  });

  it('round-trips tiny inputs, including empty', () => {
    for (let n = 0; n < 40; n++) {
      const plain = seededBytes(n, n);
      expect(same(decompress(compress(plain)), plain)).toBe(true);
      expect(same(decompress(compress(plain), n), plain)).toBe(true);
    }
  });

  it('higher levels do not produce bigger output on text', () => {
    const plain = generate({ kind: 'text', seed: 5, size: 64 * 1024 });
    const l1 = compress(plain, 1).length,
      l3 = compress(plain, 3).length,
      l19 = compress(plain, 19).length;
    expect(l19).toBeLessThanOrEqual(l3);
    expect(l3).toBeLessThanOrEqual(l1 + 64);
    expect(same(decompress(compress(plain, 19)), plain)).toBe(true);
  });

  describe('frames without a content size (restic unpacked files)', () => {
    it('decompresses them for small, large and highly expanding content', () => {
      const cases = [
        seededBytes(6, 100),
        generate({ kind: 'text', seed: 7, size: 300_000 }),
        bigText,
        new Uint8Array(8 * MiB), // ~1000× expansion: the output buffer must grow several times
      ];
      for (const plain of cases) {
        const frame = plain === bigText ? bigTextFrame : compress(plain);
        const stripped = withoutContentSize(frame, plain.length);
        expect(stripped[4]! >> 6, 'no FCS flag').toBe(0);
        expect((stripped[4]! >> 5) & 1, 'not single segment').toBe(0);
        expect(sha(decompress(stripped))).toBe(sha(plain));
        expect(sha(decompress(stripped, plain.length))).toBe(sha(plain));
      }
    });

    it('with an expected size, a frame that yields a different size fails', () => {
      const plain = generate({ kind: 'text', seed: 9, size: 10_000 });
      const stripped = withoutContentSize(compress(plain), plain.length);
      for (const wrong of [plain.length - 1, plain.length + 1, 1]) {
        expect(
          isCairnError(
            errorOf(() => decompress(stripped, wrong)),
            'DECOMPRESS_FAILED',
          ),
        ).toBe(true);
      }
    });
  });

  describe('bad input', () => {
    const plain = generate({ kind: 'text', seed: 10, size: 200_000 });
    let frame: Uint8Array, noSize: Uint8Array;
    beforeAll(() => {
      frame = compress(plain);
      noSize = withoutContentSize(frame, plain.length);
    });

    it('a declared size that differs from the expected one fails before decoding', () => {
      const e = errorOf(() => decompress(frame, plain.length + 1));
      expect(isCairnError(e, 'DECOMPRESS_FAILED')).toBe(true);
      expect((e as Error).message).toMatch(/declares 200000 bytes, expected 200001/);
    });

    it('a frame declaring more than 1 GiB is refused without allocating it', () => {
      const before = grownBytes;
      for (const size of [2n ** 31n, 2n ** 40n, 2n ** 63n]) {
        expect(
          isCairnError(
            errorOf(() => decompress(frameDeclaring(size))),
            'DECOMPRESS_FAILED',
          ),
        ).toBe(true);
      }
      expect(grownBytes - before).toBeLessThan(64 * MiB);
      // A small declared size with an empty block is simply wrong, not a crash.
      expect(
        isCairnError(
          errorOf(() => decompress(frameDeclaring(10n))),
          'DECOMPRESS_FAILED',
        ),
      ).toBe(true);
      expect(decompress(frameDeclaring(0n)).length).toBe(0);
    });

    it('every truncation fails with DECOMPRESS_FAILED, with or without a content size', () => {
      for (const f of [frame, noSize]) {
        for (const len of [0, 1, 3, 4, 5, 6, 7, 10, 50, f.length >> 1, f.length - 4, f.length - 1]) {
          const e = errorOf(() => decompress(f.subarray(0, len)));
          expect(isCairnError(e, 'DECOMPRESS_FAILED'), `truncated to ${len} of ${f.length}`).toBe(true);
        }
      }
    });

    it('garbage, a wrong magic number and trailing garbage fail', () => {
      const wrongMagic = frame.slice();
      wrongMagic[0] = 0x29;
      const trailing = new Uint8Array(frame.length + 5);
      trailing.set(frame);
      trailing.set([1, 2, 3, 4, 5], frame.length);
      for (const bad of [seededBytes(11, 1000), new Uint8Array(100), wrongMagic, trailing]) {
        expect(
          isCairnError(
            errorOf(() => decompress(bad)),
            'DECOMPRESS_FAILED',
          ),
        ).toBe(true);
        expect(
          isCairnError(
            errorOf(() => decompress(bad, plain.length)),
            'DECOMPRESS_FAILED',
          ),
        ).toBe(true);
      }
    });

    it('a reserved block type fails', () => {
      const f = noSize.slice();
      // First block header right after the 6-byte header: set Block_Type to 3 (reserved).
      f[6] = (f[6]! & ~0b110) | 0b110;
      expect(
        isCairnError(
          errorOf(() => decompress(f)),
          'DECOMPRESS_FAILED',
        ),
      ).toBe(true);
    });

    it('random corruption never crashes: DECOMPRESS_FAILED or (no checksum) different bytes', () => {
      const next = prng(12);
      let failed = 0;
      for (let i = 0; i < 300; i++) {
        const f = (i % 2 ? frame : noSize).slice();
        const at = 4 + (next() % (f.length - 4));
        f[at]! ^= 1 << (next() % 8);
        const e = errorOf(() => decompress(f));
        if (e === undefined) continue; // a flipped literal decodes to other bytes; the blob hash catches that
        expect(isCairnError(e, 'DECOMPRESS_FAILED'), String(e)).toBe(true);
        failed++;
      }
      expect(failed).toBeGreaterThan(0);
    });

    it('a bomb (1 GiB of zeros in 32 KiB) stops at the expected size or the limit, its memory bounded by them', () => {
      const undeclared = rleBomb(1 << 30, false);
      const declared = rleBomb(1 << 30, true);
      expect(undeclared.length).toBeLessThan(40_000);
      // Warm up (the heap may grow for legitimate work first), then measure.
      decompress(compress(new Uint8Array(8 * MiB)));
      const before = grownBytes;
      // A blob whose index says 12 bytes.
      let e = errorOf(() => decompress(undeclared, 12));
      expect(isCairnError(e, 'DECOMPRESS_FAILED') && e.message).toBe('zstd frame holds more than the 12 bytes expected');
      e = errorOf(() => decompress(declared, 12));
      expect(isCairnError(e, 'DECOMPRESS_FAILED') && e.message).toBe('zstd frame declares 1073741824 bytes, expected 12');
      // An unpacked file (no expected size) under a 4 MiB limit.
      e = errorOf(() => decompress(undeclared, undefined, 4 * MiB));
      expect(isCairnError(e, 'DECOMPRESS_FAILED') && e.message).toBe('zstd frame is corrupt or expands beyond 4194304 bytes');
      e = errorOf(() => decompress(declared, undefined, 4 * MiB));
      expect(isCairnError(e, 'DECOMPRESS_FAILED') && e.message).toBe('zstd frame declares 1073741824 bytes, more than the 4194304 allowed');
      // An index that claims near 2^32 bytes is refused before anything is allocated.
      e = errorOf(() => decompress(undeclared, 2 ** 32 - 16));
      expect(isCairnError(e, 'DECOMPRESS_FAILED') && e.message).toBe('expected 4294967280 bytes, more than the 1073741824 allowed');
      // Stopped early, not after expanding: the heap grew by far less than one bomb's output.
      expect(grownBytes - before).toBeLessThan(16 * MiB);
      // A real one of 16 MiB still decodes, with or without its size.
      expect(decompress(rleBomb(16 * MiB, false)).length).toBe(16 * MiB);
      expect(decompress(rleBomb(16 * MiB, false), 16 * MiB).length).toBe(16 * MiB);
    });

    it('corrupt frames do not grow the wasm heap towards 1 GiB', () => {
      // Warm up with the largest legitimate work done in this file, then measure.
      decompress(compress(new Uint8Array(8 * MiB)));
      const before = grownBytes;
      const next = prng(13);
      for (let i = 0; i < 50; i++) {
        const bad = i % 2 ? seededBytes(next(), 200) : noSize.subarray(0, 10 + (next() % (noSize.length - 20)));
        expect(
          isCairnError(
            errorOf(() => decompress(bad)),
            'DECOMPRESS_FAILED',
          ),
        ).toBe(true);
      }
      expect(grownBytes - before).toBeLessThan(16 * MiB);
      // And the codec still works afterwards.
      expect(same(decompress(noSize), plain)).toBe(true);
    });
  });
});
