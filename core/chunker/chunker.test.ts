import { describe, expect, it } from 'vitest';
import { generate, prng, seededBytes, type DataSpec } from '../../test/fixtures/chunker/generate';
import { CairnError } from '../errors';
import { Chunker, MAX_SIZE, MIN_SIZE } from './chunker';
import { randomPolynomial, type Pol } from './polynomial';
import { referenceChunks, type ReferenceChunk } from '../../test/helpers/reference-chunker';

const KiB = 1024;
const MiB = 1024 * KiB;
const RESTIC_TEST_POL = 0x3da3358b4dc173n; // restic/chunker's test polynomial

interface Cut {
  length: number;
  /** Fingerprint at the cut; undefined for the final chunk (no cut, restic's value is unspecified for us). */
  cut?: bigint;
}

/** Feeds `data` to the chunker in pieces of the given sizes (cycled); returns the chunks. */
function chunkInPieces(chunker: Chunker, data: Uint8Array, pieceSizes: (i: number, at: number) => number): Cut[] {
  chunker.reset();
  const out: Cut[] = [];
  let current = 0;
  for (let at = 0, i = 0; at < data.length; i++) {
    const piece = data.subarray(at, at + Math.max(1, pieceSizes(i, at)));
    at += piece.length;
    let rest = piece;
    while (rest.length > 0) {
      const n = chunker.scan(rest);
      if (n < 0) {
        current += rest.length;
        break;
      }
      out.push({ length: current + n, cut: chunker.lastCutFingerprint });
      current = 0;
      rest = rest.subarray(n);
    }
  }
  if (current > 0) out.push({ length: current });
  return out;
}

/** The reference's chunks in the same shape (no fingerprint on a final chunk that EOF ended). */
function expected(ref: ReferenceChunk[]): Cut[] {
  return ref.map((c) => (c.eof ? { length: c.length } : { length: c.length, cut: c.cut }));
}

const ONE_MIB = (): number => MiB;
const randomPieces = (seed: number, max: number) => {
  const next = prng(seed);
  return (): number => 1 + (next() % max);
};
/** Mostly large pieces, but 1-byte pieces for a stretch around each given offset. */
const bytewiseAround = (offsets: number[], seed: number) => {
  const next = prng(seed);
  return (_i: number, at: number): number => {
    for (const o of offsets) {
      if (at >= o - 150 && at < o + 150) return 1;
      if (at < o - 150) return Math.min(o - 150 - at, 1 + (next() % (300 * KiB)));
    }
    return 1 + (next() % (2 * MiB));
  };
};

function check(pol: Pol, spec: DataSpec): ReferenceChunk[] {
  const data = generate(spec);
  const ref = referenceChunks(pol, data);
  const want = expected(ref);
  const chunker = new Chunker(pol);
  expect(chunkInPieces(chunker, data, ONE_MIB)).toEqual(want);
  expect(chunkInPieces(chunker, data, () => data.length)).toEqual(want);
  expect(chunkInPieces(chunker, data, randomPieces(spec.size, 3 * MiB))).toEqual(want);
  expect(chunkInPieces(chunker, data, randomPieces(spec.size + 1, 70 * KiB))).toEqual(want);
  // byte-wise where hashing starts in the second chunk and across the first two cuts
  const first = ref[0]?.length ?? 0;
  const interesting = [first, first + MIN_SIZE - 1, first + (ref[1]?.length ?? 0)].filter((o) => o < data.length).sort((x, y) => x - y);
  expect(chunkInPieces(chunker, data, bytewiseAround(interesting, 5))).toEqual(want);
  return ref;
}

describe('Chunker (WASM) against the reference transcription of restic', () => {
  it('cuts all-zero input into exact 512 KiB chunks with fingerprint 0', () => {
    const data = new Uint8Array(5 * MIN_SIZE + 1000);
    const chunker = new Chunker(RESTIC_TEST_POL);
    const cuts = chunkInPieces(chunker, data, ONE_MIB);
    expect(cuts).toEqual([...Array.from({ length: 5 }, () => ({ length: MIN_SIZE, cut: 0n })), { length: 1000 }]);
    check(RESTIC_TEST_POL, { kind: 'zeros', size: 5 * MIN_SIZE + 1000 });
  });

  const sizes = [0, 1, 1000, MIN_SIZE - 1, MIN_SIZE, MIN_SIZE + 1, MAX_SIZE - 1, MAX_SIZE, MAX_SIZE + 1, 20 * MiB, 40 * MiB];
  it.each(sizes)('matches on %i random bytes', (size) => {
    const ref = check(RESTIC_TEST_POL, { kind: 'random', seed: 1000 + size, size });
    if (size >= 20 * MiB) expect(ref.length).toBeGreaterThan(8); // real content-defined cuts happened
  });

  it('matches on low-entropy text', () => {
    check(RESTIC_TEST_POL, { kind: 'text', seed: 7, size: 12 * MiB });
  });

  it('forces cuts at exactly 8 MiB when no fingerprint matches (periodic data)', () => {
    const ref = check(RESTIC_TEST_POL, { kind: 'periodic', seed: 3, size: 2 * MAX_SIZE + 12345, period: 64 });
    expect(ref.map((c) => c.length)).toEqual([MAX_SIZE, MAX_SIZE, 12345]);
  });

  it('is exact for other polynomials, including low degrees', () => {
    let counter = 0;
    const random53 = randomPolynomial((n) => seededBytes(4242 + counter++, n));
    for (const pol of [random53, 0x2482734cacca49n, 0x1000000000fn /* degree 40, reducible */, 0x80000009n /* x^31+x^3+1 */, 0x11dn /* degree 8 */]) {
      check(pol, { kind: 'random', seed: 99, size: 6 * MiB });
    }
  });

  it('restarts per file with reset() and keeps interleaved chunkers apart', () => {
    const a = generate({ kind: 'random', seed: 1, size: 5 * MiB });
    const b = generate({ kind: 'text', seed: 2, size: 5 * MiB });
    const polB = 0x2482734cacca49n;
    const wantA = expected(referenceChunks(RESTIC_TEST_POL, a));
    const wantB = expected(referenceChunks(polB, b));
    const ca = new Chunker(RESTIC_TEST_POL);
    const cb = new Chunker(polB);
    // a half-scanned file, then a reset: the next file must chunk as if from scratch
    ca.scan(b.subarray(0, 700 * KiB));
    const gotA: Cut[] = [];
    const gotB: Cut[] = [];
    ca.reset();
    cb.reset();
    const feed = (c: Chunker, data: Uint8Array, at: number, len: number, got: Cut[], pendingRef: { n: number }) => {
      let rest = data.subarray(at, Math.min(data.length, at + len));
      while (rest.length > 0) {
        const n = c.scan(rest);
        if (n < 0) {
          pendingRef.n += rest.length;
          return;
        }
        got.push({ length: pendingRef.n + n, cut: c.lastCutFingerprint });
        pendingRef.n = 0;
        rest = rest.subarray(n);
      }
    };
    const pa = { n: 0 };
    const pb = { n: 0 };
    for (let at = 0; at < 5 * MiB; at += 300 * KiB) {
      feed(ca, a, at, 300 * KiB, gotA, pa);
      feed(cb, b, at, 300 * KiB, gotB, pb);
    }
    if (pa.n) gotA.push({ length: pa.n });
    if (pb.n) gotB.push({ length: pb.n });
    expect(gotA).toEqual(wantA);
    expect(gotB).toEqual(wantB);
  });

  // The WASM scan runs four lanes (16 KiB apart) in lockstep; a hit seen first in a later lane
  // must lose to a later-seen hit in an earlier lane. Plant windows that are known to hit.
  it.each([
    ['degree 53 (constant-shift path)', RESTIC_TEST_POL],
    ['degree 31 (any-shift path)', 0x80000009n],
  ])('resolves hits in several lanes to the earliest, %s', (_name, pol) => {
    const hitWindow = (): Uint8Array => {
      const probe = generate({ kind: 'random', seed: 17, size: 8 * MiB });
      const first = referenceChunks(pol, probe).find((c) => !c.eof && (c.cut & 0xfffffn) === 0n)!;
      return probe.slice(first.length - 64, first.length);
    };
    const window = hitWindow();
    const firstScanned = MIN_SIZE - 1; // chunk offset of the first byte the scan looks at
    const lanes = (lane: number, index: number): number => firstScanned + lane * 16 * KiB + index; // hit position
    const cases: number[][] = [
      [lanes(3, 10), lanes(2, 20), lanes(1, 3000), lanes(0, 12000)], // lane 0 wins though seen last
      [lanes(3, 10), lanes(2, 20), lanes(1, 3000)], // lane 1 wins
      [lanes(2, 5000), lanes(3, 4999)], // lane 2 wins
      [lanes(1, 16 * KiB - 1), lanes(2, 63)], // the last index of lane 1 (windows must not overlap)
    ];
    for (const hits of cases) {
      let data: Uint8Array | undefined;
      for (let seed = 1; !data; seed++) {
        const filler = generate({ kind: 'random', seed, size: MIN_SIZE + 200 * KiB });
        if (referenceChunks(pol, filler).length === 1) data = filler; // no hit of its own
      }
      for (const h of hits) data.set(window, h - 63);
      const want = expected(referenceChunks(pol, data));
      expect(want[0]!.length).toBe(Math.min(...hits) + 1);
      const chunker = new Chunker(pol);
      expect(chunkInPieces(chunker, data, () => data.length)).toEqual(want);
      // and through the short-lane path: a first scan of 40000 bytes (four lanes of 10000)
      const short = hits.map((h) => h - lanes(0, 0)).every((x) => x < 40_000);
      if (short) expect(chunkInPieces(chunker, data, (i) => (i === 0 ? firstScanned + 40_000 : data.length))).toEqual(want);
    }
  });

  it('refuses polynomials restic cannot chunk with', () => {
    expect(() => new Chunker(1n << 54n)).toThrow(CairnError);
    expect(() => new Chunker(0x7fn)).toThrow(CairnError);
    expect(() => new Chunker(0n)).toThrow(CairnError);
  });

  it('tracks the pending size of the current chunk', () => {
    const c = new Chunker(RESTIC_TEST_POL);
    expect(c.scan(new Uint8Array(1000))).toBe(-1);
    expect(c.pending).toBe(1000);
    expect(c.scan(new Uint8Array(MIN_SIZE))).toBe(MIN_SIZE - 1000);
    expect(c.pending).toBe(0);
  });
});
