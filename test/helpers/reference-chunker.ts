// Test oracle: restic/chunker v0.4.0's Chunker.Next transcribed as
// literally as JavaScript allows (ring-buffer window, reset byte 1, the MinSize-64 skip, the
// same tables), slow and obviously correct. The 64-bit digest is kept as two numbers
// (hi: bits 32.., lo: bits 0..31) because BigInt per byte would take minutes on 40 MiB.

import { deg, polMod, type Pol } from '../../core/chunker/polynomial';

const WINDOW = 64;
const MIN = 512 * 1024;
const MAX = 8 * 1024 * 1024;
const SPLIT_MASK_LO = (1 << 20) - 1;

export interface ReferenceChunk {
  start: number;
  length: number;
  /** restic's Chunk.Cut: the digest after the chunk's last byte. */
  cut: bigint;
  /** The chunk ended at the end of the data, not at a cut point. */
  eof: boolean;
}

// lo halves are kept as signed 32-bit ints (JS bit operators' native type), hi halves are small.
interface Tables {
  outHi: Int32Array;
  outLo: Int32Array;
  modHi: Int32Array;
  modLo: Int32Array;
}

// chunker.go fillTables, with BigInt.
function fillTables(pol: Pol): Tables {
  const appendByte = (h: Pol, b: number): Pol => polMod((h << 8n) | BigInt(b), pol);
  const t: Tables = { outHi: new Int32Array(256), outLo: new Int32Array(256), modHi: new Int32Array(256), modLo: new Int32Array(256) };
  const k = BigInt(deg(pol));
  for (let b = 0; b < 256; b++) {
    let h = appendByte(0n, b);
    for (let i = 0; i < WINDOW - 1; i++) h = appendByte(h, 0);
    t.outHi[b] = Number(h >> 32n);
    t.outLo[b] = Number(h & 0xffffffffn);
    const m = polMod(BigInt(b) << k, pol) | (BigInt(b) << k);
    t.modHi[b] = Number(m >> 32n);
    t.modLo[b] = Number(m & 0xffffffffn);
  }
  return t;
}

/** (hi * 2^32 + (lo as unsigned)) >> n for a value below 2^61, as a number. */
function shr(hi: number, lo: number, n: number): number {
  if (n >= 32) return hi >>> (n - 32);
  if (n === 0) return hi * 0x1_0000_0000 + (lo >>> 0);
  return hi * 2 ** (32 - n) + (lo >>> n);
}

/** All chunks of one file, as restic would cut it with polynomial `pol`. */
export function referenceChunks(pol: Pol, data: Uint8Array): ReferenceChunk[] {
  const { outHi, outLo, modHi, modLo } = fillTables(pol);
  const polShift = deg(pol) - 8;
  const window = new Uint8Array(WINDOW);
  let wpos = 0;
  let hi = 0;
  let lo = 0;
  let count = 0;
  let start = 0;
  let pre = 0;

  // slide(b) and updateDigest, inlined by hand in the loop below as in chunker.go's Next.
  const slide = (b: number): void => {
    const out = window[wpos]!;
    window[wpos] = b;
    hi ^= outHi[out]!;
    lo ^= outLo[out]!;
    wpos = (wpos + 1) % WINDOW;
    const index = shr(hi, lo, polShift); // digest >> polShift
    hi = (hi << 8) | (lo >>> 24);
    lo = (lo << 8) | b;
    hi ^= modHi[index]!;
    lo ^= modLo[index]!;
  };
  const reset = (): void => {
    window.fill(0);
    wpos = 0;
    hi = 0;
    lo = 0;
    count = 0;
    slide(1);
    pre = MIN - WINDOW;
  };
  const digest = (): bigint => (BigInt(hi) << 32n) | BigInt(lo >>> 0);

  const chunks: ReferenceChunk[] = [];
  reset();
  let pos = 0;
  while (pos < data.length) {
    if (pre > 0) {
      // bytes appended to the chunk without hashing
      const n = Math.min(pre, data.length - pos);
      pre -= n;
      count += n;
      pos += n;
      continue;
    }
    const b = data[pos++]!;
    const out = window[wpos]!;
    window[wpos] = b;
    hi ^= outHi[out]!;
    lo ^= outLo[out]!;
    wpos = (wpos + 1) % WINDOW;
    const index = shr(hi, lo, polShift);
    hi = (hi << 8) | (lo >>> 24);
    lo = (lo << 8) | b;
    hi ^= modHi[index]!;
    lo ^= modLo[index]!;
    count++;
    if ((lo & SPLIT_MASK_LO) === 0 || count >= MAX) {
      if (count < MIN) continue;
      chunks.push({ start, length: count, cut: digest(), eof: false });
      start = pos;
      reset();
    }
  }
  if (count > 0) chunks.push({ start, length: count, cut: digest(), eof: true });
  return chunks;
}
